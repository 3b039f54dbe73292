"""What tells a deepnb view among a notebook's outputs (nbformat 4 JSON), and its snapshot: shared
by the Jupyter Server extension's save hook (:mod:`deepnb.server.extension`) and its care of the
collaboration server's shared notebooks (:mod:`deepnb.server.shared_notebooks`). Imports no layer."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
SNAPSHOT_MARK = "deepnb-snapshot"
"""The class every deepnb snapshot's HTML carries (what tells its output from another widget's)."""


def text_of(value: Any) -> str:
    """A notebook JSON text field (a string, or a list of strings) as one string."""
    return "".join(value) if isinstance(value, list) else str(value or "")


def snapshot_output(output: Mapping[str, Any]) -> dict[str, Any] | None:
    """``output`` as its snapshot (without the widget) when it is a deepnb view: a widget output
    whose ``text/html`` is a deepnb snapshot. None for every other output."""
    data = output.get("data")
    if not isinstance(data, Mapping) or WIDGET_VIEW not in data:
        return None
    if SNAPSHOT_MARK not in text_of(data.get("text/html")):
        return None
    return {**output, "data": {mime: value for mime, value in data.items() if mime != WIDGET_VIEW}}
