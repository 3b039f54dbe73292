"""A small layered (Sugiyama-style) layout of a directed graph, in pure Python.

Cycles are broken by reversing the back edges a depth-first search finds; nodes are put in layers
by the longest path from the sources; an edge spanning several layers runs through a dummy point
in each (a polyline); the order within each layer comes from a few sweeps of barycentres (each
node moved to the mean position of its neighbours in the layer before); x places each node at
its neighbours' mean and pushes apart what overlaps. Linear in nodes and edges but for the sorts
of the sweeps, so a few hundred nodes lay out in milliseconds.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["Layout", "layout"]

NODE_HEIGHT = 30.0
LAYER_GAP = 36.0
NODE_GAP = 18.0
SWEEPS = 4
"""Barycentre sweeps (down and up each)."""
DUMMY_LIMIT = 4000
"""Dummy points (edges spanning layers) beyond which long edges are drawn straight."""


@dataclass(frozen=True)
class Layout:
    """Each node's centre, each edge's points (source to target), and the size taken."""

    positions: dict[str, tuple[float, float]]
    edges: list[list[tuple[float, float]]]
    width: float
    height: float


def layout(nodes: Sequence[str], widths: Mapping[str, float], edges: Sequence[tuple[str, str]]) -> Layout:
    """Lay out ``nodes`` (ids, in the order given: ties keep it) with ``edges`` between them;
    ``widths`` gives each node's width (all are :data:`NODE_HEIGHT` high). Edges naming an
    unknown node are skipped; a self-loop is given as a single point."""
    index = {node: i for i, node in enumerate(nodes)}
    count = len(nodes)
    pairs = [(index[s], index[t]) for s, t in edges if s in index and t in index]
    reversed_ = _back_edges(count, pairs)
    dag = [(t, s) if k in reversed_ else (s, t) for k, (s, t) in enumerate(pairs)]
    layers = _layers(count, [(s, t) for s, t in dag if s != t])
    # chains of dummy points for edges spanning layers
    depth = (max(layers) + 1) if layers else 0
    spans = sum(max(0, layers[t] - layers[s] - 1) for s, t in dag if s != t)
    split = spans <= DUMMY_LIMIT
    layer_of = list(layers)
    width_of = [float(widths.get(n, 60.0)) for n in nodes]
    chains: list[list[int]] = []
    links: list[tuple[int, int]] = []
    for s, t in dag:
        if s == t:
            chains.append([s])
            continue
        chain = [s]
        if split:
            for layer in range(layers[s] + 1, layers[t]):
                layer_of.append(layer)
                width_of.append(0.0)
                chain.append(len(layer_of) - 1)
        chain.append(t)
        links.extend(itertools.pairwise(chain))
        chains.append(chain)
    rows = _ordered(layer_of, links, depth)
    xs = _xs(rows, width_of, links, len(layer_of))
    ys = [layer * (NODE_HEIGHT + LAYER_GAP) + NODE_HEIGHT / 2 for layer in layer_of]
    left = min((xs[i] - width_of[i] / 2 for i in range(len(xs))), default=0.0)
    xs = [x - left for x in xs]
    positions = {node: (xs[i], ys[i]) for i, node in enumerate(nodes)}
    drawn: list[list[tuple[float, float]]] = []
    for k, chain in enumerate(chains):
        points = [(xs[i], ys[i]) for i in chain]
        drawn.append(points[::-1] if k in reversed_ else points)
    width = max((xs[i] + width_of[i] / 2 for i in range(len(xs))), default=0.0)
    height = depth * (NODE_HEIGHT + LAYER_GAP) - LAYER_GAP if depth else 0.0
    return Layout(positions, drawn, width, height)


def _back_edges(count: int, pairs: list[tuple[int, int]]) -> set[int]:
    """The edges (by index) a depth-first search from the sources (then any node left) finds
    going back to a node on its path: reversing them leaves no cycle."""
    out: list[list[tuple[int, int]]] = [[] for _ in range(count)]
    has_in = [False] * count
    for k, (s, t) in enumerate(pairs):
        out[s].append((t, k))
        if s != t:
            has_in[t] = True
    state = [0] * count  # 0 unseen, 1 on the path, 2 done
    back: set[int] = set()
    roots = [v for v in range(count) if not has_in[v]] + list(range(count))
    for root in roots:
        if state[root]:
            continue
        state[root] = 1
        stack = [(root, 0)]
        while stack:
            node, at = stack[-1]
            if at < len(out[node]):
                stack[-1] = (node, at + 1)
                target, k = out[node][at]
                if state[target] == 1:
                    if target != node:
                        back.add(k)
                elif state[target] == 0:
                    state[target] = 1
                    stack.append((target, 0))
            else:
                state[node] = 2
                stack.pop()
    return back


def _layers(count: int, dag: list[tuple[int, int]]) -> list[int]:
    """Each node's layer: the longest path to it from a source (Kahn's order)."""
    out: list[list[int]] = [[] for _ in range(count)]
    indegree = [0] * count
    for s, t in dag:
        out[s].append(t)
        indegree[t] += 1
    layer = [0] * count
    ready = [v for v in range(count) if indegree[v] == 0]
    while ready:
        node = ready.pop()
        for target in out[node]:
            layer[target] = max(layer[target], layer[node] + 1)
            indegree[target] -= 1
            if indegree[target] == 0:
                ready.append(target)
    return layer


def _ordered(layer_of: list[int], links: list[tuple[int, int]], depth: int) -> list[list[int]]:
    """Each layer's nodes in order: first as met, then a few barycentre sweeps down and up."""
    rows: list[list[int]] = [[] for _ in range(depth)]
    for node, layer in enumerate(layer_of):
        rows[layer].append(node)
    up: list[list[int]] = [[] for _ in layer_of]
    down: list[list[int]] = [[] for _ in layer_of]
    for s, t in links:
        down[s].append(t)
        up[t].append(s)
    position = [0.0] * len(layer_of)
    for row in rows:
        for i, node in enumerate(row):
            position[node] = float(i)
    for _ in range(SWEEPS):
        for order, neighbours in ((range(1, depth), up), (range(depth - 2, -1, -1), down)):
            for layer in order:
                row = rows[layer]
                keys = {}
                for node in row:
                    near = neighbours[node]
                    keys[node] = sum(position[n] for n in near) / len(near) if near else position[node]
                row.sort(key=lambda n: keys[n])
                for i, node in enumerate(row):
                    position[node] = float(i)
    return rows


def _xs(
    rows: list[list[int]], width_of: list[float], links: list[tuple[int, int]], count: int
) -> list[float]:
    """Each node's x: packed left to right, then moved toward its neighbours' mean (down and up),
    pushed apart where that overlaps."""
    up: list[list[int]] = [[] for _ in range(count)]
    down: list[list[int]] = [[] for _ in range(count)]
    for s, t in links:
        down[s].append(t)
        up[t].append(s)
    xs = [0.0] * count
    for row in rows:
        x = 0.0
        for node in row:
            xs[node] = x + width_of[node] / 2
            x += width_of[node] + NODE_GAP
    for neighbours, order in ((up, rows), (down, rows[::-1]), (up, rows)):
        for row in order:
            wanted = [
                sum(xs[n] for n in neighbours[node]) / len(neighbours[node]) if neighbours[node] else xs[node]
                for node in row
            ]
            _place(row, wanted, width_of, xs)
    return xs


def _place(row: list[int], wanted: list[float], width_of: list[float], xs: list[float]) -> None:
    """``row``'s nodes at ``wanted`` x where they fit, in order, none overlapping, the row kept
    about where its nodes want it."""
    placed: list[float] = []
    for i, node in enumerate(row):
        x = wanted[i]
        if placed:
            previous = row[i - 1]
            x = max(x, placed[-1] + (width_of[previous] + width_of[node]) / 2 + NODE_GAP)
        placed.append(x)
    shift = (sum(wanted) - sum(placed)) / len(row) if row else 0.0
    for node, x in zip(row, placed, strict=True):
        xs[node] = x + shift
