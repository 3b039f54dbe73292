"""deepnb.connect: a deep agent served by a real ``langgraph dev`` (offline, scripted), driven
through the same Run, events and views as a local agent.

The served graph is tests/support/agent_server/deep_graph.py: todos, a ``researcher`` subagent
(``task``), ``write_file`` gated by ``interrupt_on``, a slow tool, files in the agent's state.
"""

from __future__ import annotations

from typing import Any

import pytest

import deepnb
from deepnb import agents
from deepnb._loop import run_sync
from deepnb.remote import RemoteWorkbench
from deepnb.session import Session
from deepnb.views.output import run_bundle
from tests.support.agents import unique
from tests.support.servers import FOREIGN_ENV, AgentServer, agent_server_fixture

WAIT = 60.0
RESULT = "Done: the launch is in May, notes in /notes.md."
FOUND = "Found it: the launch moved to May."

agent_server = agent_server_fixture()


@pytest.fixture(autouse=True)
def _offline_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in FOREIGN_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")


def connect(server: AgentServer, **options: Any) -> RemoteWorkbench:
    return deepnb.connect(server.url, "deep", name=options.pop("name", unique("remote")), **options)


def server_run(server: AgentServer, bench: RemoteWorkbench, thread_id: str) -> dict[str, Any]:
    """The newest run of a thread, as the server reports it."""
    runs = run_sync(bench.graph.client.runs.list(thread_id, limit=1))
    return dict(runs[0])


def test_connect_registers_a_session_under_its_name(agent_server: AgentServer) -> None:
    bench = connect(agent_server, name=unique("named"))
    assert isinstance(bench, Session)
    assert agents.find(bench.name) is bench
    assert deepnb.connect(agent_server.url, "deep") is agents.find("deep")  # default: the assistant
    assert bench.url in bench.label and "deep" in bench.label


def test_a_remote_run_streams_todos_tools_subagents_and_waits_for_approval(agent_server: AgentServer) -> None:
    bench = connect(agent_server)
    run = bench.run("Plan the launch", new_thread=True)
    assert run.status == "interrupted", run.error
    assert [t["content"] for t in run.todos] == ["Ask the researcher", "Write the notes"]
    (node,) = run.tree.children
    assert (node.name, node.status, node.result) == ("researcher", "done", FOUND)
    (request,) = run.pending
    assert (request.name, request.args["file_path"]) == ("write_file", "/notes.md")
    items = run.state.to_json()["items"]
    tools = [(i["agent"], i["name"], i["status"]) for i in items if i["kind"] == "tool"]
    assert tools == [
        ("main", "write_todos", "done"),
        ("main", "task", "done"),
        ("main", "write_file", "waiting"),
    ]
    assert ("main/researcher", FOUND) in [(i["agent"], i.get("text")) for i in items if i["kind"] == "text"]
    shown = run_bundle(run)["text/plain"]
    assert "Subagents (1):" in shown and "researcher [done]" in shown, shown
    assert "Waiting for approval: write_file" in shown, shown

    request.approve()
    run.wait(WAIT)
    assert run.status == "done", run.error
    assert run.result == RESULT
    assert run.files["/notes.md"] == "Launch: May\n"
    assert [m.type for m in bench.state_values(run.thread_id)["messages"]][-1] == "ai"
