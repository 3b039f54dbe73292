"""Keep secrets out of anything deepnb shows or saves.

:func:`redact` cleans one string, :func:`redact_data` cleans strings anywhere inside events,
mappings, sequences and dataclasses (``Run.emit`` passes every event through it; the reprs and rich
displays of deepnb's objects go through it too, see :mod:`deepnb.core.text.safe_display`).

A secret is the value of an environment variable whose name looks secret (``*_API_KEY``,
``*TOKEN*``, ``*PASSWORD*``…), found as it is and in the forms it takes once escaped for JSON
(``\\"``, ``\\\\``, ``\\u00f6``), Python reprs, HTML, URLs, Markdown and regular expressions
(``re.escape``, as a replay script's ``match`` holds a prompt); plus anything shaped like a
well-known key, and bearer tokens.

Streamed text comes in pieces: :func:`open_tail` says where the end of a text could still grow
into a secret, so that the part before it can be shown and the rest held back until it can't
(:mod:`deepnb.core.text.streamed`).
"""

from __future__ import annotations

import dataclasses
import functools
import html
import json
import os
import re
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import quote, quote_plus

from deepnb.core.text.safe_regex import compile_bounded

_SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)", re.IGNORECASE)
_KEY_SHAPES = compile_bounded(
    r"\b(sk-[A-Za-z0-9_\-]{12,}|sk-ant-[A-Za-z0-9_\-]{12,}|AIza[0-9A-Za-z_\-]{20,}"
    r"|ghp_[A-Za-z0-9]{20,}|xox[abp]-[A-Za-z0-9\-]{10,}|lsv2_[A-Za-z0-9_]{20,})"
)
"""Key-shaped tokens. Every pattern here meets a model's text, so each runs on RE2 in linear
time (:mod:`deepnb.core.text.safe_regex`): ``_KEY_OPEN`` on ``"sk-" * 20_000 + "!"`` took
Python's ``re`` 25 s."""
_KEY_PREFIX = compile_bounded(r"sk-|AIza|ghp_|xox|lsv2_")
"""Every key shape starts with one of these: a text without any skips the full expression."""
_BEARER = compile_bounded(r"(?i)(bearer\s+)[A-Za-z0-9._\-]{8,}")
_KEY_OPEN = compile_bounded(
    r"\b(?:s(?:k(?:-[A-Za-z0-9_\-]*)?)?|A(?:I(?:z(?:a[0-9A-Za-z_\-]*)?)?)?|g(?:h(?:p(?:_[A-Za-z0-9]*)?)?)?"
    r"|x(?:o(?:x(?:[abp](?:-[A-Za-z0-9\-]*)?)?)?)?|l(?:s(?:v(?:2(?:_[A-Za-z0-9_]*)?)?)?)?)\Z"
)
"""The end of a text that more characters could turn into a key shape, or make a longer one."""
_BEARER_OPEN = compile_bounded(r"(?i)b(?:e(?:a(?:r(?:e(?:r(?:\s+[A-Za-z0-9._\-]*)?)?)?)?)?)?\Z")
"""The end of a text that more characters could turn into a bearer token, or make a longer one."""
MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_{}\[\]()#+\-.!|~])")
"""What Markdown text escapes with a backslash (:func:`deepnb.ship.exporting.markdown_text`)."""
REDACTED = "[redacted]"
MIN_SECRET = 6
"""Shorter values of secret-named variables are not secrets worth hiding (they'd blank words)."""

_environ: dict[Any, Any] = {}
_forms: tuple[str, ...] = ()
_patterns: tuple[str, ...] = ()
"""Each secret as ``re.escape`` writes it (with its spaces escaped or not), longest first."""
_given: set[str] = set()
"""Secrets handed to deepnb in code (an API key passed to ``deepnb.connect``), not in the environment."""


def add_secret(value: str) -> None:
    """Treat ``value`` as a secret from now on, like a secret-named environment variable's value."""
    global _environ
    if len(value) >= MIN_SECRET and value not in _given:
        _given.add(value)
        _environ = {}  # the forms are recomputed on the next call


def looks_secret(name: str) -> bool:
    """Whether a variable or header called ``name`` holds a secret (``*_API_KEY``, ``Authorization``, …)."""
    return bool(_SECRET_NAME.search(name))


def _escaped_forms(value: str) -> set[str]:
    """``value`` as it appears once escaped: in JSON (ASCII-only or not), a Python repr, a regular
    expression (``re.escape``, with or without its spaces escaped), Markdown, HTML (also HTML of
    JSON) and a URL (``%xx`` either case, ``+`` for spaces)."""
    pattern = re.escape(value)
    forms = {value, json.dumps(value)[1:-1], json.dumps(value, ensure_ascii=False)[1:-1], repr(value)[1:-1]}
    forms |= {pattern, pattern.replace("\\ ", " "), MARKDOWN_PUNCTUATION.sub(r"\\\1", value)}
    forms |= {html.escape(form, quote=quote_html) for form in list(forms) for quote_html in (True, False)}
    for url in (quote(value, safe=""), quote(value), quote_plus(value)):
        forms |= {url, re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), url)}
    return forms


def secret_forms() -> tuple[str, ...]:
    """Every form of every secret-looking environment value, longest first. Recomputed only
    when the environment changes (checked by one dict comparison per call)."""
    global _environ, _forms, _patterns
    data = getattr(os.environ, "_data", None)  # the raw mapping: cheap to compare
    current = data if isinstance(data, dict) else dict(os.environ)
    if current != _environ:
        snapshot = dict(current)  # taken first: a change from now on is seen by the next call
        values = {v for name, v in os.environ.items() if _SECRET_NAME.search(name) and len(v) >= MIN_SECRET}
        values |= _given
        forms = set().union(*(_escaped_forms(v) for v in values)) if values else set()
        _forms = tuple(sorted(forms, key=len, reverse=True))
        patterns = {p for v in values for p in (re.escape(v), re.escape(v).replace("\\ ", " "))}
        _patterns = tuple(sorted(patterns, key=len, reverse=True))
        _environ = snapshot
    return _forms


def redact_pattern(pattern: str) -> str:
    """A regular expression (a replay script's ``match``) with each secret ``re.escape`` wrote
    into it replaced by the expression that matches ``[redacted]``, so that it matches what the
    text it matched reads once redacted."""
    secret_forms()  # the environment's secrets, as they are now
    for form in _patterns:
        if form in pattern:
            pattern = pattern.replace(form, re.escape(REDACTED))
    return pattern


def redact(text: str) -> str:
    """``text`` with the values of secret-looking environment variables (in any of their escaped
    forms), key-shaped tokens and bearer tokens replaced by ``[redacted]``."""
    if len(text) < MIN_SECRET:
        return text
    return _redact(text, secret_forms())


def _redact(text: str, forms: tuple[str, ...]) -> str:
    """:func:`redact` with the secrets' forms given (read once for many strings)."""
    if len(text) < MIN_SECRET:  # no secret (nor key, nor bearer token) is this short
        return text
    for form in forms:
        if form in text:
            text = text.replace(form, REDACTED)
    if _KEY_PREFIX.search(text):
        text = _KEY_SHAPES.sub(REDACTED, text)
    if "bearer" in text.lower():
        text = _BEARER.sub(lambda m: m.group(1) + REDACTED, text)
    return text


def open_tail(text: str) -> int:
    """Where the end of ``text`` could still be growing into a secret: the start of its longest
    end that is the beginning of a secret's form (not the whole form), or of a key-shaped or
    bearer token more characters could complete or lengthen; ``len(text)`` where there is none.
    A secret found whole that reaches past that point moves it back to the secret's start, so
    the text before the point can be redacted and shown, and the rest waits for what comes next."""
    return _open_tail(text, secret_forms())


def _open_tail(text: str, forms: tuple[str, ...]) -> int:
    """:func:`open_tail` with the secrets' forms given."""
    end = len(text)
    cut = end
    spans: list[tuple[int, int]] = []
    for form in forms:
        first = form[0]
        start = text.find(first, max(0, end - len(form) + 1))
        while start != -1 and start < cut:
            if form.startswith(text[start:]):
                cut = start
                break
            start = text.find(first, start + 1)
        found = text.find(form)
        while found != -1:
            spans.append((found, found + len(form)))
            found = text.find(form, found + 1)
    for tail in (_KEY_OPEN, _BEARER_OPEN):
        match = tail.search(text)
        if match is not None and match.start() < cut:
            cut = match.start()
    if _KEY_PREFIX.search(text):
        spans += [m.span() for m in _KEY_SHAPES.finditer(text)]
    if "bearer" in text.lower():
        spans += [m.span() for m in _BEARER.finditer(text)]
    moved = True
    while moved:  # a whole secret across the point: show none of it yet
        moved = False
        for start, stop in spans:
            if start < cut < stop:
                cut, moved = start, True
    return cut


_ATOMS = frozenset({int, float, bool, type(None)})
"""Types that hold no string: returned as they are without a look inside."""


@functools.cache
def _field_names(kind: type) -> tuple[str, ...] | None:
    """The init fields of a dataclass type (an event's), or ``None`` for any other type (and for
    a dataclass that is also a string, mapping or sequence, which is read as one)."""
    if not dataclasses.is_dataclass(kind) or issubclass(kind, (str, Mapping, list, tuple)):
        return None
    return tuple(f.name for f in dataclasses.fields(kind) if f.init)


def redact_data(value: Any) -> Any:
    """``value`` with :func:`redact` applied to every string inside it: mapping keys and values,
    list and tuple items, dataclass fields (so an event comes back as an event of its kind).
    Other objects are returned as they are; so is anything that holds no secret (no copy)."""
    return map_strings(value, functools.partial(_redact, forms=secret_forms()))


def map_strings(value: Any, change: Callable[[str], str]) -> Any:
    """``value`` with ``change`` applied to every string inside it (see :func:`redact_data`)."""
    kind: type = type(value)
    if kind is str:
        return change(value)
    if kind in _ATOMS:
        return value
    names = _field_names(kind)
    if names is not None:  # a dataclass (every event is one): the most common case after str
        changes = {}
        for name in names:
            old = getattr(value, name)
            new = change(old) if type(old) is str else map_strings(old, change)
            if new is not old:
                changes[name] = new
        return dataclasses.replace(value, **changes) if changes else value
    if isinstance(value, str):
        return change(value)
    if isinstance(value, Mapping):
        pairs = [(map_strings(k, change), map_strings(v, change)) for k, v in value.items()]
        if all(k is a and v is b for (k, v), (a, b) in zip(pairs, value.items(), strict=True)):
            return value
        return dict(pairs)
    if isinstance(value, (list, tuple)):
        items = [map_strings(item, change) for item in value]
        if all(a is b for a, b in zip(items, value, strict=True)):
            return value
        if isinstance(value, list):
            return items
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    return value
