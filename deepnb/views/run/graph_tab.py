"""The run view's Graph tab: the agent's graph laid out in the kernel (the layered layout of
:mod:`deepnb.views.graph_layout`, as :func:`deepnb.views.graph_view.graph_scene` gives it) and
sent to the front end as data within one message; the run's path through it
(``run.graph_path``) as a bounded trait the tab lights; and, once the tab was opened, the same
drawing as a static SVG in the view's snapshot, the path marked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deepnb.core.errors import DeepnbError
from deepnb.core.text.markup import escape
from deepnb.core.text.secrets import redact
from deepnb.engine.graph_shape import GraphDrawing
from deepnb.views.bounds import MESSAGE_LIMIT, size
from deepnb.views.graph_view import MAX_DRAWN, graph_scene, scene_svg
from deepnb.views.styles import inline

__all__ = ["PATH_BUDGET", "bounded_path", "graph_section", "scene_message"]

PATH_BUDGET = 16 * 1024
"""Bytes the ``graph_path`` trait takes at most: past it, the least visited nodes and the least
taken edges are left out (the nodes running now never are)."""
ROOM = 2048
"""Bytes of a scene message kept for its envelope."""


def scene_message(drawing: GraphDrawing) -> dict[str, Any]:
    """The Graph tab's drawing as one message (``{"type": "graph", "scene", "error"}``) within
    :data:`~deepnb.views.bounds.MESSAGE_LIMIT`: drawn folded tighter until it fits."""
    limit = MAX_DRAWN
    while True:
        scene = graph_scene(drawing, limit=limit)
        reply = {"type": "graph", "scene": scene, "error": ""}
        if size(reply) <= MESSAGE_LIMIT - ROOM or limit <= 10:
            break
        limit //= 2
    if size(reply) > MESSAGE_LIMIT - ROOM:
        raise DeepnbError(
            f"Agent {drawing.agent!r}'s graph is too large to draw here: bench.draw_graph() draws it."
        )
    return reply


def bounded_path(path: Mapping[str, Any], budget: int = PATH_BUDGET) -> dict[str, Any]:
    """``run.graph_path`` within ``budget`` bytes: the most visited nodes and most taken edges."""
    active = [str(node) for node in path.get("active") or []]
    visits: dict[str, int] = dict(path.get("visits") or {})
    edges: list[list[Any]] = [list(e) for e in path.get("edges") or []]
    tools = {str(k): list(v)[:8] for k, v in (path.get("tools") or {}).items()}

    def made() -> dict[str, Any]:
        return {
            "active": active,
            "visits": visits,
            "edges": edges,
            "tools": tools,
            "failed": path.get("failed"),
        }

    while size(made()) > budget and (visits or edges):
        most = sorted(visits.items(), key=lambda kv: -kv[1])
        visits = dict(most[: len(most) * 3 // 4])
        edges = sorted(edges, key=lambda e: -int(e[2]))[: len(edges) * 3 // 4]
    return made()


def _path_words(path: Mapping[str, Any]) -> str:
    visits = path.get("visits") or {}
    active = path.get("active") or []
    said = f"the run went through {len(visits):,} node{'s' if len(visits) != 1 else ''}"
    if active:
        said += f", running {', '.join(str(a) for a in active[:5])}"
    if path.get("failed"):
        said += f", {path['failed']} failed"
    return said


def graph_section(scene: Mapping[str, Any], path: Mapping[str, Any]) -> tuple[str, str]:
    """The snapshot's Graph section (HTML, text): a collapsed drawing with the path marked, and
    the line that says it. Every name is escaped (the SVG's own and this line)."""
    line = redact(f"Graph: {scene['title']}; {_path_words(path)}")
    html = (
        '<details class="dnb-graph-snapshot deepnb-snapshot"><summary class="dnb-muted">'
        f"{escape(line)}</summary>{redact(scene_svg(scene, path))}</details>"
    )
    return inline(html), line
