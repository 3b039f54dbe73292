"""Records as a pandas ``DataFrame``, pandas being optional: one line says how to get it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from deepnb.core.errors import DeepnbError


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
