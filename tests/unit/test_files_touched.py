"""Files a tool changed behind the graph's back (``execute`` running a command, a tool of the
user's writing to disk) are listed under "Files changed", like those write_file and edit_file
change: every tool that reaches a backend outside the thread's state, one mechanism."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from deepnb.core import events as ev
from deepnb.engine.files import changed
from deepnb.session import agents
from deepnb.views.run.snapshot import snapshot_text
from tests.support.agents import scripted, unique

SHELL = "echo made > made.txt; echo more >> kept.txt; rm gone.txt"


@pytest.fixture(autouse=True)
def _forget() -> Any:
    yield
    agents.forget_all()


def _folder(tmp_path: Path) -> Path:
    (tmp_path / "kept.txt").write_text("kept\n")
    (tmp_path / "gone.txt").write_text("gone\n")
    (tmp_path / ".hidden").mkdir()
    return tmp_path


def _shell(root: Path) -> dict[str, Any]:
    """``execute`` on deepagents' LocalShellBackend."""
    from deepagents.backends import LocalShellBackend

    backend = LocalShellBackend(root_dir=str(root), virtual_mode=True, inherit_env=True)
    return {"backend": backend, "call": {"name": "execute", "args": {"command": SHELL}}, "prefix": ""}


def _own_tool(root: Path, backend: Any, prefix: str) -> dict[str, Any]:
    from langchain_core.tools import tool

    @tool
    def tidy(note: str) -> str:
        """Tidy the folder, leaving a note."""
        (root / "made.txt").write_text(note)
        (root / "kept.txt").write_text("kept, and more\n")
        (root / "gone.txt").unlink()
        (root / ".hidden" / "log").write_text("tidied")
        return "tidied"

    return {
        "backend": backend,
        "tools": [tidy],
        "call": {"name": "tidy", "args": {"note": "hi"}},
        "prefix": prefix,
    }


def _disk_tool(root: Path) -> dict[str, Any]:
    """A tool of the user's that writes the folder a FilesystemBackend serves."""
    from deepagents.backends import FilesystemBackend

    return _own_tool(root, FilesystemBackend(root_dir=str(root), virtual_mode=True), "")


def _routed_tool(root: Path) -> dict[str, Any]:
    """The same, the folder mounted at /work/ of a CompositeBackend over the thread's state."""
    from deepagents.backends import CompositeBackend, FilesystemBackend, StateBackend

    backend = CompositeBackend(
        default=StateBackend(), routes={"/work/": FilesystemBackend(root_dir=str(root), virtual_mode=True)}
    )
    return _own_tool(root, backend, "/work")


CASES: dict[str, Callable[[Path], dict[str, Any]]] = {
    "execute": _shell,
    "a tool on disk": _disk_tool,
    "a routed tool": _routed_tool,
}


def _run(tmp_path: Path, case: str) -> tuple[Any, list[ev.Event], str]:
    import deepnb

    made = CASES[case](_folder(tmp_path))
    model = scripted({"main": [{"tool_calls": [made["call"]]}, "Done."]})
    bench = deepnb.agent(unique("touch"), model, backend=made["backend"], tools=made.get("tools", []))
    seen: list[ev.Event] = []
    run = bench.start("tidy up")
    run.subscribe(seen.append)  # the events to come; the run waits on its first model call
    run.wait(30)
    return run, seen, made["prefix"]


@pytest.mark.parametrize("case", list(CASES))
def test_files_a_tool_created_changed_or_deleted_are_listed(tmp_path: Path, case: str) -> None:
    run, _, prefix = _run(tmp_path, case)
    assert run.status == "done", run.error
    expected = {f"{prefix}/made.txt", f"{prefix}/kept.txt", f"{prefix}/gone.txt"}
    if case != "execute":
        expected.add(f"{prefix}/.hidden/log")
    assert set(run.state.files_changed) == expected
    assert "Files changed: " + ", ".join(sorted(expected)) in snapshot_text(run.snapshot().state).splitlines()


def test_the_change_is_reported_as_the_tool_returns_not_at_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(changed, "PER_CALL_BUDGET", float("inf"))  # however slow the machine's listing
    _, seen, _ = _run(tmp_path, "execute")
    kinds = [type(e).__name__ for e in seen]
    finished = kinds.index("ToolCallFinished")
    assert kinds[finished + 1] == "FilesChanged"
    assert kinds.index("FilesChanged") < kinds.index("ModelTurn", finished)


def test_a_slow_listing_is_compared_once_the_run_stops_streaming(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(changed, "PER_CALL_BUDGET", 0.0)
    run, seen, _ = _run(tmp_path, "execute")
    kinds = [type(e).__name__ for e in seen]
    assert kinds.index("FilesChanged") > kinds.index("ModelTurn", kinds.index("ToolCallFinished"))
    assert set(run.state.files_changed) == {"/made.txt", "/kept.txt", "/gone.txt"}


def test_read_only_tools_take_no_listing_and_a_failing_listing_turns_the_watch_off() -> None:
    import asyncio

    class Counting:
        def __init__(self) -> None:
            self.calls = 0

        async def entries(self) -> dict[str, Any]:
            self.calls += 1
            if self.calls > 2:
                raise OSError("gone")
            return {}

    source = Counting()
    watch = changed.ListingWatch(source)  # type: ignore[arg-type]

    async def go() -> None:
        await watch.begin()
        for name in sorted(changed.READ_ONLY_TOOLS):
            assert not await watch.after_tool(name)
        assert source.calls == 1
        assert not await watch.after_tool("execute") and source.calls == 2
        assert not await watch.after_tool("execute") and not watch.active  # the third listing failed
        assert not await watch.check() and source.calls == 3

    asyncio.run(go())


def test_a_served_agents_watch_reaches_the_events_as_files_changed() -> None:
    """What a served agent's own watch writes to its stream (deepnb.engine.files.served_watch)
    is the event a kernel's watch emits."""
    told = {"type": ev.FILES_WATCHED, "written": ["/made.txt"], "deleted": ["/gone.txt", 3]}
    events = list(ev.EventTranslator().translate(((), "custom", told)))
    assert events == [ev.FilesChanged(ev.MAIN, written=("/made.txt",), deleted=("/gone.txt",))]
