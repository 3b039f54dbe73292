"""The agent's ``permissions`` rules, checked on the notebook side the way its own tools check them.

deepagents' file tools match the path a call names *and the path it resolves to* — through
symlinks, on a ``FilesystemBackend`` used directly or behind a ``CompositeBackend`` route — against
the rules (first match wins), and refuse a path they cannot resolve inside the backend's root.
:class:`Rules` does exactly that, with deepagents' own resolution, for everything the notebook
reads, lists, searches, changes or pulls.

Dotfiles: deepagents matches rules without wcmatch's ``DOTGLOB``, so ``/secrets/**`` alone would
not cover ``/secrets/.env``. :func:`agent_rules` adds to each pattern alternatives that spell the
dots out (``/secrets/**/.*``, ``/secrets/**/.*/**``, …); deepnb builds the agent with those rules
and the notebook matches the same ones, so both sides agree and match dotfiles.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Iterable
from dataclasses import is_dataclass, replace
from typing import Any

import bracex
import wcmatch.glob as wcglob

from deepnb.core.file_paths import UnsafePathError
from deepnb.engine.deepagents_internals import glob_flags, resolve_real_path

DOT_PARTS = 4
"""How many dot-named folders or files one ``**`` of a rule matches along a path (``/a/.b/c/.d``
has two). A path with more of them under a single ``**`` is not covered by that ``**``."""

_PATTERN_LIMIT = 64
"""Most patterns one declared pattern becomes (fewer dot parts are spelled out past it)."""


def _alternatives(part: str, *, last: bool, dots: int) -> list[str]:
    """What one component of a pattern becomes so that it also matches dot-named entries
    (never ``.`` or ``..``, which no path has)."""
    return [p for p in _spellings(part, last=last, dots=dots) if p not in (".", "..")]


def _spellings(part: str, *, last: bool, dots: int) -> list[str]:
    if part == "**":
        found = ["**"]
        for count in range(1, dots + 1):
            dotted = "**/" + "/**/".join([".*"] * count)
            found += [dotted, dotted + "/**"] if last else [dotted + "/**"]
        return found
    if part.startswith("*"):
        return [part, "." + part]
    if part.startswith("?"):
        return [part, "." + part[1:]]
    if part.startswith("[") and "]" in part[2:]:
        end = part.index("]", 2)
        if _class_matches_dot(part[1:end]):
            return [part, "." + part[end + 1 :]]
    return [part]


def _class_matches_dot(members: str) -> bool:
    """Whether a ``[...]`` character class (its inside) matches ``.``."""
    negated = members[:1] in ("!", "^")
    members = members[1:] if negated else members
    found, i = False, 0
    while i < len(members):
        if i + 2 < len(members) and members[i + 1] == "-":
            found = found or members[i] <= "." <= members[i + 2]
            i += 3
        else:
            found = found or members[i] == "."
            i += 1
    return found != negated


def dot_patterns(pattern: str) -> list[str]:
    """``pattern`` followed by alternatives that match what it would match if ``*``, ``?``,
    ``[...]`` and ``**`` also matched names starting with a dot (as with wcmatch's ``DOTGLOB``), up to
    :data:`DOT_PARTS` dot-named parts per ``**``. Braces are expanded first."""
    found: list[str] = [pattern]
    for expanded in bracex.expand(pattern, limit=1000):
        parts = expanded.split("/")
        for dots in range(DOT_PARTS, -1, -1):
            choices = [_alternatives(p, last=i == len(parts) - 1, dots=dots) for i, p in enumerate(parts)]
            if math.prod(len(c) for c in choices) <= _PATTERN_LIMIT or dots == 0:
                break
        for combination in itertools.product(*choices):
            candidate = "/".join(combination)
            if candidate not in found:
                found.append(candidate)
    return found


def agent_rules(rules: Iterable[Any] | None) -> list[Any] | None:
    """``rules`` with every pattern also matching dotfiles (see :func:`dot_patterns`): what deepnb
    passes to ``create_deep_agent`` and what the notebook matches. ``None`` stays ``None``."""
    if rules is None:
        return None
    return [_dotted(rule) if is_dataclass(rule) else rule for rule in rules]


def _dotted(rule: Any) -> Any:
    return replace(rule, paths=[p for path in rule.paths for p in dot_patterns(path)])


@functools.cache
def _flags() -> int:
    """The wcmatch flags deepagents' permission checks use."""
    return glob_flags()


def _match(path: str, pattern: str) -> bool:
    return wcglob.globmatch(path, pattern, flags=_flags())


class Rules:
    """An agent's permission rules over its backend, as the notebook enforces them."""

    def __init__(self, rules: Iterable[Any] | None, backend: Any) -> None:
        self.declared = list(rules or ())
        self._effective = list(zip(self.declared, agent_rules(self.declared) or (), strict=True))
        self.backend = backend

    def __bool__(self) -> bool:
        return bool(self.declared)

    def resolve(self, path: str) -> str:
        """The path an operation on ``path`` touches (through symlinks, on a folder on disk), as
        the agent's tools resolve it; a path that leads outside the backend's root is refused."""
        if self.backend is None:
            return path
        try:
            return resolve_real_path(self.backend, path)
        except (ValueError, OSError, RuntimeError):
            raise UnsafePathError(
                f"{path} is refused, as the agent's own tools refuse it: through a symlink (or a "
                "loop) it leads outside its root, the agent's folder."
            ) from None

    def rule_for(self, operation: str, path: str) -> Any | None:
        """The declared rule that decides ``operation`` on ``path`` itself (first match wins)."""
        for declared, effective in self._effective:
            if operation in effective.operations and any(_match(path, p) for p in effective.paths):
                return declared
        return None

    def denial(self, operation: str, path: str) -> tuple[Any, str] | None:
        """The deny rule that refuses ``operation`` on ``path``, and the path it matched (``path``
        or the path it resolves to); ``None`` when allowed. Raises :class:`UnsafePathError` for a
        path that cannot be resolved."""
        rule = self.rule_for(operation, path)
        if rule is not None and rule.mode == "deny":
            return rule, path
        real = self.resolve(path)
        if real != path:
            rule = self.rule_for(operation, real)
            if rule is not None and rule.mode == "deny":
                return rule, real
        return None

    def allowed(self, operation: str, path: str) -> bool:
        """Whether the notebook may do ``operation`` on ``path`` (unresolvable paths may not)."""
        if not self.declared:
            return True
        try:
            return self.denial(operation, path) is None
        except UnsafePathError:
            return False

    def filter(self, operation: str) -> Callable[[str], bool]:
        """:meth:`allowed`, memoized per path: for filtering a listing."""
        cache: dict[str, bool] = {}

        def allowed(path: str) -> bool:
            if path not in cache:
                cache[path] = self.allowed(operation, path)
            return cache[path]

        return allowed

    def require(self, operation: str, path: str) -> None:
        """Raise ``PermissionError`` naming the rule when ``operation`` on ``path`` is denied, and
        :class:`UnsafePathError` when ``path`` leads outside the agent's folder."""
        found = self.denial(operation, path)
        if found is None:
            return
        rule, matched = found
        verb = "Reading" if operation == "read" else "Changing"
        through = "" if matched == path else f" (it leads to {matched})"
        raise PermissionError(
            f"{verb} {path}{through} is denied by the agent's permission rule "
            f"(operations={list(rule.operations)}, paths={list(rule.paths)}, mode='deny')."
        )
