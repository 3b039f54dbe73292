"""Front-end messages of bounded size: long texts clipped, long lists cut to their tail, a patch
split into several messages when it would not fit in one.

A comm message is one JSON document that the kernel serializes, signs and sends, and the browser
parses whole; past a few tens of kilobytes that stalls both ends. No message of the run view is
larger than :data:`MESSAGE_LIMIT`: each piece has a budget, and what does not fit is either
clipped (a huge tool result or answer, with a note that the thread keeps it) or sent in the
next message.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from deepnb.core.text.markup import escape, highlight, markdown

MESSAGE_LIMIT = 64 * 1024
"""No message to the front-end is larger than this (its JSON, UTF-8 encoded)."""
PATCH_BUDGET = 48 * 1024
"""What one live patch message carries at most before the rest goes in the next one."""
FIELD_LIMIT = 8_000
"""Characters of one text field of a transcript item or tree node kept in the view."""
ITEM_LIMIT = 40 * 1024
"""Bytes of one transcript item as the view gets it."""

TRAIT_BUDGETS = {
    "items": 36 * 1024,
    "tree": 8 * 1024,
    "todos": 4 * 1024,
    "decisions": 3 * 1024,
    "files_changed": 2 * 1024,
    "files_not_written": 1024,
    "async_tasks": 2 * 1024,
    "pending": 16 * 1024,
}
"""Bytes each list trait may hold; together with the small traits they fit in one message."""

_RENDERED = {"html": ("text", markdown), "summary_html": ("summary", markdown)}


def size(value: Any) -> int:
    """The bytes ``value`` takes in a message (JSON as the kernel writes it, UTF-8)."""
    return len(json.dumps(value, ensure_ascii=False, default=str).encode())


def clip_text(text: str, limit: int = FIELD_LIMIT, *, where: str = "the thread keeps the whole text") -> str:
    """``text`` cut to ``limit`` characters, saying how much was left out and ``where`` it is."""
    if len(text) <= limit:
        return text
    left = len(text) - limit
    return text[:limit] + f"\n… {left:,} more characters not shown here; {where}."


def clip_item(item: Mapping[str, Any]) -> dict[str, Any]:
    """A transcript item or tree node whose long text fields are clipped (HTML re-rendered from
    the clipped text, so no tag is cut in half); ``clipped`` is set when anything was."""
    if size(item) <= ITEM_LIMIT:
        return dict(item)
    out: dict[str, Any] = {}
    for key, value in item.items():
        if key in _RENDERED:
            continue
        if key == "eval" and isinstance(value, Mapping):
            out[key] = _clip_eval(value)
        elif isinstance(value, str):
            out[key] = clip_text(value)
        else:
            out[key] = value
    for key, (source, render) in _RENDERED.items():
        if key not in item:
            continue
        html = item[key]
        if isinstance(html, str) and (len(html) > 2 * FIELD_LIMIT or out.get(source) != item.get(source)):
            text = out.get(source)
            html = render(text) if isinstance(text, str) else f"<p>{escape(clip_text(str(html)))}</p>"
            if len(html) > 2 * FIELD_LIMIT:  # markup-heavy text: show it plain
                html = f"<pre>{escape(text)}</pre>"
        out[key] = html
    out["clipped"] = True
    return out


def _clip_eval(run: Mapping[str, Any]) -> dict[str, Any]:
    out = {key: clip_text(value) if isinstance(value, str) else value for key, value in run.items()}
    if "code_html" in run and out.get("code") != run.get("code"):
        out["code_html"] = highlight(out["code"], "javascript")
    elif isinstance(run.get("code_html"), str) and len(run["code_html"]) > 2 * FIELD_LIMIT:
        out["code_html"] = f"<pre>{escape(out.get('code', ''))}</pre>"
    return out


def tail(entries: Sequence[Any], budget: int, marker: Callable[[int], Any] | None = None) -> list[Any]:
    """The last entries of a list that fit in ``budget`` bytes (at least the very last one, its
    text fields clipped); ``marker(n)`` stands first for the ``n`` entries left out."""
    if size(entries) <= budget:
        return list(entries)
    kept: list[Any] = []
    spent = 0
    for entry in reversed(entries):
        entry = clip_item(entry) if isinstance(entry, Mapping) else entry
        cost = size(entry) + 2
        if kept and spent + cost > budget:
            break
        kept.append(entry)
        spent += cost
    kept.reverse()
    left = len(entries) - len(kept)
    return ([marker(left)] if marker and left else []) + kept


def bounded_lists(state: Mapping[str, Any]) -> dict[str, Any]:
    """The list fields of a view's state (``todos``, ``decisions``, ``files_changed``,
    ``async_tasks``) cut to their budgets, each saying what it left out."""
    out = dict(state)
    markers: dict[str, Callable[[int], Any] | None] = {
        "todos": lambda n: {"content": f"… {n:,} earlier todos (%deepagent todos)", "status": "completed"},
        "decisions": lambda n: {
            "at": "",
            "tool": "…",
            "type": f"{n:,} earlier decisions (run.decisions)",
            "message": "",
            "args": "",
            "auto": False,
        },
        "files_changed": lambda n: f"… and {n:,} more (run.changes())",
        "files_not_written": lambda n: f"… and {n:,} more",
        "async_tasks": None,
    }
    for name, marker in markers.items():
        if name in out and isinstance(out[name], list):
            out[name] = tail(out[name], TRAIT_BUDGETS[name], marker)
    if isinstance(out.get("pending"), list):
        out["pending"] = bounded_pending(out["pending"])
    return out


CARD_CLIPPED = "arguments shortened for display; edit them from Python: run.pending[i].edit({...})"
"""What a card whose arguments were shortened says (its Edit form could not hold them)."""


def bounded_pending(pending: Sequence[Mapping[str, Any]], budget: int | None = None) -> list[dict[str, Any]]:
    """Approval cards within ``budget`` bytes together: small cards whole, the others sharing
    what is left, their description, preview and arguments' JSON clipped. A card whose
    arguments were clipped is marked ``clipped`` (the engine keeps the real ones)."""
    budget = TRAIT_BUDGETS["pending"] if budget is None else budget
    requests = [{**p, "actions": [dict(a) for a in p.get("actions", ())]} for p in pending]
    if size(requests) <= budget:
        return requests
    questions = [p for p in requests if p.get("kind") == "question"]
    for question in questions:  # a raw interrupt's value: its clipped JSON text, a share each
        share = max(budget // (2 * len(questions)), 256)
        if size(question) > share:
            question["value"] = None
            question["value_json"] = clip_bytes(str(question.get("value_json") or ""), share // 2)
    actions = [a for p in requests for a in p["actions"]]
    left = budget - size([{**p, "actions": []} for p in requests]) - 2 * len(actions)
    for count, action in enumerate(sorted(actions, key=size)):  # water-filling: the small first
        share = max(left // (len(actions) - count), 0)
        clipped = _clip_card(action, share)
        if clipped is not action:
            action.clear()
            action.update(clipped)
        left -= size(action)
    return requests


def _clip_card(action: dict[str, Any], budget: int) -> dict[str, Any]:
    if size(action) <= budget:
        return action
    out = dict(action)
    quarter = budget // 4
    out["description"] = clip_bytes(str(out.get("description") or ""), quarter)
    if isinstance(out.get("preview"), Mapping):
        out["preview"] = {**out["preview"], "text": clip_bytes(str(out["preview"].get("text", "")), quarter)}
    if isinstance(out.get("decision"), Mapping) and isinstance(out["decision"].get("message"), str):
        out["decision"] = {**out["decision"], "message": clip_bytes(out["decision"]["message"], quarter)}
    if size(out) > budget:
        room = budget - size({**out, "args_json": "", "clipped": True})
        out["args_json"] = clip_bytes(str(out.get("args_json", "")), room, note=CARD_CLIPPED)
        out["clipped"] = True
    return out


def clip_bytes(text: str, budget: int, *, note: str = "shortened for display") -> str:
    """``text`` cut so that it takes at most ``budget`` bytes in a message (at least the note
    saying how much was left out)."""
    if size(text) <= budget:
        return text
    keep = min(len(text), max(budget, 0))
    while True:
        out = text[:keep] + f"\n… {len(text) - keep:,} more characters: {note}."
        over = size(out)
        if over <= budget or keep == 0:
            return out
        keep = max(min(keep - 1, keep * budget // over - 8), 0)


def split_patch(
    patch: dict[str, Any],
    items: Callable[[str], Mapping[str, Any]] | None = None,
    budget: int = PATCH_BUDGET,
) -> Iterator[dict[str, Any]]:
    """``patch`` as one or more patch messages of at most about ``budget`` bytes each, applied in
    order by the front-end to the same effect. ``items(id)`` gives a visible item as sent (a new
    order sent in parts needs the items of the later parts again; a patch without ``ids`` needs
    no ``items``)."""
    if size(patch) <= budget:
        yield patch
        return
    if patch.get("state"):
        yield {"type": "patch", "state": patch["state"], "upsert": []}
    for chunk in _chunks(patch.get("nodes", []), budget):
        yield {"type": "patch", "state": {}, "upsert": [], "nodes": chunk}
    if "ids" in patch:  # a new order: the first part names its ids, the others are appended
        if items is None:
            raise ValueError("split_patch: a patch with a new order (ids) needs items(id)")
        changed = {item["id"]: item for item in patch.get("upsert", [])}
        entries = [(i, changed.get(i) or items(i)) for i in patch["ids"]]
        for n, chunk in enumerate(_chunks(entries, budget)):
            ids = [i for i, _ in chunk]
            if n == 0:
                part: dict[str, Any] = {"ids": ids, "upsert": [item for i, item in chunk if i in changed]}
            else:  # the front-end kept only the items the order named so far: send these again
                part = {"append_ids": ids, "upsert": [item for _, item in chunk]}
            yield {"type": "patch", "state": {}, **part}
        if not entries:
            yield {"type": "patch", "state": {}, "upsert": [], "ids": []}
        return
    upsert = patch.get("upsert", [])
    appended = set(patch.get("append_ids", []))
    for chunk in _chunks(upsert, budget):
        part = {"type": "patch", "state": {}, "upsert": chunk}
        new = [item["id"] for item in chunk if item["id"] in appended]
        if new:
            part["append_ids"] = new
        yield part


def _chunks(entries: Sequence[Any], budget: int) -> Iterator[list[Any]]:
    chunk: list[Any] = []
    spent = 0
    for entry in entries:
        cost = size(entry) + 4
        if chunk and spent + cost > budget:
            yield chunk
            chunk, spent = [], 0
        chunk.append(entry)
        spent += cost
    if chunk:
        yield chunk
