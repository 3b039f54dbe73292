"""A graph shaped like LangChain's open_deep_research, attached: a node that calls a model and keeps
only a string, a supervisor whose messages live under ``supervisor_messages``, a tool node of its
own that runs a researcher subgraph (its messages under ``researcher_messages``), a compressing
call, a final report. Every model call and every tool call is counted once, with its tokens, and
each tool call has its card, also when a provider numbers its calls afresh each turn."""

from __future__ import annotations

import operator
from typing import Annotated, Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict

import deepnb
from deepnb.session import agents

USAGE = {"input_tokens": 100, "output_tokens": 10, "total_tokens": 110}


class Replies(BaseChatModel):
    """Answers each call with the next of its replies, reporting 100 tokens in and 10 out."""

    replies: list[AIMessage]
    calls: int = 0

    @property
    def _llm_type(self) -> str:
        return "replies"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Replies:
        return self

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        reply = self.replies[self.calls].model_copy(update={"usage_metadata": USAGE})
        self.calls += 1
        return ChatResult(generations=[ChatGeneration(message=reply)])


def _call(name: str, call_id: str, **args: Any) -> AIMessage:
    return AIMessage(
        content="", tool_calls=[{"name": name, "args": args, "id": call_id, "type": "tool_call"}]
    )


MODEL = Replies(
    replies=[
        AIMessage(content="Brief: how tide pools work."),  # write_brief keeps a string
        _call("conduct_research", "c1", topic="tide pools"),  # the supervisor
        _call("search", "s1", query="tide pools"),  # the researcher
        AIMessage(content="Tide pools fill at high tide."),
        AIMessage(content="Compressed: they fill at high tide."),  # compress keeps a string
        AIMessage(content="Research done."),  # the supervisor again
        AIMessage(content="# Report\n\nTide pools fill at high tide."),  # the final report
    ]
)


class Researcher(TypedDict, total=False):
    researcher_messages: Annotated[list[BaseMessage], add_messages]
    summary: str


class Research(TypedDict, total=False):
    messages: Annotated[list[BaseMessage], add_messages]
    supervisor_messages: Annotated[list[BaseMessage], add_messages]
    brief: str
    notes: Annotated[list[str], operator.add]


def researcher(state: Researcher) -> dict[str, Any]:
    return {"researcher_messages": [MODEL.invoke(state["researcher_messages"])]}


def researcher_tools(state: Researcher) -> dict[str, Any]:
    last = state["researcher_messages"][-1]
    results = [
        ToolMessage(content="high tide fills them", tool_call_id=c["id"], name=c["name"])
        for c in last.tool_calls
    ]
    return {"researcher_messages": results}


def compress(state: Researcher) -> dict[str, Any]:
    return {"summary": str(MODEL.invoke(state["researcher_messages"]).content)}


def _after_researcher(state: Researcher) -> str:
    return "researcher_tools" if state["researcher_messages"][-1].tool_calls else "compress"


sub = StateGraph(Researcher)
sub.add_node("researcher", researcher)
sub.add_node("researcher_tools", researcher_tools)
sub.add_node("compress", compress)
sub.add_edge(START, "researcher")
sub.add_conditional_edges("researcher", _after_researcher)
sub.add_edge("researcher_tools", "researcher")
sub.add_edge("compress", END)
RESEARCHER = sub.compile()


def write_brief(state: Research) -> dict[str, Any]:
    return {"brief": str(MODEL.invoke(state["messages"]).content)}


def supervisor(state: Research) -> dict[str, Any]:
    history = state.get("supervisor_messages") or [HumanMessage(state["brief"])]
    return {"supervisor_messages": [MODEL.invoke(history)]}


def supervisor_tools(state: Research) -> dict[str, Any]:
    last = state["supervisor_messages"][-1]
    results, notes = [], []
    for call in last.tool_calls:
        found = RESEARCHER.invoke({"researcher_messages": [HumanMessage(call["args"]["topic"])]})
        notes.append(found["summary"])
        results.append(ToolMessage(content=found["summary"], tool_call_id=call["id"], name=call["name"]))
    return {"supervisor_messages": results, "notes": notes}


def final_report(state: Research) -> dict[str, Any]:
    return {"messages": [MODEL.invoke([HumanMessage("\n".join(state["notes"]))])]}


def _after_supervisor(state: Research) -> str:
    return "supervisor_tools" if state["supervisor_messages"][-1].tool_calls else "final_report"


graph = StateGraph(Research)
graph.add_node("write_brief", write_brief)
graph.add_node("supervisor", supervisor)
graph.add_node("supervisor_tools", supervisor_tools)
graph.add_node("final_report", final_report)
graph.add_edge(START, "write_brief")
graph.add_edge("write_brief", "supervisor")
graph.add_conditional_edges("supervisor", _after_supervisor)
graph.add_edge("supervisor_tools", "supervisor")
graph.add_edge("final_report", END)
DEEP_RESEARCH = graph.compile()


def test_every_model_call_and_tool_call_of_a_graph_of_its_own_shape_is_counted_once() -> None:
    MODEL.calls = 0
    bench = deepnb.attach(DEEP_RESEARCH, "deep-research-shape")
    try:
        run = bench.run("How do tide pools work?")
        assert run.status == "done", run.error
        assert MODEL.calls == 7
        progress = run.state.progress()
        assert (progress["steps"], progress["tool_calls"]) == (7, 2)
        assert (progress["tokens_in"], progress["tokens_out"]) == (700, 70)
        assert run.state.tokens_unreported == 0
        cards = {item["name"]: item for item in run.state.items if item["kind"] == "tool"}
        assert set(cards) == {"conduct_research", "search"}
        assert cards["search"]["status"] == "done" and "high tide fills them" in cards["search"]["result"]
        assert cards["conduct_research"]["status"] == "done"
        assert "Compressed: they fill at high tide." in cards["conduct_research"]["result"]
        assert run.result == "# Report\n\nTide pools fill at high tide."
    finally:
        agents.forget_all()


def test_a_later_model_call_reusing_a_tool_call_id_gets_its_own_card() -> None:
    """Some providers number tool calls per turn (``call_0`` each time): each call is a card."""
    from tests.support.agents import scripted, unique

    turns = [
        {"tool_calls": [{"name": "ls", "args": {"path": "/"}, "id": "call_0"}]},
        {
            "tool_calls": [
                {"name": "write_file", "args": {"file_path": "/a.md", "content": "A"}, "id": "call_0"}
            ]
        },
        {"tool_calls": [{"name": "read_file", "args": {"file_path": "/a.md"}, "id": "call_0"}]},
        "Done.",
    ]
    bench = deepnb.agent(unique("reused"), scripted({"main": turns}))
    try:
        run = bench.run("List, write, read.")
        assert run.status == "done", run.error
        cards = [item for item in run.state.items if item["kind"] == "tool"]
        assert [(c["name"], c["status"]) for c in cards] == [
            ("ls", "done"),
            ("write_file", "done"),
            ("read_file", "done"),
        ]
        assert len({c["id"] for c in cards}) == 3 and run.state.progress()["tool_calls"] == 3
        assert "A" in cards[2]["result"]
    finally:
        agents.forget_all()
