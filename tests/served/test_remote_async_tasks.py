"""A served agent's async tasks: a ``supervisor`` on a real ``langgraph dev`` (offline, scripted)
whose async subagent ``researcher`` runs on the same server, connected with ``deepnb.connect``.

deepnb has no spec for a served agent, so it asks the agent's own server about its tasks; a task
that server does not know (its subagent runs elsewhere) keeps its status as last seen, and the
panel says why in one line.
"""

from __future__ import annotations

import re
import time
import uuid
from typing import Any

import pytest

import deepnb
from deepnb.core import events as ev
from deepnb.core.errors import DeepnbError
from deepnb.core.loop import run_sync
from deepnb.engine.async_tasks import FIELDS, ServedAgent, refresh_async_tasks, refresh_tasks, remote_agents
from deepnb.engine.state import RunState
from deepnb.session.remote import RemoteWorkbench
from deepnb.views.output import run_bundle
from deepnb.views.run.run_view import RunView
from deepnb.views.run.snapshot import snapshot_bundle
from tests.support.agent_server.key_check import ACCEPTED_KEY
from tests.support.agent_server.supervisor_graph import NOTIFIED, RESULT
from tests.support.agents import unique
from tests.support.servers import AgentServer, agent_server_fixture, offline_client_fixture
from tests.support.waiting import WAIT

PROMPT = "Find out when the launch is."

agent_server = agent_server_fixture(jobs=4)


offline_client = offline_client_fixture()


def supervisor(server: AgentServer, **options: Any) -> RemoteWorkbench:
    return deepnb.connect(server.url, "supervisor", name=unique("supervisor"), **options)


def refresh_until_done(view: RunView) -> None:
    """Press the panel's Refresh until the task's run on the server has finished."""
    deadline = time.monotonic() + WAIT
    while view.async_tasks[0]["status"] != "success" and time.monotonic() < deadline:
        view._on_front_end_message(view, {"type": "refresh_tasks"}, [])  # the Refresh button
        view.sync()
        time.sleep(0.2)


def test_a_served_agents_task_shows_on_its_run_and_panel(agent_server: AgentServer) -> None:
    bench = supervisor(agent_server)
    assert remote_agents(bench) == {}  # no spec: its subagents are not named in the kernel
    assert isinstance(bench, ServedAgent) and bench.agent_server.url == agent_server.url

    run = bench.run(PROMPT, new_thread=True)
    assert run.status == "done", run.error
    assert run.result == RESULT
    (row,) = run.async_tasks
    assert list(row) == list(FIELDS)
    assert row["agent_name"] == "researcher" and row["task_id"] == row["thread_id"]
    assert row["status"] in {"pending", "running", "success"}
    stored = dict(bench.state_values(run.thread_id)["async_tasks"])
    assert stored[row["task_id"]]["run_id"] == row["run_id"]  # the server thread's own state
    # However far the task got before the run ended, the thread now says it is running: only a
    # refresh that asks the server can see it finish.
    stored[row["task_id"]] = {**stored[row["task_id"]], "status": "running"}
    config = {"configurable": {"thread_id": run.thread_id}}
    run_sync(bench.graph.aupdate_state(config, {"async_tasks": stored}))

    view = RunView(run)
    view.sync()
    assert [task["task_id"] for task in view.async_tasks] == [row["task_id"]]
    refresh_until_done(view)
    assert (view.async_tasks[0]["status"], view.async_error) == ("success", "")
    assert run.async_tasks[0]["status"] == "success"
    assert run.async_tasks[0]["last_checked_at"] >= row["last_checked_at"]
    assert bench.state_values(run.thread_id)["async_tasks"] == stored  # nothing written back

    # The static form (where widgets don't run) lists the task with its status.
    bundle = run_bundle(run)
    assert "Async tasks" in bundle["text/html"] and row["task_id"] in bundle["text/html"]
    assert re.search(rf"^  researcher +success +{row['task_id']}  ", bundle["text/plain"], re.M)


def test_the_refresh_asks_the_agents_server_with_its_key(agent_server: AgentServer) -> None:
    bench = supervisor(agent_server, api_key=ACCEPTED_KEY)
    run = bench.run(PROMPT, new_thread=True)
    assert run.status == "done", run.error
    (row,) = run.async_tasks
    deadline = time.monotonic() + WAIT
    rows = run_sync(refresh_async_tasks(bench, run.thread_id))
    while rows[0]["status"] != "success" and time.monotonic() < deadline:
        time.sleep(0.2)
        rows = run_sync(refresh_async_tasks(bench, run.thread_id))
    assert [(r["task_id"], r["status"]) for r in rows] == [(row["task_id"], "success")]

    # A key the server refuses: one line saying which server, not a hang or a traceback.
    wrong = deepnb.connect(agent_server.url, "supervisor", name=unique("wrong"), api_key=ACCEPTED_KEY)
    object.__setattr__(wrong.server, "api_key", "not-the-key")  # as if the key changed since
    unfinished = {**row, "status": "running"}
    config = {"configurable": {"thread_id": run.thread_id}}
    run_sync(bench.graph.aupdate_state(config, {"async_tasks": {row["task_id"]: unfinished}}))
    with pytest.raises(DeepnbError) as raised:
        run_sync(refresh_async_tasks(wrong, run.thread_id))
    assert str(raised.value) == (
        f"The Agent Protocol server at {agent_server.url} (async subagent 'researcher') refused the "
        "request (HTTP 401): connect again with a key it accepts (deepnb.connect(..., api_key=...))."
    )


def test_a_task_on_another_server_stays_as_last_seen_and_says_why(agent_server: AgentServer) -> None:
    bench = supervisor(agent_server)
    run = bench.run(PROMPT, new_thread=True)
    assert run.status == "done", run.error
    (own,) = run.async_tasks
    elsewhere = {
        **own,
        "task_id": str(uuid.uuid4()),
        "thread_id": str(uuid.uuid4()),
        "agent_name": "critic",
        "status": "running",
        "created_at": "2099-01-01T00:00:00Z",  # listed after the researcher's task
        "last_checked_at": "2099-01-01T00:00:00Z",
    }
    config = {"configurable": {"thread_id": run.thread_id}}
    run_sync(bench.graph.aupdate_state(config, {"async_tasks": {elsewhere["task_id"]: elsewhere}}))

    refreshed = run_sync(refresh_tasks(bench, run.thread_id))
    assert refreshed.rows[1] == {name: elsewhere[name] for name in FIELDS}  # untouched
    assert refreshed.rows[0]["task_id"] == own["task_id"]
    assert refreshed.rows[0]["last_checked_at"] >= own["last_checked_at"]  # asked about
    assert refreshed.note == (
        f"Task {elsewhere['task_id']} (critic) runs on another server than {agent_server.url}, where this "
        "agent is served; a served agent does not say where its subagents run, so the status shown is "
        "as last seen."
    )

    view = RunView(run)
    view._on_front_end_message(view, {"type": "refresh_tasks"}, [])
    view.sync()
    assert view.async_error == refreshed.note
    assert [task["status"] for task in view.async_tasks][1] == "running"


# -- without a server ------------------------------------------------------------------------


def test_the_static_form_lists_tasks_as_text_never_as_markup() -> None:
    task = dict.fromkeys(FIELDS, "") | {"task_id": "t-1", "agent_name": "<b>critic</b>", "status": "running"}
    state = RunState(agent="a", thread_id="t")
    state.apply(ev.AsyncTasksChanged(ev.MAIN, {"t-1": task}))
    bundle = snapshot_bundle(state)
    assert "&lt;b&gt;critic&lt;/b&gt;" in bundle["text/html"] and "<b>critic</b>" not in bundle["text/html"]
    assert "\n  <b>critic</b>  running  t-1" in bundle["text/plain"]  # the table's row, as text
    assert "Async tasks" not in snapshot_bundle(RunState(agent="a", thread_id="t"))["text/html"]


def wait_for_notification(bench: RemoteWorkbench, thread_id: str) -> list[dict[str, Any]]:
    """The thread's runs once the subagent's notification run (the second) has finished."""
    deadline = time.monotonic() + WAIT
    while True:
        runs = [dict(r) for r in run_sync(bench.graph.client.runs.list(thread_id, limit=10))]
        if len(runs) >= 2 and all(r["status"] not in ("pending", "running") for r in runs):
            return runs
        if time.monotonic() > deadline:
            pytest.fail(f"no notification run finished on the supervisor's thread: {runs}")
        time.sleep(0.2)


def test_a_subagent_of_the_same_deployment_is_asked_on_the_agents_server(agent_server: AgentServer) -> None:
    bench = supervisor(agent_server)
    run = bench.run("Ask the analyst about the launch.", new_thread=True)
    assert run.status == "done", run.error
    (row,) = run.async_tasks
    assert row["agent_name"] == "analyst" and row["status"] in {"pending", "running", "success"}

    # The analyst wakes the supervisor when it finishes: a run on its thread that deepnb did not start.
    wait_for_notification(bench, run.thread_id)
    messages = bench.state_values(run.thread_id)["messages"]
    assert messages[-1].content == NOTIFIED

    stored = dict(bench.state_values(run.thread_id)["async_tasks"])
    stored[row["task_id"]] = {**stored[row["task_id"]], "status": "running"}
    config = {"configurable": {"thread_id": run.thread_id}}
    run_sync(bench.graph.aupdate_state(config, {"async_tasks": stored}))
    refreshed = run_sync(refresh_tasks(bench, run.thread_id))
    assert [(r["task_id"], r["status"]) for r in refreshed.rows] == [(row["task_id"], "success")]
    assert refreshed.note == ""
