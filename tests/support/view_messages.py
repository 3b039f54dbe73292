"""Measuring what a view sends to the front end, as the bounds tests count it."""

from __future__ import annotations

import json
from typing import Any


def message_size(data: Any) -> int:
    """A message's size in bytes, as JSON on the wire."""
    return len(json.dumps(data, ensure_ascii=False).encode())
