"""``workbench.map``: one run per input on new threads, never more than ``concurrency`` at once,
results in input order, stop, failures that do not stop the others, templates, records and
DataFrames, runs waiting for approval; bad input is one line and starts nothing."""

from __future__ import annotations

import dataclasses
import sys
from typing import Any

import pytest
from pydantic import BaseModel

import deepnb
from deepnb.core.batch_inputs import BatchInput, prepare, template_fields
from deepnb.core.errors import DeepnbError
from deepnb.many.batch import Batch, output_fields
from tests.support.agents import scripted, unique
from tests.support.timed_model import Meter, timed
from tests.support.waiting import WAIT
from tests.unit.test_graph_input import joke_graph


def _answers(n: int) -> dict[str, Any]:
    """A script whose answer to ``q<i>`` is ``a<i>`` (and ``q<i>`` with ``fail`` fails)."""
    conversations: list[dict[str, Any]] = [{"match": "fail", "turns": [{"error": "the model broke"}]}]
    conversations += [{"match": f"^q{i}$", "turns": [{"text": f"a{i}\nmore"}]} for i in range(n)]
    return {"main": conversations}


def test_never_more_than_concurrency_runs_at_once_and_results_in_input_order() -> None:
    meter = Meter()
    bench = deepnb.agent(name=unique("batch"), model=timed(_answers(10), turn_seconds=0.05, meter=meter))
    mine = bench.new_thread()
    batch = bench.map([f"q{i}" for i in range(10)], concurrency=3)
    assert len(batch) == 10
    batch.wait(WAIT)
    assert meter.turns == 10 and 1 < meter.most <= 3
    assert batch.results == [f"a{i}\nmore" for i in range(10)]
    assert batch.statuses == ["done"] * 10 and batch.done
    threads = {run.thread_id for run in batch.runs if run is not None}
    assert len(threads) == 10  # each on a new thread
    assert set(threads) <= {t.thread_id for t in bench.threads()}
    assert bench.current_thread == mine  # the batch's threads are its own


def test_wait_returns_once_the_listeners_heard_the_end() -> None:
    """A display updated by a listener is up to date when ``wait()`` returns (a notebook saved
    right after keeps how the batch ended)."""
    import time

    from deepnb.many.batch import WHOLE

    heard: list[float] = []

    def slow_listener(index: int) -> None:
        if index == WHOLE:
            time.sleep(0.3)  # a display's update that takes a moment
            heard.append(time.monotonic())

    bench = deepnb.agent(name=unique("heard"), model=timed(_answers(2), turn_seconds=0.2, meter=Meter()))
    batch = bench.map(["q0", "q1"], concurrency=1)  # 0.4 s: the listener is in place well before
    batch.subscribe(slow_listener)
    batch.wait(WAIT)
    assert heard and heard[0] <= time.monotonic() and batch.done


def test_a_run_that_fails_does_not_stop_the_batch() -> None:
    bench = deepnb.agent(name=unique("fails"), model=scripted(_answers(4)))
    batch = bench.map(["q0", "please fail", "q2", "q3"], concurrency=1).wait(WAIT)
    assert batch.statuses == ["done", "error", "done", "done"]
    assert batch.results == ["a0\nmore", None, "a2\nmore", "a3\nmore"]
    records = batch.to_records()
    assert "the model broke" in records[1]["error"] and records[0]["error"] is None
    assert batch.counts()["error"] == 1


def test_stop_stops_the_running_and_drops_the_queued() -> None:
    bench = deepnb.agent(name=unique("stopped"), model=timed(_answers(6), turn_seconds=30.0))
    batch = bench.map([f"q{i}" for i in range(6)], concurrency=2)
    for _ in range(200):  # until both slots hold a run
        if sum(run is not None for run in batch.runs) == 2:
            break
        batch._settled.wait(0.05)
    batch.stop().wait(WAIT)
    assert batch.statuses == ["cancelled"] * 6
    assert [run is not None for run in batch.runs] == [True, True, False, False, False, False]
    assert batch.results == [None] * 6 and batch.done


def test_a_template_fills_each_record_and_records_keep_the_fields() -> None:
    bench = deepnb.agent(name=unique("templated"), model=scripted(_answers(3)))
    batch = bench.map([{"n": 0, "status": "x"}, {"n": 1, "status": "y"}], template="q{n}").wait(WAIT)
    assert [i.given for i in batch.inputs] == ["q0", "q1"]
    first = batch.to_records()[0]
    assert first["n"] == 0 and first["input_status"] == "x" and first["status"] == "done"
    assert first["result"] == "a0\nmore" and first["steps"] == 1 and first["tokens_out"] > 0
    assert first["thread_id"] == batch.runs[0].thread_id and first["elapsed"] >= 0


def test_dict_inputs_without_a_template_are_the_graphs_input_and_outputs_become_columns() -> None:
    bench = deepnb.attach(joke_graph(), unique("jokes"))
    batch = bench.map([{"topic": "cat"}, {"topic": "dog"}], concurrency=2).wait(WAIT)
    assert batch.statuses == ["done", "done"]
    records = batch.to_records()
    assert records[0]["topic"] == "cat" and records[0]["output_topic"] == "cat"
    assert records[1]["joke"].startswith("Why did the dog cross the road?")


class Verdict(BaseModel):
    score: int
    status: str


@dataclasses.dataclass
class Point:
    x: int
    y: int


def test_structured_outputs_flatten_into_columns() -> None:
    assert output_fields(Verdict(score=3, status="ok")) == {"score": 3, "status": "ok"}
    assert output_fields(Point(1, 2)) == {"x": 1, "y": 2}
    assert output_fields({"a": 1}) == {"a": 1}
    assert output_fields([1, 2]) == {"output": [1, 2]}
    assert output_fields(None) == {}


def test_to_records_prefixes_an_output_field_named_like_a_column(monkeypatch: pytest.MonkeyPatch) -> None:
    bench = deepnb.agent(name=unique("shaped"), model=scripted(_answers(2)))
    batch = bench.map(["q0", "q1"]).wait(WAIT)
    run = batch.runs[0]
    assert run is not None
    monkeypatch.setattr(run, "output", Verdict(score=9, status="great"))
    record = batch.to_records()[0]
    assert record["score"] == 9 and record["output_status"] == "great" and record["status"] == "done"
    assert "score" not in batch.to_records()[1]


def test_to_pandas_with_and_without_pandas(monkeypatch: pytest.MonkeyPatch) -> None:
    bench = deepnb.agent(name=unique("frames"), model=scripted(_answers(2)))
    batch = bench.map(["q0", "q1"]).wait(WAIT)
    frame = batch.to_pandas()
    assert list(frame["result"]) == ["a0\nmore", "a1\nmore"] and list(frame["input"]) == ["q0", "q1"]
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(DeepnbError) as info:
        batch.to_pandas()
    assert (
        str(info.value) == "batch.to_pandas() needs pandas: pip install pandas (or use batch.to_records())."
    )


def test_runs_waiting_for_approval_are_counted_and_their_requests_reachable() -> None:
    gated = {"write_file": True, "edit_file": True}
    bench = deepnb.agent(unique("gated"), "demo:approvals", interrupt_on=gated)
    batch = bench.map(["Plan the launch", "Plan the party"], concurrency=1).wait(WAIT)
    assert batch.counts()["interrupted"] == 2 and batch.done
    assert len(batch.waiting) == 2 and len(batch.pending) == 2
    assert {p.name for p in batch.pending} == {"write_file"}
    assert [row["waiting"] for row in map(batch.row, range(2))] == [True, True]
    batch.pending[0].approve()
    batch.stop().wait(WAIT)
    assert batch.counts()["interrupted"] == 0


@pytest.mark.parametrize(
    ("inputs", "options", "expected"),
    [
        ([], {}, "The batch is empty: give at least one input (a string or a dict)."),
        (
            ["a"],
            {"concurrency": 0},
            "concurrency must be a whole number of at least 1 (runs at once), not 0.",
        ),
        (["a"], {"concurrency": True}, "not True"),
        (
            [{"a": 1}, {"b": 2}],
            {"template": "{a}"},
            "Input 1 has no field 'a', which the template names as {a}",
        ),
        (["a", 2], {}, "Input 1 is a int: a batch's inputs are strings or dicts."),
        ("abc", {}, "not a single one: wrap it in [...]"),
        (["a"], {"template": "{a.__class__}"}, "is not a field name"),
        (
            ["a"],
            {"thread": "t1"},
            "A batch starts each run on a new thread of its own: thread= does not apply.",
        ),
        (["a"], {"at": 2}, "A batch starts each run on a new thread of its own: at= does not apply."),
        (["a"], {"color": "red"}, "A batch's runs take no option color= (they take: auto_approve, context)."),
    ],
)
def test_bad_input_is_one_line_and_starts_nothing(
    inputs: Any, options: dict[str, Any], expected: str
) -> None:
    bench = deepnb.agent(name=unique("bad"), model=scripted(_answers(1)))
    with pytest.raises(DeepnbError) as info:
        bench.map(inputs, **options)
    assert expected in str(info.value) and "\n" not in str(info.value)
    assert bench.threads() == []


def test_templates_name_plain_fields_and_strings_fill_input() -> None:
    assert template_fields("Say {a} and {b}, then {a}") == ["a", "b"]
    assert [i.given for i in prepare(["x", {"input": "y"}], template="<{input}>")] == ["<x>", "<y>"]
    assert template_fields("{{literal}} braces") == []


class _Unstartable:
    """A session none of whose runs start (a server that refuses them)."""

    selected_thread = None

    def __init__(self) -> None:
        self.tries: list[str] = []

    def start(self, given: Any, **options: Any) -> Any:
        self.tries.append(str(given))
        raise RuntimeError(f"cannot start {given}")


def test_an_input_that_fails_to_start_is_heard_before_the_next_one_starts() -> None:
    """So a listener (an experiment's ``fail_on_error=``) can stop the batch in time."""
    session = _Unstartable()
    batch = Batch(session, [BatchInput(i, {"input": f"q{i}"}, f"q{i}") for i in range(5)], concurrency=2)  # type: ignore[arg-type]
    heard: list[int] = []

    def listen(index: int) -> None:
        heard.append(index)
        if index == 1:
            batch.stop(reason="two failed")

    batch.subscribe(listen)
    batch.begin().wait(WAIT)
    assert session.tries == ["q0", "q1"]
    assert batch.statuses[:2] == ["error", "error"] and set(batch.statuses[2:]) == {"cancelled"}
