"""What a run's tools did to the files its thread's state does not hold.

A file in the thread's state changes through a state update, which the run's events already
carry. A folder on disk, a sandbox or a store changes behind the graph's back: ``execute`` runs
a command that writes, a tool of the user's own writes a file. :class:`ListingWatch` lists those
backends before the run and again after each tool call that may write (and when the run stops
streaming), and says which files appeared, changed (size or modification time) or went.

Its cost is bounded: a listing that takes longer than :data:`LIST_TIMEOUT` turns the watch off
for the run; one slower than :data:`PER_CALL_BUDGET` is repeated only when the run stops
streaming, not after each tool call.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from deepnb.engine.files.sources import Entry, FileSource, Mounts, StateSource, source_for

log = logging.getLogger(__name__)

LIST_TIMEOUT = 3.0
"""Seconds a listing of the watched backends may take before the watch gives up for the run."""
PER_CALL_BUDGET = 0.25
"""Seconds under which a listing is cheap enough to repeat after every tool call."""
READ_ONLY_TOOLS = frozenset({"ls", "read_file", "glob", "grep", "write_todos"})
"""deepagents' tools that never change a file: no listing is taken after them."""

Stamp = tuple[int | None, str | None]
"""What tells a file's versions apart without reading it: its size and modification time."""


class Listed(Protocol):
    """What a watch needs of a source: every file it holds."""

    async def entries(self) -> dict[str, Entry]: ...


@dataclass(frozen=True)
class Change:
    """The files one comparison found written (created or modified) and deleted."""

    written: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.written or self.deleted)


def outside_state(source: FileSource) -> list[tuple[str, Listed]]:
    """The sources of ``source`` that the thread's state does not hold, each with the prefix
    its paths take (a route of a composite backend); the state's own files are left out."""
    if isinstance(source, StateSource):
        return []
    if isinstance(source, Mounts):
        routes = [(prefix.rstrip("/"), routed) for prefix, routed in source.routes]
        found = [(prefix + inner, s) for prefix, routed in routes for inner, s in outside_state(routed)]
        if not isinstance(source.default, StateSource | Mounts):  # a composite's default is never one
            found.append(("", _Unrouted(source.default, [prefix + "/" for prefix, _ in routes])))
        return found
    return [("", source)]


class _Unrouted:
    """A composite's default source without what its routes hide (their paths are theirs)."""

    def __init__(self, source: FileSource, hidden: Sequence[str]) -> None:
        self.source, self.hidden = source, tuple(hidden)

    async def entries(self) -> dict[str, Entry]:
        found = await self.source.entries()
        return {p: e for p, e in found.items() if not p.startswith(self.hidden)}


class ListingWatch:
    """Compares listings of the backends outside a thread's state, before and during a run."""

    def __init__(self, source: FileSource | None) -> None:
        self._sources = outside_state(source) if source is not None else []
        self._seen: dict[str, Stamp] | None = None
        self.per_call = True
        """Whether a listing is taken after each tool call (else only when the run stops streaming)."""

    @property
    def active(self) -> bool:
        """Whether there is anything to watch and the last listing worked."""
        return bool(self._sources) and self._seen is not None

    async def begin(self) -> None:
        """Take the listing later ones are compared with (again on a resume: what a notebook
        cell changed while the run waited is not the run's)."""
        if not self._sources:
            return
        started = time.monotonic()
        self._seen = await self._listing()
        self.per_call = time.monotonic() - started < PER_CALL_BUDGET

    async def after_tool(self, name: str) -> Change:
        """What changed since the last listing, after a tool call named ``name``; nothing when
        the tool cannot write or listings are too slow to take after each call."""
        if not self.per_call or name in READ_ONLY_TOOLS:
            return Change()
        return await self.check()

    async def check(self) -> Change:
        """What changed since the last listing (which this one replaces)."""
        if not self.active or self._seen is None:
            return Change()
        now = await self._listing()
        before, self._seen = self._seen, now
        if now is None:
            return Change()
        written = tuple(p for p, stamp in now.items() if p not in before or before[p] != stamp)
        deleted = tuple(p for p in before if p not in now)
        return Change(written, deleted)

    async def _listing(self) -> dict[str, Stamp] | None:
        """Every watched file's stamp, or ``None`` (the watch is off) when listing fails or is too slow."""
        try:
            async with asyncio.timeout(LIST_TIMEOUT):
                found: dict[str, Stamp] = {}
                for prefix, source in self._sources:
                    entries = await source.entries()
                    found.update((prefix + p, (e.size, e.modified_at)) for p, e in entries.items())
                return dict(sorted(found.items()))
        except Exception:  # a backend that cannot list: its changes go unnoticed, the run goes on
            log.debug("deepnb: could not list the agent's files to see what changed", exc_info=True)
            self._seen = None
            return None


def watch_files(backend: Any, graph: Any, thread_id: str) -> ListingWatch:
    """A watch over the backend an agent was built with (``None``: the thread's state, which
    needs none); a backend deepnb cannot list outside a run (a factory) is not watched."""
    try:
        return ListingWatch(source_for(backend, graph, thread_id))
    except Exception:  # best effort: a run never fails for its watch
        log.debug("deepnb: the agent's backend cannot be listed outside a run", exc_info=True)
        return ListingWatch(None)
