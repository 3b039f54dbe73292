"""The live experiment matrix: filled in as runs end, at most 20 messages a second and none over
64 KB however many runs end at once (the charts, the comparison and the output's fields
included), a cell or a differing row of the comparison opening its run's live view, a forged
request refused in one line, structured-output fields as columns, and a display that ends on the
final static matrix."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import comm
import pytest
from pydantic import BaseModel

import deepnb
from deepnb import scorers
from deepnb.views.bounds import MESSAGE_LIMIT, size
from deepnb.views.experiment.experiment_live import ExperimentView, experiment_live_bundle
from deepnb.views.throttle import MAX_MESSAGES_PER_SECOND
from tests.support.agents import scripted, unique
from tests.support.experiment_views import growing_state, wait_judged
from tests.support.lab_sanitizer import unstyled
from tests.support.timed_model import timed
from tests.support.waiting import WAIT, wait_until

ROWS = [{"q": f"q{n}", "reference": f"a{n}"} for n in range(30)]


def _script(wrong: set[int]) -> dict[str, Any]:
    conversations = [
        {"match": f"^q{n}$", "turns": [{"text": "no" if n in wrong else f"a{n}"}]} for n in range(30)
    ]
    return {"main": conversations}


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[float, dict[str, Any]]]:
    """Every comm message any widget publishes, with when."""
    seen: list[tuple[float, dict[str, Any]]] = []

    def publish(self: Any, msg_type: str, data: Any = None, *args: Any, **keys: Any) -> None:
        seen.append((time.monotonic(), data or {}))

    monkeypatch.setattr(comm.DummyComm, "publish_msg", publish)
    return seen


def _experiment(tmp_path: Path) -> Any:
    name = unique("live")
    deepnb.agent(name=name, model=timed(_script(set()), turn_seconds=0.05))
    return deepnb.experiment(
        ROWS,
        agent=name,
        variants={
            "good": timed(_script(set()), turn_seconds=0.05),
            "bad": timed(_script({1, 2}), turn_seconds=0.05),
        },
        scorers=[scorers.exact],
        epochs=2,
        concurrency=16,
        template="{q}",
        log=tmp_path / "log.jsonl",
    )


@pytest.mark.volume
def test_the_matrix_fills_in_within_the_message_bounds(tmp_path: Path, sent: list[Any]) -> None:
    experiment = _experiment(tmp_path)
    view = ExperimentView(experiment)
    experiment.wait(WAIT)
    wait_until(lambda: not view.going and len(view.rows) == 30, "the matrix's last throttled flush")
    view.sync()
    mine = [(at, data) for at, data in sent if data.get("method") == "update" and "state" in data]
    assert view.messages >= 2 and mine
    assert max(len(json.dumps(data).encode()) for _, data in sent) <= MESSAGE_LIMIT
    times = [at for at, _ in mine]
    for start in times:
        assert sum(start <= at < start + 1.0 for at in times) <= MAX_MESSAGES_PER_SECOND
    assert view.variants == ["good", "bad"] and view.scorers == ["exact"] and not view.going
    assert len(view.rows) == 30 and view.rows[1]["prompt"] == "q1"
    good, bad = view.rows[1]["cells"]
    assert (good["v"], good["kind"], good["scores"], good["answer"]) == (
        "good",
        "done",
        {"exact": "1.00"},
        "a1",
    )
    assert (bad["v"], bad["scores"]) == ("bad", {"exact": "0.00"})
    wait_judged(view)
    assert view.summary["columns"][0] == "variant" and [r[0] for r in view.summary["rows"]] == ["good", "bad"]
    (chart,) = view.charts
    assert chart["scorer"] == "exact" and [bar["v"] for bar in chart["bars"]] == ["good", "bad"]
    assert chart["bars"][0]["value"].startswith("1.00") and chart["bars"][0]["bar"] == [0.0, 100.0]
    (comparison,) = view.comparisons  # two variants: bad against good
    assert (comparison["a"], comparison["b"]) == ("bad", "good")
    assert comparison["rows"][0][:5] == ["exact", "30", "0", "2", "28"]
    assert sorted(d["r"] for d in comparison["differences"]) == [1, 2]
    assert all(size(data) <= MESSAGE_LIMIT for _, data in sent)
    view.close()


def test_a_cell_opens_its_run_and_a_forged_request_is_refused(tmp_path: Path) -> None:
    experiment = _experiment(tmp_path)
    experiment.wait(120)
    view = ExperimentView(experiment)
    view._on_front_end_message(view, {"type": "open", "row": 3, "variant": "bad"}, [])
    assert view.selected == {"row": 3, "variant": "bad", "epoch": 0} and view.detail and view.notice == ""
    shown = view._detail_view
    assert shown is not None and shown.run is experiment.runs[(3, "bad", 0)]
    for forged in (
        {"type": "open", "row": 99, "variant": "bad"},
        {"type": "open", "row": 3, "variant": "<script>"},
        {"type": "open", "row": "3", "variant": "bad"},
        {"type": "eval", "code": "1"},
    ):
        view.notice = ""
        view._on_front_end_message(view, forged, [])
        assert view.notice and "\n" not in view.notice
    assert view.selected == {"row": 3, "variant": "bad", "epoch": 0}  # nothing changed
    view._on_front_end_message(view, {"type": "close"}, [])
    assert view.selected == {} and view.detail == ""
    wait_judged(view)  # a differing row of the comparison: its answer opens that run, as a cell does
    differing = view.comparisons[0]["differences"][0]
    view._on_front_end_message(view, {"type": "open", "row": differing["r"], "variant": "bad"}, [])
    assert view.selected == {"row": differing["r"], "variant": "bad", "epoch": 0} and view.notice == ""
    assert (
        view._detail_view is not None and view._detail_view.run is experiment.runs[(differing["r"], "bad", 0)]
    )
    view.close()


class Verdict(BaseModel):
    answer: str
    confidence: float
    note: str


def test_structured_output_fields_are_columns(tmp_path: Path) -> None:
    def answering(confidence: float) -> Any:
        turns = [
            {
                "match": f"^q{n}$",
                "turns": [
                    {
                        "tool_calls": [
                            {
                                "name": "Verdict",
                                "args": {
                                    "answer": f"a{n}",
                                    "confidence": confidence * n,
                                    "note": "<script>x</script>" + "z" * 200,
                                },
                            }
                        ]
                    }
                ],
            }
            for n in range(3)
        ]
        return {"model": scripted({"main": turns}), "response_format": Verdict}

    name = unique("fields")
    deepnb.agent(name=name, model=scripted({"main": [{"turns": [{"text": "?"}]}]}))
    experiment = deepnb.experiment(
        ROWS[:3],
        agent=name,
        variants={"sure": answering(0.5), "unsure": answering(0.1)},
        scorers={"confident": lambda output, reference, run: run.output["confidence"]},
        template="{q}",
        log=tmp_path / "log.jsonl",
    )
    experiment.wait(120)
    view = ExperimentView(experiment)
    assert view.fields == ["answer", "confidence", "note"]
    sure = view.rows[2]["cells"][0]
    assert sure["v"] == "sure" and sure["fields"][:2] == ["a2", "1.0"]
    assert sure["fields"][2].startswith("<script>x</script>zz") and len(sure["fields"][2]) == 40
    wait_judged(view)  # the comparison's differing rows show a structured answer by its fields
    top = view.comparisons[0]["differences"][0]
    assert (top["r"], top["a"][:26], top["b"][:26]) == (
        2,
        "answer: a2 · confidence: 0",
        "answer: a2 · confidence: 1",
    )
    filtered = {"failures": False, "scorer": "", "variant": "", "status": "", "text": "A2"}
    view._on_front_end_message(view, {"type": "filter", **filtered}, [])
    view.sync()  # the kernel's text filter looks in the structured output too
    assert [row["r"] for row in view.rows] == [2] and view.notice == ""
    html = unstyled(experiment_live_bundle(experiment)["text/html"])
    assert "<th>unsure · confidence</th>" in html and "&lt;script&gt;" in html and "<script>" not in html
    view.close()


@pytest.mark.volume
def test_every_state_fits_one_message_however_large_the_experiment(tmp_path: Path) -> None:
    """A log of 150 rows × 14 variants × 8 scorers, each run with a wide structured output and a
    long answer: the whole state (rows, summary, charts, comparisons) fits one message."""
    variants = [f"variant-{'v' * 30}-{i}" for i in range(14)]
    lines: list[dict[str, Any]] = [
        {"type": "experiment", "format": 1, "name": "huge", "variants": {v: "" for v in variants}}
        | {"scorers": [f"s{k}" for k in range(8)], "epochs": 1, "baseline": variants[0], "rows": 150}
    ]
    for row in range(150):
        lines.append(
            {"type": "row", "row": row, "inputs": {"q": "é" * 300}, "reference": "r", "given": "é" * 300}
        )
        for i, variant in enumerate(variants):
            scores = {f"s{k}": {"score": ((row * i + k) % 7) / 6} for k in range(8)}
            output = {f"{'f' * 40}{n}": "ü" * 400 for n in range(12)}
            lines.append(
                {"type": "run", "row": row, "variant": variant, "epoch": 0, "status": "done"}
                | {"result": "ß" * 3_000, "output": output, "scores": scores}
            )
    path = tmp_path / "huge.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    view = ExperimentView(deepnb.load_experiment(path))
    wait_judged(view)
    assert len(view.charts) == 8 and len(view.comparisons) == 4 and len(view.fields) == 6
    state = growing_state(view)
    assert size(state) <= MESSAGE_LIMIT  # as the kernel sends it: JSON, UTF-8 (jupyter_client's packer)
    assert 0 < len(view.rows) < 100  # the rows that fit, and the pager says of how many
    assert view.window == {"offset": 0, "shown": len(view.rows), "total": 150, "page": 100}
    view.close()


def test_the_display_carries_a_static_matrix(tmp_path: Path) -> None:
    experiment = _experiment(tmp_path)
    experiment.wait(120)
    bundle = experiment_live_bundle(experiment)
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert 'aria-label="Experiment"' in bundle["text/html"] and "Experiment" in bundle["text/plain"]


def test_a_logged_cell_opens_its_record_read_only(tmp_path: Path) -> None:
    """A reopened experiment's cell opens its run as the log keeps it: head, scores, the
    conversation with its tool calls (OpenAI's shape, as the log writes them), all escaped and
    within one message however long; a queued cell says so; close clears it."""
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "search", "arguments": '{"q": "<b>tides</b>"}'},
    }
    messages = [
        {"role": "user", "content": "Find <script>alert(1)</script>"},
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {
            "role": "tool",
            "name": "search",
            "tool_call_id": "c1",
            "content": "Bearer abcdefghijklmnopqrstuvwxyz012345",
        },
        {"role": "assistant", "content": "Tide pools **teem**. " + "x" * 200_000},
    ]
    lines = [
        {
            "type": "experiment",
            "format": 1,
            "name": "kept",
            "variants": {"a": "", "b": ""},
            "scorers": ["exact"],
        }
        | {"epochs": 1, "rows": 2},
        {"type": "row", "row": 0, "inputs": {"q": "q0"}, "reference": "r", "given": "q0"},
        {"type": "row", "row": 1, "inputs": {"q": "q1"}, "reference": "r", "given": "q1"},
        {"type": "run", "row": 0, "variant": "a", "epoch": 0, "status": "done", "result": "Tide pools teem."}
        | {
            "messages": messages,
            "scores": {"exact": {"score": 0.0, "comment": "not <i>it</i>"}},
            "latency": 1.5,
        },
    ]
    path = tmp_path / "kept.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    view = ExperimentView(deepnb.load_experiment(path))
    view._on_front_end_message(view, {"type": "open", "row": 0, "variant": "a"}, [])
    assert view.selected == {"row": 0, "variant": "a", "epoch": 0} and view.notice == "" and view.detail == ""
    shown = view.logged
    assert "Run (row 0, a, epoch 0): done" in shown and "read-only" in shown
    assert "exact: 0.00 — not &lt;i&gt;it&lt;/i&gt;" in shown
    assert "search(" in shown and "&lt;b&gt;tides&lt;/b&gt;" in shown  # the call, its arguments parsed
    assert "&lt;script&gt;" in shown and "<script" not in shown and "<b>" not in shown and "<i>" not in shown
    assert "abcdefghijklmnopqrstuvwxyz012345" not in shown and "<strong>teem</strong>" in shown
    assert size({"logged": shown}) <= MESSAGE_LIMIT
    view._on_front_end_message(view, {"type": "open", "row": 1, "variant": "b"}, [])
    assert "queued" in view.notice and view.logged == shown  # nothing ran it: the open one stays
    view._on_front_end_message(view, {"type": "close"}, [])
    assert view.selected == {} and view.logged == "" and view.detail == ""
    view.close()
