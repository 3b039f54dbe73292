"""Async subagents against a real Agent Protocol server (``langgraph dev``, offline).

A scripted main agent starts a task on the server's ``researcher`` graph
(tests/support/agent_server), checks it and lists the tasks; deepnb reads the tasks from the
thread's state and asks the server for their live status on demand.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

import pytest
from langchain_core.messages import ToolMessage

import deepnb
from deepnb.core.errors import DeepnbError
from deepnb.core.loop import run_sync
from deepnb.engine.async_tasks import FIELDS, merge_rows, refresh_async_tasks, remote_agents, task_rows
from deepnb.models.scripted import ScriptedChatModel, parse_script
from tests.support.servers import AgentServer, agent_server_fixture, free_port, offline_client_fixture

TASK_TIMEOUT = 60.0
PROMPT = "Find out when the launch is."


# -- the server ------------------------------------------------------------------------------

agent_server = agent_server_fixture(jobs=4)


def unique(prefix: str) -> str:
    """A workbench name no other test uses (the registry is global)."""
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


offline_client = offline_client_fixture()


# -- the agent -------------------------------------------------------------------------------


class TaskIdModel(ScriptedChatModel):
    """A scripted model that replaces ``$TASK_ID`` in tool arguments with the id that the latest
    ``start_async_task`` returned (the server picks it, so a script cannot know it)."""

    def _reply(self, messages: list, run_manager: Any) -> tuple[Any, Any]:
        turn, message = super()._reply(messages, run_manager)
        started = [
            str(m.content).rsplit("task_id: ", 1)[1].strip()
            for m in messages
            if isinstance(m, ToolMessage) and m.name == "start_async_task" and "task_id: " in str(m.content)
        ]
        for call in message.tool_calls:
            for key, value in call["args"].items():
                if value == "$TASK_ID":
                    call["args"][key] = started[-1]
        return turn, message


MAIN_SCRIPT = {
    "agents": {
        "main": [
            # A task that ends while the agent still runs wakes it with a notification message.
            {"match": "task-notification", "turns": [{"text": "The researcher has finished."}]},
            {
                "match": "launch",
                "turns": [
                    {
                        "text": "I'll ask the researcher.",
                        "tool_calls": [
                            {
                                "name": "start_async_task",
                                "args": {"description": "When is the launch?", "subagent_type": "researcher"},
                            }
                        ],
                    },
                    {"tool_calls": [{"name": "check_async_task", "args": {"task_id": "$TASK_ID"}}]},
                    {"tool_calls": [{"name": "list_async_tasks", "args": {}}]},
                    {"text": "The researcher is on it."},
                ],
            },
        ]
    }
}


def researcher(url: str) -> dict[str, str]:
    return {
        "name": "researcher",
        "description": "Researches facts on a remote server.",
        "graph_id": "researcher",
        "url": url,
    }


def build(url: str, name: str | None = None) -> Any:
    model = TaskIdModel(script=parse_script(MAIN_SCRIPT, source="test_async_subagents"))
    return deepnb.agent(name or unique("async"), model, subagents=[researcher(url)])


def stored_tasks(workbench: Any, thread_id: str) -> dict[str, Any]:
    return dict(workbench.state_values(thread_id).get("async_tasks") or {})


def refresh(workbench: Any, thread_id: str, **options: Any) -> list[dict[str, str]]:
    return run_sync(refresh_async_tasks(workbench, thread_id, **options))


def refresh_until(workbench: Any, thread_id: str, status: str) -> tuple[list[dict[str, str]], list[str]]:
    """Refresh until the (only) task has ``status``; also return the statuses seen on the way."""
    seen: list[str] = []
    deadline = time.monotonic() + TASK_TIMEOUT
    while True:
        rows = refresh(workbench, thread_id)
        seen.append(rows[0]["status"])
        if seen[-1] == status or time.monotonic() > deadline:
            return rows, seen
        time.sleep(0.2)


# -- with the server -------------------------------------------------------------------------


def test_the_tools_track_the_task_in_the_thread_state(agent_server: AgentServer) -> None:
    workbench = build(agent_server.url)
    run = workbench.run(PROMPT)
    assert run.status == "done", run.error

    values = workbench.state_values(run.thread_id)
    (task,) = values["async_tasks"].values()
    assert set(task) == set(FIELDS)
    assert task["agent_name"] == "researcher"
    assert task["task_id"] == task["thread_id"]
    assert task["status"] in {"pending", "running", "success"}
    assert task["created_at"].endswith("Z") and len(task["created_at"]) == 20

    tools = {m.name: m for m in values["messages"] if isinstance(m, ToolMessage)}
    assert tools["start_async_task"].content == f"Launched async subagent. task_id: {task['task_id']}"
    check = json.loads(tools["check_async_task"].content)
    assert check["thread_id"] == task["task_id"]
    assert check["status"] in {"pending", "running", "success"}
    listed = tools["list_async_tasks"].content
    assert listed.startswith(f"1 tracked task(s):\n- task_id: {task['task_id']}  agent: researcher  status: ")

    (row,) = task_rows(values["async_tasks"])
    assert row == {name: str(task[name]) for name in FIELDS}
    assert run.async_tasks == [row]  # what the run's panel lists


def test_the_panels_refresh_button_asks_the_server(agent_server: AgentServer) -> None:
    from deepnb.session.run import Run
    from deepnb.views.run.run_view import RunView

    workbench = build(agent_server.url)
    run = workbench.run(PROMPT)
    view = RunView(run)
    view.sync()
    assert [t["agent_name"] for t in view.async_tasks] == ["researcher"]
    if view.async_tasks[0]["status"] != "success":  # a server that is down: said on the panel
        down = build(f"http://127.0.0.1:{free_port()}", name=workbench.name)
        stale = RunView(Run(down, run.thread_id, None))
        stale._on_front_end_message(stale, {"type": "refresh_tasks"}, [])
        assert "cannot be reached" in stale.async_error and "127.0.0.1" in stale.async_error
    deadline = time.monotonic() + TASK_TIMEOUT
    while view.async_tasks[0]["status"] != "success" and time.monotonic() < deadline:
        view._on_front_end_message(view, {"type": "refresh_tasks"}, [])  # the Refresh button
        view.sync()
        time.sleep(0.2)
    assert (view.async_tasks[0]["status"], view.async_error) == ("success", "")
    assert run.async_tasks[0]["status"] == "success"


def test_refresh_reports_the_live_status_without_touching_the_thread(agent_server: AgentServer) -> None:
    workbench = build(agent_server.url)
    run = workbench.run(PROMPT)
    assert run.status == "done", run.error
    before = stored_tasks(workbench, run.thread_id)
    (stored,) = before.values()

    rows, seen = refresh_until(workbench, run.thread_id, "success")

    assert seen[-1] == "success", f"the remote run did not finish in {TASK_TIMEOUT:g} s: {seen}"
    assert set(seen) <= {"pending", "running", "success"}
    (row,) = rows
    assert (row["task_id"], row["agent_name"], row["run_id"]) == (
        stored["task_id"],
        "researcher",
        stored["run_id"],
    )
    assert row["last_checked_at"] >= stored["last_checked_at"]
    assert row["created_at"] == stored["created_at"]
    if stored["status"] != "success":
        assert row["last_updated_at"] >= stored["last_updated_at"]
    assert stored_tasks(workbench, run.thread_id) == before  # nothing written back

    # A final status is kept as it is, without asking the server again.
    assert refresh(workbench, run.thread_id)[0]["status"] == "success"


def test_refresh_against_a_server_that_is_down_says_which(agent_server: AgentServer) -> None:
    workbench = build(agent_server.url)
    run = workbench.run(PROMPT)
    assert run.status == "done", run.error
    (stored,) = stored_tasks(workbench, run.thread_id).values()
    if stored["status"] == "success":
        pytest.skip("the remote run finished before the agent did; nothing left to refresh")

    down = f"http://127.0.0.1:{free_port()}"
    rebuilt = build(down, name=workbench.name)  # same name: same checkpointer, same threads
    assert remote_agents(rebuilt)["researcher"].url == down

    started = time.monotonic()
    with pytest.raises(DeepnbError) as raised:
        refresh(rebuilt, run.thread_id)
    message = str(raised.value)
    assert message.startswith(f"The Agent Protocol server at {down} (async subagent 'researcher') cannot be")
    assert "check that it is running" in message and "\n" not in message
    assert time.monotonic() - started < 5  # one quick retry, not the SDK's 7.5 s of back-off


def test_refresh_of_a_task_the_server_does_not_know_says_so(agent_server: AgentServer) -> None:
    workbench = build(agent_server.url)
    run = workbench.run(PROMPT)
    assert run.status == "done", run.error
    (stored,) = stored_tasks(workbench, run.thread_id).values()
    lost = {**stored, "task_id": str(uuid.uuid4()), "thread_id": str(uuid.uuid4()), "status": "running"}
    config = {"configurable": {"thread_id": run.thread_id}}
    run_sync(workbench.graph.aupdate_state(config, {"async_tasks": {lost["task_id"]: lost}}))

    with pytest.raises(DeepnbError) as raised:
        refresh(workbench, run.thread_id)
    assert str(raised.value) == (
        f"The Agent Protocol server at {agent_server.url} (async subagent 'researcher') has no run "
        f"{lost['run_id']} on thread {lost['thread_id']}: it may have restarted without its data, "
        "or the url may point at another server."
    )


def test_an_attached_graph_shows_the_stored_statuses(agent_server: AgentServer) -> None:
    workbench = build(agent_server.url)
    run = workbench.run(PROMPT)
    assert run.status == "done", run.error
    attached = deepnb.attach(workbench.graph, unique("attached"))  # shares the checkpointer

    assert remote_agents(attached) == {}
    rows = refresh(attached, run.thread_id)
    assert rows == task_rows(stored_tasks(workbench, run.thread_id))


# -- without a server ------------------------------------------------------------------------


def _task(task_id: str, created_at: str, status: str = "running") -> dict[str, str]:
    return {
        "task_id": task_id,
        "agent_name": "researcher",
        "thread_id": task_id,
        "run_id": f"run-{task_id}",
        "status": status,
        "created_at": created_at,
        "last_checked_at": created_at,
        "last_updated_at": created_at,
    }


def test_task_rows_are_strings_in_creation_order() -> None:
    tasks = {
        "b": _task("b", "2026-01-02T00:00:00Z"),
        "a": _task("a", "2026-01-01T00:00:00Z"),
        "c": {"agent_name": "critic", "status": None, "created_at": "2026-01-02T00:00:00Z"},
        "junk": "not a task",
    }
    rows = task_rows(tasks)
    assert [row["task_id"] for row in rows] == ["a", "b", "c"]
    assert all(list(row) == list(FIELDS) for row in rows)
    assert rows[2] == dict.fromkeys(FIELDS, "") | {
        "task_id": "c",
        "agent_name": "critic",
        "created_at": "2026-01-02T00:00:00Z",
    }
    assert task_rows(None) == [] and task_rows({}) == []


def test_merge_rows_applies_a_partial_update() -> None:
    rows = task_rows({"a": _task("a", "2026-01-01T00:00:00Z"), "b": _task("b", "2026-01-02T00:00:00Z")})
    done = _task("a", "2026-01-01T00:00:00Z", status="success")
    merged = merge_rows(rows, {"a": done})
    assert [(row["task_id"], row["status"]) for row in merged] == [("a", "success"), ("b", "running")]
    assert merge_rows(rows, {}) == rows
    assert merge_rows([], {"a": done}) == task_rows({"a": done})
