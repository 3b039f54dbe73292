"""An agent's graph drawn as SVG, offline (:func:`graph_svg`), and as text (:func:`graph_text`).

The main graph is laid out by :mod:`deepnb.views.graph_layout`; each subagent cluster is laid out
on its own and drawn as a box to the right of the graph that runs it, joined by a dashed edge
(``task``); an inline subgraph (``xray``) is a box drawn around its nodes. Conditional edges are
dashed. Every name is escaped. A graph of more than :data:`MAX_DRAWN` nodes is drawn folded: each
cluster as one node, then, if still too many, :data:`MAX_DRAWN` nodes (the folded clusters first)
with a line that says how many are left out (``drawing.shape`` keeps them all).
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from deepnb.engine.graph_shape import GraphCluster, GraphDrawing, GraphEdge, GraphNode, GraphShape
from deepnb.views.graph_layout import NODE_HEIGHT, layout

__all__ = [
    "MAX_DRAWN",
    "SVG_START",
    "fold",
    "graph_bundle",
    "graph_scene",
    "graph_svg",
    "graph_text",
    "scene_svg",
]

MAX_DRAWN = 300
"""Nodes drawn at most: a larger graph is drawn folded."""
TEXT_NODES = 200
TEXT_EDGES = 300
"""Nodes and edges the text form lists at most (it counts the rest)."""
LABEL_CHARS = 40
"""Characters of a node's name drawn in its box (the whole name is its tooltip)."""
CHAR_WIDTH = 6.6
PAD = 14.0
OFFSET = 10.0
"""How far an edge back up is drawn beside the edge down between the same two nodes."""
HEAD = 24.0
"""Room for a cluster's title, and for the drawing's own."""
SVG_START = '<svg class="deepnb-graph" xmlns="http://www.w3.org/2000/svg"'
"""How every drawing begins (what finds one in a page, also as the base64 data URI nbconvert
embeds it as)."""
FILL = {
    "start": "#e8e8e8",
    "end": "#e8e8e8",
    "model": "#dbe8ff",
    "tools": "#dcf3e2",
    "hook": "#f1ecff",
    "node": "#fff4d6",
    "folded": "#ffe3e0",
}


@dataclass
class _Block:
    """A graph laid out: node centres, edges' points, size; boxes of its inline subgraphs and
    the subagent blocks placed beside it, each with its offset."""

    positions: dict[str, tuple[float, float]] = field(default_factory=dict)
    edges: list[tuple[GraphEdge, list[tuple[float, float]]]] = field(default_factory=list)
    width: float = 0.0
    height: float = 0.0
    children: list[tuple[GraphCluster, _Block, float, float]] = field(default_factory=list)


def fold(shape: GraphShape, limit: int = MAX_DRAWN) -> tuple[GraphShape, str]:
    """``shape`` as drawn: itself within ``limit`` nodes; else each top cluster folded into one
    node, and past ``limit`` still, ``limit`` nodes: the folded clusters, then the graph's first
    nodes. The note says what was left out (empty when nothing was)."""
    if len(shape.nodes) <= limit:
        return shape, ""
    top = {c.id: c for c in shape.clusters if c.parent is None}
    parent = {c.id: c.parent for c in shape.clusters}

    def outer(cluster: str | None) -> str | None:
        while cluster is not None and parent.get(cluster) is not None:
            cluster = parent[cluster]
        return cluster

    counts: dict[str, int] = {}
    where: dict[str, str] = {}
    for node in shape.nodes:
        owner = outer(node.cluster)
        if owner is not None:
            counts[owner] = counts.get(owner, 0) + 1
            where[node.id] = owner
    nodes: list[GraphNode] = []
    made: set[str] = set()
    for node in shape.nodes:
        owner = where.get(node.id)
        if owner is None:
            nodes.append(node)
        elif owner not in made:
            made.add(owner)
            label = f"{top[owner].label} ({counts[owner]:,} nodes)"
            nodes.append(GraphNode(f"folded:{owner}", label, "folded"))
    note = f"{len(shape.nodes):,} nodes, {len(shape.edges):,} edges: drawn folded"
    if len(nodes) > limit:
        note += f", {limit:,} of {len(nodes):,} shown (each folded cluster, then the first nodes)"
        first = [n for n in nodes if n.kind == "folded"] + [n for n in nodes if n.kind != "folded"]
        shown = {n.id for n in first[:limit]}
        nodes = [n for n in nodes if n.id in shown]
    kept = {n.id for n in nodes}

    def end(node_id: str) -> str:
        return f"folded:{where[node_id]}" if node_id in where else node_id

    edges: dict[tuple[str, str], GraphEdge] = {}
    for edge in shape.edges:
        source, target = end(edge.source), end(edge.target)
        if source != target and source in kept and target in kept and (source, target) not in edges:
            edges[(source, target)] = GraphEdge(source, target, edge.conditional, edge.label)
    return GraphShape(tuple(nodes), tuple(edges.values()), ()), note + " (drawing.shape has them all)."


def _width(node: GraphNode) -> float:
    return max(40.0, min(len(node.label), LABEL_CHARS) * CHAR_WIDTH + 2 * PAD)


def _block(shape: GraphShape, cluster: str | None, blocks: dict[str | None, list[GraphCluster]]) -> _Block:
    """The nodes of ``cluster`` (and of the inline subgraphs in it) laid out, its subagent
    clusters laid out as blocks placed to its right."""
    inline = _inline_of(shape, cluster)
    nodes = [n for n in shape.nodes if n.cluster in inline]
    ids = {n.id for n in nodes}
    edges = [e for e in shape.edges if e.source in ids and e.target in ids]
    laid = layout(
        [n.id for n in nodes], {n.id: _width(n) for n in nodes}, [(e.source, e.target) for e in edges]
    )
    block = _Block(dict(laid.positions), list(zip(edges, laid.edges, strict=True)), laid.width, laid.height)
    x = block.width + (3 * PAD if nodes else 0)
    tallest = block.height
    for child in blocks.get(cluster, []):
        inner = _block(shape, child.id, blocks)
        block.children.append((child, inner, x + PAD, HEAD))
        x += inner.width + 2 * PAD + 2 * PAD
        tallest = max(tallest, inner.height + HEAD + 2 * PAD)
    block.width = max(x - (2 * PAD if block.children else 0), 0.0)
    block.height = tallest
    return block


def _inline_of(shape: GraphShape, cluster: str | None) -> set[str | None]:
    """``cluster`` and the inline subgraph clusters in it, however deep."""
    found: set[str | None] = {cluster}
    grew = True
    while grew:
        grew = False
        for c in shape.clusters:
            if c.kind == "subgraph" and c.parent in found and c.id not in found:
                found.add(c.id)
                grew = True
    return found


def _blocks(shape: GraphShape) -> dict[str | None, list[GraphCluster]]:
    """The subagent clusters by the block they are drawn beside (their nearest subagent
    ancestor, ``None``: the main graph)."""
    kinds = {c.id: c for c in shape.clusters}
    found: dict[str | None, list[GraphCluster]] = {}
    for c in shape.clusters:
        if c.kind != "subagent":
            continue
        owner = c.parent
        while owner is not None and kinds[owner].kind != "subagent":
            owner = kinds[owner].parent
        found.setdefault(owner, []).append(c)
    return found


Shape = dict[str, Any]
"""One drawn shape of a scene: ``{"t": "node" | "edge" | "cluster" | "subgraph", ...}`` with its
attributes as the SVG writes them (numbers already formatted), its names clipped, not escaped."""


def graph_scene(drawing: GraphDrawing, *, limit: int = MAX_DRAWN) -> dict[str, Any]:
    """The drawing laid out, as data: ``{agent, title, note, width, height, shapes}``, the
    shapes in the order they are drawn. :func:`graph_svg` writes it as SVG; the run view's
    Graph tab draws the same scene in the browser and lights its nodes by ``id``. A graph of
    more than ``limit`` nodes is drawn folded (:func:`fold`)."""
    shape, note = fold(drawing.shape, limit)
    root = _block(shape, None, _blocks(shape))
    by_id = {n.id: n for n in shape.nodes}
    shapes: list[Shape] = []
    placed: dict[str, tuple[float, float, float]] = {}
    _draw(root, PAD, HEAD + PAD + (16 if note else 0), shape, by_id, shapes, placed)
    # edges between blocks (a node to the subagent it runs)
    for edge in shape.edges:
        if edge.source in placed and edge.target in placed and not _inside(root, edge):
            (x1, y1, w1), (x2, y2, w2) = placed[edge.source], placed[edge.target]
            shapes.append(_line([(x1 + w1 / 2, y1), (x2 - w2 / 2, y2)], edge))
    title = f"Agent {drawing.agent!r}: {_counts(drawing.shape)}"
    longest = max(len(title) * 1.1, len(note))  # the title is bold
    width = max(root.width, longest * CHAR_WIDTH) + 2 * PAD
    height = root.height + 2 * PAD + HEAD + (16 if note else 0)
    return {
        "agent": drawing.agent,
        "title": title,
        "note": note,
        "width": f"{width:.0f}",
        "height": f"{height:.0f}",
        "shapes": shapes,
    }


def graph_svg(drawing: GraphDrawing, path: Mapping[str, Any] | None = None) -> str:
    """The drawing as an SVG document (every name escaped). With ``path`` (``run.graph_path``):
    the nodes the run went through and the edges it took marked, the nodes running now lit."""
    return scene_svg(graph_scene(drawing), path)


def scene_svg(scene: Mapping[str, Any], path: Mapping[str, Any] | None = None) -> str:
    """A scene (:func:`graph_scene`) as an SVG document, ``path`` marked on it."""
    width, height, note = scene["width"], scene["height"], scene["note"]
    head = [
        f'<rect x="0" y="0" width="{width}" height="{height}" rx="6" fill="#ffffff" stroke="#d0d0d0"/>',
        f'<text x="{PAD:.0f}" y="{PAD + 6:.0f}" font-weight="bold">{_esc(scene["title"])}</text>',
    ]
    if note:
        head.append(f'<text x="{PAD:.0f}" y="{PAD + 22:.0f}" fill="#9a3412">{_esc(note)}</text>')
    marks = _marks(path)
    drawn = [_shape_svg(item, marks) for item in scene["shapes"]]
    return (
        f'{SVG_START} width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">'
        '<defs><marker id="dnb-arrow" viewBox="0 0 8 8" refX="8" refY="4" markerWidth="7" '
        'markerHeight="7" orient="auto-start-reverse">'
        '<path d="M0,0 L8,4 L0,8 z" fill="#666"/></marker></defs>' + "".join(head + drawn) + "</svg>"
    )


@dataclass(frozen=True)
class _Marks:
    visited: frozenset[str] = frozenset()
    active: frozenset[str] = frozenset()
    taken: frozenset[tuple[str, str]] = frozenset()
    failed: str | None = None


def _marks(path: Mapping[str, Any] | None) -> _Marks:
    if not path:
        return _Marks()
    edges = path.get("edges") or []
    return _Marks(
        frozenset(str(n) for n in path.get("visits") or {}),
        frozenset(str(n) for n in path.get("active") or []),
        frozenset((str(e[0]), str(e[1])) for e in edges if isinstance(e, list | tuple) and len(e) >= 2),
        str(path["failed"]) if path.get("failed") else None,
    )


PATH_COLOR = "#d97706"
"""The colour of the path taken: its nodes' outline and its edges."""
ACTIVE_FILL = "#fde68a"
FAILED_COLOR = "#b91c1c"


def _shape_svg(item: Shape, marks: _Marks) -> str:
    kind = item["t"]
    if kind == "node":
        node_id = item["id"]
        cls, stroke, fill, extra = f"dnb-node dnb-{item['kind']}", "#555", item["fill"], ""
        if node_id in marks.visited:
            cls, stroke, extra = cls + " dnb-visited", PATH_COLOR, ' stroke-width="2"'
        if node_id in marks.active:
            cls, fill = cls + " dnb-active", ACTIVE_FILL
        if node_id == marks.failed:
            cls, stroke = cls + " dnb-failed", FAILED_COLOR
        return (
            f'<g class="{cls}"><title>{_esc(node_id)}</title>'
            f'<rect x="{item["x"]}" y="{item["y"]}" width="{item["w"]}" height="{item["h"]}" '
            f'rx="{item["rx"]}" fill="{fill}" stroke="{stroke}"{extra}/>'
            f'<text x="{item["tx"]}" y="{item["ty"]}" text-anchor="middle" fill="#1a1a1a">'
            f"{_esc(item['label'])}</text></g>"
        )
    if kind == "edge":
        dash = ' stroke-dasharray="5 4"' if item["dash"] else ""
        label = f"<title>{_esc(item['label'])}</title>" if item["label"] else ""
        taken = (item["s"], item["e"]) in marks.taken
        cls, stroke = ("dnb-edge dnb-taken", PATH_COLOR) if taken else ("dnb-edge", "#666")
        width = ' stroke-width="2"' if taken else ""
        return (
            f'<path class="{cls}" d="{item["d"]}" fill="none" stroke="{stroke}"{width}{dash} '
            f'marker-end="url(#dnb-arrow)">{label}</path>'
        )
    if kind == "subgraph":
        return (
            f'<g class="dnb-subgraph"><rect x="{item["x"]}" y="{item["y"]}" width="{item["w"]}" '
            f'height="{item["h"]}" rx="6" fill="none" stroke="#b6b6b6" stroke-dasharray="2 2"/>'
            f'<text x="{item["tx"]}" y="{item["ty"]}" fill="#666">{_esc(item["label"])}</text></g>'
        )
    return (
        f'<g class="dnb-cluster"><rect x="{item["x"]}" y="{item["y"]}" width="{item["w"]}" '
        f'height="{item["h"]}" rx="8" fill="#fafafa" stroke="#8a8a8a"/>'
        f'<text x="{item["tx"]}" y="{item["ty"]}" font-weight="bold">{_esc(item["label"])}</text></g>'
    )


def _inside(block: _Block, edge: GraphEdge) -> bool:
    if any(e is edge for e, _ in block.edges):
        return True
    return any(_inside(child, edge) for _, child, _, _ in block.children)


def _draw(
    block: _Block,
    dx: float,
    dy: float,
    shape: GraphShape,
    by_id: dict[str, GraphNode],
    parts: list[Shape],
    placed: dict[str, tuple[float, float, float]],
) -> None:
    for node_id, (x, y) in block.positions.items():
        placed[node_id] = (x + dx, y + dy, _width(by_id[node_id]))
    # inline subgraphs: a box around their nodes
    for cluster in shape.clusters:
        if cluster.kind != "subgraph":
            continue
        inside = _inline_of(shape, cluster.id)
        boxes = [placed[n.id] for n in shape.nodes if n.cluster in inside and n.id in block.positions]
        if boxes:
            x0 = min(x - w / 2 for x, _, w in boxes) - PAD / 2
            x1 = max(x + w / 2 for x, _, w in boxes) + PAD / 2
            y0 = min(y for _, y, _ in boxes) - NODE_HEIGHT / 2 - PAD
            y1 = max(y for _, y, _ in boxes) + NODE_HEIGHT / 2 + PAD / 2
            parts.append(
                {
                    "t": "subgraph",
                    "x": f"{x0:.1f}",
                    "y": f"{y0:.1f}",
                    "w": f"{x1 - x0:.1f}",
                    "h": f"{y1 - y0:.1f}",
                    "tx": f"{x0 + 4:.1f}",
                    "ty": f"{y0 + 10:.1f}",
                    "label": _clip(cluster.label),
                }
            )
    pairs = {(e.source, e.target) for e, _ in block.edges}
    for edge, points in block.edges:
        # an edge back up beside one down between the same two nodes: drawn beside it
        aside = OFFSET if (edge.target, edge.source) in pairs and points[-1][1] < points[0][1] else 0.0
        parts.append(_line([(x + dx + aside, y + dy) for x, y in points], edge, block, by_id))
    for node_id in block.positions:
        x, y, w = placed[node_id]
        parts.append(_node(by_id[node_id], x, y, w))
    for cluster, child, cx, cy in block.children:
        x0, y0 = dx + cx - PAD, dy + cy - HEAD
        parts.append(
            {
                "t": "cluster",
                "x": f"{x0:.1f}",
                "y": f"{y0:.1f}",
                "w": f"{child.width + 2 * PAD:.1f}",
                "h": f"{child.height + HEAD + PAD:.1f}",
                "tx": f"{x0 + 8:.1f}",
                "ty": f"{y0 + 16:.1f}",
                "label": "subagent " + _clip(cluster.label),
            }
        )
        _draw(child, dx + cx, dy + cy, shape, by_id, parts, placed)


def _node(node: GraphNode, x: float, y: float, w: float) -> Shape:
    rx = NODE_HEIGHT / 2 if node.kind in ("start", "end") else 5
    return {
        "t": "node",
        "id": node.id,
        "kind": node.kind,
        "label": _clip(node.label),
        "x": f"{x - w / 2:.1f}",
        "y": f"{y - NODE_HEIGHT / 2:.1f}",
        "w": f"{w:.1f}",
        "h": f"{NODE_HEIGHT:.0f}",
        "rx": f"{rx:.0f}",
        "fill": FILL.get(node.kind, FILL["node"]),
        "tx": f"{x:.1f}",
        "ty": f"{y + 4:.1f}",
    }


def _line(
    points: list[tuple[float, float]],
    edge: GraphEdge,
    block: _Block | None = None,
    by_id: dict[str, GraphNode] | None = None,
) -> Shape:
    if len(points) == 1:  # a self-loop: a small arc on the node's right
        x, y = points[0]
        w = _width(by_id[edge.source]) if by_id and edge.source in by_id else 60.0
        x += w / 2
        path = (
            f"M{x:.1f},{y - 6:.1f} C{x + 22:.1f},{y - 16:.1f} {x + 22:.1f},{y + 16:.1f} {x:.1f},{y + 6:.1f}"
        )
    else:
        (x1, y1), (x2, y2) = points[0], points[-1]
        down = y2 >= y1
        start = (x1, y1 + NODE_HEIGHT / 2 if down else y1 - NODE_HEIGHT / 2)
        end = (x2, y2 - NODE_HEIGHT / 2 if down else y2 + NODE_HEIGHT / 2)
        if block is None:
            start, end = points[0], points[-1]
        middle = points[1:-1]
        path = "M" + " L".join(f"{x:.1f},{y:.1f}" for x, y in [start, *middle, end])
    return {
        "t": "edge",
        "s": edge.source,
        "e": edge.target,
        "d": path,
        "dash": edge.conditional,
        "label": edge.label,
    }


def _counts(shape: GraphShape) -> str:
    subagents = sum(1 for c in shape.clusters if c.kind == "subagent")
    text = f"{len(shape.nodes):,} nodes, {len(shape.edges):,} edges"
    return text + (f", {subagents} subagent{'s' if subagents != 1 else ''}" if subagents else "")


def _clip(text: str) -> str:
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def graph_text(drawing: GraphDrawing) -> str:
    """The drawing as text: its nodes (by cluster) and edges (``-->``, ``-.->`` conditional)."""
    shape = drawing.shape
    lines = [f"Graph of agent {drawing.agent!r} ({_counts(shape)}; read in {drawing.source})"]
    lines += [f"  {note}" for note in drawing.notes]
    clusters = {c.id: c for c in shape.clusters}
    lines.append("nodes:")
    lines += _listed(
        [
            f"  {n.id} [{n.kind}]" + (f" in {clusters[n.cluster].kind} {n.cluster}" if n.cluster else "")
            for n in shape.nodes
        ],
        TEXT_NODES,
        "nodes",
    )
    lines.append("edges:")
    lines += _listed(
        [
            f"  {e.source} {'-.->' if e.conditional else '-->'} {e.target}"
            + (f"  ({e.label})" if e.label else "")
            for e in shape.edges
        ],
        TEXT_EDGES,
        "edges",
    )
    return "\n".join(lines)


def _listed(lines: Sequence[str], limit: int, what: str) -> list[str]:
    if len(lines) <= limit:
        return list(lines)
    return [*lines[:limit], f"  … {len(lines) - limit:,} more {what}"]


def graph_bundle(drawing: GraphDrawing) -> dict[str, Any]:
    """The mime bundle: the SVG (kept in a saved notebook) and the text."""
    return {"text/plain": graph_text(drawing), "image/svg+xml": graph_svg(drawing)}
