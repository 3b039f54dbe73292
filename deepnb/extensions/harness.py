"""Python tools as released Deep Agents Code takes them: the deepagents SDK's
``deepagents.harness_profiles`` entry points. Each names a callable that registers a
``HarnessProfile`` (``register_harness_profile("provider:model" or "provider", ...)``), whose
``extra_middleware`` may carry tools. deepagents' ``create_deep_agent`` loads these entry points
itself, once per process, and applies the profile matching the agent's model: every agent deepnb
builds gets them as it would in dcode. This module only lists them, and says which cannot be
imported (deepagents logs such a failure and goes on without it)."""

from __future__ import annotations

import importlib.metadata
from dataclasses import dataclass

__all__ = ["GROUPS", "ProfileEntryPoint", "profile_entry_points"]

GROUPS = ("deepagents.harness_profiles", "deepagents.provider_profiles")
"""The deepagents SDK's entry-point groups: harness profiles (tools, middleware, prompts) and
provider profiles (model defaults)."""


@dataclass(frozen=True)
class ProfileEntryPoint:
    """One installed entry point of a deepagents profile group."""

    group: str
    name: str
    value: str
    distribution: str
    error: str | None = None
    """Why it cannot be imported (``None``: it imports)."""


def profile_entry_points(*, check: bool = True) -> list[ProfileEntryPoint]:
    """The installed packages' profile entry points, by group then name; with ``check``, each
    is imported (never called: deepagents calls it, once) to say whether it can be."""
    found = []
    for group in GROUPS:
        for entry in sorted(importlib.metadata.entry_points(group=group), key=lambda e: (e.name, e.value)):
            dist = entry.dist.name if entry.dist is not None else "?"
            error = None
            if check:
                try:
                    target = entry.load()
                except Exception as exc:
                    error = f"cannot be imported: {type(exc).__name__}: {exc}"
                else:
                    if not callable(target):
                        error = f"{entry.value} is not callable"
            found.append(ProfileEntryPoint(group, entry.name, entry.value, dist, error))
    return found
