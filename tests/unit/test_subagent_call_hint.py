"""A subagent whose tool call was declined (reject, respond) or failed still ends "done", and its
tree node says how many of its calls did not do their work."""

from __future__ import annotations

from deepnb.core import events as ev
from deepnb.engine.state import RunState
from deepnb.views.run.snapshot import snapshot_html, snapshot_text

SUB = "main/general-purpose"


def _run() -> RunState:
    state = RunState(agent="boss", thread_id="t1")
    for event in (
        ev.RunStarted("main", "t1", "delegate"),
        ev.SubagentStarted(
            "main", task_id="t", call_id="t", subagent_type="general-purpose", description="write", path=SUB
        ),
        ev.ToolCallStarted(SUB, "c1", "write_file", {"file_path": "/a.md", "content": "x"}),
        ev.ToolCallFinished(SUB, "c1", "write_file", "The user rejected it.", executed=False),
        ev.ToolCallStarted(SUB, "c2", "read_file", {"file_path": "/b.md"}),
        ev.ToolCallFinished(SUB, "c2", "read_file", "Error: no such file", is_error=True),
        ev.ToolCallStarted(SUB, "c3", "ls", {"path": "/"}),
        ev.ToolCallFinished(SUB, "c3", "ls", "[]"),
        ev.ToolCallFinished("main", "t", "task", "Could not write it."),
        ev.RunFinished("main", "ok"),
    ):
        state.apply(event)
    return state


def test_the_node_counts_its_declined_and_failed_calls() -> None:
    (node,) = _run().to_json()["tree"]
    assert node["status"] == "done"
    assert (node["tool_calls"], node["calls_declined"], node["calls_failed"]) == (3, 1, 1)


def test_the_static_tree_says_so() -> None:
    data = _run().to_json()
    assert "3 tool calls (1 not run, 1 failed)" in snapshot_text(data)
    assert "3 tool calls (1 not run, 1 failed)" in snapshot_html(data)
