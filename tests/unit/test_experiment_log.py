"""An experiment's JSONL log: written as runs end, in the documented format, redacted of
secrets; ``deepnb.load_experiment`` reopens it read-only, ``deepnb.experiments()`` lists the
logs, and the same ``log=`` resumes an interrupted experiment, running only what is not done."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import deepnb
from deepnb import scorers
from deepnb.core.errors import DeepnbError
from deepnb.many.record import RunRecord
from tests.support.agents import scripted, unique
from tests.support.timed_model import Meter, timed
from tests.support.waiting import WAIT

SECRET = "q7Wm2Lp9Zx4Rt8Vn3Kd6-experiment"
CUT = '{"type": "run", "row": 0, "var'
HOSTILE = f'<script>alert("x")</script><img src=x onerror=alert(1)> key {SECRET}'


def script() -> dict[str, Any]:
    return {
        "main": [
            {"match": "^q0$", "turns": [{"text": "a0"}]},
            {"match": "^q1$", "turns": [{"text": "a1"}]},
            {"match": "hostile", "turns": [{"text": HOSTILE + "\nsecond line"}]},
        ]
    }


def lines(path: Path) -> list[dict[str, Any]]:
    """The log's lines read as any program would: JSON per line, a line cut short skipped."""
    found = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            found.append(json.loads(line))
        except ValueError:
            assert line == CUT
    return found


def test_the_log_has_the_documented_lines_and_reopens(tmp_path: Path) -> None:
    name = unique("logged")
    deepnb.agent(name=name, model=scripted(script()))
    log = tmp_path / "run.jsonl"
    experiment = deepnb.experiment(
        [{"q": "q0", "reference": "a0"}, {"q": "q1", "reference": "zz"}],
        agent=name,
        scorers=[scorers.exact],
        template="{q}",
        name="logged",
        epochs=2,
        baseline=None,
        log=log,
    ).wait(WAIT)
    assert experiment.path == log
    written = lines(log)
    header, rows, runs = written[0], written[1:3], written[3:]
    assert header["type"] == "experiment" and header["format"] == 2 and header["name"] == "logged"
    assert header["variants"] == {name: f"agent {name}"} and header["scorers"] == ["exact"]
    assert header["epochs"] == 2 and header["template"] == "{q}" and header["rows"] == 2
    assert rows[0] == {"type": "row", "row": 0, "inputs": {"q": "q0"}, "reference": "a0", "given": "q0"}
    assert len(runs) == 4 and {line["type"] for line in runs} == {"run"}
    first = next(line for line in runs if line["row"] == 0 and line["epoch"] == 0)
    assert first["status"] == "done" and first["result"] == "a0" and first["thread_id"]
    assert first["scores"] == {"exact": {"score": 1.0, "comment": None, "error": None}}
    assert [m["role"] for m in first["messages"]] == ["user", "assistant"]
    assert set(first) >= {"tokens_in", "tokens_out", "cost", "latency", "output", "error"}

    reopened = deepnb.load_experiment(log)
    assert reopened.records == experiment.records
    assert reopened.to_records() == experiment.to_records()
    assert reopened.done and reopened.wait() is reopened and reopened.stop() is reopened
    logged_run = reopened.runs[(0, name, 0)]
    assert isinstance(logged_run, RunRecord) and logged_run.result == "a0"
    assert "user: q0" in repr(logged_run) and "assistant: a0" in repr(logged_run)
    assert reopened.summary().to_records() == experiment.summary().to_records()


def test_experiments_lists_the_default_logs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    name = unique("listed")
    deepnb.agent(name=name, model=scripted(script()))
    first = deepnb.experiment(["q0"], agent=name, name="my run/1").wait(WAIT)
    second = deepnb.experiment(["q0", "q1"], agent=name, name="my run/1").wait(WAIT)
    assert first.path != second.path  # the same name in the same second: a log of its own
    assert first.path.parent == Path(".deepnb") / "experiments"
    assert first.path.name.startswith("my-run-1-") and first.path.suffix == ".jsonl"
    listed = deepnb.experiments()
    assert {item["path"] for item in listed} == {str(first.path), str(second.path)}
    assert {item["runs"] for item in listed} == {1, 2} and all(item["name"] == "my run/1" for item in listed)
    assert deepnb.experiments(tmp_path / "nowhere") == []


def test_an_interrupted_experiment_resumes_running_only_what_is_not_done(tmp_path: Path) -> None:
    meter = Meter()
    name = unique("resumed")
    deepnb.agent(name=name, model=timed(script(), turn_seconds=0.0, meter=meter))
    log = tmp_path / "l.jsonl"
    options: dict[str, Any] = {"agent": name, "scorers": [scorers.exact], "epochs": 2, "log": log}
    rows = [{"q": "q0", "reference": "a0"}, {"q": "q1", "reference": "a1"}]
    deepnb.experiment(rows, template="{q}", **options).wait(WAIT)
    assert meter.turns == 4
    # As an interruption leaves it: one run never logged, one stopped, one failed, a line cut short.
    kept = lines(log)
    runs = [line for line in kept if line["type"] == "run"]
    dropped, stopped, failed = runs[0], runs[1], runs[2]
    kept.remove(dropped)
    stopped.update(status="cancelled", result=None, scores={})
    failed.update(status="error", result=None, error="rate limited", scores={})
    log.write_text("".join(json.dumps(line) + "\n" for line in kept) + CUT, "utf-8")

    resumed = deepnb.experiment(rows, template="{q}", **options).wait(WAIT)
    assert meter.turns == 4 + 3  # the dropped, the stopped and the failed run again; the done one not
    assert len(resumed.records) == 4 and {r.status for r in resumed.records.values()} == {"done"}
    assert all(r.scores["exact"].score == 1.0 for r in resumed.records.values())
    assert (
        lines(log)[0]["type"] == "experiment"
        and sum(1 for line in lines(log) if line["type"] == "experiment") == 1
    )
    again = deepnb.experiment(rows, template="{q}", **options).wait(WAIT)
    assert meter.turns == 7 and again.records.keys() == resumed.records.keys()
    assert deepnb.load_experiment(log).records == resumed.records

    with pytest.raises(DeepnbError, match="row 0's fields differ"):
        deepnb.experiment([{"q": "q1"}, {"q": "q0"}], template="{q}", **options)


def test_a_hostile_answer_is_redacted_in_the_log_and_escaped_in_every_view(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACME_API_KEY", SECRET)
    name = unique("hostile")
    deepnb.agent(name=name, model=scripted(script()))
    log = tmp_path / "l.jsonl"
    experiment = deepnb.experiment(
        [{"q": f"hostile <b>row</b> {SECRET}", "reference": SECRET}],
        agent=name,
        variants={"<i>variant</i>": scripted(script())},
        scorers=[scorers.contains],
        template="{q}",
        log=log,
    ).wait(WAIT)
    text = log.read_text(encoding="utf-8")
    assert SECRET not in text and "<script>" in text  # a log holds data as it is, less the secret
    reopened = deepnb.load_experiment(log)
    record = reopened.runs[(0, "<i>variant</i>", 0)]
    assert isinstance(record, RunRecord)
    shown = [
        experiment._repr_html_(),
        repr(experiment),
        reopened._repr_html_(),
        repr(reopened),
        record._repr_html_(),
        repr(record),
        experiment.summary()._repr_html_(),
        repr(experiment.summary()),
        reopened.to_pandas().to_string(),  # read from the log
        json.dumps(experiment._repr_mimebundle_()),
    ]
    for output in shown:
        assert SECRET not in (output or "")
    for html in (shown[0], shown[2], shown[4], shown[6]):
        assert html is not None
        assert (
            "<script>" not in html
            and "<img" not in html
            and "<i>variant" not in html
            and "<b>row" not in html
        )
        assert "&lt;i&gt;variant&lt;/i&gt;" in html
    assert "&lt;script&gt;" in shown[0] and "&lt;script&gt;" in shown[4]
