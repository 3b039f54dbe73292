"""Bidirectional-text control characters, made visible rather than obeyed.

An RTL override (U+202E) makes ``report\u202etxt.exe`` read as ``reportexe.txt``: a file, tool or
agent name could pass for another. deepnb shows each such character as its escape (``\\u202e``)
wherever it renders text: HTML (:func:`deepnb.core.text.markup.escape`, Markdown, code), ``text/plain``
and the widgets' text. Letters of right-to-left scripts are untouched.
"""

from __future__ import annotations

BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
"""ALM, LRM, RLM, the embeddings and overrides (LRE RLE PDF LRO RLO) and isolates (LRI RLI FSI PDI)."""
_VISIBLE = {ord(char): f"\\u{ord(char):04x}" for char in BIDI_CONTROLS}


def reveal_controls(text: str) -> str:
    """``text`` with every bidi control character replaced by its visible escape, ``\\u202e``."""
    return text.translate(_VISIBLE)
