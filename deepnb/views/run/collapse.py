"""Long transcripts, folded: the old steps become one line each run of them, the recent items and
every prompt, error, summary and notice stay.

The static snapshot and the live view's saved state use it, so a 2,000-step run does not leave
megabytes in the notebook; the live view shows everything on a click, and the thread keeps every
message. A transcript at or under :data:`COLLAPSE_AFTER` items and :data:`SNAPSHOT_BUDGET` bytes
is left exactly as it is.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from deepnb.views.bounds import clip_item, size

COLLAPSE_AFTER = 200
"""Transcripts longer than this many items are folded."""
KEEP_LAST = 60
"""How many of the latest items a folded transcript keeps (fewer when they are large)."""
SNAPSHOT_BUDGET = 96 * 1024
"""Bytes of transcript items (as JSON) a snapshot keeps."""
KEPT_KINDS = frozenset({"prompt", "error", "summary", "notice"})
"""Items kept wherever they are: what was asked, what failed, what was summarized, what stopped
(and every tool call that failed)."""
MARKER = "collapsed"


def hidden_ids(
    items: Sequence[Mapping[str, Any]],
    *,
    budget: int = SNAPSHOT_BUDGET,
    after: int = COLLAPSE_AFTER,
    keep: int = KEEP_LAST,
    cost: Callable[[Mapping[str, Any]], int] | None = None,
) -> frozenset[str]:
    """The ids of the items a folded transcript leaves out (none for a short one)."""
    cost = cost or (lambda item: size(clip_item(item)))
    if len(items) <= after and size(items) <= budget:
        return frozenset()
    visible: set[str] = set()
    spent = 0
    for item in reversed(items):  # the latest items: up to `keep`, within most of the budget
        if len(visible) >= keep:
            break
        spent += cost(item)
        if visible and spent > budget * 3 // 4:
            break
        visible.add(item["id"])
    for item in reversed(items):  # then the kept kinds, latest first, within the rest
        if _kept(item) and item["id"] not in visible:
            spent += cost(item)
            if spent > budget:
                break
            visible.add(item["id"])
    return frozenset(item["id"] for item in items if item["id"] not in visible)


def _kept(item: Mapping[str, Any]) -> bool:
    return item["kind"] in KEPT_KINDS or item.get("status") == "error"


def fold(items: Sequence[Mapping[str, Any]], hidden: Collection[str]) -> list[Mapping[str, Any]]:
    """``items`` with each run of hidden ones replaced by one notice that says what it held."""
    if not hidden:
        return list(items)
    out: list[Mapping[str, Any]] = []
    run: list[tuple[int, Mapping[str, Any]]] = []
    for number, item in enumerate(items, start=1):
        if item["id"] in hidden:
            run.append((number, item))
            continue
        if run:
            out.append(marker(run))
            run = []
        out.append(item)
    if run:
        out.append(marker(run))
    return out


def marker(run: Sequence[tuple[int, Mapping[str, Any]]]) -> dict[str, Any]:
    """The notice standing for a run of folded items (numbered from 1 in the transcript)."""
    first, last = run[0][0], run[-1][0]
    texts = sum(1 for _, item in run if item["kind"] == "text")
    tools = sum(1 for _, item in run if item["kind"] == "tool")
    other = len(run) - texts - tools
    parts = [
        f"{texts:,} message{'' if texts == 1 else 's'}",
        f"{tools:,} tool call{'' if tools == 1 else 's'}",
    ]
    if other:
        parts.append(f"{other:,} other")
    where = f"item {first:,}" if first == last else f"items {first:,}–{last:,}"
    return {
        "kind": "notice",
        "id": f"{MARKER}-{run[0][1]['id']}",
        "agent": "main",
        "level": MARKER,
        "hidden": len(run),
        "text": f"{where} folded: {', '.join(parts)} (see the live view or the thread).",
    }
