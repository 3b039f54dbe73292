"""How deepnb says a run's steps, in its head line: the thread's steps the run made (the numbers
its fork chips, its timeline, ``%deepagent history`` and ``--at`` use), and its model calls where
subagents made more. The live header says it the same way (``widgets/src/run/steps.ts``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["steps_words"]


def _plural(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def steps_words(progress: Mapping[str, Any]) -> str:
    """``"6 steps"``; ``"6 steps (7–12)"`` for a run on a thread that had 6 before;
    ``"… · 14 model calls"`` when the run made more model calls than steps (its subagents')."""
    calls = int(progress.get("steps") or 0)
    if "step" not in progress:  # a view saved before the thread's steps were counted
        return _plural(calls, "step")
    first, now = int(progress.get("first_step") or 0), int(progress["step"])
    own = now - first
    words = _plural(own, "step")
    if first and own:
        words += f" ({now:,})" if own == 1 else f" ({first + 1:,}–{now:,})"
    if calls > own:
        words += f" · {_plural(calls, 'model call')}"
    return words
