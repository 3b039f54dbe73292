"""One run per thread, per database: the kernel's registry of which run holds which thread.

A thread lives in a checkpointer's database, not in an agent: two agents (or an agent rebuilt)
on one database see the same threads, so two runs on one thread at once would write over each
other's history. Every start, resume and approval claims the thread here, under one lock, keyed
by the database (:func:`deepnb.checkpoint.database_key`) and the thread id.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable
from typing import Any, TypeVar, cast

from deepnb.handles import RunHandle

Key = tuple[Hashable, str]
_Run = TypeVar("_Run", bound=RunHandle)

_lock = threading.RLock()
_held: dict[Key, Any] = {}
"""The runs (:class:`deepnb.run.Run`) holding threads now."""


def lock() -> threading.RLock:
    """The registry's lock, for a caller that checks and claims in one step."""
    return _lock


def holder(database: Hashable, thread_id: str) -> Any:
    """The run holding the thread now (running, or waiting for approval), if any."""
    with _lock:
        return _held.get((database, thread_id))


def claim(database: Hashable, run: _Run, *, force: bool = False) -> _Run:
    """Claim ``run``'s thread for it; return the run that holds the thread afterwards (another
    one that held it already, unless ``force``)."""
    with _lock:
        key = (database, run.thread_id)
        current = _held.get(key)
        if current is None or force:
            _held[key] = current = run
        return cast(_Run, current)  # one kind of run per registry: the session's


def release(database: Hashable, run: RunHandle) -> None:
    """Free ``run``'s thread (nothing happens if another run holds it)."""
    with _lock:
        key = (database, run.thread_id)
        if _held.get(key) is run:
            del _held[key]


def held(database: Hashable) -> dict[str, Any]:
    """The threads of ``database`` that runs hold now, by thread id."""
    with _lock:
        return {thread: run for (db, thread), run in _held.items() if db == database}
