"""Structured-output fields as matrix columns: when runs end with a structured ``run.output`` (an
agent with a ``response_format``; a graph's final state), the top-level fields of those outputs
become columns of each variant's group, at most :data:`MAX_FIELDS` of them, each name and value
clipped to one short line with secrets redacted (escaping is the renderer's, as for every
text)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from deepnb.core.graphs.structured import output_fields, value_line
from deepnb.core.text.secrets import redact
from deepnb.many.record import RunRecord

MAX_FIELDS = 6
"""Field columns a variant's group has at most (the first fields seen, in the runs' order)."""
FIELD_NAME = 24
"""Characters of a field's name its column header shows."""
FIELD_VALUE = 40
"""Characters of a field's value a cell shows."""


def field_names(records: Iterable[RunRecord]) -> tuple[list[str], int]:
    """The fields the matrix shows as columns (the first :data:`MAX_FIELDS` top-level fields of
    the records' structured outputs, in the order they first appear) and how many more there are."""
    seen: dict[str, None] = {}
    for record in sorted(records, key=lambda r: (r.epoch, r.row, r.variant)):
        for name in output_fields(record.output) or {}:
            seen.setdefault(str(name), None)
    names = list(seen)
    return names[:MAX_FIELDS], max(0, len(names) - MAX_FIELDS)


def field_label(name: str) -> str:
    """A field's name as its column header shows it."""
    redacted = redact(name)
    return redacted if len(redacted) <= FIELD_NAME else redacted[: FIELD_NAME - 1] + "…"


def field_cells(records: Sequence[RunRecord], names: Sequence[str]) -> list[str]:
    """A cell's field values, in ``names``' order: each from its first run whose output has the
    field (``""`` when none has), as one clipped, redacted line."""
    cells: list[str] = []
    outputs = [fields for fields in (output_fields(r.output) for r in records) if fields]
    for name in names:
        value = next((fields[name] for fields in outputs if name in fields), None)
        line = "" if value is None else " ".join(value_line(value, limit=FIELD_VALUE).split())
        cells.append(redact(line))
    return cells
