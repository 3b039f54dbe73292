"""``%deepagent extensions``: what is registered and from where, what failed, what is not
trusted, and which agents need ``%deepagent reload``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from deepnb.core.displayable import Displayable
from deepnb.extensions.harness import ProfileEntryPoint, profile_entry_points
from deepnb.extensions.registry import REGISTRY
from deepnb.session import agents

KIND_LABELS = {
    "tool": "tool",
    "middleware": "middleware",
    "route": "route",
    "command": "command",
    "shutdown": "on_shutdown",
    "mcp_server": "MCP server",
    "skills": "skills",
}


@dataclass(frozen=True, repr=False)
class Listing(Displayable):
    """The extensions' state; each field holds plain data, and it shows as text or HTML."""

    registrations: tuple[tuple[str, str, str, str], ...]
    """(kind, name, extension, source) in load order."""
    failures: tuple[tuple[str, str], ...]
    """(extension path or entry point, error)."""
    untrusted: tuple[Path, ...]
    notes: tuple[str, ...]
    """Names ignored because another extension took them, and routes an agent left out."""
    reload_needed: tuple[str, ...]
    """Agents built before middleware or routes changed: ``%deepagent reload`` rebuilds them."""
    profiles: tuple[ProfileEntryPoint, ...] = ()
    """The deepagents SDK's harness and provider profile entry points installed (deepagents
    applies them to the agents it builds; :mod:`deepnb.extensions.harness`)."""

    @classmethod
    def collect(cls) -> Listing:
        with REGISTRY.lock:
            registrations = tuple(
                (KIND_LABELS[r.kind], r.name, r.source.label, f"{r.source.origin}: {r.source.key}")
                for r in REGISTRY.registrations
            )
            failures = tuple((f.source.key, f.error) for f in REGISTRY.failures.values())
            untrusted = tuple(REGISTRY.untrusted)
            notes = [note for _, note in REGISTRY.ignored]
            current = REGISTRY.graph_bound_ids()
        stale = []
        for name, bench in sorted(agents.registered().items()):
            applied = bench.extensions
            if applied is None:
                continue
            notes += [f"agent {name!r}: {line}" for line in applied.skipped]
            if applied.ids != current:
                stale.append(name)
        profiles = tuple(profile_entry_points())
        return cls(registrations, failures, untrusted, tuple(notes), tuple(stale), profiles)
