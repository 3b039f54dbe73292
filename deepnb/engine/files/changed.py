"""What a run's tools did to the files its thread's state does not hold.

A file in the thread's state changes through a state update, which the run's events already
carry. A folder on disk, a sandbox or a store changes behind the graph's back: ``execute`` runs
a command that writes, a tool of the user's own writes a file. :class:`ListingWatch` lists those
backends before the run and again after each tool call that may write (and when the run stops
streaming), and says which files appeared, changed or went.

A file's :data:`Stamp` tells its versions apart without reading it, as far as its backend's
clock allows: a file rewritten with as many bytes within the same tick of that clock (or by a
writer that keeps its time, or on a backend that keeps none) keeps its stamp. As git does for
"racily clean" files, a file whose time is that close to a listing (or unknown) has its
content's digest taken too, and is compared by it at the next listing: only files changed a
moment before a listing are read, so a listing stays about as cheap as the backend's own.

Its cost is bounded: a listing that takes longer than :data:`LIST_TIMEOUT` turns the watch off
for the run; one slower than :data:`PER_CALL_BUDGET` is repeated only when the run stops
streaming, not after each tool call.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from deepnb.core import clock
from deepnb.engine.files.sources import Entry, FileMissing, FileSource, Mounts, StateSource, source_for

log = logging.getLogger(__name__)

LIST_TIMEOUT = 3.0
"""Seconds a listing of the watched backends may take before the watch gives up for the run."""
PER_CALL_BUDGET = 0.25
"""Seconds under which a listing is cheap enough to repeat after every tool call."""
READ_ONLY_TOOLS = frozenset({"ls", "read_file", "glob", "grep", "write_todos"})
"""deepagents' tools that never change a file: no listing is taken after them."""

RACY_SECONDS = 2.0
"""A file whose time is this close to a listing's start, or later, may be rewritten within the
same tick of its backend's clock (a coarse file-system clock, or one two seconds wide): its
digest is taken too."""
DIGEST_LIMIT = 1 << 20
"""Bytes up to which a file's digest is taken."""
DIGEST_FILES = 200
"""Files whose digest one listing takes at most (the rest are compared by their stamps)."""

Stamp = tuple[int | None, str | None, tuple[int, int, int] | None]
"""What tells a file's versions apart without reading it: its size and modification time as its
backend says them, and for a file on this machine's disk its nanosecond modification and change
times and its inode (a rewrite that keeps or puts back the modification time still changes the
change time; a file put in another's place has another inode)."""


@dataclass(frozen=True)
class Seen:
    """A file as one listing saw it: its stamp, and its content's digest where it was taken."""

    stamp: Stamp
    digest: bytes | None = None
    racy: bool = False
    """Whether its time was too close to the listing's to tell a later rewrite by: the next
    listing compares it by its digest (once; a file whose time is older is told by its stamp)."""

    def differs(self, later: Seen) -> bool:
        """Whether ``later`` is another version of the file."""
        if self.stamp != later.stamp:
            return True
        return self.digest is not None and later.digest is not None and self.digest != later.digest


class Listed(Protocol):
    """What a watch needs of a source: every file it holds, and a file's bytes."""

    async def entries(self) -> dict[str, Entry]: ...
    async def read_bytes(self, path: str) -> bytes: ...


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

    async def read_bytes(self, path: str) -> bytes:
        return await self.source.read_bytes(path)

    def host_path(self, path: str) -> Path | None:
        host: Callable[[str], Path | None] | None = getattr(self.source, "host_path", None)
        return host(path) if host is not None else None


def _host_stat(where: Path | None) -> tuple[int, int, int] | None:
    """A regular file on this machine's disk: its nanosecond modification and change times and
    inode (``None`` for anything else: a pipe or a device is never read)."""
    if where is None:
        return None
    try:
        found = os.stat(where)
    except OSError:
        return None
    if not stat.S_ISREG(found.st_mode):
        return None
    return (found.st_mtime_ns, found.st_ctime_ns, found.st_ino)


def _when(entry: Entry, found: tuple[int, int, int] | None) -> float | None:
    """When the file last changed, in seconds of this machine's clock (``None``: unknown)."""
    if found is not None:
        return max(found[0], found[1]) / 1e9
    if not entry.modified_at:
        return None
    try:
        return datetime.fromisoformat(entry.modified_at).timestamp()  # naive: local time, as written
    except ValueError:
        return None


async def _digest(source: Listed, path: str, where: Path | None) -> bytes | None:
    """The digest of the file's content, read from this machine's disk where it is there
    (``None`` if it went meanwhile, or cannot be read)."""
    try:
        data = where.read_bytes() if where is not None else await source.read_bytes(path)
        return hashlib.blake2b(data, digest_size=16).digest()
    except (FileMissing, OSError, ValueError):
        return None
    except Exception:  # a backend's own failure: the stamp alone compares the file
        log.debug("deepnb: could not read %s to compare it", path, exc_info=True)
        return None


async def _seen(
    source: Listed, path: str, entry: Entry, previous: Seen | None, started: float, digests: list[int]
) -> Seen:
    """How a listing that ``started`` sees a file: its stamp, and its digest if its time is too
    close to the listing's to tell a rewrite by, or if ``previous`` was and its stamp is the
    same (taken while ``digests[0]`` allows)."""
    host: Callable[[str], Path | None] | None = getattr(source, "host_path", None)
    where = host(path) if host is not None else None
    found = _host_stat(where)
    stamp: Stamp = (entry.size, entry.modified_at, found)
    when = _when(entry, found)
    racy = when is None or when >= started - RACY_SECONDS
    recheck = previous is not None and previous.racy and previous.stamp == stamp
    small = entry.size is None or entry.size <= DIGEST_LIMIT
    readable = where is None or found is not None  # on disk: a regular file, read directly
    if not (racy or recheck) or not small or not readable or digests[0] <= 0:
        return Seen(stamp)
    digests[0] -= 1
    return Seen(stamp, await _digest(source, path, where), racy)


class ListingWatch:
    """Compares listings of the backends outside a thread's state, before and during a run."""

    def __init__(self, source: FileSource | None) -> None:
        self._sources = outside_state(source) if source is not None else []
        self._seen: dict[str, Seen] | None = None
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
        started = clock.current().now()
        self._seen = await self._listing()
        self.per_call = clock.current().now() - started < PER_CALL_BUDGET

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
        before = self._seen
        now = await self._listing(before)
        self._seen = now
        if now is None:
            return Change()
        written = tuple(p for p, seen in now.items() if p not in before or before[p].differs(seen))
        deleted = tuple(p for p in before if p not in now)
        return Change(written, deleted)

    async def _listing(self, before: dict[str, Seen] | None = None) -> dict[str, Seen] | None:
        """Every watched file as seen now (digests where :data:`RACY_SECONDS` says, and where
        ``before`` holds one its unchanged stamp must be checked by), or ``None`` (the watch is
        off) when listing fails or is too slow."""
        try:
            async with asyncio.timeout(LIST_TIMEOUT):
                started = clock.current().wall()
                found: dict[str, Seen] = {}
                digests = [DIGEST_FILES]
                for prefix, source in self._sources:
                    for path, entry in (await source.entries()).items():
                        previous = before.get(prefix + path) if before else None
                        found[prefix + path] = await _seen(source, path, entry, previous, started, digests)
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
