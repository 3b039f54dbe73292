"""How much of a long thread an exported notebook holds, and what it says of the rest.

A thread of thousands of steps would otherwise export to a notebook of many megabytes that a
browser renders for tens of seconds: its earlier prompts' replies, and the files the agent wrote
(a summarized conversation's offloaded history among them), each in full. An export keeps the
start and the end of each long reply cell, the start of each long file, and whole files until
their budget (of characters and of cells) is spent, and says at each place what it left out and
where the rest is (the thread, which the export never changes). The run's view is bounded by its own folding
(:mod:`deepnb.views.run.collapse`).
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["CONVERSATION_CHARS", "FILES_CHARS", "FILE_CELLS", "FILE_CHARS", "head", "head_and_tail"]

CONVERSATION_CHARS = 20_000
"""Characters of one prompt's replies a conversation cell holds (its start and its end)."""
FILE_CHARS = 20_000
"""Characters of one file a file cell holds (its start)."""
FILES_CHARS = 400_000
"""Characters of all the file cells together; the files after that are listed by path only."""
FILE_CELLS = 40
"""File cells an export holds at most (a browser renders each cell on opening: a notebook of
hundreds opens several times slower); the files after that are listed by path only."""


def head(text: str, limit: int) -> str:
    """The start of ``text``: all of it if it fits in ``limit`` characters, else its first lines
    that do (or its first ``limit`` characters, if its first line is longer)."""
    if len(text) <= limit:
        return text
    cut = text.rfind("\n", 0, limit + 1)
    return text[:cut] if cut > 0 else text[:limit]


def head_and_tail(parts: Sequence[str], limit: int) -> tuple[list[str], list[str], int]:
    """The first parts and the last parts of ``parts`` that fit in ``limit`` characters together
    (about half each; at least one of each when they do not all fit), and how many between them
    are left out. All of them fit: ``(parts, [], 0)``."""
    if sum(len(part) for part in parts) <= limit:
        return list(parts), [], 0
    first: list[str] = []
    used = 0
    for part in parts:
        if first and used + len(part) > limit // 2:
            break
        first.append(part)
        used += len(part)
    last: list[str] = []
    for part in reversed(parts[len(first) :]):
        if last and used + len(part) > limit:
            break
        last.insert(0, part)
        used += len(part)
    return first, last, len(parts) - len(first) - len(last)
