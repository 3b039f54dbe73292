"""A model's tool-call arguments the tool refuses fail that call, and the model is told why; the
run goes on. Run for real on a scripted model (tests/security/test_tool_call_args.py drives every
reader with arbitrary JSON)."""

from __future__ import annotations

from typing import Any

import pytest

import deepnb
from deepnb.views.run.snapshot import snapshot_html
from tests.support.agents import scripted, tool_messages, unique
from tests.support.waiting import WAIT


def _nested(depth: int) -> Any:
    value: Any = "bottom"
    for _ in range(depth):
        value = {"d": [value]}
    return value


def _run(name: str, args: dict[str, Any], **options: Any) -> Any:
    model = scripted({"main": [{"tool_calls": [{"name": name, "args": args}]}, {"text": "Carried on."}]})
    workbench = deepnb.agent(unique("args"), model, **options)
    return workbench, workbench.start("go").wait(WAIT)


def test_write_todos_with_an_unknown_status_fails_the_call_not_the_run() -> None:
    todos = [{"content": "Plan", "status": "pending"}, {"content": "Ship", "status": "someday"}]
    workbench, run = _run("write_todos", {"todos": todos})
    assert run.status == "done", run.error
    assert run.result == "Carried on."
    ((name, said),) = tool_messages(workbench, run.thread_id)
    assert name == "write_todos" and "someday" in said  # the tool told the model what is wrong
    (card,) = [i for i in run.state.to_json()["items"] if i["kind"] == "tool"]
    assert card["status"] == "error"  # the arguments as sent, not a change it did not make
    assert card["args"].startswith("todos=[") and "todo_changes" not in card
    assert card["result"].startswith("Error: todos.1.status: Input should be")
    assert run.todos == []  # the list the tool refused was never written


@pytest.mark.parametrize(
    ("name", "args"),
    [
        # wrong types, nested past what a card shows (LangGraph's checkpoint takes no more than ~250 levels)
        ("write_file", {"file_path": ["/a"], "content": _nested(60)}),
        ("edit_file", {"file_path": "/a", "old_string": "", "new_string": "x" * 2_000_000}),
        ("task", {"subagent_type": {"kind": 1}, "description": None}),
        ("read_file", {}),  # a key missing
    ],
)
def test_arguments_the_tool_refuses_leave_the_run_going(name: str, args: dict[str, Any]) -> None:
    _, run = _run(name, args, interrupt_on={name: True})
    assert run.status == "interrupted", run.error  # the approval card shows what it can
    (action,) = run.state.to_json()["pending"][0]["actions"]
    assert len(action["args"]) <= 80
    run.pending[0].approve()
    assert run.wait(WAIT).status == "done", run.error
    assert len(snapshot_html(run.state.to_json())) < 100_000
