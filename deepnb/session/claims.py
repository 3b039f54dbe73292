"""One run per thread, per database: the kernel's registry of which run holds which thread.

A thread lives in a checkpointer's database, not in an agent: two agents (or an agent rebuilt)
on one database see the same threads, so two runs on one thread at once would write over each
other's history. Every start, resume and approval claims the thread here, under one lock, keyed
by the database (:func:`deepnb.core.threads.checkpointers.database_key`) and the thread id.

Other kernels may open the same SQLite file or Postgres database: for those, the first claim of a
thread in this process also takes the database's cross-process lock (:mod:`deepnb.core.threads.locks`),
and the last release frees it, so a run in another kernel is refused in one line naming it.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar, cast

from deepnb.core.handles import RunHandle
from deepnb.core.threads import locks as thread_locks

Key = tuple[Hashable, str]
_Run = TypeVar("_Run", bound=RunHandle)

_lock = threading.RLock()
_held: dict[Key, Any] = {}
"""The runs (:class:`deepnb.session.run.Run`) holding threads now."""


def lock() -> threading.RLock:
    """The registry's lock, for a caller that checks and claims in one step."""
    return _lock


def holder(database: Hashable, thread_id: str) -> Any:
    """The run holding the thread now (running, or waiting for approval), if any."""
    with _lock:
        return _held.get((database, thread_id))


def claim(database: Hashable, run: _Run, *, force: bool = False) -> _Run:
    """Claim ``run``'s thread for it; return the run that holds the thread afterwards (another
    one that held it already, unless ``force``). A run of another process holding it raises
    :class:`deepnb.core.threads.locks.HeldElsewhere` (a ``DeepnbError`` naming that process)."""
    with _lock:
        key = (database, run.thread_id)
        current = _held.get(key)
        if current is None:
            _take(database, run.thread_id)
        if current is None or force:
            _held[key] = current = run
        return cast(_Run, current)  # one kind of run per registry: the session's


def _take(database: Hashable, thread_id: str, advice: str = thread_locks.START_ADVICE) -> None:
    locks = thread_locks.for_database(database)
    holder = locks.acquire(thread_id) if locks is not None else None
    if holder is not None:
        raise thread_locks.HeldElsewhere(thread_id, holder, advice)


@contextmanager
def across_kernels(database: Hashable, thread_id: str, *, advice: str) -> Iterator[None]:
    """Hold the thread's cross-process lock around a change to its state from the notebook, so
    a run in another kernel neither writes over it nor is written over; a run there holding it
    raises :class:`deepnb.core.threads.locks.HeldElsewhere` ending in ``advice``."""
    _take(database, thread_id, advice)
    try:
        yield
    finally:
        locks = thread_locks.for_database(database)
        if locks is not None:
            locks.release(thread_id)


def release(database: Hashable, run: RunHandle) -> None:
    """Free ``run``'s thread (nothing happens if another run holds it)."""
    with _lock:
        key = (database, run.thread_id)
        if _held.get(key) is run:
            del _held[key]
            locks = thread_locks.for_database(database)
            if locks is not None:
                locks.release(run.thread_id)


def held(database: Hashable) -> dict[str, Any]:
    """The threads of ``database`` that runs hold now, by thread id."""
    with _lock:
        return {thread: run for (db, thread), run in _held.items() if db == database}
