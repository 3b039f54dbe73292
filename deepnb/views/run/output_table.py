"""A run's structured output (``run.output``) as a small key/value table, in HTML and text;
every key and value escaped."""

from __future__ import annotations

from collections.abc import Sequence

from deepnb.views import blocks
from deepnb.views.blocks import Fields, Group, Line

OutputRows = Sequence[Sequence[str]]
"""``(field, value)`` pairs, as :func:`deepnb.core.graphs.structured.output_rows` gives them."""


def output_block(rows: OutputRows) -> Group | None:
    """The rows as a table under an "Output" label; ``None`` for none."""
    if not rows:
        return None
    table = Fields(tuple((key, value) for key, value in rows), cls="dnb-output-table", table=True)
    label = Line(("Output",), "dnb-final-label", tag="span")
    return Group((table,), cls="dnb-output", head=label, attrs={"aria-label": "Structured output"})


def output_html(rows: OutputRows) -> str:
    """``<table>`` of the rows under an "Output" label; ``""`` for none."""
    block = output_block(rows)
    return blocks.html(block) if block is not None else ""


def output_lines(rows: OutputRows) -> list[str]:
    """``Output`` then one ``  field: value`` line per row; ``[]`` for none."""
    block = output_block(rows)
    return blocks.text(block) if block is not None else []
