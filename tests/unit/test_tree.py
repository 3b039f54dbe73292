"""The subagent tree and summarization cards on real deep agents: parallel and nested subagents,
statuses (waiting, error, cancelled), the research demo's summarization, the static snapshot,
and the view's patches carrying only the nodes that changed."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

import deepnb
from deepnb.models.scripted import ScriptedChatModel, parse_script
from deepnb.views.run.snapshot import snapshot_bundle
from tests.support.waiting import wait_until

PROMPT = "Write a short report on how coral reefs recover after bleaching."


def name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


def task(description: str, kind: str = "general-purpose") -> dict[str, Any]:
    return {"name": "task", "args": {"subagent_type": kind, "description": description}}


def model(agents: dict[str, Any], **script: Any) -> ScriptedChatModel:
    return ScriptedChatModel(script=parse_script({"agents": agents, **script}))


NESTED = {
    "main": [
        {
            "text": "Delegating.",
            "tool_calls": [
                {
                    "name": "task",
                    "args": {"subagent_type": "coordinator", "description": "Coordinate lookups"},
                }
            ],
        },
        "All done.",
    ],
    "coordinator": [
        {
            "text": "Two at once.",
            "tool_calls": [
                {"name": "task", "args": {"subagent_type": "general-purpose", "description": "look up A"}},
                {"name": "task", "args": {"subagent_type": "general-purpose", "description": "look up B"}},
            ],
        },
        "Both found.",
    ],
    "general-purpose": [
        {"text": "Checking.", "tool_calls": [{"name": "ls", "args": {"path": "/"}}]},
        "Found it.",
    ],
}


def test_parallel_subagents_and_summarization_from_the_research_demo() -> None:
    run = deepnb.agent(name("research"), "demo:research").run(PROMPT).wait()
    assert run.status == "done", run.error

    tree = run.tree
    assert (tree.path, tree.status, len(tree)) == ("main", "done", 3)
    paths = [node.path for node in tree.children]
    assert paths == ["main/general-purpose", "main/general-purpose#2", "main/general-purpose#3"]
    for node, topic in zip(tree.children, ("causes", "recovery", "interventions"), strict=True):
        assert node.status == "done"
        assert node.name == "general-purpose"
        assert topic in node.description
        assert node.result.startswith(f"Notes on {topic}")
        assert node.tool_calls == 1 and node.tokens_out > 0 and node.duration is not None
    assert tree.find("main/general-purpose#2").label == "general-purpose #2"

    (summary,) = run.summaries
    assert summary.agent == "main"
    assert summary.messages == summary.cutoff > 0
    assert summary.tokens_before and summary.tokens_after and summary.tokens_after < summary.tokens_before
    assert summary.text.startswith("- The user asked for a short report")
    assert summary.file_path and summary.file_path.startswith("/conversation_history/")
    assert "coral" in run.files[summary.file_path]  # the offloaded history holds the older messages

    # The card sits in the main transcript, before the text of the turn it made room for.
    kinds = [(item["kind"], item.get("agent")) for item in run.state.items]
    at = kinds.index(("summary", "main"))
    assert ("text", "main") in kinds[at + 1 :]

    bundle = snapshot_bundle(run.state)
    html, text = bundle["text/html"], bundle["text/plain"]
    assert 'class="deepnb-tree"' in html and "Subagents</b> (3)" in html
    assert "general-purpose #3 [done]" in html
    assert f"Context summarized: {summary.messages} messages" in html and summary.file_path in html
    assert "Subagents (3):" in text and "Context summarized" in text


def test_nested_subagents_become_nested_nodes() -> None:
    from deepagents import create_deep_agent

    chat = model(NESTED)
    inner = create_deep_agent(model=chat, name="coordinator")
    spec = {"name": "coordinator", "description": "Coordinates lookups", "runnable": inner}
    run = deepnb.agent(name("nested"), chat, subagents=[spec]).run("go").wait()
    assert run.status == "done", run.error

    (coordinator,) = run.tree.children
    assert (coordinator.path, coordinator.status, coordinator.result) == (
        "main/coordinator",
        "done",
        "Both found.",
    )
    assert coordinator.tool_calls == 2
    children = [(n.path, n.status, n.description, n.result) for n in coordinator.children]
    assert children == [
        ("main/coordinator/general-purpose", "done", "look up A", "Found it."),
        ("main/coordinator/general-purpose#2", "done", "look up B", "Found it."),
    ]
    assert len(run.tree) == 3
    # Each subagent's own transcript is kept under its path.
    own = [i["kind"] for i in run.state.items if i["agent"] == "main/coordinator/general-purpose#2"]
    assert own == ["text", "tool", "text"]
    html = snapshot_bundle(run.state)["text/html"]
    assert html.index("coordinator [done]") < html.index("general-purpose #2 [done]")


def test_a_subagent_waiting_for_approval_then_done() -> None:
    wb = deepnb.agent(name("wait"), "demo:approvals", interrupt_on={"write_file": True, "edit_file": True})
    run = wb.run("Plan the launch")
    run.pending[0].approve()
    run.wait()
    assert run.status == "interrupted"
    statuses = {n.path: n.status for n in run.tree.children}
    assert statuses == {"main/general-purpose": "waiting", "main/general-purpose#2": "waiting"}
    for request in run.pending:
        request.approve()
    run.wait()
    run.pending[0].approve()  # the main agent's edit_file
    run.wait()
    assert run.status == "done"
    assert {n.status for n in run.tree.children} == {"done"}


def test_a_failing_subagent_is_an_error_node() -> None:
    agents = {
        "main": [{"text": "", "tool_calls": [task("x")]}, "Recovered."],
        "general-purpose": [{"error": "the search backend is down"}],
    }
    run = deepnb.agent(name("fail"), model(agents)).run("go").wait()
    (node,) = run.tree.children
    assert node.status == "error"
    assert "search backend is down" in node.result


def test_stopping_a_run_cancels_its_running_subagents() -> None:
    slow = [
        {"text": "", "tool_calls": [task("slow A"), task("slow B")]},
        "never reached",
    ]
    chat = model({"main": slow, "general-purpose": [{"text": "word " * 400}]}, delay=0.01)
    run = deepnb.agent(name("stop"), chat).run("go", background=True)
    wait_until(lambda: len(run.state.nodes) >= 2, "both subagents to start")
    assert {n["status"] for n in run.state.nodes.values()} == {"running"}
    run.stop()
    run.wait()
    assert run.status == "cancelled"
    assert {n.status for n in run.tree.children} == {"cancelled"}
    assert all(n.duration is not None for n in run.tree.children)


def test_the_tree_reads_back_from_the_thread_after_a_restart(tmp_path: Path) -> None:
    db = f"sqlite:{tmp_path / 'threads.db'}"
    agent_name = name("restart")
    first = deepnb.agent(agent_name, "demo:research", checkpointer=db)
    run = first.run(PROMPT).wait()
    thread = run.thread_id
    again = deepnb.agent(agent_name, "demo:research", checkpointer=db)  # a new kernel's workbench
    tree = again.tree(thread)
    assert [(n.path, n.status) for n in tree.children] == [(n.path, "done") for n in run.tree.children]
    assert tree.children[0].result == run.tree.children[0].result


def test_view_patches_carry_only_the_nodes_that_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    from deepnb.core import events as ev
    from deepnb.session.run import Run
    from deepnb.views.run.run_view import RunView

    wb = deepnb.agent(name("patch"), "demo:quickstart")
    run = Run(wb, "t-patch", "go")
    sent: list[dict] = []
    view = RunView(run)
    monkeypatch.setattr(view, "send", sent.append)
    # Patches go out only when the test sends them, not when the view's throttle fires on its own.
    monkeypatch.setattr(view._throttle, "poke", lambda: None)
    run.emit(ev.RunStarted("main", "t-patch", "go"))
    for n in range(3):
        run.emit(ev.SubagentStarted("main", f"T{n}", f"c{n}", "general-purpose", f"job {n}", f"main/gp#{n}"))
    view._send_patch(run.state)
    assert [node["id"] for node in sent[-1]["nodes"]] == ["main/gp#0", "main/gp#1", "main/gp#2"]
    run.emit(ev.ToolCallStarted("main/gp#1", "x1", "ls", {"path": "/"}))
    view._send_patch(run.state)
    (node,) = sent[-1]["nodes"]
    assert (node["id"], node["tool_calls"], node["activity"]) == ("main/gp#1", 1, "ls(path='/')")
    count = len(sent)
    view._send_patch(run.state)  # nothing changed: nothing sent
    assert len(sent) == count
