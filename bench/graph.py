"""The graph drawing's cost against LangGraph's own drawing of the same graph, measured in the
same run.

    python bench/graph.py        (or: make bench)

A LangGraph graph of 5,000 nodes (a chain with a conditional branch every tenth node and a
subgraph per hundred nodes) is drawn by ``compiled.get_graph(xray=True)`` (the baseline: what any
drawing of it starts from) and by ``bench.draw_graph()`` turned into its SVG (reading the shape,
folding it to at most 300 drawn nodes, the layered layout and the SVG). Medians of the
repetitions, and their ratio; the target is under 1 s for deepnb's part (layout and SVG), which
is printed apart. A 300-node graph drawn whole (no folding: the most the layout is given) is timed
the same way.

Exits 0 whether or not the target is met.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import TypedDict

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from langgraph.graph import END, START, StateGraph  # noqa: E402

import deepnb  # noqa: E402
from deepnb.engine.graph_shape import (  # noqa: E402
    GraphCluster,
    GraphDrawing,
    GraphEdge,
    GraphNode,
    GraphShape,
    read_shape,
)
from deepnb.views.graph_view import graph_svg  # noqa: E402

REPEATS = 5
TARGET_S = 1.0


class Count(TypedDict):
    n: int


def _step(state: Count) -> Count:
    return {"n": state["n"] + 1}


def _graph(count: int) -> object:
    """A chain of ``count`` nodes: every tenth branches (conditional) to the node after next,
    and every hundredth node is a small compiled subgraph."""
    inner = StateGraph(Count)
    inner.add_node("a", _step)
    inner.add_node("b", _step)
    inner.add_edge(START, "a")
    inner.add_edge("a", "b")
    inner.add_edge("b", END)
    sub = inner.compile()
    builder = StateGraph(Count)
    names = [f"n{i}" for i in range(count)]
    for i, name in enumerate(names):
        builder.add_node(name, sub if i % 100 == 50 else _step)
    builder.add_edge(START, names[0])
    for i, name in enumerate(names[:-1]):
        if i % 10 == 0 and i + 2 < count:
            target = names[i + 2]
            builder.add_conditional_edges(
                name, lambda s, t=target, n=names[i + 1]: t if s["n"] else n, [names[i + 1], target]
            )
        else:
            builder.add_edge(name, names[i + 1])
    builder.add_edge(names[-1], END)
    return builder.compile()


def _synthetic(count: int) -> GraphShape:
    """A shape of ``count`` nodes with every edge LangGraph's drawing may leave out of a graph
    that large: a chain, a conditional skip every tenth node, half the nodes in 50 subagents."""
    clusters = tuple(GraphCluster(f"c{k}", f"c{k}") for k in range(50))
    nodes = tuple(
        GraphNode(f"n{i}", f"n{i}", "node", f"c{i % 50}" if i >= count // 2 else None) for i in range(count)
    )
    edges = [GraphEdge(f"n{i}", f"n{i + 1}") for i in range(count - 1)]
    edges += [GraphEdge(f"n{i}", f"n{i + 2}", True) for i in range(0, count - 2, 10)]
    return GraphShape(nodes, tuple(edges), clusters)


def _median(run: object, repeats: int = REPEATS) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    for count in (5000, 300):
        compiled = _graph(count)
        bench = deepnb.attach(compiled, f"graph-bench-{count}")
        baseline = _median(lambda c=compiled: c.get_graph(xray=True))
        whole = _median(lambda b=bench: b.draw_graph().svg())
        shape = read_shape(compiled)
        drawing = GraphDrawing(bench.name, shape)
        ours = _median(lambda d=drawing: graph_svg(d))
        print(f"graph of {len(shape.nodes):,} nodes, {len(shape.edges):,} edges:")
        print(f"  get_graph(xray=True) (baseline)      {baseline * 1000:8.1f} ms")
        print(
            f"  bench.draw_graph().svg()             {whole * 1000:8.1f} ms   ratio {whole / baseline:5.2f}x"
        )
        met = "met" if ours < TARGET_S else "MISSED"
        print(
            f"  fold + layout + SVG (deepnb's part)  {ours * 1000:8.1f} ms   target < {TARGET_S:.0f} s: {met}"
        )
    shape = _synthetic(5000)
    drawing = GraphDrawing("synthetic", shape)
    ours = _median(lambda: graph_svg(drawing))
    met = "met" if ours < TARGET_S else "MISSED"
    print(f"shape of {len(shape.nodes):,} nodes, {len(shape.edges):,} edges, 50 subagents (no baseline):")
    print(f"  fold + layout + SVG (deepnb's part)  {ours * 1000:8.1f} ms   target < {TARGET_S:.0f} s: {met}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
