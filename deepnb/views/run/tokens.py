"""How deepnb says a count of tokens, in a run's head line and a subagent's: what the providers
reported, the part spent reasoning, and how many model calls reported nothing (unknown, never 0).
The live view says it the same way (``widgets/src/run/tokens.ts``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["tokens_words"]


def tokens_words(counts: Mapping[str, Any]) -> str:
    """``"tokens 1,200 in / 300 out (80 reasoning)"``; ``"tokens unknown"`` when no model call
    reported any; ``"… · 2 model calls unreported"`` when some did not. ``counts`` holds
    ``tokens_in``, ``tokens_out`` and, where known, ``tokens_reasoning`` and ``tokens_unreported``."""
    tokens_in, tokens_out = int(counts.get("tokens_in") or 0), int(counts.get("tokens_out") or 0)
    reasoning, unreported = counts.get("tokens_reasoning"), int(counts.get("tokens_unreported") or 0)
    if unreported and not tokens_in and not tokens_out:
        return "tokens unknown"
    words = f"tokens {tokens_in:,} in / {tokens_out:,} out"
    if reasoning:
        words += f" ({int(reasoning):,} reasoning)"
    if unreported:
        words += f" · {unreported:,} model call{'' if unreported == 1 else 's'} unreported"
    return words
