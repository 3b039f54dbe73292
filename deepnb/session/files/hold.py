"""While a run holds a thread, the notebook does not change the thread's state behind its back.

LangGraph keeps a running graph's state in memory and saves each step on top of the checkpoint
the run started from, so a state update made from the notebook meanwhile (``run.files.write``,
the file browser's Save, a memory reload) lands on a branch the run's next step leaves behind:
the write is lost. A run paused at an approval is no safer: the update replaces the checkpoint
the approval answers, and the run asks again. So such a write is refused, in one line, while a
run holds the thread; and a run that starts while one is on its way waits for it to land.
Writes that go to a folder on disk or a store (not the checkpoint) are not affected. A run in
another kernel on the same database holds the thread too (:func:`deepnb.session.claims.across_kernels`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from deepnb.core.errors import DeepnbError
from deepnb.core.handles import AgentHandle, RunHandle
from deepnb.core.loop import detached, engine_loop, in_engine_thread, submit
from deepnb.session import claims

_Key = tuple[Any, str]
_locks: dict[_Key, tuple[asyncio.Lock, list[int], Any]] = {}
"""(database, thread) → its lock, how many use it, and the checkpointer (so an in-memory saver's
key stays its own). Touched on the engine loop only."""


def holder(workbench: AgentHandle, thread_id: str) -> RunHandle | None:
    """The run holding ``thread_id`` in ``workbench``'s database (streaming or waiting for an
    approval), whichever agent started it."""
    run = claims.holder(workbench.database, thread_id)
    return run if run is not None and (not run.done or run.status == "interrupted") else None


def refusal(run: RunHandle, path: str) -> str:
    """Why a change to ``path`` from the notebook is refused while ``run`` holds its thread."""
    if run.status == "interrupted":
        return (
            f"{run.id} is waiting for approval on thread {run.thread_id!r}: changing {path} now would "
            "make it ask again — decide on its cards or stop it (run.stop()), then write again."
        )
    return (
        f"{run.id} is using thread {run.thread_id!r}: its next step would overwrite this change to "
        f"{path} — wait for it (run.wait()) or stop it (run.stop()), then write again."
    )


def busy(workbench: AgentHandle, thread_id: str, path: str) -> str:
    """The refusal a change to ``path`` (one that reaches the thread's state) would get now, or ``""``."""
    run = holder(workbench, thread_id)
    return refusal(run, path) if run is not None else ""


async def _acquire(key: _Key, checkpointer: Any) -> None:
    lock, users, _ = _locks.setdefault(key, (asyncio.Lock(), [0], checkpointer))
    users[0] += 1
    try:
        await lock.acquire()
    except BaseException:
        _drop(key)
        raise


def _release(key: _Key) -> None:
    lock, _, _ = _locks[key]
    lock.release()
    _drop(key)


def _drop(key: _Key) -> None:
    _, users, _ = _locks[key]
    users[0] -= 1
    if users[0] == 0:
        del _locks[key]


@contextmanager
def state_change(workbench: AgentHandle, thread_id: str, path: str) -> Iterator[None]:
    """Around a notebook change to the thread's state: refuse it (``DeepnbError``) while a run
    holds the thread, and keep a run from starting on the thread until it is done."""
    if in_engine_thread():
        raise RuntimeError("Change a thread's files from the notebook, not from the engine loop")
    key = (workbench.database, thread_id)
    future = submit(_acquire(key, workbench.checkpointer))
    try:
        future.result()
    except BaseException:  # interrupted while waiting: give the lock back once it is ours
        future.add_done_callback(
            lambda f: (
                f.cancelled()
                or f.exception() is not None
                or engine_loop().call_soon_threadsafe(_release, key, context=detached())
            )
        )
        raise
    try:
        reason = busy(workbench, thread_id, path)
        if reason:
            raise DeepnbError(reason)
        advice = f"its next step would overwrite this change to {path} — wait for it to end, then write again"
        with claims.across_kernels(workbench.database, thread_id, advice=advice):
            yield
    finally:
        engine_loop().call_soon_threadsafe(_release, key, context=detached())


async def settled(workbench: AgentHandle, thread_id: str) -> None:
    """Wait until no notebook change to the thread's state is on its way (a run calls this
    before it reads the thread's state)."""
    key = (workbench.database, thread_id)
    if key in _locks:
        await _acquire(key, workbench.checkpointer)
        _release(key)
