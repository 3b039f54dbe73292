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

WAIT = 60.0
ROUNDING = 0.002

agent_server = agent_server_fixture()
offline_client = offline_client_fixture()


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
