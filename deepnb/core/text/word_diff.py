"""Two texts' difference word by word, as escaped HTML: what only the first has in ``<del>``, what
only the second has in ``<ins>``, the rest as it is (how a comparison shows two answers apart)."""

from __future__ import annotations

import difflib

from deepnb.core.text.markup import escape
from deepnb.core.text.safe_regex import SPACE, compile_bounded

_WORDS = compile_bounded(rf"[{SPACE}]+|[^{SPACE}]+")
"""A run of white space, or of anything else (two answers' text: matched by RE2)."""
MAX_WORDS = 4000
"""Words of each text compared at most (the rest is said, not compared)."""


def _words(text: str) -> list[str]:
    return _WORDS.findall(text)


def word_diff_html(before: str, after: str) -> str:
    """``after`` against ``before``, word by word, escaped: removed words in ``<del>``, added ones
    in ``<ins>``, whitespace kept."""
    old, new = _words(before), _words(after)
    cut = len(old) > MAX_WORDS or len(new) > MAX_WORDS
    old, new = old[:MAX_WORDS], new[:MAX_WORDS]
    parts: list[str] = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for op, a1, a2, b1, b2 in matcher.get_opcodes():
        if op == "equal":
            parts.append(escape("".join(new[b1:b2])))
            continue
        if op in ("delete", "replace"):
            parts.append(f"<del>{escape(''.join(old[a1:a2]))}</del>")
        if op in ("insert", "replace"):
            parts.append(f"<ins>{escape(''.join(new[b1:b2]))}</ins>")
    if cut:
        parts.append(f" <i>… compared up to {MAX_WORDS:,} words</i>")
    return "".join(parts)


def same_words(before: str, after: str) -> bool:
    """Whether the two texts have the same words (whitespace aside)."""
    return before.split() == after.split()
