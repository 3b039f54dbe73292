"""A ``write_todos`` card shows what the call changed in the todo list (added, started, ticked,
removed), not the list's Python repr, live and in the snapshot."""

from __future__ import annotations

from deepnb.core import events as ev
from deepnb.engine.card_text import changes_summary, todo_changes
from deepnb.engine.state import RunState
from deepnb.views.run.snapshot import snapshot_html, snapshot_text

FIRST = [
    {"content": "Gather data", "status": "in_progress"},
    {"content": "Analyse it", "status": "pending"},
    {"content": "Old idea", "status": "pending"},
]
SECOND = [
    {"content": "Gather data", "status": "completed"},
    {"content": "Analyse it", "status": "in_progress"},
    {"content": "Report", "status": "pending"},
]


def planned() -> RunState:
    state = RunState(agent="a", thread_id="t")
    for n, todos in enumerate((FIRST, SECOND), start=1):
        state.apply(ev.ToolCallStarted("main", f"c{n}", "write_todos", {"todos": todos}))
        state.apply(ev.ToolCallFinished("main", f"c{n}", "write_todos", f"Updated todo list to {todos}"))
    return state


def test_each_write_todos_card_shows_its_change() -> None:
    first, second = (i for i in planned().items if i["kind"] == "tool")
    assert first["args"] == "3 added, 1 started"
    assert second["args"] == "1 added, 1 started, 1 done, 1 removed"
    assert second["todo_changes"] == [
        {"change": "completed", "content": "Gather data"},
        {"change": "started", "content": "Analyse it"},
        {"change": "added", "content": "Report"},
        {"change": "removed", "content": "Old idea"},
    ]
    assert (second["result"], second["result_full"]) == ("Updated todo list", "Updated todo list")  # no repr


def test_the_snapshot_shows_the_change_folded_and_no_repr() -> None:
    data = planned().to_json()
    html, text = snapshot_html(data), snapshot_text(data)
    assert "{&#x27;content&#x27;" not in html and "{'content'" not in text
    assert "write_todos(1 added, 1 started, 1 done, 1 removed) [done] → Updated todo list" in text
    assert '<details class="dnb-todo-changes"><summary>changes</summary>' in html
    assert '<li data-change="removed">− Old idea</li>' in html


def test_a_failed_write_todos_keeps_its_error() -> None:
    state = RunState(agent="a", thread_id="t")
    state.apply(ev.ToolCallStarted("main", "c1", "write_todos", {"todos": FIRST}))
    state.apply(ev.ToolCallFinished("main", "c1", "write_todos", "Error: bad status", is_error=True))
    assert state.items[0]["result"] == "Error: bad status"


def test_unchanged_lists_and_reopened_todos() -> None:
    todos = [{"content": "A", "status": "completed"}]
    reopened = [{"content": "A", "status": "pending"}]
    assert changes_summary(todo_changes(todos, todos)) == "no change"  # type: ignore[arg-type]
    assert todo_changes(todos, reopened) == [{"change": "reopened", "content": "A"}]  # type: ignore[arg-type]


def test_a_declined_or_failed_write_todos_shows_no_change_and_the_next_counts_from_before() -> None:
    state = RunState(agent="a", thread_id="t")
    state.apply(ev.ToolCallStarted("main", "c1", "write_todos", {"todos": FIRST}))
    state.apply(ev.ToolCallFinished("main", "c1", "write_todos", "Updated todo list to [...]"))
    state.apply(ev.ToolCallStarted("main", "c2", "write_todos", {"todos": SECOND}))
    state.apply(ev.ToolCallFinished("main", "c2", "write_todos", "Rejected: not now", executed=False))
    state.apply(ev.ToolCallStarted("main", "c3", "write_todos", {"todos": SECOND}))
    state.apply(ev.ToolCallFinished("main", "c3", "write_todos", "Error: todos.0: bad", is_error=True))
    state.apply(ev.ToolCallStarted("main", "c4", "write_todos", {"todos": SECOND}))
    state.apply(ev.ToolCallFinished("main", "c4", "write_todos", "Updated todo list to [...]"))
    first, declined, failed, last = (i for i in state.items if i["kind"] == "tool")
    assert first["args"] == "3 added, 1 started"
    for card in (declined, failed):
        assert "todo_changes" not in card and card["args"].startswith("todos=[")
    assert (declined["status"], failed["status"], failed["result"]) == (
        "declined",
        "error",
        "Error: todos.0: bad",
    )
    assert last["args"] == "1 added, 1 started, 1 done, 1 removed"  # from the list the first call wrote
