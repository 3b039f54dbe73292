"""Measuring what a view sends to the front end, as the bounds tests count it."""

from __future__ import annotations

import json
from typing import Any

ASSETS = ("_esm", "_css")
"""The view's front-end code and styles, the same for every view (not the run's data)."""


def message_size(data: Any) -> int:
    """A message's size in bytes, as JSON on the wire."""
    return len(json.dumps(data, ensure_ascii=False).encode())


def run_data(data: dict[str, Any]) -> dict[str, Any]:
    """A message without the view's code and styles, which its opening carries."""
    state = data.get("state")
    if not isinstance(state, dict):
        return data
    return {**data, "state": {k: v for k, v in state.items() if k not in ASSETS}}
