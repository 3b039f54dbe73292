"""Hostile datasets, made on demand (never committed at their size): cells of a megabyte, a
hundred thousand rows, a field nested deeper than any parser's recursion."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path
from typing import Any

MEGABYTE = 2**20


def megabyte_cells_csv(path: Path, rows: int = 3) -> Path:
    """A CSV whose every cell is 1 MB (a multi-line one among them), the reference last."""
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["question", "context", "reference"])
        for index in range(rows):
            line = f"row {index} " + "x" * 60 + "\n"
            writer.writerow(
                [(f"q{index} " + "q" * MEGABYTE)[:MEGABYTE], (line * MEGABYTE)[:MEGABYTE], f"a{index}"]
            )
    return path


def many_rows(count: int, pulled: list[int]) -> Iterator[dict[str, Any]]:
    """``count`` rows, one at a time; ``pulled[0]`` counts the rows taken so far."""
    for index in range(count):
        pulled[0] += 1
        yield {"question": f"q{index}", "reference": f"a{index}"}


def nested(depth: int) -> Any:
    """A list nested ``depth`` levels deep, built without recursion."""
    value: Any = "bottom"
    for _ in range(depth):
        value = [value]
    return value


def nested_json(depth: int) -> str:
    """The same, as JSON text: deeper than ``json.loads`` can follow."""
    return "[" * depth + '"bottom"' + "]" * depth
