"""Waiting for a decision is not run time: the clock stops while a run waits, and the run's time
leaves the wait out (state, live progress and the static snapshot). One rule for every duration
(the run's, a subagent's, the timeline's) and one format for it and the wait said beside it."""

from __future__ import annotations

import pytest

from deepnb.core import events as ev
from deepnb.engine.state import RunState
from deepnb.engine.timeline import Timeline
from deepnb.engine.tree import build_tree
from deepnb.views.run.durations import duration_words, waited_words
from deepnb.views.run.snapshot import snapshot_html, snapshot_text
from deepnb.views.run.subagent_tree import tree_text
from deepnb.views.run.timeline_view import timeline_lines, timeline_payload

GATE = ev.InterruptRequest(
    "i1", {"action_requests": [{"name": "write_file", "args": {"file_path": "/a.md"}}], "review_configs": []}
)


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr("deepnb.engine.state.time.time", clock)
    return clock


def test_the_clock_stops_while_the_run_waits_and_the_wait_is_not_run_time(clock: Clock) -> None:
    state = RunState(agent="a", thread_id="t", started_at=clock.now)
    state.apply(ev.RunStarted("main", "t", "go"))
    clock.now += 10
    state.apply(ev.RunPaused("main", (GATE,)))
    assert state.progress()["elapsed"] == 10
    assert state.progress()["waiting_since"] == clock.now
    clock.now += 300  # five minutes before anyone decides
    assert state.progress()["elapsed"] == 10
    state.apply(ev.RunResumed("main", ("i1",)))
    assert state.progress()["waiting_since"] is None
    assert state.progress()["waited"] == 300
    clock.now += 5
    assert state.progress()["elapsed"] == 15
    state.apply(ev.RunFinished("main", "done"))
    clock.now += 100
    progress = state.progress()
    assert (progress["elapsed"], progress["waited"]) == (15, 300)
    data = state.to_json()
    assert "15.0 s (+ 5m 00s waiting)" in snapshot_html(data)
    assert "15.0 s (+ 5m 00s waiting)" in snapshot_text(data)


def test_a_run_stopped_while_it_waits_counts_the_wait_as_waited(clock: Clock) -> None:
    state = RunState(agent="a", thread_id="t", started_at=clock.now)
    state.apply(ev.RunStarted("main", "t", "go"))
    clock.now += 4
    state.apply(ev.RunPaused("main", (GATE,)))
    clock.now += 60
    state.apply(ev.RunCancelled("main", "stopped"))
    assert (state.progress()["elapsed"], state.progress()["waited"]) == (4, 60)


@pytest.mark.parametrize(
    ("decided_by", "waited"),
    [((True,), 0), ((False,), 3), ((True, False), 3)],
    ids=["rules alone", "a person", "a rule and a person"],
)
def test_a_pause_only_rules_answered_is_run_time_not_waiting(
    clock: Clock, decided_by: tuple[bool, ...], waited: float
) -> None:
    """``--auto-approve`` and "always approve" decide without anyone waiting: however long the
    pause between the request and the resume takes (a busy kernel), it is run time."""
    state = RunState(agent="a", thread_id="t", started_at=clock.now)
    state.apply(ev.RunStarted("main", "t", "go"))
    clock.now += 2
    state.apply(ev.RunPaused("main", (GATE,)))
    clock.now += 3
    for auto in decided_by:
        state.apply(ev.DecisionMade("main", "i1", 0, "write_file", {"type": "approve"}, auto))
    state.apply(ev.RunResumed("main", ("i1",)))
    clock.now += 1
    state.apply(ev.RunFinished("main", "done"))
    assert (state.progress()["elapsed"], state.progress()["waited"]) == (6 - waited, waited)
    assert ("waiting" in snapshot_text(state.to_json())) == bool(waited)


def test_a_run_that_never_waited_shows_no_waiting_time(clock: Clock) -> None:
    state = RunState(agent="a", thread_id="t", started_at=clock.now)
    state.apply(ev.RunStarted("main", "t", "go"))
    clock.now += 7
    state.apply(ev.RunFinished("main", "done"))
    assert state.progress()["waited"] == 0
    assert "waiting" not in snapshot_text(state.to_json())


WORDS = [  # the same cases as widgets/test/lib.test.ts ("says a duration as the snapshot does")
    (0, "0.0 s"),
    (4.46, "4.5 s"),
    (59.9, "59.9 s"),
    (65, "1m 05s"),
    (3599, "59m 59s"),
    (3725, "1h 02m"),
]


@pytest.mark.parametrize(("seconds", "words"), WORDS)
def test_one_format_for_a_duration(seconds: float, words: str) -> None:
    assert duration_words(seconds) == words
    assert waited_words(seconds) == (f" (+ {words} waiting)" if seconds else "")


def test_a_subagent_and_the_timeline_leave_the_wait_out_and_say_it_apart(clock: Clock) -> None:
    state = RunState(agent="a", thread_id="t", started_at=clock.now)
    timeline = Timeline()

    def apply(event: ev.Event) -> None:
        timeline.note(event, clock.now)
        state.apply(event)

    apply(ev.RunStarted("main", "t", "go"))
    apply(ev.ToolCallStarted("main", "c1", "task", {"description": "look", "subagent_type": "helper"}))
    apply(ev.SubagentStarted("main", "k1", "c1", "helper", "look", "main/helper"))
    clock.now += 4
    apply(ev.RunPaused("main", (GATE,)))
    clock.now += 300  # the run waits five minutes for a decision
    live = build_tree(
        state.to_json()["tree"],
        root_name="a",
        root_status="interrupted",
        now=clock.now,
        waited=state.waited_by(clock.now),
    )
    assert (live.children[0].duration, live.children[0].waited) == (4.0, 300.0)
    apply(ev.RunResumed("main", ("i1",)))
    clock.now += 2
    apply(ev.SubagentFinished("main", "k1", "main/helper"))
    apply(ev.ToolCallFinished("main", "c1", "task", "found it"))
    apply(ev.RunFinished("main", "done"))
    data = state.to_json()
    (node,) = build_tree(data["tree"], root_name="a", root_status="done").children
    assert (node.duration, node.waited) == (6.0, 300.0)  # its run time, the wait apart
    assert "6.0 s (+ 5m 00s waiting)" in tree_text(
        build_tree(data["tree"], root_name="a", root_status="done")
    )
    (task,) = [r for r in timeline.records() if r["name"] == "task"]
    assert (task["start"], task["end"], task["latency"]) == (0.0, 6.0, 6.0)  # run time, as the header's
    assert timeline.waited == 300.0 == data["progress"]["waited"]
    said = "over 6.00 s (+ 5m 00s waiting)"
    assert said in timeline_lines(timeline.records(), thread="t", waited=data["progress"]["waited"])[0]
    assert timeline_payload(timeline.records(), thread="t", waited=state.waited)["waited"] == 300.0
    assert "6.0 s (+ 5m 00s waiting)" in snapshot_text(data)  # the header: the same rule, the same words
