"""Python entries of a plugin folder: a folder with a manifest (``plugin.json``,
``.claude-plugin/plugin.json`` or ``.codex-plugin/plugin.json``) whose
``extensions["com.langchain.deepagents.code"].pythonExtensions`` names its Python entry files, as
the extension design on Deep Agents Code's development branches has them (no release reads this
field; a released plugin's skills and MCP servers load through :mod:`deepnb.extensions.bundles`).

dcode's rules, kept here: entry paths start with ``./``, stay inside the plugin folder (no ``..``,
no absolute path, no symlink out), name existing ``.py`` files, and count only when the manifest
has a non-empty ``version``. Each entry is one extension, labelled with the plugin's ``name``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

__all__ = ["MANIFESTS", "Plugin", "find_manifest", "read_plugin"]

MANIFESTS = (
    Path("plugin.json"),
    Path(".claude-plugin") / "plugin.json",
    Path(".codex-plugin") / "plugin.json",
)
"""Where dcode looks for a plugin's manifest, first found wins."""
DCODE_SETTINGS = "com.langchain.deepagents.code"
ENTRIES_FIELD = "pythonExtensions"


@dataclass(frozen=True)
class Plugin:
    """A plugin folder's Python extensions, or why it has none."""

    name: str
    manifest: Path
    entries: tuple[Path, ...] = ()
    problem: str | None = None
    """One line saying why an entry (or the whole plugin) is not loaded."""


def find_manifest(folder: Path) -> Path | None:
    """The plugin manifest in ``folder``, if it is a plugin folder."""
    for relative in MANIFESTS:
        if (folder / relative).is_file():
            return folder / relative
    return None


def read_plugin(folder: Path, manifest: Path) -> Plugin:
    """The plugin at ``folder`` as dcode would load it."""
    try:
        raw = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return Plugin(folder.name, manifest, problem=f"Cannot read plugin manifest {manifest}: {exc}")
    if not isinstance(raw, dict):
        return Plugin(folder.name, manifest, problem=f"Plugin manifest {manifest} is not a JSON object.")
    name = raw.get("name")
    name = name if isinstance(name, str) and name and not any(c.isspace() for c in name) else folder.name
    settings = raw.get("extensions")
    settings = settings.get(DCODE_SETTINGS) if isinstance(settings, dict) else None
    declared = settings.get(ENTRIES_FIELD) if isinstance(settings, dict) else None
    if declared is None:
        return Plugin(name, manifest)  # a plugin with no Python extensions (skills, hooks, …)
    if not (isinstance(raw.get("version"), str) and raw["version"]):
        return Plugin(
            name,
            manifest,
            problem=f"Plugin {name}: Python extensions need a non-empty version in {manifest.name}.",
        )
    paths = declared if isinstance(declared, list) else [declared]
    entries: list[Path] = []
    problems: list[str] = []
    for path in paths:
        entry, why = _entry(folder, path)
        if entry is not None:
            entries.append(entry)
        else:
            problems.append(why)
    summary = f"Plugin {name}: {'; '.join(problems)}." if problems else None
    return Plugin(name, manifest, tuple(entries), summary)


def _entry(folder: Path, declared: object) -> tuple[Path | None, str]:
    if not isinstance(declared, str):
        return None, f"{ENTRIES_FIELD} entry {declared!r} is not a path"
    if not declared.startswith("./") or declared == "./":
        return None, f"{ENTRIES_FIELD} entry {declared!r} must start with './' and name a file"
    relative = Path(declared[2:])
    if relative.is_absolute() or ".." in relative.parts:
        return None, f"{ENTRIES_FIELD} entry {declared!r} must stay inside the plugin folder"
    try:
        root = folder.resolve()
        resolved = (folder / relative).resolve()
    except (OSError, RuntimeError):  # a symlink loop (RuntimeError up to Python 3.12)
        return None, f"{ENTRIES_FIELD} entry {declared!r} cannot be resolved (a symlink loop?)"
    if not resolved.is_relative_to(root):
        return None, f"{ENTRIES_FIELD} entry {declared!r} leads outside the plugin folder"
    if resolved.suffix != ".py" or not resolved.is_file():
        return None, f"{ENTRIES_FIELD} entry {declared!r} is not an existing .py file"
    return resolved, ""
