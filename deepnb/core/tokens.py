"""Token counts as the providers reported them, with what they did not report kept apart.

A model call whose provider reported no usage has unknown tokens, not 0. :class:`Tokens` holds
the sums of the calls that reported and the number of calls that did not, and gives one rule to
everything that shows or exports a count (a run's head line, the batch grid, comparisons,
experiments, the timeline): with no call reported at all the count is unknown (``None`` in
records, "unknown" in views); with some unreported it is a lower bound (records say how many
calls in ``tokens_unreported``, views say "≥")."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypedDict

__all__ = ["TOKEN_COLUMNS", "UNKNOWN", "TokenColumns", "Tokens", "token_cells", "token_pair"]

UNKNOWN = "unknown"
AT_LEAST = "≥ "

TOKEN_COLUMNS = ("tokens_in", "tokens_out", "tokens_unreported")
"""The columns records give a count of tokens in (see :meth:`Tokens.columns`)."""


class TokenColumns(TypedDict):
    """A count of tokens as records export it."""

    tokens_in: int | None
    tokens_out: int | None
    tokens_unreported: int


def _field(counts: Any, name: str) -> Any:
    return counts.get(name) if isinstance(counts, Mapping) else getattr(counts, name, None)


@dataclass(frozen=True)
class Tokens:
    """Tokens in and out over some model calls, and how many of those calls reported none."""

    tokens_in: int = 0
    tokens_out: int = 0
    unreported: int = 0
    """Model calls whose provider reported no usage: their tokens are in neither sum."""

    @classmethod
    def of(cls, counts: Any) -> Tokens:
        """The count an object or a mapping holds as ``tokens_in``, ``tokens_out`` and
        ``tokens_unreported`` (a run's state, a subagent node, a record); a ``None`` sum, as
        records write an unknown count, stands for at least one call unreported."""
        tokens_in, tokens_out = _field(counts, "tokens_in"), _field(counts, "tokens_out")
        unreported = int(_field(counts, "tokens_unreported") or 0)
        if tokens_in is None or tokens_out is None:
            unreported = max(unreported, 1)
        return cls(int(tokens_in or 0), int(tokens_out or 0), unreported)

    @classmethod
    def total(cls, counts: Any) -> Tokens:
        """The sum of several counts (each as :meth:`of` reads it)."""
        total = cls()
        for count in counts:
            total += count if isinstance(count, Tokens) else cls.of(count)
        return total

    def __add__(self, other: Tokens) -> Tokens:
        return Tokens(
            self.tokens_in + other.tokens_in,
            self.tokens_out + other.tokens_out,
            self.unreported + other.unreported,
        )

    @property
    def known(self) -> bool:
        """Whether any count is known: ``False`` when calls went unreported and none reported."""
        return not (self.unreported and not self.tokens_in and not self.tokens_out)

    @property
    def complete(self) -> bool:
        """Whether every model call reported its usage (the sums are exact, not lower bounds)."""
        return not self.unreported

    def columns(self) -> TokenColumns:
        """The count as records export it: ``tokens_in`` and ``tokens_out`` (``None``: unknown;
        a lower bound where ``tokens_unreported`` > 0) and ``tokens_unreported``."""
        return TokenColumns(
            tokens_in=self.tokens_in if self.known else None,
            tokens_out=self.tokens_out if self.known else None,
            tokens_unreported=self.unreported,
        )


def token_cells(tokens: Tokens) -> tuple[str, str]:
    """Tokens in and out as two table cells: ``("1,200", "300")``; ``("≥ 1,200", "≥ 300")``
    where some model call reported no usage; ``("unknown", "unknown")`` where none reported."""
    if not tokens.known:
        return UNKNOWN, UNKNOWN
    bound = "" if tokens.complete else AT_LEAST
    return f"{bound}{tokens.tokens_in:,}", f"{bound}{tokens.tokens_out:,}"


def token_pair(tokens: Tokens) -> str:
    """Tokens in and out in one cell: ``"1,200 / 300"``, ``"≥ 1,200 / ≥ 300"`` or ``"unknown"``."""
    if not tokens.known:
        return UNKNOWN
    tokens_in, tokens_out = token_cells(tokens)
    return f"{tokens_in} / {tokens_out}"
