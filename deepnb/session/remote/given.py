"""The tools a served agent is given, as its server draws its graph.

An Agent Protocol server draws an assistant's graph (``assistants.get_graph``); LangGraph puts
the names of the tools a ``ToolNode`` runs in that node's ``metadata["__tools"]``. The main
agent's tool node is ``tools``; a graph with more tool nodes lists each under its node's name.
Subagents built inside a ``task`` tool are not nodes of the drawing, so they are not listed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["MAIN_TOOL_NODE", "tools_drawn"]

MAIN_TOOL_NODE = "tools"
"""The node of a LangChain agent's graph that runs its tools."""


def tools_drawn(drawing: Any) -> dict[str, tuple[str, ...]]:
    """Agent (``"main"`` for the ``tools`` node, else the node's name) → the tool names the
    drawn graph's tool nodes run; ``{}`` for a drawing that names none."""
    nodes = drawing.get("nodes") if isinstance(drawing, Mapping) else None
    found: dict[str, tuple[str, ...]] = {}
    for node in nodes if isinstance(nodes, list) else ():
        metadata = node.get("metadata") if isinstance(node, Mapping) else None
        tools = metadata.get("__tools") if isinstance(metadata, Mapping) else None
        if not isinstance(tools, list) or not tools:
            continue
        node_id = str(node.get("id", ""))
        agent = "main" if node_id == MAIN_TOOL_NODE else node_id
        found[agent] = tuple(str(name) for name in tools if isinstance(name, str))
    return found
