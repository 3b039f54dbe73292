"""A model's tool-call arguments, read as the untrusted data they are.

A model may send any JSON as a call's arguments: a wrong type, a value no tool knows, a key
missing, a string of megabytes, a list nested hundreds deep. The tool itself checks them and
tells the model what is wrong; deepnb only shows them (cards, the todo list, previews, the tree,
the timeline, recordings), and showing must never fail the run. Every place that reads a call's
arguments goes through this module: :func:`call_args` gives the arguments as a mapping whatever
came, :func:`text_arg` and :func:`list_arg` read one argument as the type it must have (or
``None``), and :func:`bounded` / :func:`json_text` turn any value into a copy or a JSON text of
bounded size and depth, without recursion past :data:`MAX_DEPTH` and without ever raising.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

MAX_DEPTH = 24
"""Levels of nesting shown; a value deeper than this is shown as ``…``."""
MAX_KEY = 200
"""Characters of an argument's name (or any key) shown."""
SHOWN = 1 << 20
"""Characters of a value :func:`bounded` keeps by default (the views clip further)."""
DEEPER = "…"
"""What stands for a value nested too deep, or for the items past the budget."""


def call_args(raw: Any) -> dict[str, Any]:
    """A call's arguments as a mapping of names to values: a mapping's items with its keys as
    text; ``None`` as no arguments; anything else (a list, a string) under ``"arguments"``. The
    values are the call's own, unchanged (a tool, a recording, an edit reads them whole)."""
    if raw is None:
        return {}
    if isinstance(raw, Mapping):
        try:
            return {k if isinstance(k, str) else _short_text(k): v for k, v in raw.items()}
        except Exception:  # a mapping that fails to iterate: nothing of it can be shown
            return {}
    return {"arguments": raw}


def call_name(call: Any) -> str:
    """The tool a call names (``"?"`` when it names none)."""
    name = call.get("name") if isinstance(call, Mapping) else None
    return name if isinstance(name, str) and name else "?"


def text_arg(args: Mapping[str, Any], name: str) -> str | None:
    """Argument ``name`` if it is text, else ``None`` (missing, or another type)."""
    value = args.get(name)
    return value if isinstance(value, str) else None


def list_arg(args: Mapping[str, Any], name: str) -> list[Any] | None:
    """Argument ``name`` if it is a list, else ``None``."""
    value = args.get(name)
    return value if isinstance(value, list) else None


def _short_text(value: Any, limit: int = MAX_KEY) -> str:
    """``str(value)`` within ``limit`` characters; a value whose ``str`` fails (or would be
    huge, as an integer of millions of digits) by its type's name."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 4 * limit:
        return f"<integer of {value.bit_length():,} bits>"
    try:
        text = str(value)
    except Exception:
        return f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 1] + DEEPER


def bounded(value: Any, budget: int = SHOWN, *, depth: int = MAX_DEPTH) -> Any:
    """A JSON-ready copy of ``value`` of about ``budget`` characters at most: long strings cut
    (ending ``…``), the items of a mapping or list past the budget left out (a last ``"…"`` says
    so), values nested past ``depth`` levels shown as ``"…"``, non-JSON values as their ``str``
    (a float that is not finite as its name). It walks at most ``budget`` values, never deeper
    than ``depth``, and never raises."""
    left = [max(budget, 0)]

    def copy(item: Any, level: int) -> Any:
        if left[0] <= 0:
            return DEEPER
        if isinstance(item, str):
            kept = item if len(item) <= left[0] else item[: left[0]] + DEEPER
            left[0] -= len(kept) + 2
            return kept
        if item is None or isinstance(item, bool):
            left[0] -= 5
            return item
        if isinstance(item, int):
            if item.bit_length() > 256:
                item = _short_text(item)
            left[0] -= 20
            return item
        if isinstance(item, float):
            left[0] -= 20
            return item if math.isfinite(item) else str(item)
        if level >= depth:
            left[0] -= 3
            return DEEPER
        if isinstance(item, Mapping):
            out: dict[str, Any] = {}
            try:
                for key, inner in item.items():
                    if left[0] <= 0:
                        out[DEEPER] = DEEPER
                        break
                    name = key if isinstance(key, str) and len(key) <= MAX_KEY else _short_text(key)
                    left[0] -= len(name) + 4
                    out[name] = copy(inner, level + 1)
            except Exception:  # a mapping that fails part way: what was read is shown
                out[DEEPER] = DEEPER
            return out
        if isinstance(item, Sequence) and not isinstance(item, bytes | bytearray):
            items: list[Any] = []
            try:
                for inner in item:
                    if left[0] <= 0:
                        items.append(DEEPER)
                        break
                    left[0] -= 2
                    items.append(copy(inner, level + 1))
            except Exception:
                items.append(DEEPER)
            return items
        text = _short_text(item, max(left[0], 1))
        left[0] -= len(text) + 2
        return text

    return copy(value, 0)


def json_text(value: Any, limit: int = SHOWN, *, indent: int | None = None) -> str:
    """``value`` as JSON text of at most ``limit`` characters (its :func:`bounded` copy, then cut
    with a last ``…``); never raises."""
    text = json.dumps(bounded(value, limit), indent=indent, ensure_ascii=False)
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + DEEPER


def whole_json(value: Any, limit: int = SHOWN, *, indent: int | None = None) -> tuple[str, bool]:
    """``value`` as JSON text, and whether that text is all of it: the exact JSON when it fits
    ``limit`` characters and :data:`MAX_DEPTH` levels, else :func:`json_text`'s bounded form
    and ``False`` (an edit must not start from it)."""
    shown = bounded(value, limit)
    if _same(shown, value):
        text = json.dumps(shown, indent=indent, ensure_ascii=False)
        if len(text) <= limit:
            return text, True
    return json_text(value, limit, indent=indent), False


def _same(shown: Any, value: Any) -> bool:
    """Whether :func:`bounded`'s copy ``shown`` is ``value`` itself (nothing cut or changed),
    compared without recursion."""
    stack = [(shown, value)]
    while stack:
        a, b = stack.pop()
        if isinstance(b, Mapping):
            if not isinstance(a, dict) or len(a) != len(b) or any(k not in a for k in b):
                return False  # a key cut, renamed (not text, too long) or left out
            stack.extend((a[k], v) for k, v in b.items())
        elif isinstance(b, Sequence) and not isinstance(b, str | bytes | bytearray):
            if not isinstance(a, list) or len(a) != len(b):
                return False
            stack.extend(zip(a, b, strict=True))
        elif type(a) is not type(b) or a != b:
            return False
    return True


__all__ = [
    "DEEPER",
    "MAX_DEPTH",
    "SHOWN",
    "bounded",
    "call_args",
    "call_name",
    "json_text",
    "list_arg",
    "text_arg",
    "whole_json",
]
