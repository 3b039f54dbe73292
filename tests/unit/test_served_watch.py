"""A served agent's own file watch (deepnb.engine.files.served_watch): where its tools run, it
tells the run's stream what each tool call changed outside the thread's state, or, when listing
is too slow to take after each call, what the turn changed once the agent ends it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from deepnb.core import events as ev
from deepnb.engine.files import changed
from deepnb.engine.spec import AgentSpec
from tests.support.agents import scripted, stream_chunks


def _graph(root: Path, *, served: bool = True, on_state: bool = False) -> Any:
    from deepagents.backends import FilesystemBackend, StateBackend
    from langchain_core.tools import tool

    (root / "kept.txt").write_text("kept\n")

    @tool
    def tidy() -> str:
        """Tidy the folder."""
        (root / "made.txt").write_text("made")
        return "tidied"

    model = scripted({"main": [{"tool_calls": [{"name": "tidy", "args": {}}]}, "Done."]})
    backend = StateBackend() if on_state else FilesystemBackend(root_dir=str(root), virtual_mode=True)
    spec = AgentSpec(model, "scripted:x", {"tools": [tidy], "backend": backend})
    return spec.build(name="tidy", checkpointer=None, served=served)


def _told(graph: Any) -> list[tuple[str, tuple[Any, ...]]]:
    """What the stream told, in order: each custom files event, and each tool message."""
    found = []
    for namespace, mode, data in stream_chunks(graph, "tidy up"):
        if mode == "custom" and isinstance(data, dict) and data.get("type") == ev.FILES_WATCHED:
            found.append(("files", tuple(data["written"])))
        elif mode == "updates" and not namespace and "tools" in data:
            found.append(("tool", ()))
    return found


def test_each_tool_calls_change_is_told_as_it_returns(tmp_path: Path) -> None:
    assert _told(_graph(tmp_path)) == [("files", ("/made.txt",)), ("tool", ())]


def test_a_slow_listing_is_compared_when_the_agent_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(changed, "PER_CALL_BUDGET", 0.0)
    assert _told(_graph(tmp_path)) == [("tool", ()), ("files", ("/made.txt",))]


def test_only_a_served_agent_with_files_outside_its_state_has_the_watch(tmp_path: Path) -> None:
    from deepnb.core.graphs.reading import middleware_of

    def kinds(graph: Any) -> list[str]:
        return [type(m).__name__ for m in middleware_of(graph) or []]

    assert "DeepnbFilesWatchMiddleware" in kinds(_graph(tmp_path))
    assert "DeepnbFilesWatchMiddleware" not in kinds(_graph(tmp_path, served=False))
    assert "DeepnbFilesWatchMiddleware" not in kinds(_graph(tmp_path, on_state=True))
