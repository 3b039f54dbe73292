"""Waiting for a decision is not run time: the clock stops while a run waits, and the run's time
leaves the wait out (state, live progress and the static snapshot)."""

from __future__ import annotations

import pytest

from deepnb.core import events as ev
from deepnb.engine.state import RunState
from deepnb.views.run.snapshot import snapshot_html, snapshot_text

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
    assert "15.0 s (+ 300.0 s waiting)" in snapshot_html(data)
    assert "15.0 s (+ 300.0 s waiting)" in snapshot_text(data)


def test_a_run_stopped_while_it_waits_counts_the_wait_as_waited(clock: Clock) -> None:
    state = RunState(agent="a", thread_id="t", started_at=clock.now)
    state.apply(ev.RunStarted("main", "t", "go"))
    clock.now += 4
    state.apply(ev.RunPaused("main", (GATE,)))
    clock.now += 60
    state.apply(ev.RunCancelled("main", "stopped"))
    assert (state.progress()["elapsed"], state.progress()["waited"]) == (4, 60)


def test_a_run_that_never_waited_shows_no_waiting_time(clock: Clock) -> None:
    state = RunState(agent="a", thread_id="t", started_at=clock.now)
    state.apply(ev.RunStarted("main", "t", "go"))
    clock.now += 7
    state.apply(ev.RunFinished("main", "done"))
    assert state.progress()["waited"] == 0
    assert "waiting" not in snapshot_text(state.to_json())
