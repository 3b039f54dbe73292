"""How an experiment's figures are written, in its views and its report alike: two decimals, "–" where
there is none, and what a figure rests on."""

from __future__ import annotations


def number(value: float | None, digits: int = 2) -> str:
    """``value`` with ``digits`` decimals, or "–" for ``None`` (no score, nothing measured)."""
    return "–" if value is None else f"{value:.{digits}f}"


def rests_on(rows: int, runs: int, epochs: int) -> str:
    """What a figure rests on: ``n = R rows × E epochs``, and the scored runs where they are not
    every row's every epoch (some failed, or are not done yet)."""
    said = f"n = {rows} row{'s' * (rows != 1)} × {epochs} epoch{'s' * (epochs != 1)}"
    return said if runs == rows * epochs else f"{said}, {runs} run{'s' * (runs != 1)} scored"


def sentence(phrase: str) -> str:
    """``phrase`` as a sentence on its own: its first letter upper case, a full stop at its end."""
    return phrase[:1].upper() + phrase[1:] + "."
