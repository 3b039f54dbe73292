"""One step numbering: every place a run or a thread shows a step number (the header's words,
the timeline's records and bars, the transcript's fork chips, the static snapshot's HTML and text,
``history``'s rows) shows the numbers ``fork(thread, at)`` and ``--at`` take, and each of them
forks the thread where that step left it. The second run of a thread numbers on from the first."""

from __future__ import annotations

import re
from typing import Any

import pytest

import deepnb
from deepnb.core.errors import DeepnbError
from deepnb.engine.history import thread_step
from deepnb.views.compare_view import table_of
from deepnb.views.history_view import history_table
from deepnb.views.output import run_snapshot
from deepnb.views.run.steps import steps_words
from deepnb.views.run.timeline_view import step_links, timeline_payload
from tests.support.agent_server import counter_graph
from tests.support.waiting import WAIT
from tests.unit.conftest import unique

WORDS = [  # the same cases as widgets/test/steps.test.ts: the header says what the snapshot says
    ({"steps": 6, "step": 6, "first_step": 0}, "6 steps"),
    ({"steps": 1, "step": 1, "first_step": 0}, "1 step"),
    ({"steps": 6, "step": 12, "first_step": 6}, "6 steps (7–12)"),
    ({"steps": 1, "step": 7, "first_step": 6}, "1 step (7)"),
    ({"steps": 0, "step": 6, "first_step": 6}, "0 steps"),
    ({"steps": 14, "step": 3, "first_step": 0}, "3 steps · 14 model calls"),
    ({"steps": 2500, "step": 2400, "first_step": 0}, "2,400 steps · 2,500 model calls"),
    ({"steps": 4}, "4 steps"),
]


@pytest.mark.parametrize(("progress", "words"), WORDS)
def test_the_head_line_says_the_runs_steps(progress, words) -> None:
    assert steps_words(progress) == words


def _shown_steps(run) -> dict[str, list[int]]:
    """Every step number the run's views show, by where it is shown."""
    timeline = run.timeline
    snapshot = run_snapshot(run)
    html, text = snapshot["text/html"], snapshot["text/plain"]
    progress = run.state.progress()
    return {
        "header": list(range(progress["first_step"] + 1, progress["step"] + 1)),
        "timeline records": [r["step"] for r in timeline if r["step"] is not None],
        "timeline bars (live)": [
            b["step"] for b in timeline_payload(timeline, thread=run.thread_id)["bars"] if "step" in b
        ],
        "fork chips (live)": sorted(step_links(timeline).values()),
        "fork chips (snapshot)": [int(n) for n in re.findall(r'dnb-step-link"[^>]*>step (\d+)<', html)],
        "fork chips (text)": [int(n) for n in re.findall(r"^  step (\d+)$", text, re.M)],
        "timeline steps (snapshot)": [int(n) for n in re.findall(r'<li data-step="(\d+)"', html)],
        "fork commands (snapshot)": [int(n) for n in re.findall(r"--at (\d+)</code>", html)],
        "timeline steps (text)": [int(n) for n in re.findall(r"^  step (\d+) · ", text, re.M)],
        "fork commands (text)": [int(n) for n in re.findall(r"--at (\d+)$", text, re.M)],
    }


def test_every_step_number_shown_is_one_fork_takes() -> None:
    workbench = deepnb.agent(name=unique("onestep"), model="demo:quickstart")
    first = workbench.start("Write a brief about tide pools").wait(WAIT)
    second = workbench.start("And another", thread=first.thread_id).wait(WAIT)
    assert (first.status, second.status) == ("done", "done")
    history = workbench.history(first.thread_id)
    rows = [row[0] for row in history_table(history).rows]
    assert rows == list(history.fork_at) == list(range(1, 13))  # 12 steps: one row each
    assert steps_words(first.state.progress()) == "6 steps"
    assert steps_words(second.state.progress()) == "6 steps (7–12)"
    for run, own in ((first, list(range(1, 7))), (second, list(range(7, 13)))):
        for where, numbers in _shown_steps(run).items():
            assert sorted(set(numbers)) == own, (run.id, where, numbers)
    for step, checkpoint_id in history.fork_at.items():
        forked = workbench.fork(first.thread_id, step)
        copied = workbench.read_state(forked)
        at = workbench.graph.get_state(
            {"configurable": {"thread_id": first.thread_id, "checkpoint_id": checkpoint_id}}
        )
        assert (copied.values, copied.next) == (at.values, at.next), step
        assert thread_step(copied.values) == step  # the thread as that step left it
        assert next(c for c in history if c.checkpoint_id == checkpoint_id).waiting == ()


def test_a_run_on_a_fork_numbers_on_from_the_step_it_forked_at() -> None:
    workbench = deepnb.agent(name=unique("forkon"), model="demo:quickstart")
    first = workbench.start("Write a brief about tide pools").wait(WAIT)
    again = workbench.start("Now about kelp", thread=first.thread_id, at=3).wait(WAIT)
    assert again.status == "done", again.error
    steps = [r["step"] for r in again.timeline if r["step"] is not None]
    assert steps[0] == 4 and list(workbench.history(again.thread_id).fork_at)[-1] == steps[-1]
    assert steps_words(again.state.progress()).startswith(f"{len(steps)} steps (4–")


@pytest.mark.parametrize("at", [0, 13, -1, 99, "nope"])
def test_a_step_that_is_not_there_is_one_line_naming_the_range(at) -> None:
    workbench = deepnb.agent(name=unique("norange"), model="demo:quickstart")
    run = workbench.start("Write a brief about tide pools").wait(WAIT)
    with pytest.raises(DeepnbError) as refused:
        workbench.fork(run.thread_id, at)
    assert "its steps run from 1 to 6 (%deepagent history -t " in str(refused.value)
    assert "\n" not in str(refused.value)


def test_batches_and_comparisons_count_steps_as_the_run_head_line_does() -> None:
    """A run whose subagents made model calls of their own: the batch row, the comparison record
    and its table say the run's steps as its head line does, and its model calls beside them."""
    workbench = deepnb.agent(name=unique("manysteps"), model="demo:research")
    batch = workbench.map(["What do we know about life in tide pools?"]).wait(WAIT)
    run = batch.runs[0]
    own = run.state.thread_step - run.state.first_step
    assert run.state.steps > own > 0  # subagents called their models too
    assert steps_words(run.state.progress()) == f"{own} steps · {run.state.steps} model calls"
    row = batch.to_records()[0]
    assert (row["steps"], row["model_calls"]) == (own, run.state.steps)
    other = deepnb.agent(name=unique("fewsteps"), model="demo:quickstart")
    prompt = "What do we know about life in tide pools?"
    comparison = deepnb.compare(prompt, agents=[workbench.name, other.name]).wait(WAIT)
    record = comparison.to_records()[0]
    assert (record["steps"], record["model_calls"]) == (own, run.state.steps)
    table = table_of(comparison.table())
    steps_at, calls_at = table.columns.index("steps"), table.columns.index("model calls")
    assert (table.rows[0][steps_at], table.rows[0][calls_at]) == (own, run.state.steps)


def _counter_graph() -> Any:
    """A graph without messages: ``add`` then ``double``, two node updates a run (the one the
    test server serves as ``counter``)."""
    return counter_graph.counter()


def test_a_graph_without_messages_numbers_its_node_updates_across_runs_and_forks() -> None:
    """Each node update is a step, as the run view counts it, carried on across runs of the
    thread and into a fork: history, ``--at``, the head line and ``threads`` agree (LangGraph's
    own counter also counts each run's input and start, so it would not)."""
    workbench = deepnb.attach(_counter_graph(), name=unique("counter"))
    first = workbench.start({"n": 1}).wait(WAIT)
    second = workbench.start({"n": 5}, thread=first.thread_id).wait(WAIT)
    assert (first.status, second.status) == ("done", "done")
    assert steps_words(first.state.progress()) == "2 steps"
    assert steps_words(second.state.progress()) == "2 steps (3–4)"
    history = workbench.history(first.thread_id)
    assert [row.step for row in history.steps] == list(history.fork_at) == [1, 2, 3, 4]
    assert next(t for t in workbench.threads() if t.thread_id == first.thread_id).steps == 4
    forked = workbench.fork(first.thread_id, 3)  # after "add" of the second run
    copied = workbench.read_state(forked)
    assert (copied.values, copied.next) == ({"n": 6}, ("double",))
    assert list(workbench.history(forked).fork_at) == [3]
    again = workbench.start({"n": 0}, thread=forked).wait(WAIT)
    assert steps_words(again.state.progress()) == "2 steps (4–5)"
    assert list(workbench.history(forked).fork_at) == [3, 4, 5]
