"""How deepnb says a length of time, in a run's head line, on a subagent's card and under its
timeline: ``"12.3 s"`` under a minute, ``"1m 05s"``, ``"2h 03m"``; and the time spent waiting for
decisions or answers, which is never part of a duration but said beside it: ``" (+ 42.0 s
waiting)"``. The live view says both the same way (``widgets/src/lib/text.ts``: ``fmtDuration``,
``waitedWords``)."""

from __future__ import annotations

__all__ = ["WAITED_FLOOR", "duration_words", "waited_words"]

WAITED_FLOOR = 0.05
"""A wait shorter than this (seconds) is not said."""


def duration_words(seconds: float) -> str:
    """``"12.3 s"``, ``"1m 05s"``, ``"2h 03m"``."""
    seconds = max(0.0, float(seconds))
    if seconds < 60:
        return f"{seconds:.1f} s"
    whole = int(seconds)
    minutes = whole // 60
    if minutes < 60:
        return f"{minutes}m {whole % 60:02d}s"
    return f"{minutes // 60}h {minutes % 60:02d}m"


def waited_words(waited: float | None) -> str:
    """``" (+ 42.0 s waiting)"``: the time spent waiting, apart from run time (``""`` for none)."""
    waited = float(waited or 0.0)
    return f" (+ {duration_words(waited)} waiting)" if waited >= WAITED_FLOOR else ""
