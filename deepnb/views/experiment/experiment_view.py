"""An experiment as static HTML and text: the matrix (a row per dataset row, a column group per
variant: each cell its scores, status and the answer's first line, then its structured output's
fields), then a bar chart per scorer, the summary and the baseline comparison; a summary, a
comparison of two variants and a logged run on their own. Everything is escaped
and bounded: at most :data:`MAX_ROWS` rows and :data:`MAX_VARIANTS` variants are drawn, each
text clipped, and the page says how many more there are."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

from deepnb.core.text.figures import number, rests_on
from deepnb.core.text.markup import escape
from deepnb.many.experiment import Experiment, Going, Summary, VariantComparison
from deepnb.many.record import RunRecord
from deepnb.views.experiment.baseline import (
    answers_body,
    baseline_tables,
    comparison_body,
    comparison_lines,
    comparison_table,
)
from deepnb.views.experiment.charts import CHART_CSS, charts_html, charts_text, score_charts
from deepnb.views.experiment.fields import field_cells, field_label, field_names
from deepnb.views.experiment.logged_run import logged_head, logged_run_html
from deepnb.views.run.tokens import cost_words, token_pair
from deepnb.views.styles import styled

MAX_ROWS = 100
MAX_VARIANTS = 12
MAX_SCORERS = 8
LINE = 80
"""Characters of an answer's first line (and a row's prompt) a cell shows."""
CACHED_MARK = "⟲"
"""What a cell's status says of model calls answered from the cache (``cache=``)."""
MESSAGE_CHARS = 2_000
"""Characters of each message a logged run's transcript shows."""
MAX_MESSAGES = 60

_CSS = (
    # JupyterLab lays out rendered HTML's tables fixed, headers unwrapped: they overlapped and ran
    # out of the card; here each column takes its content's width, headers wrap, and a table wider
    # than the card scrolls inside it
    ".deepnb-experiment table{table-layout:auto;display:block;max-width:100%;overflow-x:auto}"
    ".deepnb-experiment th{white-space:normal;overflow-wrap:normal}"
    ".deepnb-experiment td,.deepnb-experiment th{vertical-align:top;text-align:left;padding:2px 8px}"
    ".deepnb-experiment .dnb-cell-status{font-size:11px;color:var(--jp-ui-font-color2,#666)}"
    ".deepnb-experiment [data-status=error] .dnb-cell-status{color:var(--jp-error-color1,#d32f2f)}"
    ".deepnb-experiment .dnb-scores{font-family:var(--jp-code-font-family,monospace);font-size:11.5px}"
    ".deepnb-experiment .dnb-field{font-size:11.5px;white-space:nowrap}"
    f"{CHART_CSS}"
)


def clip(text: Any, limit: int = LINE) -> str:
    """``text``'s first line, at most ``limit`` characters (an ellipsis says it was cut)."""
    value = "" if text is None else str(text)
    lines = value.strip().splitlines()
    first = lines[0] if lines else ""
    cut = len(first) > limit or len(lines) > 1
    return (first[: limit - 1] + "…") if len(first) > limit else (first + (" …" if cut else ""))


@dataclass(frozen=True)
class Axes:
    """What a matrix draws: its rows, variants and scorers (the first of each, within the
    bounds), the structured-output fields each variant's group has as columns, and how many
    fields it leaves out."""

    rows: list[int]
    variants: list[str]
    scorers: list[str]
    fields: list[str]
    more_fields: int = 0


def matrix_cell(experiment: Experiment, row: int, variant: str, axes: Axes) -> dict[str, Any]:
    """One matrix cell: its statuses over epochs (``status``, and ``kind``: the one to colour it
    by), each score's mean, the first answer, the scorers a person graded (``human``), with
    several epochs each one's status and scores (``epochs``: the cell's strip), and its
    structured output's ``fields`` (in ``axes.fields``' order)."""
    keys = [(row, variant, epoch) for epoch in range(experiment.plan.epochs)]
    statuses = [experiment.status_of(key) for key in keys]
    records = [r for r in (experiment.record_for(key) for key in keys) if r is not None]
    scores = {}
    for name in axes.scorers:
        values = [r.scores[name].score for r in records if name in r.scores]
        numbers = [v for v in values if v is not None]
        failed = any(r.scores[name].error for r in records if name in r.scores)
        scores[name] = (
            "error" if failed and not numbers else (number(statistics.fmean(numbers)) if numbers else "–")
        )
    answer = next((r.result or r.error for r in records if r.result or r.error), None)
    counted: dict[str, int] = {}
    for status in statuses:
        counted[status] = counted.get(status, 0) + 1
    said = ", ".join(s if n == 1 and len(statuses) == 1 else f"{n} {s}" for s, n in counted.items())
    cached = sum(r.cached for r in records)
    if cached:  # a small mark: model calls answered from the experiment's cache
        said += f" · {CACHED_MARK} {cached} cached"
    worst = (
        "error" if "error" in counted else ("done" if counted.get("done") == len(statuses) else statuses[0])
    )
    cell: dict[str, Any] = {"status": said, "kind": worst, "scores": scores, "answer": clip(answer)}
    graded = (name for r in records for name, s in r.scores.items() if s.human)
    human = sorted({name for name in graded if name in axes.scorers})
    if human:  # scores a person set (Experiment.grade): the cell says so
        cell["human"] = human
    if len(keys) > 1:  # the epoch strip: each epoch's status and scores, in axes.scorers' order
        by_epoch = {r.epoch: r for r in records}
        cell["epochs"] = [
            {"s": status, "sc": _epoch_scores(by_epoch.get(epoch), axes.scorers)}
            for epoch, status in enumerate(statuses)
        ]
    if axes.fields:
        cell["fields"] = field_cells(records, axes.fields)
    return cell


def _epoch_scores(record: RunRecord | None, scorers: list[str]) -> list[float | str | None]:
    """An epoch's score per scorer: a number, ``"error"`` where its scorer failed, else ``None``."""
    if record is None:
        return [None] * len(scorers)
    given = [record.scores.get(name) for name in scorers]
    return [
        None if s is None else (s.score if s.score is not None else ("error" if s.error else None))
        for s in given
    ]


def matrix_axes(experiment: Experiment) -> Axes:
    """What the matrix draws of ``experiment`` (see :class:`Axes`)."""
    rows = [row.index for row in experiment.plan.rows][:MAX_ROWS]
    variants = experiment.variants[:MAX_VARIANTS]
    scorers = experiment.scorer_names()[:MAX_SCORERS]
    fields, more_fields = field_names(experiment.records.values())
    return Axes(rows, variants, scorers, fields, more_fields)


def more_notes(experiment: Experiment, axes: Axes) -> list[str]:
    """What the matrix leaves out, a line for each axis past its bound."""
    notes = []
    rows, variants = len(experiment.plan.rows), len(experiment.variants)
    if rows > MAX_ROWS:
        notes.append(f"{rows - MAX_ROWS} more rows (experiment.to_pandas() has them all)")
    if variants > MAX_VARIANTS:
        notes.append(f"{variants - MAX_VARIANTS} more variants")
    if len(experiment.scorer_names()) > MAX_SCORERS:
        notes.append(f"{len(experiment.scorer_names()) - MAX_SCORERS} more scorers")
    if axes.more_fields:
        notes.append(f"{axes.more_fields} more output fields (each run's output has them all)")
    return notes


def head_line(experiment: Experiment) -> str:
    """The experiment in one line: its name, size, how far it got and its log."""
    records = experiment.records.values()
    done = sum(1 for r in records if r.status == "done")
    total = len(experiment.plan.all_keys())
    going = "" if experiment.done else "; " + going_text(experiment.going())
    failure = experiment.failure  # fail_on_error= reached: why it stopped
    return (
        f"Experiment {experiment.name!r}: {len(experiment.plan.rows)} rows × {len(experiment.variants)} "
        f"variants × {experiment.plan.epochs} epochs, {done}/{total} done{going} (log: {experiment.path})"
        + (f" — {failure}" if failure else "")
    )


def going_text(going: list[Going]) -> str:
    """Where the runs go now, in words: how many run in this kernel (of its limit) and on each
    server (whose job slots decide how many run at once), and how many wait for each."""
    parts = []
    for place in going:
        queued = f", {place.queued} queued" if place.queued else ""
        if place.where is None:
            parts.append(f"{place.running} running here (at most {place.limit} at once){queued}")
        else:
            parts.append(
                f"{place.running} sent to {place.where} (its job slots decide how many run at once){queued}"
            )
    return "; ".join(parts) or "running"


def experiment_text(experiment: Experiment) -> str:
    """``repr(experiment)``: the head line, the matrix (one line per row and variant), the
    charts, the summary and the baseline comparison."""
    axes = matrix_axes(experiment)
    labels = [field_label(name) for name in axes.fields]
    lines = [head_line(experiment)]
    given = {row.index: row.prompt for row in experiment.plan.rows}
    for row in axes.rows:
        lines.append(f"  row {row}: {clip(given[row], 60)}")
        for variant in axes.variants:
            cell = matrix_cell(experiment, row, variant, axes)
            scored = " ".join(f"{name}={value}" for name, value in cell["scores"].items())
            line = f"    {variant}: {cell['status']} {scored}" + (
                f" | {cell['answer']}" if cell["answer"] else ""
            )
            values = [
                f"{label}: {value}"
                for label, value in zip(labels, cell.get("fields", []), strict=False)
                if value
            ]
            lines.append((line + (" | " + " · ".join(values) if values else "")).rstrip())
    lines += [f"  … {note}" for note in more_notes(experiment, axes)]
    summary = experiment.summary()
    lines += ["", charts_text(score_charts(summary)), "", summary_text(summary)]
    for table in baseline_tables(experiment):
        lines += ["", *comparison_lines(table)]
    return "\n".join(lines)


def experiment_html(experiment: Experiment) -> str:
    """The experiment displayed: the matrix as an escaped HTML table (a column group per
    variant: its scores, then its output's fields), the charts, the summary and the baseline
    comparison."""
    axes = matrix_axes(experiment)
    given = {row.index: row.prompt for row in experiment.plan.rows}
    labels = [field_label(name) for name in axes.fields]
    head = "<th>row</th>" + "".join(
        f"<th>{escape(v)}</th>" + "".join(f"<th>{escape(v)} · {escape(label)}</th>" for label in labels)
        for v in axes.variants
    )
    body = []
    for row in axes.rows:
        cells = [f"<td><b>{row}</b> {escape(clip(given[row], 60))}</td>"]
        for variant in axes.variants:
            cell = matrix_cell(experiment, row, variant, axes)
            scored = " ".join(f"{escape(name)} {escape(value)}" for name, value in cell["scores"].items())
            cells.append(
                f'<td data-status="{escape(cell["kind"])}"><div class="dnb-scores">{scored}</div>'
                f'<div class="dnb-cell-status">{escape(cell["status"])}</div>'
                f"<div>{escape(cell['answer'])}</div></td>"
            )
            cells += [f'<td class="dnb-field">{escape(value)}</td>' for value in cell.get("fields", [])]
        body.append("<tr>" + "".join(cells) + "</tr>")
    more = "".join(f'<p class="dnb-muted">… {escape(note)}</p>' for note in more_notes(experiment, axes))
    summary = experiment.summary()
    compared = "".join(comparison_body(table) for table in baseline_tables(experiment))
    return styled(
        f'<div class="deepnb-snapshot deepnb-experiment" aria-label="Experiment">'
        f'<div class="dnb-head">{escape(head_line(experiment))}</div>'
        f'<table class="deepnb-table"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'
        f"{more}{charts_html(score_charts(summary))}{_summary_table(summary)}{compared}</div>",
        _CSS,
        cells=True,
    )


def experiment_bundle(experiment: Experiment) -> dict[str, Any]:
    """The experiment's mime bundle: the matrix as text and as HTML, whatever the front end."""
    return {"text/plain": experiment_text(experiment), "text/html": experiment_html(experiment)}


def summary_rows(summary: Summary) -> tuple[list[str], list[list[str]]]:
    """The summary as a table: its column names and a row of texts per variant."""
    columns = ["variant", "runs", "errors"]
    scorers = [s.scorer for s in summary.variants[0].scores][:MAX_SCORERS] if summary.variants else []
    for name in scorers:
        columns += [f"{name} mean [95%]", f"{name} n", f"{name} pass", f"{name} pass@{summary.epochs}"]
    columns += ["tokens in/out", "cost $", "latency p50/p95 s"]
    judged = any(cost is not None for cost in summary.scoring_costs.values())
    if judged:  # only where a judge's calls were priced
        columns.append("judge $")
    rows = []
    for v in summary.variants[:MAX_VARIANTS]:
        row = [v.variant, str(v.runs), str(v.errors)]
        for s in v.scores[:MAX_SCORERS]:
            interval = f" [{number(s.low)}, {number(s.high)}]" if s.low is not None else ""
            row += [
                f"{number(s.mean)}{interval}",
                rests_on(s.rows, s.n, summary.epochs),
                number(s.pass_rate),
                number(s.pass_at_k),
            ]
        cost = cost_words(v.cost, complete=not v.cost_unknown)
        row += [token_pair(v.tokens), cost, f"{number(v.latency_p50)}/{number(v.latency_p95)}"]
        if judged:
            row.append(cost_words(summary.scoring_costs.get(v.variant), complete=True))
        rows.append(row)
    return columns, rows


def summary_note(summary: Summary) -> str:
    """What the summary's means are, in one line: over the rows, of each row's reduced epochs,
    with intervals clustered by row."""
    each = "each row's score" if summary.epochs == 1 else f"each row's {summary.reducer} over its epochs"
    return f"Means over the rows of {each}; 95 % intervals clustered by row (n: what each rests on)."


def summary_text(summary: Summary) -> str:
    """``repr(experiment.summary())``: one line per variant, then what the means are."""
    columns, rows = summary_rows(summary)
    cells = [columns, *rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(columns))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells]
    return "\n".join([*lines, summary_note(summary)])


def _summary_table(summary: Summary) -> str:
    columns, rows = summary_rows(summary)
    head = "".join(f"<th>{escape(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    return (
        '<table class="deepnb-table" aria-label="Summary">'
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
        f'<p class="dnb-muted">{escape(summary_note(summary))}</p>'
    )


def summary_html(summary: Summary) -> str:
    return styled(
        f'<div class="deepnb-snapshot deepnb-experiment">{_summary_table(summary)}</div>', _CSS, cells=True
    )


def comparison_text(comparison: VariantComparison) -> str:
    """``repr(experiment.compare(a, b))``: a line per scorer, then the rows that differ most."""
    return "\n".join(comparison_lines(comparison_table(comparison)))


def comparison_html(comparison: VariantComparison) -> str:
    body = comparison_body(comparison_table(comparison)) + answers_body(comparison)
    return experiment_snapshot(body, "Comparison of variants")


def experiment_snapshot(body: str, label: str) -> str:
    """``body`` (escaped HTML) in an experiment's static card, styled inline, named ``label``."""
    return styled(
        f'<div class="deepnb-snapshot deepnb-experiment" aria-label="{escape(label)}">{body}</div>',
        _CSS,
        cells=True,
    )


def _message_lines(record: RunRecord) -> list[tuple[str, str]]:
    lines = []
    for message in record.messages[-MAX_MESSAGES:]:
        role = str(message.get("role") or "?")
        content = message.get("content")
        text = content if isinstance(content, str) else str(content or "")
        calls = [
            (call.get("function") or {}).get("name") or call.get("name")
            for call in message.get("tool_calls") or ()
        ]
        if calls:
            text = (text + " " if text else "") + "→ " + ", ".join(str(c) for c in calls)
        lines.append((role, text[:MESSAGE_CHARS]))
    return lines


def record_text(record: RunRecord) -> str:
    """``repr(record)``: a logged run's head line, scores and transcript (read-only)."""
    scores = " ".join(
        f"{n}={number(s.score)}" + (" (error)" if s.error else "") for n, s in record.scores.items()
    )
    lines = [f"{logged_head(record)} {scores}".rstrip()]
    if record.error:
        lines.append(f"  error: {clip(record.error, 300)}")
    lines += [f"  {role}: {text}" for role, text in _message_lines(record)]
    return "\n".join(lines)


def record_html(record: RunRecord) -> str:
    """A logged run's display: its head, scores, error and conversation (read-only)."""
    return styled(f'<div class="deepnb-snapshot deepnb-experiment">{logged_run_html(record)}</div>', _CSS)
