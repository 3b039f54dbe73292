"""How deepnb says a count of tokens, in a run's head line and a subagent's: what the providers
reported, the part spent reasoning, and how many model calls reported nothing (unknown, never 0).
The live view says it the same way (``widgets/src/run/tokens.ts``). Tables (the batch grid,
comparisons, experiments, the timeline) say a count in :func:`token_cells`: "unknown" where no
model call reported, "≥ N" where some did not (:class:`deepnb.core.tokens.Tokens` holds the rule)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deepnb.core.tokens import AT_LEAST, UNKNOWN, Tokens, token_cells, token_pair

__all__ = ["UNKNOWN", "cost_words", "token_cells", "token_pair", "tokens_words"]


def tokens_words(counts: Mapping[str, Any]) -> str:
    """``"tokens 1,200 in / 300 out (80 reasoning)"``; ``"tokens unknown"`` when no model call
    reported any; ``"… · 2 model calls unreported"`` when some did not. ``counts`` holds
    ``tokens_in``, ``tokens_out`` and, where known, ``tokens_reasoning`` and ``tokens_unreported``."""
    tokens = Tokens.of(counts)
    if not tokens.known:
        return "tokens unknown"
    words = f"tokens {tokens.tokens_in:,} in / {tokens.tokens_out:,} out"
    reasoning = counts.get("tokens_reasoning")
    if reasoning:
        words += f" ({int(reasoning):,} reasoning)"
    if tokens.unreported:
        words += f" · {tokens.unreported:,} model call{'' if tokens.unreported == 1 else 's'} unreported"
    return words


def cost_words(cost: float | None, *, complete: bool = True) -> str:
    """US dollars as a table says them: ``"0.0123"``, ``"≥ 0.0123"`` where some tokens or runs
    have no price, ``"unknown"`` where none has."""
    if cost is None:
        return UNKNOWN
    return f"{'' if complete else AT_LEAST}{cost:.4f}"
