"""Summarization's history files (``/conversation_history/…``) are deepagents' bookkeeping: they
stay out of "Files changed", the Changes tab and search, and stay browsable in the file view."""

from __future__ import annotations

from typing import Any

import deepnb
from deepnb.core import events as ev
from deepnb.engine.state import RunState
from deepnb.models.scripted import ScriptedChatModel, parse_script
from deepnb.views.files.files_view import FilesView

HISTORY_FILE = "/conversation_history/session_1.md"


def _write(path: str) -> dict[str, Any]:
    return {"name": "write_file", "args": {"file_path": path, "content": "Barnacles everywhere"}}


def test_the_run_state_does_not_list_history_files() -> None:
    state = RunState(agent="a", thread_id="t")
    state.apply(ev.RunStarted("main", "t", "go"))
    state.apply(ev.FilesChanged("main", written=(HISTORY_FILE, "/notes.md")))
    assert state.to_json()["files_changed"] == ["/notes.md"]


def test_history_files_are_left_out_of_changes_and_search_but_browsable() -> None:
    turns = [{"tool_calls": [_write(HISTORY_FILE), _write("/notes.md")]}, "ok"]
    model = ScriptedChatModel(script=parse_script({"agents": {"main": turns}}))
    run = deepnb.agent(name="history-unlisted", model=model).start("go", new_thread=True).wait(60)
    assert run.status == "done", run.error
    assert run.state.files_changed == ["/notes.md"]
    assert [c.path for c in run.changes()] == ["/notes.md"]
    view = FilesView(run.files, run=run)
    try:
        changes = view.request({"type": "changes"})["changes"]
        assert [c["path"] for c in changes] == ["/notes.md"]
        for mode, query in (("grep", "Barnacles"), ("glob", "**/*.md")):
            found = view.request({"type": "search", "mode": mode, "query": query, "path": "/"})["results"]
            assert [r["path"] for r in found] == ["/notes.md"], mode
            inside = {"type": "search", "mode": mode, "query": query, "path": "/conversation_history/"}
            assert [r["path"] for r in view.request(inside)["results"]] == [HISTORY_FILE], mode
        listing = view.request({"type": "ls", "path": "/conversation_history/"})
        assert HISTORY_FILE in str(listing)
    finally:
        view.close()
