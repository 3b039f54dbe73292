"""The run view's Graph tab and step state panel, kernel side: the nodes a run goes through read
from its events and named as its drawing names them (lit while they run), the drawing sent as
one bounded message and kept in the snapshot with the path marked; a step's state and its diff
as the session gives them, bounded whatever the state's size; and Run from here, a fork at the
step with the panel's edits that the view goes on with, the original thread untouched, a refused
edit said in one line with nothing lost."""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

import deepnb
from deepnb.core import events as ev
from deepnb.engine.graph_path import shape_id
from deepnb.engine.graph_shape import GraphDrawing, GraphEdge, GraphNode, GraphShape
from deepnb.engine.step_state import said
from deepnb.views.bounds import MESSAGE_LIMIT
from deepnb.views.output import view_snapshot
from deepnb.views.run.graph_tab import PATH_BUDGET, bounded_path, scene_message
from deepnb.views.run.run_view import RunView
from tests.support.agents import scripted, stream_chunks, unique
from tests.support.view_messages import message_size
from tests.support.waiting import WAIT, Gate, wait_until
from tests.unit.test_step_state import SCRIPT

SVG = "{http://www.w3.org/2000/svg}"
DELEGATING = {
    "main": [
        {
            "text": "Asking a helper.",
            "tool_calls": [
                {"name": "task", "args": {"subagent_type": "general-purpose", "description": "look"}}
            ],
        },
        {"text": "Done."},
    ],
    "general-purpose": [
        {"text": "Listing.", "tool_calls": [{"name": "ls", "args": {}}]},
        {"text": "Listed."},
    ],
}


class Viewed:
    """A run view with what it sent the front end."""

    def __init__(self, run: Any) -> None:
        self.view = RunView(run)
        self.sent: list[dict[str, Any]] = []
        self.view.send = lambda message, buffers=None: self.sent.append(message)  # type: ignore[method-assign]

    def ask(self, message: dict[str, Any]) -> dict[str, Any]:
        before = len(self.sent)
        self.view._handle_custom_msg(message, [])
        replies = [m for m in self.sent[before:] if m.get("type") != "patch"]
        assert replies, f"no reply to {message}"
        return replies[-1]


@pytest.fixture
def viewed() -> Any:
    made: list[Viewed] = []

    def make(run: Any) -> Viewed:
        made.append(Viewed(run))
        return made[-1]

    yield make
    for v in made:
        v.view.close()


# -- the path -----------------------------------------------------------------------------------


def test_nodes_start_and_end_as_the_tasks_stream_says_a_subagents_under_its_path() -> None:
    bench = deepnb.agent(unique("nodes"), scripted(DELEGATING))
    translator = ev.EventTranslator()
    events = [e for chunk in stream_chunks(bench.graph, "Go") for e in translator.translate(chunk)]
    started = [(e.agent, e.node) for e in events if isinstance(e, ev.NodeStarted)]
    ended = {e.task_id for e in events if isinstance(e, ev.NodeFinished)}
    assert {e.task_id for e in events if isinstance(e, ev.NodeStarted)} == ended  # each start ends
    assert ("main", "model") in started and ("main", "tools") in started
    assert ("main/general-purpose", "model") in started and ("main/general-purpose", "tools") in started
    drawn = {n.id for n in bench.draw_graph().shape.nodes}
    assert {shape_id(agent, node) for agent, node in started} <= drawn  # each lights a node drawn


def test_a_subgraph_node_inside_a_node_is_named_as_xray_draws_it() -> None:
    translator = ev.EventTranslator()
    chunk = (("outer:t1",), "tasks", {"id": "t2", "name": "inner", "input": {}, "triggers": ()})
    assert list(translator.translate(chunk)) == [ev.NodeStarted("main", "outer:inner", "t2")]
    end = (
        ("outer:t1",),
        "tasks",
        {"id": "t2", "name": "inner", "result": {}, "error": "boom", "interrupts": []},
    )
    assert list(translator.translate(end)) == [ev.NodeFinished("main", "outer:inner", "t2", "boom")]


def test_the_path_counts_each_node_and_edge_the_run_went_through() -> None:
    bench = deepnb.agent(unique("path"), scripted(DELEGATING))
    run = bench.run("Go")
    assert run.status == "done", run.error
    path = run.graph_path
    # the same counts, taken again from the node starts of the same run streamed by hand
    again = deepnb.agent(unique("path"), scripted(DELEGATING))
    translator = ev.EventTranslator()
    events = [e for chunk in stream_chunks(again.graph, "Go") for e in translator.translate(chunk)]
    starts = [e for e in events if isinstance(e, ev.NodeStarted)]
    by_agent: dict[str, list[str]] = defaultdict(list)
    for e in starts:
        by_agent[e.agent].append(shape_id(e.agent, e.node))
    visits: dict[str, int] = defaultdict(int)
    edges: dict[tuple[str, str], int] = defaultdict(int)
    for agent, nodes in by_agent.items():
        chain = [shape_id(agent, "__start__"), *nodes]
        for node in chain:
            visits[node] += 1
        for pair in itertools.pairwise(chain):
            edges[pair] += 1
    edges[(by_agent["main"][-1], "__end__")] += 1
    visits["__end__"] += 1
    edges[(by_agent["main/general-purpose"][-1], "general-purpose/__end__")] += 1
    visits["general-purpose/__end__"] += 1
    edges[("tools", "general-purpose/__start__")] += 1
    assert path["visits"] == dict(visits)
    assert {(s, t): n for s, t, n in path["edges"]} == dict(edges)
    assert path["active"] == [] and path["tools"] == {} and path["failed"] is None
    drawn = bench.draw_graph().shape
    ids = {n.id for n in drawn.nodes}
    assert (
        set(path["visits"]) <= ids
        and {s for s, _, _ in path["edges"]} | {t for _, t, _ in path["edges"]} <= ids
    )


def test_the_node_and_tool_running_now_are_lit_and_sent_once_the_graph_tab_drew(viewed: Any) -> None:
    gate = Gate()

    def slow_lookup(topic: str) -> str:
        """Look a topic up (slowly)."""
        gate.hold()
        return f"notes on {topic}"

    model = scripted(
        {
            "main": [
                {"text": "Looking.", "tool_calls": [{"name": "slow_lookup", "args": {"topic": "x"}}]},
                "Found.",
            ]
        }
    )
    bench = deepnb.agent(unique("lit"), model, tools=[slow_lookup])
    run = bench.start("Look it up")
    v = viewed(run)
    try:
        gate.wait_reached()
        wait_until(lambda: "tools" in run.graph_path["active"], "the tools node lit")
        v.view._flush()
        assert v.view.graph_path == {}  # nothing sent until the Graph tab asks
        reply = v.ask({"type": "graph"})
        assert reply["error"] == "" and message_size(reply) <= MESSAGE_LIMIT
        drawn = {s["id"] for s in reply["scene"]["shapes"] if s["t"] == "node"}
        assert drawn == {n.id for n in bench.draw_graph().shape.nodes}
        lit = v.view.graph_path
        assert lit["active"] == ["tools"] and lit["tools"] == {"tools": ["slow_lookup"]}
        assert {"__start__", "model", "tools"} <= set(lit["visits"])
    finally:
        gate.open()
    assert run.wait(WAIT).status == "done", run.error
    v.view._flush()
    assert v.view.graph_path["active"] == [] and "__end__" in v.view.graph_path["visits"]


def test_the_snapshot_keeps_the_drawing_with_the_path_once_the_tab_drew_it(viewed: Any) -> None:
    bench = deepnb.agent(unique("kept"), scripted(SCRIPT))
    run = bench.run("Research the launch")
    v = viewed(run)
    before = view_snapshot(v.view)
    assert "dnb-graph-snapshot" not in before["text/html"]  # a view nobody drew keeps no drawing
    v.ask({"type": "graph"})
    after = view_snapshot(v.view)
    html = after["text/html"]
    assert html.startswith(before["text/html"]) and after["text/plain"].startswith(before["text/plain"])
    start = html.rindex("<svg", 0, html.index('class="deepnb-graph"'))  # after the timeline's chart
    svg = html[start : html.index("</svg>", start) + len("</svg>")]
    root = ET.fromstring(svg)
    marked = {
        (g.find(f"{SVG}title").text or "")  # type: ignore[union-attr]
        for g in root.iter(f"{SVG}g")
        if "dnb-visited" in (g.get("class") or "")
    }
    assert marked == set(run.graph_path["visits"])
    taken = [p for p in root.iter(f"{SVG}path") if "dnb-taken" in (p.get("class") or "")]
    assert len(taken) == len(run.graph_path["edges"])  # each edge drawn once in a graph this small
    assert after["text/plain"].endswith(f"the run went through {len(run.graph_path['visits'])} nodes")


def test_a_hostile_or_huge_graph_is_escaped_and_sent_folded_within_one_message() -> None:
    hostile = "<img src=x onerror=alert(1)>"
    nodes = tuple(GraphNode(f"n{i}" if i else hostile, f"n{i}" if i else hostile) for i in range(5000))
    edges = tuple(GraphEdge(nodes[i].id, nodes[i + 1].id) for i in range(4999))
    drawing = GraphDrawing("big", GraphShape(nodes, edges))
    reply = scene_message(drawing)
    assert message_size(reply) <= MESSAGE_LIMIT
    assert "drawn folded" in reply["scene"]["note"]
    from deepnb.views.run.graph_tab import graph_section

    html, _ = graph_section(reply["scene"], {"visits": {hostile: 1}, "active": [hostile]})
    assert "<img" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    huge = {
        "visits": {f"node {i} " * 5: i for i in range(3000)},
        "edges": [[f"a{i}", f"b{i}", i] for i in range(3000)],
    }
    kept = bounded_path({**huge, "active": ["a1"]})
    assert message_size(kept) <= PATH_BUDGET and kept["active"] == ["a1"]
    assert max(huge["visits"].values()) in kept["visits"].values()  # the most visited stay


# -- a step's state -----------------------------------------------------------------------------


def test_a_steps_state_and_diff_are_what_the_session_says(viewed: Any) -> None:
    bench = deepnb.agent(unique("panel"), scripted(SCRIPT))
    run = bench.run("Research the launch")
    v = viewed(run)
    for step in (1, 2, 3):
        reply = v.ask({"type": "step_state", "step": step})
        state, diff = bench.state(run.thread_id, step), bench.diff(run.thread_id, step)
        assert reply["error"] == "" and reply["step"] == step and reply["steps"] == [1, 2, 3]
        assert [m["text"] for m in reply["messages"]["messages"]] == [said(m) for m in state.messages]
        assert [(f["path"], f["text"]) for f in reply["files"]] == list(state.files.items())
        assert reply["diff"]["before"] == diff.before and reply["diff"]["after"] == diff.after
        assert [(m["kind"], m["role"]) for m in reply["diff"]["messages"]] == [
            (m.kind, m.role) for m in diff.messages
        ]
        assert [f["path"] for f in reply["diff"]["files"]] == [f.path for f in diff.files]
        assert reply["next"] == list(state.next)
    first = v.ask({"type": "step_state", "step": 1})
    assert (
        "<img src=x onerror=alert(1)>" in first["messages"]["messages"][1]["text"]
    )  # as text: drawn with textContent
    (wrote,) = first["diff"]["files"]
    assert wrote["path"] == "/notes.md" and "+The launch is in June." in wrote["lines"]
    editable = [m for m in first["messages"]["messages"] if m["editable"]]
    assert {m["kind"] for m in editable} == {"tool"}  # the last message is a tool's result here
    latest = v.ask({"type": "latest_step"})  # the Step state tab chosen by itself: the latest step
    assert latest["step"] == 3 and latest["error"] == ""
    before = len(v.sent)
    v.view._handle_custom_msg({"type": "step_state", "step": 7}, [])  # no step of this run: forged
    assert len(v.sent) == before and v.view.card_errors == {
        "message": "Step 7 is not one this run wrote: pick a step of its timeline."
    }


@pytest.mark.volume
def test_a_large_state_is_sent_within_bounds_and_its_parts_on_request(viewed: Any) -> None:
    big = "line of the report\n" * 60_000  # over a megabyte
    turns: list[Any] = [
        {"text": f"Note {n}: " + "x" * 3000, "tool_calls": [{"name": "ls", "args": {}}]} for n in range(40)
    ]
    bench = deepnb.agent(
        unique("large"),
        scripted({"main": [{"match": "^Note", "turns": [*turns, "Noted."]}, {"turns": ["Read."]}]}),
    )
    first = bench.run("Note it all")
    assert first.status == "done", first.error
    bench.files(first.thread_id).write("/big.md", big)
    run = bench.run("Read the report", thread=first.thread_id)
    assert run.status == "done", run.error
    v = viewed(run)
    last = max(r["step"] for r in run.timeline if r["step"] is not None)
    reply = v.ask({"type": "step_state", "step": last})
    assert message_size(reply) <= MESSAGE_LIMIT
    page = reply["messages"]
    total = len(bench.state(run.thread_id, last).messages)
    assert page["total"] == total and 0 < page["start"] < total
    (big_file,) = [f for f in reply["files"] if f["path"] == "/big.md"]
    assert not big_file["whole"] and big.startswith(big_file["text"])
    earlier = v.ask({"type": "step_messages", "step": last, "before": page["start"]})
    assert message_size(earlier) <= MESSAGE_LIMIT and earlier["messages"][-1]["index"] == page["start"] - 1
    whole = v.ask({"type": "step_file", "step": last, "path": "/big.md"})
    assert message_size(whole) <= MESSAGE_LIMIT and whole["whole"] is False and whole["editable"] is False
    assert big.startswith(whole["text"]) and len(whole["text"]) > len(big_file["text"])


def test_a_secret_in_a_file_is_hidden_and_that_file_cannot_be_edited(
    viewed: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "sk-proj-" + "Q7w" * 12
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    model = scripted(
        {
            "main": [
                {
                    "text": "Saving.",
                    "tool_calls": [
                        {"name": "write_file", "args": {"file_path": "/k.txt", "content": f"key={secret}\n"}}
                    ],
                },
                "Saved.",
            ]
        }
    )
    bench = deepnb.agent(unique("secret"), model)
    run = bench.run("Save the key")
    v = viewed(run)
    reply = v.ask({"type": "step_state", "step": 1})
    assert secret not in str(reply)
    (saved,) = reply["files"]
    assert saved["editable"] is False and "[redacted]" in saved["text"]


# -- Run from here --------------------------------------------------------------------------------


@pytest.mark.parametrize("saved", ["memory", "sqlite"])
def test_run_from_here_forks_with_the_edits_and_the_view_goes_on_with_the_new_run(
    viewed: Any, saved: str, tmp_path: Path
) -> None:
    checkpointer = f"sqlite:{tmp_path / 'threads.db'}" if saved == "sqlite" else "memory"
    bench = deepnb.agent(unique("runfrom"), scripted(SCRIPT), checkpointer=checkpointer)
    run = bench.run("Research the launch")
    thread = run.thread_id
    original = bench.history(thread)
    v = viewed(run)
    first = v.ask({"type": "step_state", "step": 1})
    tool = next(m for m in first["messages"]["messages"] if m["editable"])
    reply = v.ask(
        {
            "type": "run_from",
            "step": 1,
            "edits": [
                {"kind": "file", "path": "/notes.md", "text": "The launch is in May.\n"},
                {"kind": "message", "id": tool["id"], "text": "Saved the notes."},
                {"kind": "todos", "todos": [{"content": "Check the date", "status": "in_progress"}]},
            ],
        }
    )
    assert reply["error"] == "" and reply["from_thread"] == thread
    forked = reply["thread_id"]
    later = v.view.run
    assert later is not run and later.thread_id == forked == v.view.thread_id
    assert later.wait(WAIT).status == "done", later.error
    reads = [
        m.content
        for m in bench.state_values(forked)["messages"]
        if m.type == "tool" and m.name == "read_file"
    ]
    assert reads and "The launch is in May." in reads[-1]  # the new run read the edited file
    edited = bench.state(forked, 1)
    assert edited.files == {"/notes.md": "The launch is in May.\n"}
    assert [m.content for m in edited.messages if m.type == "tool"] == ["Saved the notes."]
    assert edited.todos == [{"content": "Check the date", "status": "in_progress"}]
    assert bench.history(thread) == original  # the original thread untouched
    assert bench.state(thread).files == {"/notes.md": "The launch is in June.\n"}
    again = v.ask({"type": "step_state", "step": 2})  # the panel now reads the new run's thread
    assert again["thread"] == forked and again["error"] == ""


@pytest.mark.parametrize(
    ("edits", "said"),
    [
        ([], "Nothing was edited: change a todo, a file or a message first."),
        (
            [{"kind": "file", "path": "notes.md", "text": "x"}],
            "A file edit names a path starting with / and gives its text.",
        ),
        ([{"kind": "message", "id": "nope", "text": "x"}], "Step 1 has no message 'nope' to edit."),
        (
            [{"kind": "todos", "todos": [{"content": "a", "status": "later"}]}],
            "A todo's status is one of pending, in_progress, completed, not 'later'.",
        ),
        (
            [{"kind": "todos", "todos": [{"content": " ", "status": "pending"}]}],
            "Each todo needs its text: remove an empty one or write it.",
        ),
        ([{"kind": "secrets"}], "Refused an edit of kind 'secrets': todos, file or message."),
    ],
)
def test_a_refused_edit_is_one_line_and_nothing_is_forked(viewed: Any, edits: list[Any], said: str) -> None:
    bench = deepnb.agent(unique("refused"), scripted(SCRIPT))
    run = bench.run("Research the launch")
    threads = {t.thread_id for t in bench.threads()}
    v = viewed(run)
    reply = v.ask({"type": "run_from", "step": 1, "edits": edits})
    assert reply == {"type": "ran_from", "step": 1, "error": said}
    assert {t.thread_id for t in bench.threads()} == threads and v.view.run is run


def test_an_edit_of_an_earlier_ai_message_is_refused(viewed: Any) -> None:
    bench = deepnb.agent(unique("earlier"), scripted(SCRIPT))
    run = bench.run("Research the launch")
    v = viewed(run)
    state = bench.state(run.thread_id, 2)
    ai = next(m for m in state.messages if m.type == "ai")
    reply = v.ask({"type": "run_from", "step": 2, "edits": [{"kind": "message", "id": ai.id, "text": "x"}]})
    assert reply["error"] == "Only the last message's text and a tool's result can be edited here."


def test_a_graph_without_these_keys_refuses_the_update_naming_its_keys(viewed: Any) -> None:
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import END, START, StateGraph
    from typing_extensions import TypedDict

    class Count(TypedDict):
        n: int

    builder = StateGraph(Count)
    builder.add_node("add", lambda s: {"n": s["n"] + 1})
    builder.add_node("double", lambda s: {"n": s["n"] * 2})
    builder.add_edge(START, "add")
    builder.add_edge("add", "double")
    builder.add_edge("double", END)
    bench = deepnb.attach(builder.compile(checkpointer=InMemorySaver()), name=unique("count"))
    run = bench.run({"n": 1})
    assert run.status == "done", run.error
    v = viewed(run)
    graph = v.ask({"type": "graph"})
    assert {"add", "double"} <= {s["id"] for s in graph["scene"]["shapes"] if s["t"] == "node"}
    assert {"add", "double", "__end__"} <= set(v.view.graph_path["visits"])
    reply = v.ask({"type": "step_state", "step": 1})
    assert reply["error"] == "" and reply["other"] == [["n", "2"]] and reply["files"] is None
    refused = v.ask({"type": "run_from", "step": 1, "edits": [{"kind": "file", "path": "/a", "text": "x"}]})
    assert refused["error"].startswith(f"Agent {bench.name!r} has no state key 'files': its keys are n.")
