"""``bench.draw_graph()`` and ``%deepagent graph``: an agent's graph read as data (nodes, edges,
clusters: each subagent nested) and drawn offline as an SVG, every name escaped; a very large
graph drawn folded, its layout bounded."""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET
from typing import Any, TypedDict

import pytest
from langgraph.graph import END, START, StateGraph

import deepnb
from deepnb.engine.graph_shape import (
    GraphCluster,
    GraphDrawing,
    GraphEdge,
    GraphNode,
    GraphShape,
    shape_from_json,
)
from deepnb.views.graph_layout import NODE_HEIGHT, layout
from deepnb.views.graph_view import MAX_DRAWN, fold
from tests.support.agents import scripted, unique

SVG = "{http://www.w3.org/2000/svg}"


class Count(TypedDict):
    n: int


def _svg(drawing: GraphDrawing) -> ET.Element:
    bundle = drawing._repr_mimebundle_()
    assert bundle is not None and set(bundle) == {"text/plain", "image/svg+xml"}
    return ET.fromstring(bundle["image/svg+xml"])  # well-formed XML: every name escaped


def _titles(root: ET.Element) -> list[str]:
    return [t.text or "" for g in root.iter(f"{SVG}g") for t in g.findall(f"{SVG}title")]


def test_a_deep_agent_is_drawn_with_its_hooks_model_tools_and_each_subagent_nested() -> None:
    bench = deepnb.agent(unique("drawn"), scripted({"main": [{"text": "hi"}]}))
    drawing = bench.draw_graph()
    shape = drawing.shape
    kinds = {n.id: n.kind for n in shape.nodes}
    assert kinds["model"] == "model" and kinds["tools"] == "tools" and kinds["__start__"] == "start"
    assert kinds["TodoListMiddleware.after_model"] == "hook"
    drawn = bench.graph.get_graph(xray=True)
    main = {n.id for n in shape.nodes if n.cluster is None}
    assert main == set(drawn.nodes)  # every node LangGraph draws, and only those, in the main graph
    assert {
        (e.source, e.target, e.conditional) for e in shape.edges if e.source in main and e.target in main
    } == {(e.source, e.target, e.conditional) for e in drawn.edges}
    (cluster,) = shape.clusters
    assert (cluster.id, cluster.label, cluster.kind) == ("general-purpose", "general-purpose", "subagent")
    inner = {n.id for n in shape.cluster_nodes("general-purpose")}
    assert {"general-purpose/model", "general-purpose/tools", "general-purpose/__start__"} <= inner
    assert GraphEdge("tools", "general-purpose/__start__", True, "task") in shape.edges
    root = _svg(drawing)
    assert set(_titles(root)) == {n.id for n in shape.nodes}  # each node drawn once, named in full
    dashed = [
        p for p in root.iter(f"{SVG}path") if p.get("class") == "dnb-edge" and p.get("stroke-dasharray")
    ]
    assert len(dashed) == sum(e.conditional for e in shape.edges)
    assert any(c.get("class") == "dnb-cluster" for c in root.iter(f"{SVG}g"))
    text = repr(drawing)
    assert text.startswith(
        f"Graph of agent {bench.name!r} ({len(shape.nodes)} nodes, {len(shape.edges)} edges"
    )
    assert "  model -->" in text or "  model -.->" in text
    assert "  tools -.-> general-purpose/__start__  (task)" in text
    assert "general-purpose/model [model] in subagent general-purpose" in text


def test_an_attached_graph_with_hostile_node_names_is_escaped_and_its_subgraph_drawn_inside(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hostile = '<img src=x onerror="alert(1)">'
    secret = "sk-graph-0123456789abcdef0123"
    monkeypatch.setenv("ACME_API_KEY", secret)
    inner = StateGraph(Count)
    inner.add_node("bump", lambda s: {"n": s["n"] + 1})
    inner.add_edge(START, "bump")
    inner.add_edge("bump", END)
    outer = StateGraph(Count)
    outer.add_node(hostile, lambda s: {"n": s["n"]})
    outer.add_node("sub", inner.compile())
    outer.add_node(f"call {secret}", lambda s: {"n": s["n"]})
    outer.add_edge(START, hostile)
    outer.add_edge(START, f"call {secret}")
    outer.add_edge(f"call {secret}", END)
    outer.add_conditional_edges(hostile, lambda s: "sub" if s["n"] else END, ["sub", END])
    outer.add_edge("sub", END)
    bench = deepnb.attach(outer.compile(), unique("hostile"))
    drawing = bench.draw_graph()
    assert ("sub", "subgraph") in {(c.id, c.kind) for c in drawing.shape.clusters}
    assert GraphNode("sub:bump", "bump", "node", "sub") in drawing.shape.nodes
    svg = drawing.svg()
    assert "<img" not in svg and "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in svg
    root = ET.fromstring(svg)
    assert hostile in _titles(root)  # read back as the very name
    assert any(g.get("class") == "dnb-subgraph" for g in root.iter(f"{SVG}g"))
    assert secret not in svg + repr(drawing) and f"call {secret}" in {n.id for n in drawing.shape.nodes}
    flat = bench.draw_graph(xray=False)
    assert not flat.shape.clusters and "sub" in {n.id for n in flat.shape.nodes}


def test_a_server_drawing_reads_as_the_same_shape() -> None:
    """What ``GET /assistants/{id}/graph?xray=true`` answers: the JSON of ``Graph.to_json()``."""
    data: dict[str, Any] = {
        "nodes": [
            {"id": "__start__", "type": "schema", "data": "__start__"},
            {"id": "model", "type": "runnable", "data": {"id": ["x"], "name": "model"}},
            {"id": "team:tools", "type": "runnable", "data": {"name": "tools"}},
            {"id": "__end__", "type": "schema", "data": "__end__"},
        ],
        "edges": [
            {"source": "__start__", "target": "model"},
            {"source": "model", "target": "team:tools", "conditional": True},
            {"source": "team:tools", "target": "__end__"},
            {"source": "model", "target": "nowhere"},
        ],
    }
    shape = shape_from_json(data)
    assert [n.id for n in shape.nodes] == ["__start__", "model", "team:tools", "__end__"]
    assert shape.clusters == (GraphCluster("team", "team", "subgraph", None),)
    assert GraphNode("team:tools", "tools", "tools", "team") in shape.nodes
    assert [e.conditional for e in shape.edges] == [False, True, False]  # the edge to no node: dropped


def test_the_layout_layers_follow_the_edges_and_nodes_in_a_layer_never_overlap() -> None:
    nodes = [f"n{i}" for i in range(40)]
    edges = [(f"n{i}", f"n{(i * 7 + 3) % 40}") for i in range(40)] + [
        (f"n{i}", f"n{i + 1}") for i in range(39)
    ]
    widths = {n: 40.0 + 3 * (i % 5) for i, n in enumerate(nodes)}
    laid = layout(nodes, widths, edges)
    assert set(laid.positions) == set(nodes)
    rows: dict[float, list[tuple[float, str]]] = {}
    for node, (x, y) in laid.positions.items():
        rows.setdefault(y, []).append((x, node))
    for row in rows.values():
        row.sort()
        for (x1, a), (x2, b) in itertools.pairwise(row):
            assert x2 - x1 >= (widths[a] + widths[b]) / 2 - 1e-6, (a, b)
    assert len(laid.edges) == len(edges)
    for (source, target), points in zip(edges, laid.edges, strict=True):
        assert points[0] == laid.positions[source] and points[-1] == laid.positions[target]
    forward = [(s, t) for s, t in edges if laid.positions[t][1] > laid.positions[s][1]]
    assert len(forward) > len(edges) // 2  # the chain runs down the page
    assert laid.height == max(y for _, y in laid.positions.values()) + NODE_HEIGHT / 2


def _big(count: int) -> GraphShape:
    """A chain of ``count`` nodes, half of them in fifty subagent clusters."""
    clusters = tuple(GraphCluster(f"c{k}", f"c{k}", "subagent") for k in range(50))
    nodes = tuple(
        GraphNode(f"n{i}", f"n{i}", "node", f"c{i % 50}" if i >= count // 2 else None) for i in range(count)
    )
    edges = tuple(GraphEdge(f"n{i}", f"n{i + 1}", i % 3 == 0) for i in range(count - 1))
    return GraphShape(nodes, edges, clusters)


@pytest.mark.timeout(20)
def test_a_five_thousand_node_graph_is_drawn_folded_and_bounded() -> None:
    shape = _big(5000)
    folded, note = fold(shape)
    assert len(folded.nodes) <= MAX_DRAWN
    assert note.startswith("5,000 nodes, 4,999 edges: drawn folded, 300 of 2,550 shown")
    folded_ids = {n.id for n in folded.nodes if n.kind == "folded"}
    assert folded_ids == {f"folded:c{k}" for k in range(50)}  # every subagent kept, folded
    assert [n.id for n in folded.nodes if n.kind != "folded"] == [f"n{i}" for i in range(250)]
    drawing = GraphDrawing("big", shape)
    svg = drawing.svg()
    root = ET.fromstring(svg)
    assert (
        len([g for g in root.iter(f"{SVG}g") if (g.get("class") or "").startswith("dnb-node")]) <= MAX_DRAWN
    )
    assert len(svg) < 200_000
    text = repr(drawing)
    assert "… 4,800 more nodes" in text and "… 4,699 more edges" in text and len(text) < 30_000
    small, note = fold(_big(400))  # 200 main nodes and 50 folded clusters: all of them drawn
    assert not note.endswith("shown") and len(small.nodes) == 250
    assert {n.label for n in small.nodes if n.kind == "folded"} == {f"c{k} (4 nodes)" for k in range(50)}


@pytest.mark.parametrize(
    "shape",
    [
        GraphShape(),
        GraphShape((GraphNode("a", "a"),)),
        GraphShape(
            (GraphNode("a", "a"), GraphNode("b", "b")),
            (GraphEdge("a", "b"), GraphEdge("b", "a", True), GraphEdge("a", "a"), GraphEdge("a", "b")),
        ),
        GraphShape((GraphNode("a", "a", cluster="c"),), (), (GraphCluster("c", "c"),)),
        GraphShape((), (), (GraphCluster("c", "c"),)),
    ],
    ids=[
        "empty",
        "one node",
        "a cycle, a self-loop and a repeated edge",
        "a lone cluster",
        "an empty cluster",
    ],
)
def test_small_and_odd_graphs_draw(shape: GraphShape) -> None:
    drawing = GraphDrawing("odd", shape)
    root = _svg(drawing)
    assert set(_titles(root)) == {n.id for n in shape.nodes}
    assert repr(drawing).startswith("Graph of agent 'odd'")
