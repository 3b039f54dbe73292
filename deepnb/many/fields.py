"""Reading the fields of a log line as data nobody here wrote: each reader returns the field
with the type the log's format gives it, or raises :class:`Malformed` saying which field is
wrong and how (the log reader adds the file and the line)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any


class Malformed(ValueError):
    """A field of a log line is missing or of the wrong type; the message says which and how."""


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def whole(data: Mapping[str, Any], name: str) -> int:
    """A required whole number of at least 0."""
    if name not in data:
        raise Malformed(f"it has no {name!r}")
    value = data[name]
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise Malformed(f"its {name!r} is {_shown(value)}, not a whole number of at least 0")
    return value


def text(data: Mapping[str, Any], name: str) -> str:
    """A required string."""
    if name not in data:
        raise Malformed(f"it has no {name!r}")
    value = data[name]
    if not isinstance(value, str):
        raise Malformed(f"its {name!r} is a {_kind(value)}, not a string")
    return value


def optional_text(data: Mapping[str, Any], name: str) -> str | None:
    """A string or ``null`` (or absent)."""
    value = data.get(name)
    if value is not None and not isinstance(value, str):
        raise Malformed(f"its {name!r} is a {_kind(value)}, not a string")
    return value


def number(data: Mapping[str, Any], name: str) -> float | None:
    """A finite number or ``null`` (or absent); ``true`` / ``false`` read as 1 / 0."""
    value = data.get(name)
    if value is None:
        return None
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if not isinstance(value, int | float):
        raise Malformed(f"its {name!r} is a {_kind(value)}, not a number")
    if not math.isfinite(value):
        raise Malformed(f"its {name!r} is {value!r}, not a finite number")
    return float(value)


def optional_whole(data: Mapping[str, Any], name: str) -> int | None:
    """A whole number of at least 0 or ``null`` (or absent)."""
    return None if data.get(name) is None else whole(data, name)


def mapping(data: Mapping[str, Any], name: str) -> dict[str, Any]:
    """An object (``{}`` where absent or ``null``)."""
    value = data.get(name)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise Malformed(f"its {name!r} is a {_kind(value)}, not an object")
    return dict(value)


def items(data: Mapping[str, Any], name: str) -> list[dict[str, Any]]:
    """A list of objects (``[]`` where absent or ``null``)."""
    value = data.get(name)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, Mapping) for item in value):
        raise Malformed(f"its {name!r} is not a list of objects")
    return [dict(item) for item in value]


def _shown(value: Any) -> str:
    shown = repr(value)
    return shown if len(shown) <= 40 else shown[:37] + "..."
