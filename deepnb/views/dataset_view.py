"""A dataset as text and static HTML: where it was read from, its mapping (which field each row's
input, reference and id come from: nothing is guessed silently) and its first rows, each cell
clipped and escaped, so a dataset of 100,000 rows of 1 MB cells shows in a few lines."""

from __future__ import annotations

import json
from typing import Any

from deepnb.core.text.markup import escape
from deepnb.many.datasets import Dataset, Row

SHOWN_ROWS = 5
"""Rows a dataset's view shows (it says how many more there are)."""
SHOWN_FIELDS = 8
CELL = 60
"""Characters of a cell a dataset's view shows."""
NO_INPUT = "none: each row is its graph's input (an agent needs input= or a template)"


def mapping_lines(data: Dataset) -> list[tuple[str, str]]:
    """The dataset's mapping as (what, where from) pairs."""
    mapping = data.mapping
    reference = mapping["reference"] or "none"
    types = mapping["reference_types"]
    if types:
        reference += " (" + ", ".join(f"{kind} ×{n}" for kind, n in sorted(types.items())) + ")"
    lines = [
        ("input", _quoted(mapping["input"]) if mapping["input"] else NO_INPUT),
        ("reference", _quoted(reference)),
        ("id", _quoted(mapping["id"]) if mapping["id"] else "the row's number"),  # where rows differ: each
    ]
    if mapping["unread_asserts"]:
        lines.append(("kept, not read", "asserts " + ", ".join(mapping["unread_asserts"]) + " (in metadata)"))
    prompts = (data.source.suite or {}).get("prompts")
    texts = [p for p in (prompts if isinstance(prompts, list) else [prompts]) if isinstance(p, str)]
    if texts:
        lines.append(
            ("the suite's prompts (not used: give template=)", "; ".join(clip(t) for t in texts[:3]))
        )
    return lines


def _quoted(text: str) -> str:
    return clip(text if "(" in text or text.startswith("none") else repr(text), 2 * CELL)


def _head(data: Dataset) -> str:
    count = len(data)
    return (
        f"Dataset: {count} row{'s' if count != 1 else ''} from {clip(data.source.where, 120)} ({data.format})"
    )


def _columns(data: Dataset) -> list[str]:
    return data.fields[:SHOWN_FIELDS]


def _cells(data: Dataset, row: Row, columns: list[str]) -> list[str]:
    return [
        clip(row.id if row.id is not None else row.index),
        *(clip(row.fields.get(name, "")) for name in columns),
        clip(row.reference),
    ]


def clip(value: Any, limit: int = CELL) -> str:
    """A cell as one line of at most ``limit`` characters (an ellipsis says it was cut; ``—``
    for no value)."""
    if value is None:
        return "—"
    if isinstance(value, str):
        text = value[: limit * 4]
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, default=str)
        except (TypeError, ValueError, RecursionError):
            text = type(value).__name__
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def dataset_text(data: Dataset) -> str:
    """``repr(dataset)``: its source, its mapping and its first rows."""
    lines = [_head(data)]
    lines += [f"  {what}: {where}" for what, where in mapping_lines(data)]
    columns = _columns(data)
    more = len(data.fields) - len(columns)
    lines.append(
        "  fields: "
        + ", ".join(clip(name, CELL // 2) for name in columns)
        + (f" (+{more} more)" if more > 0 else "")
    )
    for index in range(min(SHOWN_ROWS, len(data))):
        row = data[index]
        cells = _cells(data, row, columns)
        fields = "  ".join(
            f"{clip(name, CELL // 2)}={cell}" for name, cell in zip(columns, cells[1:-1], strict=True)
        )
        lines.append(f"  [{cells[0]}] {fields}  → {cells[-1]}")
    if len(data) > SHOWN_ROWS:
        lines.append(f"  … {len(data) - SHOWN_ROWS} more rows")
    return "\n".join(lines)


def dataset_html(data: Dataset) -> str:
    """The dataset as a small table: its mapping, then its first rows (every cell escaped)."""
    mapping = "".join(
        f"<li><b>{escape(what)}</b>: {escape(where)}</li>" for what, where in mapping_lines(data)
    )
    columns = _columns(data)
    head = "".join(f"<th>{escape(clip(name, CELL // 2))}</th>" for name in ["id", *columns, "reference"])
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in _cells(data, data[index], columns)) + "</tr>"
        for index in range(min(SHOWN_ROWS, len(data)))
    )
    more = len(data) - SHOWN_ROWS
    tail = f'<div class="dnb-muted">… {more} more rows</div>' if more > 0 else ""
    return (
        f'<div class="deepnb-snapshot deepnb-dataset"><div>{escape(_head(data))}</div>'
        f"<ul>{mapping}</ul>"
        f'<table class="deepnb-table" aria-label="Dataset rows"><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table>{tail}</div>"
    )
