"""One run per thread holds per database, not per agent: two workbenches on one checkpointer
(one SQLite file, or one saver object) never run on the same thread at once — the second start
is refused naming the agent that holds the thread, and resuming returns the run already there."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import deepnb
from deepnb.core.errors import DeepnbError
from deepnb.session import agents
from tests.support.agents import scripted, unique
from tests.support.waiting import WAIT


class Gate:
    """A tool that holds the run until the test lets it go, so "still running" is certain."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()

    def tool(self) -> Any:
        def hold(note: str) -> str:
            """Hold the run until released."""
            self.entered.set()
            self.release.wait(WAIT)
            return f"held {note}"

        return hold


def model() -> Any:
    return scripted({"main": [{"tool_calls": [{"name": "hold", "args": {"note": "x"}}]}, "Done."]})


@pytest.fixture
def gate() -> Iterator[Gate]:
    held = Gate()
    yield held
    held.release.set()


def _shared(kind: str, tmp_path: Path) -> Any:
    if kind == "sqlite file":
        return f"sqlite:{tmp_path / 'threads.db'}"
    from langgraph.checkpoint.memory import InMemorySaver

    return InMemorySaver()


@pytest.fixture(params=["sqlite file", "one saver object"])
def pair(request: pytest.FixtureRequest, tmp_path: Path, gate: Gate) -> Iterator[tuple[Any, Any]]:
    checkpointer = _shared(request.param, tmp_path)
    first = deepnb.agent(unique("first"), model(), tools=[gate.tool()], checkpointer=checkpointer)
    second = deepnb.agent(unique("second"), model(), tools=[gate.tool()], checkpointer=checkpointer)
    yield first, second
    gate.release.set()
    for bench in (first, second):
        for run in list(bench._active.values()):
            run.stop()
            run.wait(WAIT)
    agents.forget_all()


def test_a_second_agent_cannot_start_on_a_running_thread(pair: tuple[Any, Any], gate: Gate) -> None:
    first, second = pair
    running = first.start("Hold on", thread="shared")
    assert gate.entered.wait(WAIT) and running.status == "running"
    with pytest.raises(DeepnbError) as refused:
        second.start("Me too", thread="shared")
    assert str(refused.value).startswith(f"Thread 'shared' of agent {first.name!r} is already running")
    assert "\n" not in str(refused.value)
    assert second.resume("shared") is running  # no second run on the thread
    assert second.pending_run("shared") is running
    assert second.active_run("shared") is running

    gate.release.set()
    assert running.wait(WAIT).status == "done"
    after = second.run("Now me", thread="shared").wait(WAIT)  # free again
    assert after.status == "done", after.error


def test_a_thread_waiting_for_approval_is_held_for_every_agent(tmp_path: Path, gate: Gate) -> None:
    db = f"sqlite:{tmp_path / 'threads.db'}"
    gated = {"hold": True}
    first = deepnb.agent(unique("asks"), model(), tools=[gate.tool()], interrupt_on=gated, checkpointer=db)
    second = deepnb.agent(unique("other"), model(), tools=[gate.tool()], checkpointer=db)
    try:
        waiting = first.run("Hold on", thread="shared")
        assert waiting.status == "interrupted"
        with pytest.raises(
            DeepnbError, match=rf"^Thread 'shared' of agent {first.name!r} is waiting for your"
        ):
            second.start("Me too", thread="shared")
    finally:
        waiting.stop()
        agents.forget_all()


def test_separate_databases_keep_separate_threads(tmp_path: Path, gate: Gate) -> None:
    """The control: the same thread id in two databases is two threads."""
    one = deepnb.agent(
        unique("one"), model(), tools=[gate.tool()], checkpointer=f"sqlite:{tmp_path / 'a.db'}"
    )
    two = deepnb.agent(
        unique("two"), model(), tools=[gate.tool()], checkpointer=f"sqlite:{tmp_path / 'b.db'}"
    )
    try:
        first = one.start("Hold on", thread="same-id")
        assert gate.entered.wait(WAIT)
        second = two.start("Hold on too", thread="same-id")
        gate.release.set()
        assert first.wait(WAIT).status == "done" and second.wait(WAIT).status == "done"
    finally:
        gate.release.set()
        agents.forget_all()
