"""``deepnb.experiment``: a dataset by each variant, ``epochs`` times, at most ``concurrency``
runs at once over all variants, every run scored and logged; ``runs``, ``to_pandas``, the
datasets it reads, the variants it builds, and one line for every mistake (nothing runs)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import deepnb
from deepnb import scorers
from deepnb.core.errors import DeepnbError
from deepnb.many.datasets import load
from deepnb.many.record import RunRecord
from deepnb.session.local import Workbench
from deepnb.session.run import Run
from tests.support.agents import scripted, unique
from tests.support.timed_model import Meter, timed
from tests.support.waiting import WAIT, wait_until


def answers(extra: dict[str, str] | None = None) -> dict[str, Any]:
    """A script answering ``q<i>`` with ``a<i>`` (``q1`` wrongly), ``boom`` with a model failure."""
    table = {"q0": "a0", "q1": "wrong", "q2": "a2", **(extra or {})}
    conversations: list[dict[str, Any]] = [{"match": "boom", "turns": [{"error": "the model broke"}]}]
    conversations += [{"match": f"^{q}$", "turns": [{"text": a}]} for q, a in table.items()]
    conversations.append({"match": ".*", "turns": [{"text": "no idea"}]})
    return {"main": conversations}


ROWS = [{"q": "q0", "reference": "a0"}, {"q": "q1", "reference": "a1"}, {"q": "q2", "expected": "a2"}]


def an_agent(model: Any = None) -> str:
    name = unique("exp")
    deepnb.agent(name=name, model=model or scripted(answers()))
    return name


def test_wait_returns_once_the_listeners_heard_the_end(tmp_path: Path) -> None:
    """A listener told of the last scored run sees the experiment done, and ``wait()`` returns
    after it (the matrix a listener updates is final when the cell that waited ends)."""
    heard: list[bool] = []

    def slow_listener() -> None:
        if experiment.done and not heard:
            time.sleep(0.3)  # a display's update that takes a moment
            heard.append(True)

    name = an_agent(timed(answers(), turn_seconds=0.2, meter=Meter()))
    experiment = deepnb.experiment(
        ROWS[:2], agent=name, scorers=[scorers.exact], template="{q}", log=tmp_path / "l.jsonl"
    )
    experiment.subscribe(slow_listener)
    experiment.wait(WAIT)
    assert heard == [True]


def test_each_variant_runs_every_row_each_epoch_and_every_run_is_scored(tmp_path: Path) -> None:
    name = an_agent()
    experiment = deepnb.experiment(
        ROWS,
        agent=name,
        variants={"first": scripted(answers()), "second": {"model": scripted(answers({"q1": "a1"}))}},
        scorers=[scorers.exact, scorers.contains],
        epochs=2,
        template="{q}",
        log=tmp_path / "log.jsonl",
    )
    assert experiment.wait(WAIT) is experiment and experiment.done
    records = experiment.records
    assert len(records) == 3 * 2 * 2 and {r.status for r in records.values()} == {"done"}
    wrong = records[(1, "first", 0)]
    assert wrong.result == "wrong" and wrong.scores["exact"].score == 0.0
    assert records[(1, "second", 1)].scores["exact"].score == 1.0
    assert records[(2, "first", 1)].reference == "a2"  # `expected` is a reference too
    run = experiment.runs[(0, "first", 0)]
    assert isinstance(run, Run) and run.result == "a0"
    frame = experiment.to_pandas()
    assert len(frame) == 12
    first = frame.iloc[0].to_dict()
    assert first["q"] == "q0" and first["variant"] == "first" and first["epoch"] == 0
    assert first["output"] == "a0" and first["exact"] == 1.0 and first["contains"] == 1.0
    assert first["status"] == "done" and first["tokens_in"] > 0 and first["thread_id"] == run.thread_id
    assert first["cost"] is None and first["latency"] >= 0  # a scripted model has no price: unknown
    with pytest.raises(KeyError, match=r"\(row, variant, epoch\)"):
        experiment.runs[(0, "first")]  # type: ignore[index]
    with pytest.raises(KeyError, match="variants first, second"):
        experiment.runs[(0, "third", 0)]


def test_concurrency_bounds_the_runs_of_all_variants_together(tmp_path: Path) -> None:
    meter = Meter()
    name = an_agent(timed(answers(), turn_seconds=0.05, meter=meter))
    experiment = deepnb.experiment(
        [f"q{i % 3}" for i in range(6)],
        agent=name,
        variants={"a": "Answer briefly.", "b": "Answer at length."},  # system prompts
        concurrency=3,
        log=tmp_path / "log.jsonl",
    ).wait(WAIT)
    assert meter.turns == 12 and 1 < meter.most <= 3
    assert len(experiment.records) == 12


class _ServedElsewhere(Workbench):
    """A local workbench that says its runs execute on a server: how the experiment groups a
    connected agent's runs, without a server."""

    @property
    def served_by(self) -> str:
        return "http://127.0.0.1:9/served"


def test_served_runs_count_against_their_server_not_the_kernels_concurrency(tmp_path: Path) -> None:
    """Without ``concurrency``, 8 runs go at once in the kernel while a served agent's runs all go
    to its server (its job slots decide there); the head line says where each goes. Given,
    ``concurrency`` bounds both."""
    from deepnb.views.experiment.experiment_view import head_line

    here = deepnb.agent(name=unique("here"), model=timed(answers(), turn_seconds=3.0, meter=Meter()))
    served = _ServedElsewhere(unique("there"), here.graph, here.checkpointer, spec=here.spec, label="served")
    rows = [f"q{i % 3}" for i in range(12)]
    experiment = deepnb.experiment(rows, variants={"here": here, "there": served}, log=tmp_path / "log.jsonl")
    try:
        wait_until(lambda: sum(place.running for place in experiment.going()) >= 20, "20 runs going")
        going = {place.where: place for place in experiment.going()}
        assert (going[None].running, going[None].queued, going[None].limit) == (8, 4, 8)
        there = going["http://127.0.0.1:9/served"]
        assert (there.running, there.queued, there.limit) == (12, 0, 100)
        head = head_line(experiment)
        assert "8 running here (at most 8 at once), 4 queued" in head
        assert "12 sent to http://127.0.0.1:9/served (its job slots decide how many run at once)" in head
    finally:
        experiment.stop().wait(WAIT)
    assert experiment.going() == []

    bounded = deepnb.experiment(
        rows, variants={"there": served}, concurrency=5, log=tmp_path / "bounded.jsonl"
    )
    try:
        wait_until(lambda: bounded.going() and bounded.going()[0].running >= 5, "5 runs going")
        (place,) = bounded.going()
        assert (place.running, place.queued, place.limit) == (5, 7, 5)
    finally:
        bounded.stop().wait(WAIT)


def test_a_failing_run_and_a_raising_scorer_mark_their_cells_and_the_rest_goes_on(tmp_path: Path) -> None:
    def broken(output: str, reference: Any, run: RunRecord) -> bool:
        raise RuntimeError("scorer bug")

    name = an_agent()
    experiment = deepnb.experiment(
        ["q0", "boom", "q2"], agent=name, scorers=[broken, scorers.regex(r"^a\d$")], log=tmp_path / "l.jsonl"
    ).wait(WAIT)
    by_row = {key[0]: record for key, record in experiment.records.items()}
    assert by_row[1].status == "error" and "the model broke" in (by_row[1].error or "")
    assert by_row[0].scores["broken"].error == "RuntimeError: scorer bug"
    assert by_row[0].scores["broken"].score is None
    assert by_row[0].scores["regex(^a\\d$)"].score == 1.0 and by_row[2].scores["regex(^a\\d$)"].score == 1.0
    frame = experiment.to_pandas()
    assert "broken: RuntimeError: scorer bug" in frame.iloc[0]["scorer_errors"]


def test_variants_of_every_kind(tmp_path: Path) -> None:
    base = an_agent()
    other = an_agent(scripted(answers({"q0": "from the other agent"})))
    made = unique("made")

    def build() -> Any:
        return deepnb.agent(name=made, model=scripted(answers({"q0": "built"})))

    experiment = deepnb.experiment(
        ["q0"],
        agent=base,
        variants={
            "agent": other,  # a registered agent, run as it is
            "session": deepnb.get(base),
            "function": build,
            "options": {"system_prompt": "Be brief.", "model": scripted(answers({"q0": "options"}))},
        },
        log=tmp_path / "l.jsonl",
    ).wait(WAIT)
    results = {key[1]: record.result for key, record in experiment.records.items()}
    assert results == {
        "agent": "from the other agent",
        "session": "a0",
        "function": "built",
        "options": "options",
    }
    assert experiment.plan.variants["agent"] == f"agent {other}"


MISTAKES: list[tuple[Any, dict[str, Any], str]] = [
    ([], {}, "The dataset is empty"),
    ("q0", {}, "not one string"),
    (["q0"], {"epochs": 0}, "epochs must be"),
    (["q0"], {"concurrency": 0}, "concurrency must be"),
    (["q0"], {"scorers": ["exact"]}, "A scorer is a function"),
    (["q0"], {"scorers": [scorers.exact, scorers.exact]}, "Two scorers are named 'exact'"),
    (["q0"], {"variants": {"a": "nosuch"}}, "no registered agent"),
    (["q0"], {"variants": ["a"]}, "variants= is a dict"),
    (["q0"], {"variants": {"a": 3}}, "Variant 'a' is a int"),
    (["q0"], {"variants": {"a": lambda: 1}}, "not a workbench"),
    (["q0"], {"variants": {"a": {"bogus": 1}}}, "Unknown agent option"),
    (["q0"], {"baseline": "zz"}, "baseline='zz' is not a variant"),
    ([{"x": 1}], {"template": "{q}"}, "No row has a field 'q', which the template names"),
    ("missing.csv", {}, "No dataset file"),
    (["q0"], {"agent": "nosuch-agent"}, "No agent named 'nosuch-agent'"),
]


@pytest.mark.parametrize(("dataset", "options", "message"), MISTAKES)
def test_every_mistake_is_one_line_and_nothing_runs(
    dataset: Any, options: dict[str, Any], message: str, tmp_path: Path
) -> None:
    name = an_agent()
    log = tmp_path / "l.jsonl"
    with pytest.raises(DeepnbError, match=message):
        deepnb.experiment(dataset, **{"agent": name, "log": log, **options})
    assert deepnb.get(name).threads() == []
    assert not log.exists()


def test_datasets_of_every_shape(tmp_path: Path) -> None:
    (tmp_path / "d.csv").write_text("question,reference\nq0,a0\nq1,a1\n", encoding="utf-8")
    (tmp_path / "d.jsonl").write_text('{"question": "q0", "expected": "a0"}\n\n{"question": "q1"}\n', "utf-8")
    langsmith = [{"inputs": {"question": "q0"}, "outputs": {"answer": "a0"}}]

    class Example:  # a langsmith Example's shape
        def __init__(self) -> None:
            self.inputs = {"question": "q0", "context": "c"}
            self.outputs = {"answer": "a0"}

    shapes = {
        "strings": (["q0"], [("q0", None)]),
        "dicts": ([{"question": "q0", "reference": "a0"}], [("q0", "a0")]),
        "frame": (pd.DataFrame({"question": ["q0"], "expected": ["a0"]}), [("q0", "a0")]),
        "csv": (str(tmp_path / "d.csv"), [("q0", "a0"), ("q1", "a1")]),
        "jsonl": (tmp_path / "d.jsonl", [("q0", "a0"), ("q1", None)]),
        "langsmith": (langsmith, [("q0", {"answer": "a0"})]),
    }
    for label, (dataset, expected) in shapes.items():
        rows = load(dataset)
        assert [(row.given, row.reference) for row in rows] == expected, label
    rows = load([Example()], template="{question} ({context})")
    assert rows[0].given == "q0 (c)" and rows[0].reference == {"answer": "a0"}
    assert load([{"a": 1, "b": 2}])[0].given == {"a": 1, "b": 2}  # several fields, no template: graph input
    with pytest.raises(DeepnbError, match="only a reference"):
        load([{"reference": "a0"}])
    (tmp_path / "bad.jsonl").write_text("{not json\n", encoding="utf-8")
    with pytest.raises(DeepnbError, match="is not valid JSON"):
        load(tmp_path / "bad.jsonl")


def test_runs_waiting_for_approval_are_scored_once_decided(tmp_path: Path) -> None:
    name = unique("gated")
    deepnb.agent(name, "demo:approvals", interrupt_on={"write_file": True})
    experiment = deepnb.experiment(
        ["Plan the launch", "Plan the party"],
        agent=name,
        scorers={"answered": lambda output, reference: bool(output)},
        log=tmp_path / "l.jsonl",
    ).wait(WAIT)  # it does not wait for approvals
    keys = experiment.plan.all_keys()
    assert [experiment.status_of(key) for key in keys] == ["interrupted", "interrupted"]
    assert experiment.records == {} and len(experiment.waiting) == 2
    assert {request.name for request in experiment.pending} == {"write_file"}
    for _ in range(600):  # each decision lets its run go on, perhaps to another card
        if all(experiment.status_of(key) == "done" for key in keys):
            break
        if experiment.pending:
            experiment.pending[0].approve()
        time.sleep(0.1)
    experiment.wait(WAIT)
    assert [experiment.status_of(key) for key in keys] == ["done", "done"]
    assert all(record.scores["answered"].score == 1.0 for record in experiment.records.values())


def test_stop_logs_the_stopped_runs_and_the_same_log_runs_them_again(tmp_path: Path) -> None:
    meter = Meter()
    slow = timed(answers(), turn_seconds=30.0, meter=meter)
    name = an_agent()
    log = tmp_path / "l.jsonl"
    rows = ["q0", "q1", "q2", "q0"]
    experiment = deepnb.experiment(rows, agent=name, variants={"v": slow}, concurrency=2, log=log)
    wait_until(lambda: meter.now == 2, "both slots to think")
    experiment.stop().wait(WAIT)
    statuses = [experiment.status_of(key) for key in experiment.plan.all_keys()]
    assert statuses == ["cancelled"] * 4
    assert [r.status for r in experiment.records.values()] == ["cancelled", "cancelled"]  # the two that ran
    fast = timed(answers(), turn_seconds=0.0)  # the same model, answering at once
    resumed = deepnb.experiment(rows, agent=name, variants={"v": fast}, log=log).wait(WAIT)
    assert [r.result for r in sorted(resumed.records.values(), key=lambda r: r.row)] == [
        "a0",
        "wrong",
        "a2",
        "a0",
    ]
