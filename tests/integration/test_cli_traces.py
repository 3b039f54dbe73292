"""``deepnb eval`` traced into a real collector (Arize Phoenix, ``tests/support/phoenix.py``): the
project's ``[trace]`` table once the project is trusted, ``--trace URL`` for one command,
``--no-trace`` for none, and a collector that is down, which costs the command its traces and
never its exit code. The command says on stderr how many spans went where; Phoenix holds exactly
that many, one experiment span per run with its row, variant and epoch."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import pytest

pytest.importorskip("openinference.instrumentation.langchain", reason="the trace extra is not installed")

from deepnb.core.trust import trust
from tests.integration.test_cli import deepnb_command, write_suite
from tests.support.phoenix import Phoenix, phoenix_fixture
from tests.support.servers import free_port

phoenix = phoenix_fixture()
RUNS = 12  # the suite's 6 rows by its 2 variants, one epoch
SENT = re.compile(r"^traces: (\d+) spans sent to (\S+), project '([^']+)'\.$", re.MULTILINE)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A deepnb home of the test's own (where trusted projects are recorded), for this process
    and the commands it starts."""
    folder = tmp_path / "home"
    monkeypatch.setenv("DEEPNB_HOME", str(folder))
    return folder


def runs_by_row(phoenix: Phoenix, project: str, count: int) -> dict[tuple[int, str, int], str]:
    spans = phoenix.wait_for(project, count)
    assert len(spans) == count  # all that the command said it sent, and no more
    runs = [s for s in spans if "experiment.row" in s["attributes"]]
    return {
        (
            s["attributes"]["experiment.row"],
            s["attributes"]["experiment.variant"],
            s["attributes"]["experiment.epoch"],
        ): s["attributes"]["experiment.name"]
        for s in runs
    }


def test_the_projects_trace_table_traces_the_command_once_the_project_is_trusted(
    phoenix: Phoenix, home: Path, tmp_path: Path
) -> None:
    project = f"cli-{uuid.uuid4().hex[:8]}"
    folder = tmp_path / "suite"
    folder.mkdir()
    write_suite(folder)
    (folder / "deepnb.toml").write_text(
        f'[trace]\nendpoint = "{phoenix.url}"\nproject = "{project}"\ndelay = 0.1\n'
    )

    waiting = deepnb_command("eval", "suite.yaml", "--log", "first.jsonl", cwd=folder)
    assert waiting.returncode == 0, waiting.stderr
    assert "traces: off. deepnb.toml [trace] waits for trust" in waiting.stderr
    assert not SENT.search(waiting.stderr)

    trust(folder)
    traced = deepnb_command("eval", "suite.yaml", "--log", "second.jsonl", cwd=folder)
    assert traced.returncode == 0, traced.stderr
    said = SENT.search(traced.stderr)
    assert said, traced.stderr
    count, endpoint, named = int(said.group(1)), said.group(2), said.group(3)
    assert (endpoint.startswith(phoenix.url), named) == (True, project)
    runs = runs_by_row(phoenix, project, count)
    assert len(runs) == RUNS and set(runs.values()) == {"capitals"}
    assert {variant for _, variant, _ in runs} == {"quick", "checked"}


def test_trace_sends_one_command_and_no_trace_sends_none(
    phoenix: Phoenix, home: Path, tmp_path: Path
) -> None:
    project = f"cli-{uuid.uuid4().hex[:8]}"
    folder = tmp_path / "suite"
    folder.mkdir()
    write_suite(folder)
    (folder / "deepnb.toml").write_text(f'[trace]\nendpoint = "{phoenix.url}"\nproject = "{project}-table"\n')
    trust(folder)

    off = deepnb_command("eval", "suite.yaml", "--log", "off.jsonl", "--no-trace", cwd=folder)
    assert "traces:" not in off.stderr, off.stderr
    traced = deepnb_command(
        "eval",
        "suite.yaml",
        "--log",
        "on.jsonl",
        "--trace",
        phoenix.url,
        "--trace-project",
        project,
        cwd=folder,
    )
    said = SENT.search(traced.stderr)
    assert said and said.group(3) == project, traced.stderr
    assert len(runs_by_row(phoenix, project, int(said.group(1)))) == RUNS
    projects = {p["name"] for p in phoenix.get("/v1/projects")["data"]}
    assert f"{project}-table" not in projects  # neither command used the table's project


def test_a_collector_that_is_down_costs_the_traces_not_the_exit_code(home: Path, tmp_path: Path) -> None:
    write_suite(tmp_path)
    down = f"http://127.0.0.1:{free_port()}"
    untraced = deepnb_command("eval", "suite.yaml", "--log", "plain.jsonl", cwd=tmp_path)
    traced = deepnb_command("eval", "suite.yaml", "--log", "down.jsonl", "--trace", down, cwd=tmp_path)
    assert traced.returncode == untraced.returncode, traced.stderr
    line = next(line for line in traced.stderr.splitlines() if line.startswith("traces:"))
    assert re.fullmatch(
        rf"traces: 0 spans sent to {re.escape(down)}\S*, project 'deepnb'; \d+ not sent.*\.", line
    ), line


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--no-trace", "--trace", "http://127.0.0.1:9"], "--no-trace sends no spans"),
        (["--trace-project", "p"], "--trace-project names the project of --trace URL"),
    ],
)
def test_trace_options_that_contradict_are_refused_before_any_run(
    tmp_path: Path, args: list[str], says: str
) -> None:
    write_suite(tmp_path)
    out = deepnb_command("eval", "suite.yaml", *args, cwd=tmp_path)
    assert out.returncode == 2 and says in out.stderr, out.stderr
    assert not (tmp_path / "capitals.jsonl").exists()
