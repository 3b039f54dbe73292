"""The ``deepnb`` command's subcommands, on click: each parses, hands off to the Python API, and
turns a :class:`~deepnb.core.errors.DeepnbError` into a usage error (exit 2)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import click
from rich.console import Console

from deepnb.cli import definition, gate, tracing
from deepnb.cli.output import Progressing, summary_table
from deepnb.core.errors import DeepnbError
from deepnb.many.experiment import Experiment, experiment, load_experiment
from deepnb.many.scoring import named

MET, MISSED, USAGE, INTERRUPTED = 0, 1, 2, 130
STOP_SECONDS = 60.0
"""How long a stopped experiment gets to record the runs it stopped."""


@contextlib.contextmanager
def _usage() -> Iterator[None]:
    """A mistake in the command or the file: one line, exit 2."""
    try:
        yield
    except DeepnbError as exc:
        raise click.UsageError(str(exc)) from None


FAIL_UNDER = click.option(
    "--fail-under",
    "fail_under",
    multiple=True,
    metavar="SCORER=VALUE",
    help="Exit 1 unless every variant's mean SCORER is at least VALUE (repeatable).",
)
"""The gate both subcommands take (:mod:`deepnb.cli.gate`)."""
REPORT = click.option(
    "--report",
    "report_path",
    type=click.Path(path_type=Path),
    metavar="PATH.html",
    help="Write the experiment as one self-contained HTML file (also when a threshold is missed).",
)
"""The report both subcommands write (``Experiment.report``)."""
INSPECT = click.option(
    "--inspect",
    "inspect_path",
    type=click.Path(path_type=Path),
    metavar="FOLDER",
    help="Write the experiment as Inspect AI eval logs into FOLDER, one per variant (also when a "
    "threshold is missed).",
)
"""The Inspect logs both subcommands write (``Experiment.to_inspect``)."""


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="deepnb")
def main() -> None:
    """deepnb: run and judge deep agents' experiments from the command line."""


@main.command("eval")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--variants", help="Run only these variants of the file's (comma-separated labels).")
@click.option("-e", "--epochs", type=click.IntRange(min=1), help="Runs of each row by each variant.")
@click.option("-c", "--concurrency", type=click.IntRange(min=1), help="Runs at once in this process.")
@click.option("--log", type=click.Path(path_type=Path), help="The JSONL log; one that exists is resumed.")
@FAIL_UNDER
@REPORT
@INSPECT
@click.option("--auto-approve", is_flag=True, help="Approve every tool call a run would wait on.")
@click.option(
    "--trace",
    "trace_endpoint",
    metavar="URL",
    help="Send the runs' traces to this OTLP endpoint (else as the project's [trace] table says).",
)
@click.option("--trace-project", metavar="NAME", help="The project --trace files the spans under.")
@click.option("--no-trace", is_flag=True, help="Send no traces, whatever the project's [trace] says.")
def eval_command(
    file: Path,
    variants: str | None,
    epochs: int | None,
    concurrency: int | None,
    log: Path | None,
    fail_under: Sequence[str],
    report_path: Path | None,
    inspect_path: Path | None,
    auto_approve: bool,
    trace_endpoint: str | None,
    trace_project: str | None,
    no_trace: bool,
) -> None:
    """Run the experiment FILE defines (a .py file whose experiment() returns deepnb.experiment's
    arguments, or a .yaml / .toml file of the same keys), print its summary, and exit 0 when every
    threshold is met, 1 when one is missed or a run ended in error, 2 on a usage error (or a
    --report or --inspect that cannot be written). Ctrl-C stops it; the same command with the same --log
    resumes it."""
    console, errors = Console(), Console(stderr=True)
    with _usage():
        thresholds = gate.parse(fail_under)
        _check_report(report_path)
        _check_inspect(inspect_path)
        found = definition.read(file)
        found = _overridden(found, variants, epochs, concurrency, log, auto_approve)
        gate.check_names(thresholds, named(found.get("scorers", ())))
        tracing.choose(trace_endpoint, trace_project, no_trace)
        started = experiment(**definition.with_agent(found))
    errors.print(f"log: {started.path}", highlight=False, markup=False)
    progress = Progressing(started, errors)
    try:
        started.wait()
    except KeyboardInterrupt:
        progress.close()
        _stop(started, errors)
        _traced(errors)
        raise SystemExit(INTERRUPTED) from None
    finally:
        progress.close()
    _traced(errors)
    code = _report(started, thresholds, console, errors)
    code = _written(started, report_path, errors, code)
    raise SystemExit(_inspected(started, inspect_path, errors, code))


@main.command("view")
@click.argument("log", type=click.Path(path_type=Path))
@FAIL_UNDER
@REPORT
@INSPECT
def view_command(
    log: Path, fail_under: Sequence[str], report_path: Path | None, inspect_path: Path | None
) -> None:
    """Print the summary of the experiment log LOG (exit 1 when a --fail-under threshold is
    missed), with --report write it as one HTML file, and with --inspect as Inspect AI logs."""
    console, errors = Console(), Console(stderr=True)
    with _usage():
        thresholds = gate.parse(fail_under)
        _check_report(report_path)
        _check_inspect(inspect_path)
        reopened = load_experiment(log)
        gate.check_names(thresholds, reopened.scorer_names())
    code = _report(reopened, thresholds, console, errors)
    code = _written(reopened, report_path, errors, code)
    raise SystemExit(_inspected(reopened, inspect_path, errors, code))


def _check_report(path: Path | None) -> None:
    """A --report that could not be written is refused before anything runs."""
    if path is None:
        return
    if path.is_dir():
        raise DeepnbError(f"--report {path} is a folder: name the HTML file to write, e.g. report.html.")
    if not path.parent.is_dir():
        raise DeepnbError(f"--report {path}: the folder {path.parent} does not exist.")


def _check_inspect(path: Path | None) -> None:
    """An --inspect folder that could not be written is refused before anything runs."""
    if path is None:
        return
    if path.exists() and not path.is_dir():
        raise DeepnbError(f"--inspect {path} is a file: name the folder to write the Inspect logs into.")
    if not path.parent.is_dir():
        raise DeepnbError(f"--inspect {path}: the folder {path.parent} does not exist.")


def _inspected(done: Experiment, path: Path | None, errors: Console, code: int) -> int:
    """Write the Inspect logs, if asked; the exit code (logs that cannot be written: 2)."""
    if path is None:
        return code
    try:
        written = done.to_inspect(path)
    except DeepnbError as exc:
        errors.print(f"The Inspect logs are not written: {exc}", highlight=False, markup=False)
        return USAGE
    for each in written:
        errors.print(f"inspect: {each}", highlight=False, markup=False)
    return code


def _written(done: Experiment, path: Path | None, errors: Console, code: int) -> int:
    """Write the report, if asked; the exit code (a report that cannot be written: 2)."""
    if path is None:
        return code
    try:
        written = done.report(path)
    except DeepnbError as exc:
        errors.print(f"The report is not written: {exc}", highlight=False, markup=False)
        return USAGE
    errors.print(f"report: {written}", highlight=False, markup=False)
    return code


def _overridden(
    found: dict[str, Any],
    variants: str | None,
    epochs: int | None,
    concurrency: int | None,
    log: Path | None,
    auto_approve: bool,
) -> dict[str, Any]:
    """The file's arguments with the command line's options over them."""
    if variants is not None:
        chosen = [label.strip() for label in variants.split(",") if label.strip()]
        given = found.get("variants")
        if not isinstance(given, dict):
            raise DeepnbError("--variants picks among the file's variants, and the file gives none.")
        unknown = [label for label in chosen if label not in given]
        if unknown or not chosen:
            raise DeepnbError(
                f"--variants names no variant of the file: {', '.join(unknown) or repr(variants)} "
                f"(its variants: {', '.join(map(str, given))})."
            )
        found = {**found, "variants": {label: given[label] for label in chosen}}
        if found.get("baseline") not in chosen:
            found.pop("baseline", None)
    for key, value in (("epochs", epochs), ("concurrency", concurrency), ("log", log)):
        if value is not None:
            found = {**found, key: value}
    if auto_approve:
        found = {**found, "auto_approve": True}
    return found


def _traced(errors: Console) -> None:
    """Send the spans that wait and say where they went (nothing where tracing is off)."""
    line = tracing.said()
    if line:
        errors.print(line, highlight=False, markup=False, soft_wrap=True)


def _stop(started: Experiment, errors: Console) -> None:
    """Ctrl-C: stop every run, let the stopped ones be recorded, say how to resume."""
    errors.print("Stopping: the runs that ended stay in the log.", highlight=False)
    started.stop(reason="stopped from the command line")
    with contextlib.suppress(TimeoutError, KeyboardInterrupt):
        started.wait(STOP_SECONDS)
    done = sum(1 for r in started.records.values() if r.status == "done")
    errors.print(
        f"{done} of {len(started.runs)} runs done, saved in {started.path}. "
        f"Run the same command with --log {started.path} to run the rest.",
        highlight=False,
        markup=False,
    )


def _report(done: Experiment, thresholds: Sequence[gate.Threshold], console: Console, errors: Console) -> int:
    """Print the summary and what fails the gate; return the exit code."""
    waiting = done.waiting
    if waiting:
        for run in waiting:
            run.stop()
        errors.print(
            f"{len(waiting)} run(s) waited for approval and were stopped: pass --auto-approve, or "
            "leave out the tools that ask (interrupt_on).",
            highlight=False,
        )
    summary = done.summary()
    console.print(summary_table(summary, done.name))
    failed_runs = sum(v.errors for v in summary.variants)
    misses = gate.misses(thresholds, summary.variants)
    for miss in misses:
        errors.print(f"FAILED {miss.line()}", highlight=False, markup=False)
    if failed_runs:
        errors.print(f"{failed_runs} run(s) ended in error: see the log's error field.", highlight=False)
    code = MISSED if misses or failed_runs or waiting else MET
    if thresholds and code == MET:
        errors.print("Every threshold is met.", highlight=False)
    return code
