"""Regular expressions on untrusted text, matched in linear time: the one way deepnb applies a
pattern to a model's output, a tool's result or a file's content.

A replay script's ``match`` comes from a file a cloned project ships, a scorer's pattern from a
notebook, and the text either is matched against from a model: hostile until shown otherwise.
Python's backtracking ``re`` can spend hours on one pattern (``(a+)+$``), or quadratic time on
an innocent-looking one (a fence followed by 100k newlines), while holding the engine thread or
the kernel, where neither Stop nor a kernel interrupt reaches it. RE2 (Google's ``google-re2``)
matches in time linear in the text for any pattern; it refuses the few features that need
backtracking (backreferences, lookaround), and :func:`compile_bounded` says so in one line when
the pattern is made, never per match. Patterns are written as for Python's ``re`` (what a
recording writes): ``\\Z``, the end of the text, becomes RE2's ``\\z``; ``re.IGNORECASE``,
``re.MULTILINE`` and ``re.DOTALL`` are taken, and ``\\d``, ``\\w``, ``\\s`` are ASCII classes.

Each match reads at most the rest of the text once, and :func:`scanned` counts those characters:
a test's bound on work, not on time (``tests/security/test_untrusted_text.py``).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import re2

MAX_PATTERN = 262_144
"""Characters a pattern may have (a recorded subagent task is matched by its whole text)."""
MAX_PROGRAM = 64 << 20
"""Bytes RE2 may spend on one compiled pattern (eight times its default, for long prompts)."""


SPACE = r"\t-\r\x1c- \x85\xa0\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}"
"""Python's ``\\s`` (Unicode white space) as the inside of an RE2 character class: RE2's own
``\\s`` is ASCII's, so a pattern that splits text as Python's would writes ``[{SPACE}]``."""
FLAGS = {re.IGNORECASE: "i", re.MULTILINE: "m", re.DOTALL: "s"}
"""Python's flags RE2 takes, as its inline flags."""
_IGNORED_FLAGS = re.UNICODE | re.ASCII
"""Flags that change nothing here: text is Unicode, and RE2's classes are ASCII's."""

_scanned: ContextVar[list[int] | None] = ContextVar("deepnb_regex_scanned", default=None)


class RegexError(ValueError):
    """A pattern RE2 cannot take; the message says why and what to write instead."""


@contextlib.contextmanager
def scanned() -> Iterator[list[int]]:
    """Count the characters every :class:`BoundedPattern` reads inside the block (``counter[0]``):
    the work a site did on its text, whatever the machine's speed."""
    counter = [0]
    token = _scanned.set(counter)
    try:
        yield counter
    finally:
        _scanned.reset(token)


def _count(characters: int) -> None:
    counter = _scanned.get()
    if counter is not None:
        counter[0] += max(characters, 0)


@dataclass(frozen=True)
class BoundedPattern:
    """A compiled pattern with ``re.Pattern``'s ``search``, ``fullmatch``, ``finditer`` and
    ``pattern``, matched by RE2 (each match linear in the text it reads)."""

    pattern: str
    _compiled: Any

    def search(self, text: str, pos: int = 0) -> Any:
        """The first match in ``text`` from ``pos``, or ``None`` (linear in ``len(text)``)."""
        _count(len(text) - pos)
        return self._compiled.search(text, pos)

    def fullmatch(self, text: str) -> Any:
        """The match of the whole of ``text``, or ``None``."""
        _count(len(text))
        return self._compiled.fullmatch(text)

    def sub(self, repl: str | Callable[[Any], str], text: str) -> str:
        """``text`` with every match replaced by ``repl`` (a template, or a function of the
        match), in one pass over the text."""
        _count(len(text))
        return str(self._compiled.sub(repl, text))

    def findall(self, text: str) -> list[str]:
        """Every match's whole text, in one pass (the pattern's groups are not read)."""
        return [str(found.group()) for found in self.finditer(text)]

    def finditer(self, text: str, *, limit: int | None = None) -> Iterator[Any]:
        """The matches in ``text`` (one pass), or with ``limit`` the first ``limit``, each
        searched from the end of the one before (at most ``limit`` reads of the text)."""
        if limit is None:
            _count(len(text))
            yield from self._compiled.finditer(text)
            return
        pos = 0
        for _ in range(limit):
            found = self.search(text, pos)
            if found is None:
                return
            yield found
            pos = found.end() if found.end() > found.start() else found.end() + 1
            if pos > len(text):
                return


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


def _inline_flags(flags: int) -> str:
    """Python's ``flags`` as RE2's inline flags (``"(?is)"``), or :class:`RegexError`."""
    unknown = flags & ~(_IGNORED_FLAGS | sum(FLAGS))
    if unknown:
        raise RegexError(
            f"flag {re.RegexFlag(unknown)!r} is not taken (only IGNORECASE, MULTILINE and DOTALL are): "
            "write the pattern without it"
        )
    letters = "".join(letter for flag, letter in FLAGS.items() if flags & flag)
    return f"(?{letters})" if letters else ""


def compile_bounded(pattern: str, flags: int = 0) -> BoundedPattern:
    """``pattern`` (Python's ``re`` syntax, with ``flags``) compiled for linear-time matching,
    or :class:`RegexError` saying why not."""
    if len(pattern) > MAX_PATTERN:
        raise RegexError(f"it is {len(pattern):,} characters long; at most {MAX_PATTERN:,} are read")
    syntax = _inline_flags(flags) + _in_re2_syntax(pattern)
    try:
        return BoundedPattern(pattern, re2.compile(syntax, _options()))
    except re2.error as exc:
        reason = (
            exc.args[0].decode("utf-8", "replace")
            if exc.args and isinstance(exc.args[0], bytes)
            else str(exc)
        )
        raise RegexError(
            f"{reason}; patterns are matched by RE2, in linear time, which has no backreferences "
            "or lookaround: match a plain part of the text instead"
        ) from None


__all__ = ["MAX_PATTERN", "SPACE", "BoundedPattern", "RegexError", "compile_bounded", "scanned"]
