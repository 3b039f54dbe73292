"""An agent's graph as plain data (:class:`GraphShape`: nodes, edges, clusters) and the displayable
:class:`GraphDrawing` that ``bench.draw_graph()`` and ``%deepagent graph`` give.

The shape is read from LangGraph's drawing of a graph (``get_graph(xray=...)``, as JSON: the same
nodes and edges an Agent Server gives for ``GET /assistants/{id}/graph``): the middleware hooks,
the model, the tools, and, with ``xray``, the nodes of subgraphs (LangGraph names them
``parent:node``; each parent is an inline cluster). The graphs an agent runs inside its nodes
(a deep agent's subagents, which its ``task`` tool runs) are no nodes of its drawing: each is read
the same way and kept as a nested cluster of its own, joined to the node that runs it by a
conditional edge. The drawing itself (layout, SVG) is :mod:`deepnb.views.graph_view`'s.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from deepnb.core.displayable import Displayable
from deepnb.core.graphs.reading import subgraphs_of

log = logging.getLogger(__name__)

__all__ = [
    "GraphCluster",
    "GraphDrawing",
    "GraphEdge",
    "GraphNode",
    "GraphShape",
    "read_shape",
    "shape_from_json",
]

START, END = "__start__", "__end__"
HOOKS = ("before_agent", "before_model", "after_model", "after_agent", "wrap_model_call", "wrap_tool_call")
"""The middleware hooks LangChain agents draw as nodes (``Middleware.hook``)."""
SUBAGENT_DEPTH = 3
"""How deep graphs run inside graphs' nodes are read (a subagent's subagents, ...)."""


@dataclass(frozen=True)
class GraphNode:
    """One node: ``id`` as the graph names it (unique in the shape), ``label`` as drawn, ``kind``
    one of ``start``, ``end``, ``model``, ``tools``, ``hook``, ``node``; ``cluster`` the id of the
    cluster it is in (``None``: the main graph)."""

    id: str
    label: str
    kind: str = "node"
    cluster: str | None = None


@dataclass(frozen=True)
class GraphEdge:
    """An edge; ``conditional`` when a function picks it at run time (drawn dashed)."""

    source: str
    target: str
    conditional: bool = False
    label: str = ""


@dataclass(frozen=True)
class GraphCluster:
    """A nested graph: ``kind`` ``subagent`` (a graph a node runs, e.g. through ``task``) or
    ``subgraph`` (a subgraph LangGraph draws inline with ``xray``); ``parent`` the cluster it is
    in (``None``: the main graph)."""

    id: str
    label: str
    kind: str = "subagent"
    parent: str | None = None


@dataclass(frozen=True)
class GraphShape:
    """A graph's nodes, edges and clusters, in the order the graph gives them."""

    nodes: tuple[GraphNode, ...] = ()
    edges: tuple[GraphEdge, ...] = ()
    clusters: tuple[GraphCluster, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The shape as plain data (lists of dicts)."""
        return {
            "nodes": [vars(n).copy() for n in self.nodes],
            "edges": [vars(e).copy() for e in self.edges],
            "clusters": [vars(c).copy() for c in self.clusters],
        }

    def cluster_nodes(self, cluster: str | None) -> list[GraphNode]:
        """The nodes directly in ``cluster`` (``None``: the main graph's own)."""
        return [n for n in self.nodes if n.cluster == cluster]


@dataclass(frozen=True, repr=False)
class GraphDrawing(Displayable):
    """An agent's graph, shown as an SVG diagram (``image/svg+xml``, kept in a saved notebook)
    and, as text, its nodes and edges. ``shape`` holds every node and edge; a very large graph is
    drawn folded (see :mod:`deepnb.views.graph_view`)."""

    agent: str
    shape: GraphShape
    xray: bool | int = True
    source: str = "this kernel"
    """Where the drawing was read: ``this kernel`` or the server's address."""
    notes: tuple[str, ...] = field(default=())

    def svg(self) -> str:
        """The diagram as an SVG document."""
        bundle = self._repr_mimebundle_() or {}
        return str(bundle.get("image/svg+xml", ""))


def node_kind(node_id: str) -> str:
    """How a node of a LangChain agent's drawing is drawn, from its name."""
    name = node_id.rsplit(":", 1)[-1]
    if name == START:
        return "start"
    if name == END:
        return "end"
    if name in ("model", "tools"):
        return name
    if "." in name and name.rsplit(".", 1)[1] in HOOKS:
        return "hook"
    return "node"


def shape_from_json(data: Mapping[str, Any], *, prefix: str = "", cluster: str | None = None) -> GraphShape:
    """The shape of a LangGraph drawing as JSON (``Graph.to_json()``, or what an Agent Server
    gives for ``/assistants/{id}/graph``). Node ids get ``prefix``, nodes outside an inline
    subgraph go in ``cluster``; ``xray`` ids ``parent:node`` make ``parent`` an inline cluster."""
    nodes: list[GraphNode] = []
    clusters: dict[str, GraphCluster] = {}
    for raw in _items(data.get("nodes")):
        node_id = str(raw.get("id"))
        parts = node_id.split(":")
        inner = cluster
        for depth in range(1, len(parts)):
            path = prefix + ":".join(parts[:depth])
            if path not in clusters:
                clusters[path] = GraphCluster(path, parts[depth - 1], "subgraph", inner)
            inner = path
        nodes.append(GraphNode(prefix + node_id, parts[-1], node_kind(node_id), inner))
    known = {n.id for n in nodes}
    edges = [
        GraphEdge(
            prefix + str(raw.get("source")),
            prefix + str(raw.get("target")),
            bool(raw.get("conditional")),
            str(raw.get("data") or "") if isinstance(raw.get("data"), str) else "",
        )
        for raw in _items(data.get("edges"))
        if prefix + str(raw.get("source")) in known and prefix + str(raw.get("target")) in known
    ]
    return GraphShape(tuple(nodes), tuple(edges), tuple(clusters.values()))


def _items(value: Any) -> Iterable[Mapping[str, Any]]:
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []


def joined(*shapes: GraphShape) -> GraphShape:
    """One shape of several (their ids distinct)."""
    return GraphShape(
        tuple(n for s in shapes for n in s.nodes),
        tuple(e for s in shapes for e in s.edges),
        tuple(c for s in shapes for c in s.clusters),
    )


def _drawn(graph: Any, xray: bool | int) -> Mapping[str, Any]:
    drawing = graph.get_graph(xray=xray)
    data = drawing.to_json()
    return data if isinstance(data, Mapping) else {}


def read_shape(graph: Any, *, xray: bool | int = True) -> GraphShape:
    """The shape of a compiled graph: its drawing, and each graph it runs inside a node (its
    subagents; not a subgraph that is itself a node, which the drawing has) as a nested cluster,
    joined to its ``tools`` node where it has one."""
    return _read(graph, xray, prefix="", cluster=None, depth=0, seen={id(graph)})


def _read(
    graph: Any, xray: bool | int, *, prefix: str, cluster: str | None, depth: int, seen: set[int]
) -> GraphShape:
    shape = shape_from_json(_drawn(graph, xray), prefix=prefix, cluster=cluster)
    if depth >= SUBAGENT_DEPTH:
        return shape
    try:
        nodes = getattr(getattr(graph, "builder", None), "nodes", None) or {}
        own = {id(getattr(node, "runnable", None)) for node in nodes.values()}  # drawn as its nodes
        inner = [g for g in subgraphs_of(graph) if id(g) not in seen and id(g) not in own]
    except Exception:  # a drawing never fails for what it cannot follow
        log.debug("deepnb: could not follow the graphs %r runs", graph, exc_info=True)
        inner = []
    runner = next((n.id for n in shape.nodes if n.id == f"{prefix}tools"), None)
    parts = [shape]
    used = {c.id for c in shape.clusters}
    for number, sub in enumerate(inner, start=1):
        seen.add(id(sub))
        name = str(getattr(sub, "name", None) or f"subgraph {number}")
        cluster_id = f"{prefix}{name}"
        if cluster_id in used:
            cluster_id = f"{cluster_id}#{number}"
        used.add(cluster_id)
        sub_id = cluster_id + "/"
        try:
            read = _read(sub, xray, prefix=sub_id, cluster=cluster_id, depth=depth + 1, seen=seen)
        except Exception:  # a graph that cannot be drawn: its cluster, empty
            log.debug("deepnb: could not draw %r", sub, exc_info=True)
            read = GraphShape()
        box = GraphCluster(cluster_id, name, "subagent", cluster)
        edge: tuple[GraphEdge, ...] = ()
        start = next((n.id for n in read.nodes if n.id == f"{sub_id}{START}"), None)
        if start and runner:
            edge = (GraphEdge(runner, start, True, "task"),)
        parts.append(GraphShape(read.nodes, read.edges + edge, (box, *read.clusters)))
    return joined(*parts)
