"""``exp.to_inspect(folder)``: one Inspect eval log per variant, named as Inspect lists them, whose
samples are the runs (id, epoch, input, target, answer, scores with their comments, a person's
grade marked human, tokens, time) and whose results are ``exp.summary()``'s means and Inspect's
stderr, computed here by hand; deepnb's own Inspect reader reads the rows back; a fresh log has the
shape of the committed one (``tests/data/inspect_export/``), which the real ``inspect_ai`` reads
(in ``.venv-inspect``, which make test installs: the same figures again through
``recompute_metrics``); no secret reaches a log."""

from __future__ import annotations

import json
import math
import os
import re
import statistics
import subprocess
from pathlib import Path
from typing import Any

import pytest

import deepnb
from deepnb.core.errors import DeepnbError
from tests.support.agents import scripted, unique
from tests.support.waiting import WAIT

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "data" / "inspect_export"
INSPECT_PYTHON = ROOT / ".venv-inspect" / "bin" / "python"
"""The real inspect-ai's reader, in a virtualenv of its own (make .venv-inspect/.installed)."""
NAMED = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\+00-00_quiz_[0-9a-f]{22}\.json$")
"""Inspect lists a .json log only under a name that starts with its time."""
ROWS = [
    {"input": "What is 2 + 2?", "target": "4", "id": "q1"},
    {
        "input": [
            {"role": "system", "content": "One word."},
            {"role": "user", "content": "Capital of France?"},
        ],
        "target": ["Paris", "paris"],
        "id": "q2",
    },
    {"input": "Largest planet?", "target": "Jupiter", "id": "q3"},
]
QUALITY = {"4": 0.9, "Paris": 0.8, "Mars": 0.1, "Jupiter": 0.7}


def model(answers: dict[str, str]) -> Any:
    return scripted({"main": [{"match": q, "turns": [{"text": a}]} for q, a in answers.items()]})


def quality(output: str) -> dict[str, Any]:
    return {"score": QUALITY[output], "comment": f"judged {output}"}


def quiz(tmp_path: Path) -> Any:
    """Two variants, three rows, two epochs, two scorers; one run graded by a person."""
    name = unique("inspect")
    deepnb.agent(name=name, model=model({".": "x"}))
    answers = {"2 \\+ 2": "4", "France": "Paris", "planet": "Mars"}
    experiment = deepnb.experiment(
        ROWS,
        agent=name,
        variants={"a": model(answers), "b": model({**answers, "planet": "Jupiter"})},
        scorers=[quality, deepnb.scorers.exact],
        epochs=2,
        baseline="a",
        name="quiz",
        log=tmp_path / "quiz.jsonl",
    ).wait(WAIT)
    return experiment.grade(2, "b", 1, 0.2, comment="not the largest by volume", scorer="quality")


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def metrics(log: dict[str, Any]) -> dict[str, dict[str, float]]:
    return {s["name"]: {k: m["value"] for k, m in s["metrics"].items()} for s in log["results"]["scores"]}


def flat(found: dict[str, dict[str, float]]) -> dict[str, float]:
    return {
        f"{scorer} {metric}": value for scorer, figures in found.items() for metric, value in figures.items()
    }


def by_hand(values: list[float]) -> dict[str, float]:
    """Inspect's accuracy (the mean) and stderr (sample standard deviation over root n)."""
    return {"accuracy": statistics.fmean(values), "stderr": statistics.stdev(values) / math.sqrt(len(values))}


def test_one_log_per_variant_with_every_run_and_the_summarys_figures(tmp_path: Path) -> None:
    experiment = quiz(tmp_path)
    paths = experiment.to_inspect(tmp_path / "logs")
    assert [p.parent for p in paths] == [tmp_path / "logs"] * 2
    assert all(NAMED.match(p.name) for p in paths), [p.name for p in paths]
    a, b = (load(p) for p in paths)

    # the variant is the log's task argument; the task, model, config and dataset are the experiment's
    assert [log["eval"]["task_args"] for log in (a, b)] == [{"variant": "a"}, {"variant": "b"}]
    for log in (a, b):
        spec = log["eval"]
        assert log["version"] == 2 and log["status"] == "success" and spec["task"] == "quiz"
        assert spec["config"] == {"epochs": 2, "epochs_reducer": ["mean"]}
        assert spec["dataset"]["sample_ids"] == ["q1", "q2", "q3"] and spec["dataset"]["samples"] == 3
        assert re.fullmatch(r"[0-9a-f]{64}", spec["metadata"]["deepnb"]["dataset_sha256"])
        assert [s["name"] for s in spec["scorers"]] == ["quality", "exact"]
        assert spec["model"] == "deepnb/ScriptedChatModel"
        assert [(s["id"], s["epoch"]) for s in log["samples"]] == [
            (i, e) for i in ("q1", "q2", "q3") for e in (1, 2)
        ]

    # the samples: input, target, answer, scores with their comments, tokens, time
    first = a["samples"][0]
    assert first["input"] == "What is 2 + 2?" and first["target"] == "4"
    assert first["output"]["completion"] == "4" and first["output"]["choices"][0]["message"]["content"] == "4"
    assert first["scores"]["quality"] == {
        "value": 0.9,
        "answer": "4",
        "explanation": "judged 4",
        "metadata": {},
    }
    assert first["scores"]["exact"]["value"] == 1.0
    usage = first["model_usage"]["deepnb/ScriptedChatModel"]
    record = experiment.records[(0, "a", 0)]
    assert usage["input_tokens"] == record.tokens_in and usage["output_tokens"] == record.tokens_out
    assert usage["total_tokens"] == record.tokens_in + record.tokens_out > 0
    assert first["total_time"] == record.latency
    chat = a["samples"][2]
    assert chat["input"] == ROWS[1]["input"] and chat["target"] == ["Paris", "paris"]
    graded = b["samples"][5]
    assert (graded["id"], graded["epoch"]) == ("q3", 2)
    assert graded["scores"]["quality"] == {
        "value": 0.2,
        "answer": "Jupiter",
        "explanation": "not the largest by volume",
        "metadata": {"human": True},
    }

    # the results, by hand: each row's epochs averaged, then Inspect's accuracy and stderr
    rows = {
        "a": {"quality": [0.9, 0.8, 0.1], "exact": [1.0, 1.0, 0.0]},  # exact: any of the targets
        "b": {"quality": [0.9, 0.8, (0.7 + 0.2) / 2], "exact": [1.0, 1.0, 1.0]},
    }
    for log, label in ((a, "a"), (b, "b")):
        found = metrics(log)
        for scorer, values in rows[label].items():
            expected = by_hand(values)
            assert found[scorer] == pytest.approx(expected), (label, scorer)
        results = log["results"]
        assert results["total_samples"] == 6 and results["completed_samples"] == 6
        assert [s["scored_samples"] for s in results["scores"]] == [3, 3]
        for reduction in log["reductions"]:
            assert [s["value"] for s in reduction["samples"]] == pytest.approx(
                rows[label][reduction["scorer"]]
            )
            assert [s["sample_id"] for s in reduction["samples"]] == ["q1", "q2", "q3"]
    # and the same as summary() says
    for log, variant in zip((a, b), experiment.summary().variants, strict=True):
        assert {s.scorer: s.mean for s in variant.scores} == pytest.approx(
            {name: m["accuracy"] for name, m in metrics(log).items()}
        )


def test_deepnbs_inspect_reader_reads_the_rows_back(tmp_path: Path) -> None:
    experiment = quiz(tmp_path)
    for path in experiment.to_inspect(tmp_path / "logs"):
        data = deepnb.dataset(path)
        assert data.format == "json (inspect)" and len(data) == 3
        assert [row.id for row in data] == ["q1", "q2", "q3"]
        assert [row.reference for row in data] == ["4", ["Paris", "paris"], "Jupiter"]
        assert data[0].given == "What is 2 + 2?"
        assert data[1].given == {"messages": ROWS[1]["input"]}


def test_a_reopened_experiment_writes_the_same_logs(tmp_path: Path) -> None:
    experiment = quiz(tmp_path)
    first = [load(p) for p in experiment.to_inspect(tmp_path / "live")]
    again = deepnb.load_experiment(experiment.path).to_inspect(tmp_path / "reopened")
    assert [p.name for p in again] == [p.name for p in experiment.to_inspect(tmp_path / "live")]
    assert [load(p) for p in again] == first


def shape(value: Any) -> Any:
    """A JSON value's structure: an object's keys and their values' shapes, a list's items'
    shapes (one of each), a leaf's JSON type (an integer and a float both a number)."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list):
        shapes = []
        for item in value:
            if shape(item) not in shapes:
                shapes.append(shape(item))
        return shapes
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return type(value).__name__


FREE = ("metadata", "packages", "model_usage", "usage", "params")
"""Objects whose keys are data (names of models, packages, deepnb's own fields), not the format."""


def skeleton(log: dict[str, Any]) -> Any:
    """The log's structure with the free-form objects' contents left out."""

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: ("…" if k in FREE else strip(v)) for k, v in value.items()}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return strip(shape(log))


def test_a_fresh_log_has_the_shape_of_the_committed_one(tmp_path: Path) -> None:
    experiment = quiz(tmp_path)
    fresh = [load(p) for p in experiment.to_inspect(tmp_path / "logs")]
    committed = [load(p) for p in sorted(FIXTURES.glob("*.json"))]
    assert len(committed) == 2 and all(NAMED.match(p.name) for p in FIXTURES.glob("*.json"))
    by_variant = {log["eval"]["task_args"]["variant"]: log for log in committed}
    for log in fresh:
        kept = by_variant[log["eval"]["task_args"]["variant"]]
        assert skeleton(log) == skeleton(kept)
        assert flat(metrics(log)) == pytest.approx(flat(metrics(kept)))


KEY = "sk-" + "A1b2C3d4E5f6G7h8J9k0"


def test_no_secret_reaches_a_log_and_a_failed_run_is_an_errored_sample(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INSPECT_EXPORT_TEST_API_KEY", "hunter2-hunter2")
    broken = scripted(
        {
            "main": [
                {"match": "boom", "turns": [{"error": "the model broke"}]},
                {"match": ".", "turns": [{"text": f"{KEY} hunter2-hunter2"}]},
            ]
        }
    )

    def picky(output: str) -> dict[str, Any]:
        raise ValueError(f"cannot judge {KEY}")

    name = unique("inspect")
    deepnb.agent(name=name, model=broken)
    rows = [{"input": f"say {KEY}", "target": KEY, "id": 1}, {"input": "boom", "target": "x", "id": 2}]
    experiment = deepnb.experiment(
        rows, agent=name, scorers={"picky": picky}, name=f"quiz {KEY}", log=tmp_path / "l.jsonl"
    ).wait(WAIT)
    (path,) = experiment.to_inspect(tmp_path / "logs")
    text = path.read_text(encoding="utf-8")
    assert KEY not in text and "hunter2-hunter2" not in text and KEY not in path.name
    log = load(path)
    said, failed = log["samples"]
    assert said["output"]["completion"] == "[redacted] [redacted]" and said["target"] == "[redacted]"
    assert said["scores"] == {} and "cannot judge [redacted]" in said["metadata"]["scorer_errors"]["picky"]
    assert "the model broke" in failed["error"]["message"]
    assert log["results"] == {"total_samples": 2, "completed_samples": 1, "scores": []}


def test_a_file_or_a_missing_parent_is_refused_in_one_line(tmp_path: Path) -> None:
    experiment = quiz(tmp_path)
    (tmp_path / "taken").write_text("x", encoding="utf-8")
    with pytest.raises(DeepnbError, match="that is a file; name a folder"):
        experiment.to_inspect(tmp_path / "taken")
    with pytest.raises(DeepnbError, match="does not exist"):
        experiment.to_inspect(tmp_path / "gone" / "logs")
    assert not (tmp_path / "gone").exists()


def _read_with_inspect(folder: Path, logs: list[Path]) -> dict[str, Any]:
    """What the real ``inspect_ai`` reads of ``logs`` (``tests/support/inspect_reader.py``)."""
    if not INSPECT_PYTHON.is_file():
        if os.environ.get("CI"):
            pytest.fail(f"no {INSPECT_PYTHON}: make test installs it (make .venv-inspect/.installed)")
        pytest.skip("inspect-ai's virtualenv is not installed: make .venv-inspect/.installed")
    reader = ROOT / "tests" / "support" / "inspect_reader.py"
    done = subprocess.run(
        [str(INSPECT_PYTHON), str(reader), str(folder), *map(str, logs)],
        capture_output=True,
        text=True,
        timeout=WAIT,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    read: dict[str, Any] = json.loads(done.stdout)
    return read


def test_inspects_own_reader_reads_the_logs_and_computes_the_same_figures(tmp_path: Path) -> None:
    experiment = quiz(tmp_path)
    written = experiment.to_inspect(tmp_path / "logs")
    fixtures = sorted(FIXTURES.glob("*.json"))
    read = _read_with_inspect(tmp_path / "logs", [*written, *fixtures])
    assert read["listed"] == sorted(p.name for p in written)
    summary = {v.variant: {s.scorer: s.mean for s in v.scores} for v in experiment.summary().variants}
    for path in [*written, *fixtures]:
        log = read["logs"][str(path)]
        assert not log["header_has_samples"] and log["task"] == "quiz"
        assert log["samples"] == 6 and log["epochs"] == 2
        ours, theirs = log["written"], log["recomputed"]
        assert set(theirs) == set(ours)
        for scorer, figures in ours.items():
            assert figures == pytest.approx(theirs[scorer])
        if path in written:
            assert {name: f["accuracy"] for name, f in ours.items()} == pytest.approx(summary[log["variant"]])


def test_a_runs_tool_calls_are_inspects_messages_and_a_function_reducer_is_named_in_the_metadata(
    tmp_path: Path,
) -> None:
    tools = scripted(
        {"main": [{"turns": [{"tool_calls": [{"name": "ls", "args": {"path": "/"}}]}, {"text": "listed"}]}]}
    )
    name = unique("inspect")
    deepnb.agent(name=name, model=tools)
    experiment = deepnb.experiment(
        [{"input": "look", "target": "listed"}],
        agent=name,
        scorers=[deepnb.scorers.exact],
        epochs=2,
        epochs_reducer=min,
        log=tmp_path / "l.jsonl",
    ).wait(WAIT)
    (path,) = experiment.to_inspect(tmp_path / "logs")
    log = load(path)
    first = log["samples"][0]
    assert [m["role"] for m in first["messages"]] == ["user", "assistant", "tool", "assistant"]
    call = first["messages"][1]["tool_calls"][0]
    assert (call["function"], call["arguments"], call["type"]) == ("ls", {"path": "/"}, "function")
    assert first["messages"][2]["tool_call_id"] == call["id"] and first["messages"][2]["function"] == "ls"
    # Inspect cannot run a function: its config names none, the metadata names it, results use it
    assert log["eval"]["config"] == {"epochs": 2}
    assert log["eval"]["metadata"]["deepnb"]["epochs_reducer"] == "function builtins.min"
    assert log["results"]["scores"][0]["reducer"] == "function"
    assert [s["id"] for s in log["samples"]] == [1, 1] and log["eval"]["dataset"]["sample_ids"] == [1]
