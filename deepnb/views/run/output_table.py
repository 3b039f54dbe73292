"""A run's structured output (``run.output``) as a small key/value table, in HTML and text;
every key and value escaped."""

from __future__ import annotations

from collections.abc import Sequence

from deepnb.core.text.markup import escape

OutputRows = Sequence[Sequence[str]]
"""``(field, value)`` pairs, as :func:`deepnb.core.graphs.structured.output_rows` gives them."""


def output_html(rows: OutputRows) -> str:
    """``<table>`` of the rows under an "Output" label; ``""`` for none."""
    if not rows:
        return ""
    body = "".join(
        f'<tr><th scope="row">{escape(key)}</th><td>{escape(value)}</td></tr>' for key, value in rows
    )
    return (
        '<div class="dnb-output" aria-label="Structured output"><span class="dnb-final-label">Output</span>'
        f'<table class="dnb-output-table">{body}</table></div>'
    )


def output_lines(rows: OutputRows) -> list[str]:
    """``Output:`` then one ``  field: value`` line per row; ``[]`` for none."""
    return ["Output:", *(f"  {key}: {value}" for key, value in rows)] if rows else []
