"""A file a tool rewrites with as many bytes, within the same tick of its backend's clock, is
listed under "Files changed" (and so refreshes open file views) whatever its source: the
thread's state, a folder on disk, a store (with times, or none), and each of them routed in a
composite backend. A stamp of size and modification time alone misses all but the state's."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any

import pytest
from langchain_core.tools import InjectedToolCallId
from langgraph.types import Command

from deepnb.core import clock
from deepnb.core.clock import FakeClock
from deepnb.session import agents
from deepnb.views.run.snapshot import snapshot_text
from tests.support.agents import scripted, unique

BEFORE, AFTER = "draft: one\n", "draft: two\n"  # as many bytes


@pytest.fixture(autouse=True)
def _forget() -> Any:
    yield
    agents.forget_all()


@pytest.fixture
def held_clock() -> Iterator[FakeClock]:
    """The clock deepnb reads, held still at the test's start: every listing starts then, so a
    file made during the test is within a tick of each listing, however slow the machine."""
    with clock.using(FakeClock(wall=time.time())) as held:
        yield held  # type: ignore[misc]


class Disk:
    """A folder a ``FilesystemBackend`` serves: the rewrite puts the old modification time back,
    as a write within the same tick of the file system's clock leaves it."""

    def __init__(self, root: Path) -> None:
        from deepagents.backends import FilesystemBackend

        self.root = root
        self.backend = FilesystemBackend(root_dir=str(root), virtual_mode=True)
        (root / "notes.md").write_text(BEFORE)

    def rewrite(self) -> None:
        target = self.root / "notes.md"
        kept = os.stat(target)
        target.write_text(AFTER)
        os.utime(target, ns=(kept.st_atime_ns, kept.st_mtime_ns))


class Store:
    """A ``StoreBackend``'s store, whose item is rewritten keeping its times (or holding none)."""

    def __init__(self, *, timed: bool) -> None:
        from deepagents.backends import StoreBackend
        from deepagents.backends.utils import create_file_data
        from langgraph.store.memory import InMemoryStore

        self.store = InMemoryStore()
        self.backend = StoreBackend(namespace=lambda _rt: ("notes",), store=self.store)
        data = dict(create_file_data(BEFORE))
        if not timed:
            data = {"content": BEFORE, "encoding": "utf-8"}
        self.store.put(("notes",), "/notes.md", data)

    def rewrite(self) -> None:
        item = self.store.get(("notes",), "/notes.md")
        assert item is not None
        self.store.put(("notes",), "/notes.md", {**item.value, "content": AFTER})


def _state(_root: Path) -> dict[str, Any]:
    """The thread's state: a tool's update of ``files`` (the run's events carry it)."""
    from deepagents.backends.utils import create_file_data
    from langchain_core.messages import ToolMessage
    from langchain_core.tools import tool

    @tool
    def redraft(tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
        """Redraft the notes."""
        update = {"/notes.md": create_file_data(AFTER)}
        return Command(
            update={"files": update, "messages": [ToolMessage("redrafted", tool_call_id=tool_call_id)]}
        )

    return {"backend": None, "tool": redraft, "changed": ["/notes.md"]}


def _rewriting(*parts: Disk | Store) -> Any:
    from langchain_core.tools import tool

    @tool
    def redraft() -> str:
        """Redraft the notes."""
        for part in parts:
            part.rewrite()
        return "redrafted"

    return redraft


def _disk(root: Path) -> dict[str, Any]:
    disk = Disk(root)
    return {"backend": disk.backend, "tool": _rewriting(disk), "changed": ["/notes.md"]}


def _store(_root: Path, *, timed: bool = True) -> dict[str, Any]:
    store = Store(timed=timed)
    return {"backend": store.backend, "tool": _rewriting(store), "changed": ["/notes.md"]}


def _composite(root: Path) -> dict[str, Any]:
    from deepagents.backends import CompositeBackend, StateBackend

    disk, store = Disk(root), Store(timed=True)
    backend = CompositeBackend(
        default=StateBackend(), routes={"/disk/": disk.backend, "/memo/": store.backend}
    )
    return {
        "backend": backend,
        "tool": _rewriting(disk, store),
        "changed": ["/disk/notes.md", "/memo/notes.md"],
    }


def _disk_default(root: Path) -> dict[str, Any]:
    from deepagents.backends import CompositeBackend

    disk, store = Disk(root), Store(timed=False)
    backend = CompositeBackend(default=disk.backend, routes={"/memo/": store.backend})
    return {"backend": backend, "tool": _rewriting(disk, store), "changed": ["/memo/notes.md", "/notes.md"]}


SOURCES: dict[str, Callable[[Path], dict[str, Any]]] = {
    "state": _state,
    "disk": _disk,
    "store": _store,
    "store without times": lambda root: _store(root, timed=False),
    "composite over the state": _composite,
    "composite over disk": _disk_default,
}


@pytest.mark.parametrize("source", list(SOURCES))
def test_a_same_size_rewrite_within_one_tick_is_a_file_changed(
    tmp_path: Path, source: str, held_clock: FakeClock
) -> None:
    import deepnb

    made = SOURCES[source](tmp_path)
    model = scripted({"main": [{"tool_calls": [{"name": "redraft", "args": {}}]}, "Done."]})
    options = {"backend": made["backend"]} if made["backend"] is not None else {}
    bench = deepnb.agent(unique("rewrite"), model, tools=[made["tool"]], **options)
    run = bench.run("Redraft the notes")
    assert run.status == "done", run.error
    assert sorted(run.state.files_changed) == made["changed"]
    text = snapshot_text(run.snapshot().state).splitlines()
    assert "Files changed: " + ", ".join(made["changed"]) in text, text


def test_only_files_changed_a_moment_before_a_listing_are_read() -> None:
    """A listing reads (for its digest) a file whose time is within a tick of the listing or
    unknown, and once more at the next listing, to compare; a file changed long before is told
    by its stamp alone."""
    import asyncio
    from datetime import datetime, timedelta

    from deepnb.engine.files import changed
    from deepnb.engine.files.sources import Entry

    now = datetime(2026, 6, 1, 12, 0, 0)
    held = FakeClock(wall=now.timestamp())

    class Source:
        def __init__(self) -> None:
            self.content = {"/old.md": b"old", "/fresh.md": b"one", "/untimed.md": b"abc"}
            self.times = {"/old.md": now - timedelta(days=1), "/fresh.md": now, "/untimed.md": None}
            self.reads: list[str] = []

        async def entries(self) -> dict[str, Entry]:
            return {
                p: Entry(p, size=len(c), modified_at=self.times[p].isoformat() if self.times[p] else None)
                for p, c in self.content.items()
            }

        async def read_bytes(self, path: str) -> bytes:
            self.reads.append(path)
            return self.content[path]

    source = Source()
    watch = changed.ListingWatch(source)  # type: ignore[arg-type]

    async def go() -> None:
        await watch.begin()
        assert sorted(source.reads) == ["/fresh.md", "/untimed.md"]
        source.reads.clear()
        source.content["/fresh.md"] = b"two"  # as many bytes, the same time
        held.sleep(60)  # the fresh file is now long changed: compared by digest this once
        assert (await watch.check()).written == ("/fresh.md",)
        assert sorted(source.reads) == ["/fresh.md", "/untimed.md"]
        source.reads.clear()
        assert not await watch.check()
        assert source.reads == ["/untimed.md"]

    with clock.using(held):
        asyncio.run(go())
