"""Time travel on a served agent: a server thread's history, a fork at one of its steps (the same
nodes to run next), a run on the fork, and the original thread untouched."""

from __future__ import annotations

from typing import Any

import pytest

import deepnb
from deepnb.core.errors import DeepnbError
from deepnb.core.loop import run_sync
from deepnb.session.remote import RemoteWorkbench
from deepnb.views.history_live import HistoryView
from deepnb.views.run.steps import steps_words
from tests.support.agents import unique
from tests.support.servers import AgentServer, agent_server_fixture, offline_client_fixture
from tests.support.waiting import WAIT

agent_server = agent_server_fixture()


offline_client = offline_client_fixture()


def connect(server: AgentServer) -> RemoteWorkbench:
    return deepnb.connect(server.url, "deep", name=unique("fork"))


def _messages(bench: RemoteWorkbench, thread: str) -> list[tuple[str, Any]]:
    return [(m.type, m.content) for m in bench.state_values(thread)["messages"]]


def test_a_server_thread_forks_at_a_step_and_goes_on_from_there(agent_server: AgentServer) -> None:
    bench = connect(agent_server)
    run = bench.run("Plan the launch", new_thread=True)
    run.pending[0].approve()
    assert run.wait(WAIT).status == "done", run.error
    history = bench.history(run.thread_id)
    messages = _messages(bench, run.thread_id)
    # the first model call's checkpoint: its tool calls before their results
    first_turn = min((s for s in history if s.next == ("tools",)), key=lambda s: s.graph_step)
    assert first_turn.waiting
    turns = [r for r in run.timeline if r["agent"] == "main" and r["kind"] == "model"]
    assert [r["step"] for r in turns] == list(history.fork_at)  # "fork here" on a server: its steps
    view = HistoryView(history)  # shown live, a step opens its state as the server keeps it
    try:
        for step in history.fork_at:
            opened = view.answer({"type": "step_state", "step": step})
            assert opened["error"] == "" and opened["diff"]["after"] == bench.diff(run.thread_id, step).after
            assert len(opened["messages"]["messages"]) == len(bench.state(run.thread_id, step).messages)
    finally:
        view.close()

    forked = bench.fork(run.thread_id, first_turn.checkpoint_id)
    assert forked != run.thread_id and forked in {t.thread_id for t in bench.threads()}
    assert len(bench.history(forked)) < len(history)  # its own steps only, from the fork on
    assert bench.history(forked)[0].next == ("tools",)  # the same nodes run next
    copied = _messages(bench, forked)
    assert copied == messages[: len(copied)] and copied[-1][0] == "ai"

    going_on = bench.resume(forked).wait(WAIT)  # runs the tools of that step, then the next turns
    assert going_on.status == "interrupted", going_on.error
    assert [r.name for r in going_on.pending] == ["write_file"]
    assert [node.name for node in going_on.tree.children] == ["researcher"]

    again = bench.run("Plan the launch", thread=run.thread_id, at=first_turn.checkpoint_id)
    assert again.thread_id not in (run.thread_id, forked) and again.status == "interrupted", again.error
    humans = [content for kind, content in _messages(bench, again.thread_id) if kind == "human"]
    assert humans == ["Plan the launch", "Plan the launch"]

    assert bench.history(run.thread_id) == history  # the original thread is untouched
    assert _messages(bench, run.thread_id) == messages
    with pytest.raises(DeepnbError, match="has no step 999: its steps run from 1 to"):
        bench.fork(run.thread_id, 999)


def test_a_fork_of_a_served_graph_without_messages_numbers_on_from_the_step_it_copies(
    agent_server: AgentServer,
) -> None:
    """Its steps are its node updates, which only the fork's checkpoint metadata can carry over:
    history, ``--at`` and the next run's head line agree, as in the kernel."""
    bench = deepnb.connect(agent_server.url, "counter", name=unique("counter"))
    first = bench.start({"n": 1}, new_thread=True).wait(WAIT)
    second = bench.start({"n": 5}, thread=first.thread_id).wait(WAIT)
    assert (first.status, second.status) == ("done", "done"), (first.error, second.error)
    assert steps_words(first.state.progress()) == "2 steps"  # its nodes' updates, as in the kernel
    assert steps_words(second.state.progress()) == "2 steps (3–4)"
    assert list(bench.history(first.thread_id).fork_at) == [1, 2, 3, 4]
    forked = bench.fork(first.thread_id, 3)  # after "add" of the second run
    copied = bench.read_state(forked)
    assert (copied.values, tuple(copied.next)) == ({"n": 6}, ("double",))
    assert list(bench.history(forked).fork_at) == [3]
    again = bench.start({"n": 0}, thread=forked).wait(WAIT)
    assert again.status == "done", again.error
    assert steps_words(again.state.progress()) == "2 steps (4–5)"
    assert list(bench.history(forked).fork_at) == [3, 4, 5]


def test_a_served_threads_state_diff_and_an_edited_fork(agent_server: AgentServer) -> None:
    """The state at a step, what a step changed, and a fork edited before it runs on, through
    the server's thread-state API; an update naming a key the served state lacks is one line."""
    bench = connect(agent_server)
    run = bench.run("Plan the launch", new_thread=True)
    run.pending[0].approve()
    assert run.wait(WAIT).status == "done", run.error
    thread = run.thread_id
    history = bench.history(thread)
    written = max(history.fork_at)  # the last step: the notes written
    state = bench.state(thread, written)
    assert state.files == {"/notes.md": "Launch: May\n"} and [t["status"] for t in state.todos]
    assert state.checkpoint_id == history.fork_at[written]
    wrote = next(s for s in history.fork_at if bench.diff(thread, s).files)
    (notes,) = bench.diff(thread, wrote).files
    assert (notes.path, notes.kind) == ("/notes.md", "added") and "+Launch: May" in notes.lines

    forked = bench.fork(thread, written, update={"files": {"/notes.md": "Launch: June\n"}})
    assert bench.state(forked).files == {"/notes.md": "Launch: June\n"}
    assert bench.state(thread).files == {"/notes.md": "Launch: May\n"}  # the original untouched
    with pytest.raises(DeepnbError, match=r"has no state key 'nope': its keys are ") as refused:
        bench.fork(thread, written, update={"nope": 1})
    assert "files" in str(refused.value) and "\n" not in str(refused.value)

    counter = deepnb.connect(agent_server.url, "counter", name=unique("counter"))
    first = counter.start({"n": 1}, new_thread=True).wait(WAIT)
    assert first.status == "done", first.error
    assert counter.state(first.thread_id, 1).values == {"n": 2}
    assert counter.diff(first.thread_id, 2).other == (("n", "2", "4"),)
    edited = counter.fork(first.thread_id, 1, update={"n": 10})  # as "add" would have written it
    going_on = counter.resume(edited).wait(WAIT)
    assert going_on.status == "done", going_on.error
    assert counter.state_values(edited) == {"n": 20} and counter.state_values(first.thread_id) == {"n": 4}


def test_a_served_agent_is_drawn_from_the_servers_drawing(agent_server: AgentServer) -> None:
    """``bench.draw_graph()`` on a served agent reads ``/assistants/{id}/graph?xray=true``: the
    same nodes and edges the server draws; a graph deepnb built names its subagents in a note
    (they run inside ``tools`` there, where the server's drawing does not reach)."""
    bench = connect(agent_server)
    drawn: Any = run_sync(bench.graph.client.assistants.get_graph(bench.assistant_id, xray=True))
    drawing = bench.draw_graph()
    assert drawing.source == bench.url and drawing.xray is True
    assert [n.id for n in drawing.shape.nodes] == [str(n["id"]) for n in drawn["nodes"]]
    assert {(e.source, e.target, e.conditional) for e in drawing.shape.edges} == {
        (e["source"], e["target"], bool(e.get("conditional"))) for e in drawn["edges"]
    }
    assert {"model", "tools"} <= {n.kind for n in drawing.shape.nodes}
    assert drawing.notes == () and drawing.svg().startswith("<svg ")
    given = deepnb.connect(agent_server.url, "given", name=unique("given")).draw_graph()
    note = "Subagents run inside tools on the server (not drawn there): critic, general-purpose."
    assert given.notes == (note,) and note in repr(given)
    counter = deepnb.connect(agent_server.url, "counter", name=unique("counter")).draw_graph()
    assert {"add"} <= {n.id for n in counter.shape.nodes}


def test_a_served_runs_view_draws_its_path_shows_a_step_and_runs_on_from_an_edit(
    agent_server: AgentServer,
) -> None:
    """The run view's Graph tab, step state panel and Run from here speak only the session
    protocol: on a served agent they light the server's drawing from the streamed node starts,
    read a step through the thread-state API, and fork and resume there."""
    from deepnb.views.run.run_view import RunView

    bench = connect(agent_server)
    run = bench.run("Plan the launch", new_thread=True)
    run.pending[0].approve()
    assert run.wait(WAIT).status == "done", run.error
    view = RunView(run)
    sent: list[dict[str, Any]] = []
    view.send = lambda message, buffers=None: sent.append(message)  # type: ignore[method-assign]

    def ask(message: dict[str, Any]) -> dict[str, Any]:
        view._handle_custom_msg(message, [])
        return sent[-1]

    try:
        graph = ask({"type": "graph"})
        drawn = {s["id"] for s in graph["scene"]["shapes"] if s["t"] == "node"}
        assert graph["error"] == "" and drawn == {n.id for n in bench.draw_graph().shape.nodes}
        main_nodes = {node for node in view.graph_path["visits"] if "/" not in node}
        assert {"__start__", "model", "tools", "__end__"} <= main_nodes <= drawn
        last = max(bench.history(run.thread_id).fork_at)
        state = ask({"type": "step_state", "step": last})
        assert state["error"] == "" and [(f["path"], f["text"]) for f in state["files"]] == [
            ("/notes.md", "Launch: May\n")
        ]
        assert [t["content"] for t in state["todos"]] == [
            t["content"] for t in bench.state(run.thread_id, last).todos
        ]
        first = ask({"type": "step_state", "step": 1})
        todos = [{"content": "Ask someone else", "status": "in_progress"}]
        reply = ask({"type": "run_from", "step": 1, "edits": [{"kind": "todos", "todos": todos}]})
        assert reply["error"] == "" and first["error"] == ""
        later = view.run
        assert later.thread_id == reply["thread_id"] != run.thread_id
        later.wait(WAIT)
        assert later.status in ("done", "interrupted"), later.error
        assert bench.state(reply["thread_id"], 1).todos == todos
        assert bench.state(run.thread_id, 1).todos != todos  # the original thread untouched
    finally:
        view.close()
