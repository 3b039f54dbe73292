"""A connected agent counted as truthfully as a local one, against a real ``langgraph dev`` server:
a run joined after the fact (as after a kernel restart) replays its stream, and its subagents and
the run itself last as long as the server's event times say, not the 0.0 s of a replay that
arrives all at once."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import deepnb
from deepnb.core.graphs.stamps import stamp_of
from deepnb.core.loop import run_sync
from tests.support.agents import unique
from tests.support.servers import AgentServer, agent_server_fixture, offline_client_fixture
from tests.support.waiting import WAIT

ROUNDING = 0.002

agent_server = agent_server_fixture()
offline_client = offline_client_fixture()


def _listed(tools: dict[str, tuple[str, ...]]) -> dict[str, list[str]]:
    """Tools by agent as a run's state holds them."""
    return {agent: list(names) for agent, names in tools.items()}


async def _stamps(client: Any, thread_id: str, run_id: str) -> dict[str, list[float]]:
    """The server's time of each event of the run's stream, by namespace (``""``: the main agent)."""
    found: dict[str, list[float]] = defaultdict(list)
    async for part in client.runs.join_stream(thread_id, run_id, last_event_id="-"):
        stamp = stamp_of(getattr(part, "id", None))
        if stamp is not None:
            found["|".join(str(part.event).split("|")[1:])].append(stamp)
    return found


def test_a_joined_run_keeps_the_times_its_events_happened_at(agent_server: AgentServer) -> None:
    bench = deepnb.connect(agent_server.url, "research", name=unique("counted"))
    live = bench.run("Research the launch")
    assert live.status == "done", live.error
    (server_run, *_) = run_sync(bench.graph.latest_runs(live.thread_id))
    run_id = str(server_run["run_id"])
    stamps = run_sync(_stamps(bench.graph.client, live.thread_id, run_id))
    every = [stamp for found in stamps.values() for stamp in found]
    spans = sorted(max(found) - min(found) for ns, found in stamps.items() if ns)
    assert len(spans) == 3 and max(every) - min(every) > 0.5, stamps.keys()

    joined = bench.join(live.thread_id, run_id)
    assert joined is not live and joined.wait(WAIT).status == "done", joined.error
    # the whole run: from its first event to its last, as the server saw them
    assert joined.state.elapsed >= max(every) - min(every) - ROUNDING, (joined.state.elapsed, every)
    # each subagent: at least from its first event to its last
    durations = sorted(node["finished_at"] - node["started_at"] for node in joined.state.nodes.values())
    assert all(d >= span - ROUNDING for d, span in zip(durations, spans, strict=True)), (durations, spans)
    tasks = sorted(r["latency"] for r in joined.timeline if r["kind"] == "tool" and r["name"] == "task")
    assert all(t >= span - ROUNDING for t, span in zip(tasks, spans, strict=True)), (tasks, spans)


def test_a_connected_agents_given_line_and_threads_steps_say_what_its_header_says(
    agent_server: AgentServer,
) -> None:
    """The tools a connected agent's models are offered, as the server draws its graph, are its
    "Given" line (what the same graph built in the kernel lists: its subagent's tools, and no
    ``execute`` on a backend that runs no commands); and ``threads`` counts each thread's steps
    as the run's header does, over two runs of one thread."""
    from deepnb.engine.anatomy import tools_by_agent
    from deepnb.views.run.snapshot import snapshot_text
    from tests.support.agent_server.research_demo import graph as local_graph

    bench = deepnb.connect(agent_server.url, "research", name=unique("given"))
    first = bench.run("Research the launch")
    assert first.wait(WAIT).status == "done", first.error
    assert first.state.given["tools"] == _listed(tools_by_agent(local_graph))
    main = first.state.given["tools"]["main"]
    assert "task" in main and "execute" not in main
    assert "execute" not in first.state.given["tools"]["general-purpose"]
    assert any(
        line.startswith("Given: tools: main ") for line in snapshot_text(first.snapshot().state).splitlines()
    )
    again = bench.run("Research the launch", thread=first.thread_id)
    assert again.wait(WAIT).status == "done", again.error
    assert again.state.given["tools"] == first.state.given["tools"]
    steps = {t.thread_id: t.steps for t in bench.threads()}
    assert steps[first.thread_id] == again.state.thread_step == 2 * first.state.thread_step
    assert again.state.first_step == first.state.thread_step > 0


def test_a_connected_agents_given_line_lists_its_subagents_own_tools_and_no_execute_it_cannot_run(
    agent_server: AgentServer,
) -> None:
    """A served agent on a backend that runs no commands, with a subagent carrying a tool of its
    own: the connected run lists, per agent, what its model is offered, in the view's "Given"
    section too; a graph deepnb did not build says only what its drawing says."""
    from deepnb.engine.anatomy import tools_by_agent
    from deepnb.views.run.snapshot import snapshot_text
    from tests.support.agent_server.given_graph import graph as local_graph

    bench = deepnb.connect(agent_server.url, "given", name=unique("given"))
    run = bench.run("Review the draft")
    assert run.wait(WAIT).status == "done", run.error
    tools = run.state.given["tools"]
    assert tools == _listed(tools_by_agent(local_graph))
    assert "outline" in tools["main"] and "execute" not in tools["main"]
    assert "cite" in tools["critic"] and "cite" not in tools["main"] and "execute" not in tools["critic"]
    text = snapshot_text(run.snapshot().state)
    assert f"Tools of critic: {', '.join(tools['critic'])}" in text, text
    assert any(line.startswith("Given: tools: main ") and "critic " in line for line in text.splitlines())

    plain = deepnb.connect(agent_server.url, "deep", name=unique("drawn"))
    drawn = plain.run("Fail now")  # the Given line comes before the model's first call
    drawn.wait(WAIT)
    assert list(drawn.state.given["tools"]) == ["main"] and "execute" in drawn.state.given["tools"]["main"]


def test_a_served_models_thinking_is_its_own_item_in_the_connected_runs_view(
    agent_server: AgentServer,
) -> None:
    """A served model that thinks before each turn: the connected run streams each thought as a
    thinking item ahead of the turn's text, its view (and saved snapshot) shows them folded apart
    from the answer, and ``run.result`` holds none of it."""
    from deepnb.core import events as ev
    from deepnb.views.run.snapshot import snapshot_bundle

    bench = deepnb.connect(agent_server.url, "thinking", name=unique("thinking"))
    seen: list[ev.Event] = []
    run = bench.start("What files are there?")
    run.subscribe(seen.append)
    assert run.wait(WAIT).status == "done", run.error
    thoughts = [item["text"] for item in run.state.items if item["kind"] == "thinking"]
    assert thoughts == ["First, see what is <there>.", "Nothing yet: say so."]
    assert run.result == "The folder is empty."
    kinds = [type(e).__name__ for e in seen]
    assert "ThinkingDelta" in kinds and kinds.index("ThinkingDelta") < kinds.index("ToolCallStarted")
    assert kinds.index("ThinkingDelta", kinds.index("ToolCallFinished")) < kinds.index("TextDelta")
    bundle = snapshot_bundle(run.snapshot().state)
    assert "Thinking\n  │ First, see what is <there>." in bundle["text/plain"]
    assert "First, see what is &lt;there&gt;." in bundle["text/html"] and "<there>" not in bundle["text/html"]
    assert "dnb-thinking" in bundle["text/html"]
