"""Regular expressions from a project's files, matched in linear time.

A replay script's ``match`` comes from a file a cloned project ships, so it is hostile until shown
otherwise: Python's backtracking ``re`` can spend hours on one pattern (``(a+)+$``) while holding
the engine thread, where neither Stop nor a kernel interrupt reaches it. RE2 (Google's
``google-re2``) matches in time linear in the text for any pattern; it refuses the few features
that need backtracking (backreferences, lookaround), and :func:`compile_bounded` says so in one
line. Patterns are written as for Python's ``re`` (what a recording writes): ``\\Z``, the end of
the text, becomes RE2's ``\\z``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import re2

MAX_PATTERN = 262_144
"""Characters a pattern may have (a recorded subagent task is matched by its whole text)."""
MAX_PROGRAM = 64 << 20
"""Bytes RE2 may spend on one compiled pattern (eight times its default, for long prompts)."""


class RegexError(ValueError):
    """A pattern RE2 cannot take; the message says why and what to write instead."""


@dataclass(frozen=True)
class BoundedPattern:
    """A compiled pattern with ``re.Pattern``'s ``search`` and ``pattern``, matched by RE2."""

    pattern: str
    _compiled: Any

    def search(self, text: str) -> Any:
        """The first match in ``text``, or ``None`` (linear in ``len(text)``)."""
        return self._compiled.search(text)


def _options() -> Any:
    options = re2.Options()
    options.log_errors = False  # RE2 would write each refusal to the kernel's stderr
    options.max_mem = MAX_PROGRAM
    return options


def _in_re2_syntax(pattern: str) -> str:
    """``pattern`` with Python's ``\\Z`` (end of text) as RE2 spells it, ``\\z``; an escaped
    backslash before a ``Z`` is left as it is."""
    out: list[str] = []
    index = 0
    while index < len(pattern):
        pair = pattern[index : index + 2]
        if pair[:1] == "\\" and len(pair) == 2:
            out.append("\\z" if pair == "\\Z" else pair)
            index += 2
        else:
            out.append(pattern[index])
            index += 1
    return "".join(out)


def compile_bounded(pattern: str) -> BoundedPattern:
    """``pattern`` (Python's ``re`` syntax) compiled for linear-time matching, or
    :class:`RegexError` saying why not."""
    if len(pattern) > MAX_PATTERN:
        raise RegexError(f"it is {len(pattern):,} characters long; at most {MAX_PATTERN:,} are read")
    try:
        return BoundedPattern(pattern, re2.compile(_in_re2_syntax(pattern), _options()))
    except re2.error as exc:
        reason = (
            exc.args[0].decode("utf-8", "replace")
            if exc.args and isinstance(exc.args[0], bytes)
            else str(exc)
        )
        raise RegexError(
            f"{reason}; patterns are matched by RE2, in linear time, which has no backreferences "
            "or lookaround: match a plain part of the prompt instead"
        ) from None


__all__ = ["MAX_PATTERN", "BoundedPattern", "RegexError", "compile_bounded"]
