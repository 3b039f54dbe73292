"""The tools a served agent is given, as its server draws its graph.

An Agent Protocol server draws an assistant's graph (``assistants.get_graph``). A graph deepnb
built draws on its tool node what the kernel would read of the same graph built here
(:mod:`deepnb.engine.drawing`): the tools each agent's model is offered, subagents included,
without those its backend cannot run (``execute`` where it runs no commands). Any other graph
says only what LangGraph puts in a ``ToolNode``'s ``metadata["__tools"]``: every tool the node
can run, ``execute`` included whatever the backend, and no subagent's (they run inside ``task``,
not as nodes). The main agent's tool node is ``tools``; a graph with more tool nodes lists each
under its node's name.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deepnb.engine.drawing import GIVEN_KEY, TOOL_NODE

__all__ = ["MAIN_TOOL_NODE", "tools_drawn"]

MAIN_TOOL_NODE = TOOL_NODE
"""The node of a LangChain agent's graph that runs its tools."""


def _names(found: Any) -> tuple[str, ...] | None:
    """A drawn list of tool names (``None``: not a list, or an empty one)."""
    if not isinstance(found, list) or not found:
        return None
    return tuple(str(name) for name in found if isinstance(name, str))


def _given(metadata: Mapping[str, Any]) -> dict[str, tuple[str, ...]] | None:
    """What a graph deepnb built says its agents are offered (``None``: it says nothing)."""
    given = metadata.get(GIVEN_KEY)
    if not isinstance(given, Mapping):
        return None
    read = {str(agent): _names(names) for agent, names in given.items()}
    return {agent: names for agent, names in read.items() if names} or None


def tools_drawn(drawing: Any) -> dict[str, tuple[str, ...]]:
    """Agent (``"main"`` for the ``tools`` node, else the node's name or a subagent's) → the
    tools it is given, as the drawn graph says; ``{}`` for a drawing that names none."""
    nodes = drawing.get("nodes") if isinstance(drawing, Mapping) else None
    found: dict[str, tuple[str, ...]] = {}
    for node in nodes if isinstance(nodes, list) else ():
        metadata = node.get("metadata") if isinstance(node, Mapping) else None
        if not isinstance(metadata, Mapping):
            continue
        node_id = str(node.get("id", ""))
        given = _given(metadata) if node_id == MAIN_TOOL_NODE else None
        if given is not None:
            found.update(given)
            continue
        tools = _names(metadata.get("__tools"))
        if tools:
            found["main" if node_id == MAIN_TOOL_NODE else node_id] = tools
    return found
