"""A stream replayed from its start keeps its events' own times (``deepnb.core.graphs.stamps``),
so a joined run's subagents and the run itself last as long as they did, not 0.0 s."""

from __future__ import annotations

from collections.abc import AsyncIterator
from types import SimpleNamespace

from deepnb.core import events as ev
from deepnb.core.clock import FakeClock, using
from deepnb.core.graphs.stamps import REPLAY_LAG, event_clock, stamp_of, stream_began
from deepnb.core.loop import run_sync
from deepnb.engine.state import RunState
from deepnb.engine.tree import build_tree
from deepnb.session.remote.graph import Join, ServerGraph


def test_an_agent_server_event_id_says_when_it_happened() -> None:
    assert stamp_of("1796309709084-0") == 1796309709.084
    assert stamp_of("1796309709084-12") == 1796309709.084
    assert stamp_of("-") is None and stamp_of(None) is None and stamp_of("7") is None


class Replayed:
    """A graph whose stream says when its chunks happened (as the Agent Server's does)."""

    def __init__(self) -> None:
        self.at: float | None = None

    def chunk_time(self, thread_id: str) -> float | None:
        return self.at


def test_the_clock_follows_a_replay_and_the_wall_once_live() -> None:
    graph = Replayed()
    wall = FakeClock()
    clock = event_clock(graph, "t", clock=wall)
    assert clock() == wall.wall()  # nothing streamed yet
    graph.at = wall.wall() - 600
    assert clock() == graph.at  # a replay: ten minutes behind
    graph.at = wall.wall() - REPLAY_LAG / 4
    assert clock() == wall.wall()  # live
    wall.advance(REPLAY_LAG)  # the stream fell behind by more than the lag: its own time again
    assert clock() == graph.at
    assert event_clock(object(), "t", clock=wall) == wall.wall  # a graph that says nothing: the wall clock
    with using(wall):  # given no clock: the current one
        assert event_clock(object(), "t")() == wall.wall()


def test_a_replayed_subagent_lasts_as_long_as_it_did() -> None:
    graph = Replayed()
    wall = FakeClock()
    state = RunState(agent="a", thread_id="t", clock=event_clock(graph, "t", clock=wall))
    begun = wall.wall() - 600
    call = {"name": "task", "args": {"subagent_type": "researcher", "description": "Look"}, "id": "c1"}
    graph.at = begun
    state.apply(ev.RunStarted(ev.MAIN, "t", "Go"))
    state.apply(ev.ModelTurn(ev.MAIN, "", tool_calls=(call,)))
    state.apply(ev.ToolCallStarted(ev.MAIN, "c1", "task", call["args"]))
    state.apply(ev.SubagentStarted(ev.MAIN, "task-1", "c1", "researcher", "Look", "main/researcher"))
    graph.at = begun + 4.0
    state.apply(ev.ToolCallFinished(ev.MAIN, "c1", "task", "Found."))
    graph.at = begun + 5.0
    state.apply(ev.RunFinished(ev.MAIN, "Done."))
    node = state.nodes["main/researcher"]
    assert node["finished_at"] is not None and round(node["finished_at"] - node["started_at"], 1) == 4.0
    tree = build_tree(list(state.nodes.values()), root_name="a", root_status=state.status)
    assert [child.duration for child in tree.children] == [4.0]
    assert round(state.elapsed, 1) == 5.0


class Part:
    """One part of an Agent Server stream, as langgraph-sdk yields it."""

    def __init__(self, at: float, event: str, data: object) -> None:
        self.id, self.event, self.data = f"{round(at * 1000)}-0", event, data


class JoinedClient:
    """The two calls of langgraph-sdk a joined stream makes: its parts, then the run's status."""

    def __init__(self, parts: list[Part]) -> None:
        self.runs = self
        self.parts = parts

    async def join_stream(self, thread_id: str, run_id: str, *, last_event_id: str) -> AsyncIterator[Part]:
        for part in self.parts:
            yield part

    async def get(self, thread_id: str, run_id: str) -> dict[str, str]:
        return {"status": "success"}


def test_a_joined_run_began_at_its_streams_first_event_not_its_first_chunk() -> None:
    wall = FakeClock()
    queued = int((wall.wall() - 600) * 1000) / 1000  # a server's event ids count whole milliseconds
    parts = [
        Part(queued, "metadata", {"run_id": "r1"}),  # created, then queued 30 s before a worker took it
        Part(queued + 30, "updates", {"model": {"messages": []}}),
    ]
    graph = ServerGraph(SimpleNamespace(shown="stub"), JoinedClient(parts), "agent")  # type: ignore[arg-type]
    config = {"configurable": {"thread_id": "t"}}
    seen: list[float | None] = []

    async def read() -> None:
        async for _ in graph.astream(Join("r1"), config):
            seen.append(stream_began(graph, "t"))

    run_sync(read())
    assert seen == [queued]  # known by the first chunk, though no chunk carried it
    assert stream_began(Replayed(), "t") is None  # a graph that says nothing

    state = RunState(agent="a", thread_id="t", clock=event_clock(graph, "t", clock=wall))
    state.apply(ev.RunStarted(ev.MAIN, "t", "Go"))  # folded at the first chunk's time
    assert round(state.started_at) == round(queued + 30)
    version = state.version
    state.began_by(seen[0] or 0.0)
    assert round(state.started_at, 3) == round(queued, 3) and state.version > version
    state.began_by(wall.wall())  # a later time changes nothing
    assert round(state.started_at, 3) == round(queued, 3)
