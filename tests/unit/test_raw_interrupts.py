"""Raw LangGraph ``interrupt(value)`` calls (not approvals): each becomes a pending request with
its value and ``resume(value)``, in a node, in a tool, in a subagent, several at once; the
thread's state decides whether a run still waits (answered elsewhere, it lets the thread go)."""

from __future__ import annotations

import operator
import uuid
from typing import Annotated, Any

import pytest
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import Command, interrupt

import deepnb
from deepnb.core.errors import DeepnbError
from deepnb.engine.approvals import ApprovalRequest
from deepnb.engine.interrupts import PendingInterrupt, check_answer
from tests.support.agents import scripted, unique


def ask_node(state: MessagesState) -> dict[str, Any]:
    answer = interrupt("What is your name?")
    return {"messages": [{"role": "ai", "content": f"Hello, {answer}!"}]}


def question_graph() -> Any:
    graph = StateGraph(MessagesState)
    graph.add_node("ask", ask_node)
    graph.add_edge(START, "ask")
    graph.add_edge("ask", END)
    return graph.compile(checkpointer=InMemorySaver())


class Pair(MessagesState):
    answers: Annotated[list[str], operator.add]


def pair_graph() -> Any:
    def left(state: Pair) -> dict[str, Any]:
        return {"answers": [f"left={interrupt({'side': 'left', 'ask': 'a colour'})}"]}

    def right(state: Pair) -> dict[str, Any]:
        return {"answers": [f"right={interrupt({'side': 'right', 'ask': 'a number'})}"]}

    def join(state: Pair) -> dict[str, Any]:
        return {"messages": [{"role": "ai", "content": ", ".join(sorted(state["answers"]))}]}

    graph = StateGraph(Pair)
    for name, fn in (("left", left), ("right", right), ("join", join)):
        graph.add_node(name, fn)
    graph.add_edge(START, "left")
    graph.add_edge(START, "right")
    graph.add_edge(["left", "right"], "join")
    graph.add_edge("join", END)
    return graph.compile(checkpointer=InMemorySaver())


def test_an_interrupt_in_a_node_is_a_pending_request_answered_with_resume() -> None:
    bench = deepnb.attach(question_graph(), name=unique("raw"))
    run = bench.run("hi", thread=uuid.uuid4().hex)
    assert run.status == "interrupted"
    (request,) = run.pending
    assert isinstance(request, PendingInterrupt)
    assert (request.value, request.agent) == ("What is your name?", "main")
    assert run.state.pending[0]["kind"] == "question"
    assert run.state.pending[0]["value"] == "What is your name?"

    request.resume("Ada")
    run.wait(30)
    assert (run.status, run.result) == ("done", "Hello, Ada!")
    assert run.pending == []
    assert [(d["tool"], d["type"], d["message"]) for d in run.decisions] == [("interrupt", "answer", "Ada")]
    with pytest.raises(DeepnbError, match="no longer waiting"):
        request.resume("Bob")


def test_several_interrupts_at_once_each_answer_exactly_its_own() -> None:
    bench = deepnb.attach(pair_graph(), name=unique("pair"))
    run = bench.run("go", thread=uuid.uuid4().hex)
    assert run.status == "interrupted"
    by_side = {p.value["side"]: p for p in run.pending}
    assert set(by_side) == {"left", "right"}
    assert len({p.interrupt_id for p in by_side.values()}) == 2

    by_side["right"].resume(42)
    run.wait(30)
    assert run.status == "interrupted"
    (left,) = run.pending
    assert left.value == {"side": "left", "ask": "a colour"}
    left.resume({"colour": "teal"})
    run.wait(30)
    assert run.status == "done"
    assert run.result == "left={'colour': 'teal'}, right=42"


def test_answered_outside_deepnb_the_thread_is_free_again() -> None:
    graph = question_graph()
    bench = deepnb.attach(graph, name=unique("outside"))
    thread = uuid.uuid4().hex
    run = bench.run("hi", thread=thread)
    assert run.status == "interrupted"
    graph.invoke(Command(resume="Grace"), {"configurable": {"thread_id": thread}})

    assert run.pending == []
    assert (run.status, run.result) == ("done", "Hello, Grace!")
    again = bench.run("hi again", thread=thread)  # not refused as "waiting for your approval"
    assert again.status == "interrupted" and again.pending[0].value == "What is your name?"
    with pytest.raises(DeepnbError, match="is waiting for your answer"):
        bench.run("a third time", thread=thread)  # this one does wait: the thread says so
    again.stop()
    assert "stopped while waiting for your answer" in again.state.items[-1]["text"]


def test_a_restarted_kernel_finds_raw_interrupts_on_the_thread() -> None:
    graph = question_graph()
    thread = uuid.uuid4().hex
    graph.invoke({"messages": [{"role": "user", "content": "hi"}]}, {"configurable": {"thread_id": thread}})
    bench = deepnb.attach(graph, name=unique("restart"))  # a new kernel: no run in memory
    run = bench.pending_run(thread)
    (request,) = run.pending
    assert request.value == "What is your name?"
    request.resume("Linus")
    run.wait(30)
    assert run.result == "Hello, Linus!"


@tool
def ask_user(question: str) -> str:
    """Ask the user a question and return their answer."""
    return str(interrupt({"question": question}))


def test_an_interrupt_inside_a_tool_of_a_create_agent_graph() -> None:
    from langchain.agents import create_agent

    model = scripted(
        {
            "main": [
                {"text": "", "tool_calls": [{"name": "ask_user", "args": {"question": "Which city?"}}]},
                "You chose it.",
            ]
        }
    )
    graph = create_agent(model, tools=[ask_user], checkpointer=InMemorySaver())
    bench = deepnb.attach(graph, name=unique("tool"))
    run = bench.run("Plan a trip", thread=uuid.uuid4().hex)
    (request,) = run.pending
    assert request.value == {"question": "Which city?"}
    request.resume("Lisbon")
    run.wait(30)
    assert run.status == "done"
    messages = bench.state_values(run.thread_id)["messages"]
    assert [m.content for m in messages if m.type == "tool"] == ["Lisbon"]


def test_an_interrupt_inside_a_subagent_tool() -> None:
    model = scripted(
        {
            "main": [
                {
                    "text": "",
                    "tool_calls": [
                        {
                            "name": "task",
                            "args": {"description": "Ask where", "subagent_type": "general-purpose"},
                        }
                    ],
                },
                "Done.",
            ],
            "general-purpose": [
                {"text": "", "tool_calls": [{"name": "ask_user", "args": {"question": "Where to?"}}]},
                "Asked.",
            ],
        }
    )
    bench = deepnb.agent(unique("sub"), model, tools=[ask_user])
    run = bench.run("Plan", thread=uuid.uuid4().hex)
    (request,) = run.pending
    assert request.value == {"question": "Where to?"}
    assert request.agent == "main/general-purpose"
    request.resume("Porto")
    run.wait(30)
    assert run.status == "done"


def test_a_secret_in_the_value_is_redacted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SERVICE_API_KEY", "topsecret-123456")

    def leak(state: MessagesState) -> dict[str, Any]:
        return {"messages": [{"role": "ai", "content": str(interrupt({"token": "topsecret-123456"}))}]}

    graph = StateGraph(MessagesState)
    graph.add_node("leak", leak)
    graph.add_edge(START, "leak")
    run = deepnb.attach(graph.compile(checkpointer=InMemorySaver()), name=unique("leak")).run("x")
    (request,) = run.pending
    assert request.value == {"token": "[redacted]"}
    assert "topsecret" not in repr(run.state.pending) and "topsecret" not in repr(request)
    run.stop()


def test_a_long_value_is_clipped_on_the_card_but_whole_in_python() -> None:
    def long(state: MessagesState) -> dict[str, Any]:
        return {"messages": [{"role": "ai", "content": str(interrupt({"text": "word " * 2000}))}]}

    graph = StateGraph(MessagesState)
    graph.add_node("long", long)
    graph.add_edge(START, "long")
    run = deepnb.attach(graph.compile(checkpointer=InMemorySaver()), name=unique("long")).run("x")
    (shown,) = run.state.pending
    assert shown["value"] is None and shown["value_json"].endswith("…")
    (request,) = run.pending
    assert request.value == {"text": "word " * 2000}
    run.stop()


def test_approvals_keep_their_api_and_also_resume() -> None:
    model = scripted(
        {
            "main": [
                {
                    "text": "",
                    "tool_calls": [{"name": "write_file", "args": {"file_path": "/a.md", "content": "x"}}],
                },
                "Ok.",
            ]
        }
    )
    bench = deepnb.agent(unique("hitl"), model, interrupt_on={"write_file": True})
    run = bench.run("Write", thread=uuid.uuid4().hex)
    (request,) = run.pending
    assert isinstance(request, ApprovalRequest)
    request.resume({"decisions": [{"type": "reject", "message": "not now"}]})
    run.wait(30)
    assert run.status == "done" and "/a.md" not in run.files
    with pytest.raises(DeepnbError, match=r"no longer waiting|already"):
        request.approve()


@pytest.mark.parametrize("value", [{1: "a"}, float("nan"), b"bytes", object(), {"a": {"b": set()}}])
def test_an_answer_that_is_not_json_data_is_refused(value: Any) -> None:
    with pytest.raises(DeepnbError, match="nothing was sent"):
        check_answer(value)


def test_answer_values_that_are_json_data_pass() -> None:
    value = {"a": [1, 2.5, True, None, "x"], "b": {"c": []}}
    assert check_answer(value) == value
