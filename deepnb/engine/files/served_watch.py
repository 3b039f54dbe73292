"""What a served agent's tools did to files outside its thread's state, told to its run's stream.

A run in the kernel watches the backends outside its thread's state itself (a
:class:`~deepnb.engine.files.changed.ListingWatch`, listed after each tool call that may write).
A served agent's backends live where its server runs, which a connected kernel cannot list: a
graph deepnb builds to be served carries this middleware, which takes the same watch where the
tools run and writes each change to the run's stream as a custom event
``{"type": FILES_WATCHED, "written": [...], "deleted": [...]}``. The events layer reads that as
the :class:`~deepnb.core.events.FilesChanged` a kernel's own watch emits, so "Files changed" and
the open file views of the thread hear of it the same way.

One watch per run of a thread (its listing the baseline of the next); the first tool call that
may write takes the baseline before it runs. As in the kernel, a listing too slow to take after
each tool call (:data:`~deepnb.engine.files.changed.PER_CALL_BUDGET`) is compared once, when the
agent ends its turn.
"""

from __future__ import annotations

import asyncio
import logging
from functools import cache
from typing import Any

from deepnb.core.events import FILES_WATCHED
from deepnb.engine.files.changed import READ_ONLY_TOOLS, Change, ListingWatch, watch_files

log = logging.getLogger(__name__)

__all__ = ["files_watch_middleware", "watched"]

KEPT = 64
"""Runs whose watch is kept at once (the oldest is dropped first)."""


def watched(backend: Any) -> bool:
    """Whether an agent on ``backend`` has files outside its thread's state to watch."""
    from deepagents.backends import StateBackend  # noqa: PLC0415  # lazy: heavy

    return backend is not None and not isinstance(backend, StateBackend)


class _Store:
    """What the watch reads of a graph: its store (a store backend without its own)."""

    def __init__(self, store: Any) -> None:
        self.store = store


def _run_key() -> tuple[str, str]:
    """The thread and the run the calling tool call belongs to."""
    from langgraph.config import get_config  # noqa: PLC0415  # lazy: heavy

    config = get_config()
    configurable = config.get("configurable") or {}
    metadata = config.get("metadata") or {}
    run = metadata.get("run_id") or configurable.get("run_id") or ""
    return str(configurable.get("thread_id", "")), str(run)


def _tell(change: Change) -> None:
    """Write ``change`` to the run's stream (nothing when nothing changed)."""
    if not change:
        return
    from langgraph.config import get_stream_writer  # noqa: PLC0415  # lazy: heavy

    write = get_stream_writer()
    write({"type": FILES_WATCHED, "written": list(change.written), "deleted": list(change.deleted)})


@cache
def _middleware_class() -> type:
    from langchain.agents.middleware import AgentMiddleware  # noqa: PLC0415  # lazy: heavy to import

    class DeepnbFilesWatchMiddleware(AgentMiddleware):
        """Tells the run's stream which files outside the thread's state each tool call changed."""

        def __init__(self, backend: Any) -> None:
            super().__init__()
            self.backend = backend
            self._watches: dict[tuple[str, str], tuple[ListingWatch, asyncio.Lock]] = {}

        async def _watch(self, key: tuple[str, str], store: Any) -> tuple[ListingWatch, asyncio.Lock]:
            found = self._watches.get(key)
            if found is None:
                for other in [k for k in self._watches if k[0] == key[0]]:  # the thread's earlier run
                    self._watches.pop(other)
                while len(self._watches) >= KEPT:
                    self._watches.pop(next(iter(self._watches)))
                watch = watch_files(self.backend, _Store(store), key[0])
                found = self._watches[key] = (watch, asyncio.Lock())
                async with found[1]:
                    await watch.begin()
            return found

        def wrap_tool_call(self, request: Any, handler: Any) -> Any:
            return handler(request)  # a served graph runs asynchronously: nothing to watch here

        async def awrap_tool_call(self, request: Any, handler: Any) -> Any:
            name = str((getattr(request, "tool_call", None) or {}).get("name", ""))
            if name in READ_ONLY_TOOLS:
                return await handler(request)
            try:
                runtime = getattr(request, "runtime", None)
                watch, lock = await self._watch(_run_key(), getattr(runtime, "store", None))
            except Exception:  # a watch never fails the tool call
                log.debug("deepnb: no file watch for this tool call", exc_info=True)
                return await handler(request)
            result = await handler(request)
            try:
                async with lock:
                    _tell(await watch.after_tool(name))
            except Exception:
                log.debug("deepnb: could not tell what the tool call changed", exc_info=True)
            return result

        def after_agent(self, state: Any, runtime: Any) -> None:
            return None

        async def aafter_agent(self, state: Any, runtime: Any) -> None:
            """The comparison a slow listing left to the end of the agent's turn."""
            try:
                found = self._watches.pop(_run_key(), None)
                if found is not None and not found[0].per_call:
                    async with found[1]:
                        _tell(await found[0].check())
            except Exception:
                log.debug("deepnb: could not tell what the run's tools changed", exc_info=True)
            return None

    return DeepnbFilesWatchMiddleware


def files_watch_middleware(backend: Any) -> Any:
    """A new file watch over ``backend`` for a served agent's main agent."""
    return _middleware_class()(backend)
