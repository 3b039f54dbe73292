"""A graph deepnb builds draws what its agents are given, for a kernel that reaches it served.

An Agent Protocol server tells a client about a graph through its drawing
(``assistants.get_graph``), whose tool node lists every tool the node can run: ``execute`` even
where the backend cannot run commands (deepagents then hides it from the model on each call),
and none of the subagents' tools (they run inside ``task``, not as nodes). A graph deepnb
builds draws, beside that list, what :func:`~deepnb.engine.anatomy.tools_by_agent` reads of it:
the tools each agent's model is offered, as a kernel shows them for the same graph built there.
The reading goes in the drawing only: a node's own metadata would go into every call's run
metadata (and every streamed chunk of a subagent's).
"""

from __future__ import annotations

import logging
from typing import Any

from deepnb.engine.anatomy import tools_by_agent

log = logging.getLogger(__name__)

__all__ = ["GIVEN_KEY", "TOOL_NODE", "drawing_given"]

GIVEN_KEY = "deepnb_tools"
"""The drawn tool node's metadata key for the tools each agent is offered (agent → names)."""
TOOL_NODE = "tools"
"""The node of a LangChain agent's graph that runs its tools."""


def _with_given(drawn: Any, graph: Any) -> Any:
    """``drawn`` (a ``langchain_core`` graph drawing) with the reading on its tool node."""
    node = drawn.nodes.get(TOOL_NODE)
    if node is None:
        return drawn
    try:
        given = tools_by_agent(graph)
    except Exception:  # a drawing never fails for it: the node's own list stays
        log.debug("deepnb: could not read the tools of %r", graph, exc_info=True)
        return drawn
    if given:
        listed = {agent: list(names) for agent, names in given.items()}
        drawn.nodes[TOOL_NODE] = node._replace(metadata={**(node.metadata or {}), GIVEN_KEY: listed})
    return drawn


_CLASSES: dict[type, type] = {}
"""A compiled graph's class → the class drawing what its agents are given."""


def _drawing_class(base: type) -> type:
    """``base`` (a compiled graph's class) drawing what its agents are given. A copy of the
    graph (the Agent Server copies it for each request) keeps the class, so it draws so too."""
    if base in _CLASSES:
        return _CLASSES[base]

    class DrawsGiven(base):  # type: ignore[misc]
        def get_graph(self, config: Any = None, *, xray: int | bool = False) -> Any:
            return _with_given(super().get_graph(config, xray=xray), self)

        async def aget_graph(self, config: Any = None, *, xray: int | bool = False) -> Any:
            return _with_given(await super().aget_graph(config, xray=xray), self)

    DrawsGiven.__name__ = DrawsGiven.__qualname__ = base.__name__
    DrawsGiven.__module__ = base.__module__
    _CLASSES[base] = DrawsGiven
    return DrawsGiven


def drawing_given(graph: Any) -> Any:
    """``graph`` (just compiled) as the same graph that draws what its agents are given; a graph
    that cannot be copied so is returned unchanged."""
    if type(graph) in _CLASSES.values() or not hasattr(graph, "aget_graph"):
        return graph
    attrs = {k: v for k, v in vars(graph).items() if k != "__orig_class__"}
    try:
        return _drawing_class(type(graph))(**attrs)
    except Exception:  # a graph class that is built otherwise: it draws as LangGraph does
        log.debug("deepnb: %s can't draw what it is given", type(graph).__name__, exc_info=True)
        return graph
