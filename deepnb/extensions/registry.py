"""What extensions registered, where each came from, and which failed: one registry per kernel."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deepnb.extensions.rules import overlaps

GRAPH_BOUND = ("middleware", "route", "mcp_server", "skills")
"""Kinds an agent takes in when it is built; tools reach agents at each model call."""


@dataclass(frozen=True)
class Source:
    """Where an extension comes from: its entry file, and which source found it."""

    path: Path
    origin: str
    """``notebook`` (``%deepagent extension``), ``user``, ``entry point``, ``project`` or
    ``deployment`` (an app deepnb deployed, in its server)."""
    package: bool = False
    entry_point: str | None = None
    """``name = value`` of a ``deepnb.extensions`` entry point."""
    plugin: str | None = None
    """The name in the manifest of the Deep Agents Code plugin folder this entry comes from."""
    problem: str | None = None
    """Why this source cannot load (a plugin manifest's mistake): recorded as its failure, never imported."""
    bundle: str | None = None
    """For a plugin folder in the released Deep Agents Code format (``path`` is its folder), the
    plugin's id (``name@marketplace`` when dcode installed it): its skills and MCP servers load,
    no code of it is imported (:mod:`deepnb.extensions.bundles`)."""

    @property
    def key(self) -> str:
        return f"entry point {self.entry_point}" if self.entry_point else str(self.path)

    @property
    def label(self) -> str:
        """Short name, as Deep Agents Code labels it: the plugin's name, else the package
        folder's or the file's."""
        if self.entry_point:
            return self.entry_point.split("=")[0].strip()
        if self.plugin:
            return self.plugin
        return self.path.parent.name if self.package else self.path.stem


@dataclass(frozen=True)
class Registration:
    """One thing an extension registered."""

    id: int
    kind: str
    """``tool``, ``middleware``, ``route``, ``command``, ``shutdown``, or a plugin folder's
    ``mcp_server`` (a connection) and ``skills`` (a skills source in the agent's filesystem)."""
    name: str
    unit: Any = field(repr=False)
    source: Source


@dataclass(frozen=True)
class Failure:
    """A source that did not load (nothing of it stayed registered), with why."""

    source: Source
    error: str


class Registry:
    """Registrations in load order, failures, ignored duplicates and untrusted project folders."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self._ids = itertools.count(1)
        self.reset()

    def reset(self) -> None:
        """Forget every extension (after their shutdown hooks ran)."""
        self.registrations: list[Registration] = []
        self.loaded: dict[str, Any] = {}
        """Source key → the ``ExtensionAPI`` of each loaded extension."""
        self.failures: dict[str, Failure] = {}
        self.ignored: list[tuple[str, str]] = []
        """(source key, what was ignored and why) for names another extension took first."""
        self.untrusted: list[Path] = []
        self.discovered = False

    # -- registering -------------------------------------------------------------------------

    def add(
        self, kind: str, name: str, unit: Any, source: Source, *, staged: list[Registration] | None
    ) -> None:
        """Register (or stage, while the extension's factory runs) one unit. As in Deep Agents
        Code, the first registration wins: a tool or middleware name already taken, or a route
        overlapping one already registered, is skipped and noted (the rest of the extension
        loads)."""
        with self.lock:
            current = [*self.registrations, *(staged or ())]
            same_kind = [r for r in current if r.kind == kind]
            if kind == "route":
                clash = next((r for r in same_kind if overlaps(name, r.name)), None)
                if clash is not None:
                    self.ignored.append(
                        (
                            source.key,
                            f"route {name!r} from {source.label} skipped: it overlaps {clash.name!r}, "
                            f"which {clash.source.label} registered first",
                        )
                    )
                    return
            elif kind != "shutdown":
                taken = next((r for r in same_kind if r.name == name), None)
                if taken is not None:
                    self.ignored.append(
                        (
                            source.key,
                            f"{kind} {name!r} from {source.label} ignored: "
                            f"{taken.source.label} registered it first",
                        )
                    )
                    return
            registration = Registration(next(self._ids), kind, name, unit, source)
            if staged is not None:
                staged.append(registration)
            else:
                self.registrations.append(registration)

    def commit(self, staged: Iterable[Registration]) -> None:
        with self.lock:
            self.registrations.extend(staged)

    def drop(self, key: str) -> list[Registration]:
        """Forget a source's registrations (and failure); return them, shutdown hooks included."""
        with self.lock:
            mine = [r for r in self.registrations if r.source.key == key]
            self.registrations = [r for r in self.registrations if r.source.key != key]
            api = self.loaded.pop(key, None)
            if api is not None:
                api.deactivate()
            self.failures.pop(key, None)
            self.ignored = [(k, note) for k, note in self.ignored if k != key]
            return mine

    # -- reading -----------------------------------------------------------------------------

    def of_kind(self, kind: str) -> list[Registration]:
        with self.lock:
            return [r for r in self.registrations if r.kind == kind]

    def graph_bound_ids(self) -> frozenset[int]:
        with self.lock:
            return frozenset(r.id for r in self.registrations if r.kind in GRAPH_BOUND)


REGISTRY = Registry()
