"""How the experiment's views write a score or a measure: two decimals, "–" where there is none."""

from __future__ import annotations


def number(value: float | None, digits: int = 2) -> str:
    """``value`` with ``digits`` decimals, or "–" for ``None`` (no score, nothing measured)."""
    return "–" if value is None else f"{value:.{digits}f}"
