"""Reading a thread's checkpoints: the one way every reader of a thread goes (the thread list,
history, fork, export, the thread switcher, files, todos, the tree, resume and approvals, and a
run's own reads), so that a checkpoint that cannot be loaded any more fails for its thread only,
in one line, and never for the others.

A checkpoint can be written and still not load: LangGraph applies the writes saved with it as
it reads the state, and a write its reducer cannot take (``{"messages": 5}`` for a messages key)
raises on every later read. :mod:`deepnb.core.graphs.inputs` refuses such input before a run starts;
this module keeps whatever else a database holds from breaking more than its own thread.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator, Mapping
from types import TracebackType
from typing import Any

from deepnb.core.errors import DeepnbError
from deepnb.core.failures import describe_exception

LOADING = (
    os.path.join("langgraph", "checkpoint", "serde", ""),
    os.path.join("langgraph", "channels", ""),
    os.path.join("langgraph", "pregel", "_algo.py"),
)
"""Where LangGraph turns a saved checkpoint into state: its serializer (bytes into values), its
channels and ``apply_writes`` (the saved writes through the reducers). A failure raised there is
the checkpoint's; any other (a locked database, a lost connection) passes as it is."""
ADVICE = "start another thread (--new); the agent's other threads read as before."
"""What helps: the thread's checkpoints stay as they are, and other threads are unaffected."""


class UnreadableThread(DeepnbError):
    """A thread whose checkpoint cannot be loaded: ``reason`` is what loading it raised (one line,
    secrets removed). A run that meets it ends with the same line."""

    failure_kind = "unreadable"

    def __init__(self, thread_id: str, agent: str, exc: BaseException) -> None:
        self.thread_id = thread_id
        self.reason = describe_exception(exc)
        of = f" of agent {agent!r}" if agent else ""
        self.failure_description = (
            f"Thread {thread_id!r}{of} cannot be read: one of its checkpoints fails to load ({self.reason})"
        )
        self.failure_hint = ADVICE
        super().__init__(f"{self.failure_description}: {ADVICE}")


def thread_of(config: Mapping[str, Any]) -> str:
    """The thread id a LangGraph config names."""
    return str((config.get("configurable") or {}).get("thread_id", ""))


def _frames(exc: BaseException) -> Iterator[str]:
    """The files of the frames ``exc`` (and what it was raised from or while handling) passed."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        tb: TracebackType | None = current.__traceback__
        while tb is not None:
            yield tb.tb_frame.f_code.co_filename
            tb = tb.tb_next
        current = current.__cause__ or current.__context__


def fails_to_load(exc: BaseException) -> bool:
    """Whether ``exc`` was raised while a saved checkpoint was turned into state."""
    return any(part in filename for filename in _frames(exc) for part in LOADING)


async def read_state(graph: Any, config: Mapping[str, Any], *, agent: str = "") -> Any:
    """``graph.aget_state(config)``; a failure to load the thread's checkpoint raises
    :class:`UnreadableThread` (any other failure, deepnb's own errors and cancellation pass as
    they are)."""
    try:
        return await graph.aget_state(config)
    except (DeepnbError, asyncio.CancelledError):
        raise
    except Exception as exc:
        if not fails_to_load(exc):
            raise
        raise UnreadableThread(thread_of(config), agent, exc) from exc


async def read_history(graph: Any, config: Mapping[str, Any], *, agent: str = "") -> list[Any]:
    """The thread's ``StateSnapshot``s, newest first (``graph.aget_state_history``), or
    :class:`UnreadableThread` when one of them cannot be loaded."""
    try:
        return [snapshot async for snapshot in graph.aget_state_history(config)]
    except (DeepnbError, asyncio.CancelledError):
        raise
    except Exception as exc:
        if not fails_to_load(exc):
            raise
        raise UnreadableThread(thread_of(config), agent, exc) from exc
