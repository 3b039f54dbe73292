"""An experiment's dataset read into rows: each row's fields (what the template or the agent is
given) and its reference (what scorers compare with), before any run starts.

A dataset is a list of strings or dicts, a pandas ``DataFrame``, a ``.csv`` / ``.jsonl`` /
``.json`` path, or LangSmith's example records (``{"inputs": {...}, "outputs": {...}}`` dicts or
objects with ``inputs`` / ``outputs``). A record's ``reference`` (else ``expected``; in
LangSmith's shape ``reference`` or ``outputs``) goes to the scorers, not to the agent.
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deepnb.core.batch_inputs import STRING_FIELD, prepare
from deepnb.core.errors import DeepnbError

REFERENCE_FIELDS = ("reference", "expected")
"""A plain record's fields that hold its reference, the first one present wins."""
FILE_KINDS = (".csv", ".jsonl", ".json")


@dataclass(frozen=True)
class Row:
    """One dataset row: its position, its fields, its reference (``None`` if it has none) and
    what each run of it is given (a prompt, or a dict for a graph that does not take messages)."""

    index: int
    fields: Mapping[str, Any]
    reference: Any
    given: str | Mapping[str, Any]


def load(dataset: Any, *, template: str | None = None) -> list[Row]:
    """The dataset's rows, checked: one line for the first problem, nothing started.

    With ``template`` each row's fields fill it (a string row fills ``{input}``); without one a
    row of one field is that field's text, and a row of several is the graph's input."""
    records = _records(dataset)
    if not records:
        raise DeepnbError("The dataset is empty: give at least one row (a string or a dict).")
    split = [_split(index, record) for index, record in enumerate(records)]
    fields = [item[0] for item in split]
    prepared = prepare(fields, template=template)
    rows = []
    for item, (row_fields, reference) in zip(prepared, split, strict=True):
        given = item.given
        if template is None and isinstance(given, Mapping) and len(given) == 1:
            given = str(next(iter(given.values())))
        rows.append(Row(item.index, row_fields, reference, given))
    return rows


def _records(dataset: Any) -> list[Any]:
    if isinstance(dataset, os.PathLike) or (isinstance(dataset, str) and _looks_like_path(dataset)):
        return read_file(Path(dataset))
    if isinstance(dataset, str | bytes):
        raise DeepnbError(
            f"A dataset is a list of rows or a .csv/.jsonl path, not one string ({str(dataset)[:40]!r}): "
            "wrap a single prompt in [...]."
        )
    to_dict = getattr(dataset, "to_dict", None)
    if callable(to_dict) and hasattr(dataset, "columns"):  # a pandas DataFrame
        return list(to_dict(orient="records"))
    if isinstance(dataset, Mapping):
        raise DeepnbError("A dataset is a list of rows, not one dict: wrap it in [...].")
    if not isinstance(dataset, Iterable):
        raise DeepnbError(
            f"A dataset is a list of rows, a DataFrame or a .csv/.jsonl path, not a {type(dataset).__name__}."
        )
    return list(dataset)


def _looks_like_path(text: str) -> bool:
    return "\n" not in text and (text.lower().endswith(FILE_KINDS) or Path(text).is_file())


def read_file(path: Path) -> list[Any]:
    """The records of a ``.csv`` (a header row, then one row per record), ``.jsonl`` (one JSON
    object per line) or ``.json`` (a list) file."""
    if not path.is_file():
        raise DeepnbError(f"No dataset file {str(path)!r}: give the path of a .csv or .jsonl file.")
    suffix = path.suffix.lower()
    text = path.read_text(encoding="utf-8")
    if suffix == ".csv":
        return list(csv.DictReader(text.splitlines()))
    try:
        if suffix == ".json":
            loaded = json.loads(text)
            if not isinstance(loaded, list):
                raise DeepnbError(f"{path} holds a JSON {type(loaded).__name__}: a dataset is a JSON list.")
            return loaded
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    except json.JSONDecodeError as exc:
        raise DeepnbError(f"{path} is not valid JSON ({exc.msg} at line {exc.lineno}).") from None


def _split(index: int, record: Any) -> tuple[Mapping[str, Any], Any]:
    """A record's fields and its reference."""
    if isinstance(record, str):
        return {STRING_FIELD: record}, None
    if not isinstance(record, Mapping) and hasattr(record, "inputs"):  # a langsmith Example
        record = {"inputs": record.inputs, "outputs": getattr(record, "outputs", None)}
    if not isinstance(record, Mapping):
        raise DeepnbError(f"Row {index} is a {type(record).__name__}: a dataset's rows are strings or dicts.")
    if isinstance(record.get("inputs"), Mapping):  # LangSmith's example shape
        reference = record.get("reference", record.get("outputs"))
        return {str(k): v for k, v in record["inputs"].items()}, reference
    fields = {str(k): v for k, v in record.items()}
    reference = None
    for name in REFERENCE_FIELDS:
        if name in fields:
            reference = fields.pop(name)
            break
    for name in REFERENCE_FIELDS:
        fields.pop(name, None)
    if not fields:
        raise DeepnbError(f"Row {index} has only a reference: give it the fields the agent is asked about.")
    return fields, reference
