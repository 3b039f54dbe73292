"""``workbench.map`` on a connected agent: the server runs each input on a thread of its own, at
most ``concurrency`` at once, and the batch reads them as it reads local runs (results, failures,
runs waiting for approval)."""

from __future__ import annotations

from typing import Any

import deepnb
from deepnb.core.loop import run_sync
from tests.support.agent_server.researcher_graph import RESULT
from tests.support.agents import unique
from tests.support.servers import AgentServer, agent_server_fixture, offline_client_fixture
from tests.support.waiting import WAIT

agent_server = agent_server_fixture()


offline_client = offline_client_fixture()


def test_map_over_three_inputs_on_a_connected_agent(agent_server: AgentServer) -> None:
    bench = deepnb.connect(agent_server.url, "researcher", name=unique("remote-map"))
    batch = bench.map(
        [{"q": "the launch"}, {"q": "the budget"}, {"q": "the venue"}], template="Look up {q}", concurrency=2
    )
    batch.wait(WAIT)
    assert batch.statuses == ["done"] * 3, [run.error for run in batch.runs if run]
    assert batch.results == [RESULT] * 3
    threads = [run.thread_id for run in batch.runs if run is not None]
    assert len(set(threads)) == 3
    for thread, prompt in zip(
        threads, ("Look up the launch", "Look up the budget", "Look up the venue"), strict=True
    ):
        state: Any = run_sync(bench.graph.client.threads.get_state(thread))
        assert state["values"]["messages"][0]["content"] == prompt  # the server ran it
    records = batch.to_records()
    assert [r["q"] for r in records] == ["the launch", "the budget", "the venue"]
    assert all(r["tool_calls"] == 1 and r["thread_id"] in threads for r in records)


def test_a_remote_batch_keeps_going_past_failures_and_counts_approvals(agent_server: AgentServer) -> None:
    bench = deepnb.connect(agent_server.url, "deep", name=unique("remote-gated"))
    batch = bench.map(["Fail now", "Plan the launch"], concurrency=2).wait(WAIT)
    assert batch.statuses == ["error", "interrupted"]
    assert "The model broke." in (batch.runs[0].error or "")
    assert [p.name for p in batch.pending] == ["write_file"]
    batch.stop().wait(WAIT)
    assert batch.statuses == ["error", "cancelled"]


def test_runtime_context_reaches_a_connected_agent(agent_server: AgentServer) -> None:
    """The Agent Protocol carries a run's context: the served agent's tool reads it, and every
    run of a batch on the server gets it too."""
    bench = deepnb.connect(agent_server.url, "contextual", name=unique("remote-context"))
    run = bench.start("who am I?", context={"user_id": "ada", "role": "admin"}).wait(WAIT)
    assert run.status == "done", run.error
    state: Any = run_sync(bench.graph.client.threads.get_state(run.thread_id))
    tools = [m["content"] for m in state["values"]["messages"] if m["type"] == "tool"]
    assert tools == ["ada (admin)"]
    assert [i["text"] for i in run.state.items if i["kind"] == "notice"] == [
        "Runtime context given: user_id, role (values not shown)."
    ]
    batch = bench.map(["one", "two"], context={"user_id": "grace"}).wait(WAIT)
    assert batch.statuses == ["done"] * 2, [r.error for r in batch.runs if r]
    for each in batch.runs:
        assert each is not None
        values: Any = run_sync(bench.graph.client.threads.get_state(each.thread_id))
        assert [m["content"] for m in values["values"]["messages"] if m["type"] == "tool"] == [
            "grace (reader)"
        ]
