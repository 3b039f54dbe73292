"""Records as a pandas ``DataFrame`` or a Parquet file, pandas and pyarrow being optional: one
line says how to get them."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from deepnb.core.errors import DeepnbError
from deepnb.core.extras import require


def records_frame(records: Iterable[Mapping[str, Any]], *, what: str) -> Any:
    """``records`` as a ``pandas.DataFrame``, a row each; ``what`` names the object whose
    ``to_pandas()`` asked (``batch``, ``experiment``, …) in the message when pandas is missing."""
    try:
        import pandas  # type: ignore[import-untyped]  # noqa: PLC0415  # lazy and optional: heavy
    except ImportError:
        raise DeepnbError(
            f"{what}.to_pandas() needs pandas: pip install pandas (or use {what}.to_records())."
        ) from None
    return pandas.DataFrame.from_records(list(records))


_SCALARS = (bool, int, float, str)


def _column_kind(values: Iterable[Any]) -> type | None:
    """The one scalar type a column's values share (ints with floats: ``float``), or ``None``
    where they are not all scalars of one kind (the column is then written as JSON text)."""
    kinds = {type(v) for v in values if v is not None}
    if kinds == {int, float}:
        return float
    if not kinds:
        return str
    (kind,) = kinds if len(kinds) == 1 else (None,)
    return kind if kind in _SCALARS else None


def parquet_columns(records: Iterable[Mapping[str, Any]]) -> dict[str, list[Any]]:
    """``records`` as columns Parquet can hold: each column's values as they are where they share
    one scalar type, else each as JSON text (nested fields, mixed types), ``None`` kept."""
    rows = list(records)
    names = list(dict.fromkeys(name for row in rows for name in row))
    columns: dict[str, list[Any]] = {}
    for name in names:
        values = [row.get(name) for row in rows]
        kind = _column_kind(values)
        if kind is float:
            values = [None if v is None else float(v) for v in values]
        elif kind is None:
            values = [None if v is None else json.dumps(v, default=str, ensure_ascii=False) for v in values]
        columns[name] = values
    return columns


def records_parquet(records: Iterable[Mapping[str, Any]], path: str | os.PathLike[str], *, what: str) -> Path:
    """Write ``records`` to the Parquet file ``path`` (a row each; see :func:`parquet_columns`);
    ``what`` names the object whose ``to_parquet()`` asked, in the message when pyarrow is missing."""
    pyarrow = require("parquet", "pyarrow", what=f"{what}.to_parquet()")
    require("parquet", "pyarrow.parquet", what=f"{what}.to_parquet()")
    target = Path(path)
    if target.parent and not target.parent.is_dir():
        raise DeepnbError(f"Cannot write {str(target)!r}: its folder does not exist.")
    pyarrow.parquet.write_table(pyarrow.table(parquet_columns(records)), target)
    return target
