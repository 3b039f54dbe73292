"""A run that shows ``done`` may still read its last checkpoints before it lets go of its thread;
the next cell on that thread neither finds it "already running" nor resumes it."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

import deepnb
from deepnb.core.errors import DeepnbError
from deepnb.session import run as run_module
from tests.support.agents import scripted, unique
from tests.support.waiting import wait_until

SCRIPT = {"main": [{"turns": [{"text": "first answer"}]}]}


def _slow_steps(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    reading = run_module._latest_checkpoint

    async def slowly(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(seconds)
        return await reading(*args, **kwargs)

    monkeypatch.setattr(run_module, "_latest_checkpoint", slowly)


@pytest.fixture
def slow_ending(monkeypatch: pytest.MonkeyPatch) -> None:
    _slow_steps(monkeypatch, 0.5)


def _ended(run: Any) -> None:
    wait_until(lambda: run.status != "running", "the run's last event")
    assert run.status == "done" and not run.done, "the test needs a run that is done but still ending"


def test_a_new_task_right_after_the_end_runs_on_the_thread(slow_ending: None) -> None:
    bench = deepnb.agent(unique("ending"), model=scripted(SCRIPT))
    first = bench.start("one", new_thread=True)
    _ended(first)
    second = bench.start("two", thread=first.thread_id)
    assert second.wait(30).status == "done"


def test_resume_right_after_the_end_has_nothing_to_resume(slow_ending: None) -> None:
    bench = deepnb.agent(unique("ending"), model=scripted(SCRIPT))
    first = bench.start("one", new_thread=True)
    _ended(first)
    with pytest.raises(DeepnbError, match="nothing to resume"):
        bench.resume(first.thread_id)


def test_stop_while_a_run_reads_its_end_ends_it_at_once_as_it_was(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stop reaching a run that is done but still reading its last checkpoint cancelled that read and left
    the run never ended: its cell and ``wait()`` hung."""
    _slow_steps(monkeypatch, 60)
    bench = deepnb.agent(unique("ending"), model=scripted(SCRIPT))
    first = bench.start("one", new_thread=True)
    _ended(first)
    first.stop()
    assert first.wait(10).status == "done" and first.result == "first answer"
    monkeypatch.undo()
    assert bench.start("two", thread=first.thread_id).wait(30).status == "done"  # the thread is free


def test_an_end_callback_added_as_the_run_lets_go_is_called_or_finds_it_done(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A view adds its end callback, then looks whether the run is done: whenever it does that, one
    of the two tells it the run ended (a compare view drew a run's end with no answer otherwise)."""
    bench = deepnb.agent(unique("letting-go"), scripted(SCRIPT))
    releasing, go_on = threading.Event(), threading.Event()
    release = bench.release_thread

    def slow_release(run: Any) -> None:
        releasing.set()
        go_on.wait(30)
        release(run)

    monkeypatch.setattr(bench, "release_thread", slow_release)
    run = bench.start("Answer")
    assert releasing.wait(30), "the run never let go of its thread"
    called: list[bool] = []
    run.when_ended(lambda: called.append(True))
    done_then = run.done
    go_on.set()
    run.wait(30)
    assert called or done_then
    assert called == [True]  # the run was letting go: its end callbacks were not taken yet
