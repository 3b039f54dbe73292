"""Every built-in tool's card tells the truth when its call fails: the error, never a summary of a
change the call did not make. The tools are listed from the agent deepagents builds (file tools,
``execute`` on a shell backend, ``write_todos``, ``task``, the interpreter's ``eval``), so a tool a
new deepagents adds fails this test until it has a failing call here."""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

import deepnb
from deepnb.views.run.snapshot import snapshot_html, snapshot_text
from tests.support.agents import scripted, tool_messages, unique
from tests.support.waiting import WAIT

BAD_TODOS = [{"content": "Plan", "status": "in_progress"}, {"content": "Ship", "status": "someday"}]
FAILING: dict[str, tuple[dict[str, Any], str]] = {
    # tool: (arguments of a call that fails, what its card's result says)
    "ls": ({"path": "/nowhere"}, "Error: Path '/nowhere': path_not_found"),
    "read_file": ({"file_path": "/missing.txt"}, "Error: File '/missing.txt' not found"),
    "write_file": ({"file_path": "/../../x.txt", "content": "hi"}, "Error: Path traversal not allowed"),
    "edit_file": (
        {"file_path": "/missing.txt", "old_string": "a", "new_string": "b"},
        "Error: File '/missing.txt' not found",
    ),
    "delete": ({"file_path": "/missing.txt"}, "Error: '/missing.txt' not found"),
    "glob": ({"pattern": "*", "path": "/../.."}, "Error: Path traversal not allowed"),
    "grep": ({"pattern": "x", "path": "/../.."}, "Error: Path traversal not allowed"),
    "execute": ({"command": "exit 3"}, "[Command failed with exit code 3]"),
    "write_todos": ({"todos": BAD_TODOS}, "Error: todos.1.status: Input should be 'pending'"),
    "task": ({"subagent_type": "nobody", "description": "Look"}, "We cannot invoke subagent nobody"),
    "eval": ({"code": "throw new Error('boom')"}, "Error: boom"),
}


def test_every_built_in_tool_shows_its_error_when_its_call_fails(tmp_path: Path) -> None:
    from deepagents.backends import LocalShellBackend  # lazy: deepagents is heavy

    backend = LocalShellBackend(root_dir=str(tmp_path), virtual_mode=True, inherit_env=False)
    turns = [{"tool_calls": [{"name": name, "args": args}]} for name, (args, _) in FAILING.items()]
    model = scripted({"main": [*turns, {"text": "Carried on."}]})
    workbench = deepnb.agent(unique("failing"), model, backend=backend, interpreter=True)
    run = workbench.start("go").wait(WAIT)
    assert run.status == "done", run.error

    assert sorted(run.state.given["tools"]["main"]) == sorted(FAILING)  # each built-in tool, once
    told = dict(tool_messages(workbench, run.thread_id))
    data = run.state.to_json()  # what the live view is sent
    html, text = snapshot_html(data), snapshot_text(data)
    cards = {item["name"]: item for item in data["items"] if item["kind"] == "tool"}
    assert sorted(cards) == sorted(FAILING)
    for name, (_, error) in FAILING.items():
        card, said = cards[name], error.removeprefix("Error: ")
        assert said in told[name]  # the tool's own answer: the call failed
        assert card["status"] == "error", name
        shown = card["eval"]["error"] if name == "eval" else card["result_full"]
        assert error in shown or (said in shown and name == "eval"), (name, shown)
        assert escape(said) in html and said in text, name
        assert "todo_changes" not in card, name
    todos_card = cards["write_todos"]
    assert todos_card["args"].startswith("todos=[") and "added" not in todos_card["args"]
    assert "with kwargs" not in todos_card["result_full"]  # the error, not the arguments again
    line = next(line for line in text.splitlines() if "write_todos(" in line)
    assert "[error]" in line and "added" not in line and "started" not in line and "not a todo" not in line
    assert 'data-change="added"' not in html and "dnb-todo-changes" not in html
    assert run.todos == [] and data["files_changed"] == []  # nothing the calls did not do
