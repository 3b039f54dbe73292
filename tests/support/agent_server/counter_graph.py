"""A graph without messages: ``add`` then ``double`` on a number, two node updates a run (its
steps are its node updates: tests/served/test_remote_fork.py)."""

from __future__ import annotations

from typing import Any, TypedDict

from langgraph.graph import END, START, StateGraph


class Counter(TypedDict):
    n: int


def counter() -> Any:
    """The graph, compiled."""
    graph = StateGraph(Counter)
    graph.add_node("add", lambda s: {"n": s["n"] + 1})
    graph.add_node("double", lambda s: {"n": s["n"] * 2})
    graph.add_edge(START, "add")
    graph.add_edge("add", "double")
    graph.add_edge("double", END)
    return graph.compile()


graph = counter()
