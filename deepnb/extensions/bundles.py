"""Plugin folders in the format released Deep Agents Code reads (0.1.57, Claude's and Codex's
format), and the plugins it installed: deepnb loads their skills and MCP servers, unchanged.

A plugin folder holds an optional manifest (``plugin.json``, ``.claude-plugin/plugin.json`` or
``.codex-plugin/plugin.json``: ``name``, ``version``, and ``skills``, ``mcpServers``, ``hooks``
as ``./`` paths inside the folder, or ``mcpServers`` and ``hooks`` inline), and by default
``skills/`` (or one ``SKILL.md`` at its root), ``.mcp.json`` and ``hooks/hooks.json``. The rules
are dcode's (``deepagents_code/plugins/manifest.py``): a manifest path starts with ``./`` and
stays inside the folder; ``.mcp.json`` entries come before the manifest's, which win on a name.

What deepnb does with each part:

- skills: each skills folder is mounted read-only at ``/plugins/NAME/skills/`` in the agent's
  filesystem and given to the agent as a skills source (the agent reads a skill's ``SKILL.md``
  there with its file tools);
- MCP servers: given to every agent deepnb builds, as ``mcp_servers`` entries named
  ``NAME.SERVER`` (``${CLAUDE_PLUGIN_ROOT}``, ``${CLAUDE_PLUGIN_DATA}``, ``${CLAUDE_PROJECT_DIR}``
  and their ``PLUGIN_`` twins substituted and set in a stdio server's environment, as dcode does);
- hooks, ``agents/`` and ``commands/``: not loaded, each said in one line
  (dcode itself loads no ``agents/`` or ``commands/``).

dcode's installed plugins are read from where ``dcode plugin install`` records them:
``~/.deepagents/.state/installed_plugins.json`` (``name@marketplace`` → its copy under
``~/.deepagents/plugins/cache/``); a marketplace folder (``.claude-plugin/marketplace.json`` or
``.agents/plugins/marketplace.json``) lists plugins by ``source`` path.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deepnb.core.errors import DeepnbError
from deepnb.core.project import deepnb_home

__all__ = [
    "MARKETPLACES",
    "SUPPORTED",
    "Bundle",
    "installed",
    "is_bundle",
    "marketplace_plugins",
    "read_bundle",
]

MANIFESTS = (
    Path("plugin.json"),
    Path(".claude-plugin") / "plugin.json",
    Path(".codex-plugin") / "plugin.json",
)
MARKETPLACES = (
    Path(".claude-plugin") / "marketplace.json",
    Path(".agents") / "plugins" / "marketplace.json",
)
UNSUPPORTED_DIRS = ("agents", "commands")
"""Component folders dcode does not load either."""
SUPPORTED = (
    "deepnb loads a plugin's skills (skills/ or SKILL.md) and MCP servers (.mcp.json or "
    "mcpServers in its plugin.json), and Python extensions (a .py file, or a package folder, "
    "exposing extension(d))"
)
_TRANSPORTS = {
    "stdio": "stdio",
    "http": "streamable_http",
    "streamable-http": "streamable_http",
    "sse": "sse",
}
_STDIO_KEYS = frozenset({"type", "command", "args", "env", "cwd"})
_HTTP_KEYS = frozenset({"type", "url", "headers"})
_SAFE = re.compile(r"[^A-Za-z0-9_.-]+")


@dataclass(frozen=True)
class Bundle:
    """What a plugin folder holds, read as dcode reads it."""

    name: str
    plugin_id: str
    """``name@marketplace`` for a plugin dcode installed, else its ``name``."""
    root: Path
    version: str | None = None
    skills: tuple[Path, ...] = ()
    """Folders of skills (each skill a folder holding ``SKILL.md``)."""
    servers: Mapping[str, dict[str, Any]] = field(default_factory=dict)
    """MCP servers as deepnb's ``mcp_servers`` connections, by the name the plugin gives them."""
    not_loaded: tuple[str, ...] = ()
    """One line for each part deepnb does not load (hooks, agents/, commands/, a bad entry)."""

    @property
    def slug(self) -> str:
        """The plugin's name as a route segment and a server-name prefix."""
        return _SAFE.sub("-", self.name).strip("-.").lower() or "plugin"

    @property
    def loadable(self) -> bool:
        return bool(self.skills or self.servers)

    def found(self) -> str:
        """What the folder holds, for a refusal: ``hooks (hooks/hooks.json), commands/``."""
        parts = [f"skills ({self._rel(p)})" for p in self.skills]
        parts += [f"MCP server {name}" for name in self.servers]
        return ", ".join(parts + list(self.not_loaded)) or "no skills, MCP servers or hooks"

    def _rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix() if path.is_relative_to(self.root) else str(path)


def find_manifest(folder: Path) -> Path | None:
    for relative in MANIFESTS:
        if (folder / relative).is_file():
            return folder / relative
    return None


def is_bundle(folder: Path) -> bool:
    """Whether ``folder`` looks like a plugin folder of the released format (a manifest, or one
    of the default component paths)."""
    if find_manifest(folder) is not None:
        return True
    defaults = (folder / ".mcp.json", folder / "SKILL.md", folder / "hooks" / "hooks.json")
    return any(p.is_file() for p in defaults) or (folder / "skills").is_dir()


def _inside(root: Path, declared: Any, field_name: str, notes: list[str]) -> list[Path]:
    """dcode's ``./`` component paths of a manifest field, resolved inside ``root``."""
    raw = [declared] if isinstance(declared, str) else declared if isinstance(declared, list) else None
    if raw is None:
        notes.append(f"{field_name} in the manifest ignored: expected a './' path or a list of them")
        return []
    found = []
    for item in raw:
        if not isinstance(item, str) or not item.startswith("./") or item == "./":
            notes.append(f"{field_name} entry {item!r} ignored: it must be a './' path inside the plugin")
            continue
        relative = Path(item[2:])
        resolved = (root / relative).resolve()
        if ".." in relative.parts or relative.is_absolute() or not resolved.is_relative_to(root):
            notes.append(f"{field_name} entry {item!r} ignored: it leads outside the plugin folder")
            continue
        found.append(resolved)
    return found


def _server_map(raw: Any) -> dict[str, Any]:
    """Claude's ``{"mcpServers": {...}}``, Codex's ``{"mcp_servers": {...}}`` or a bare map."""
    if not isinstance(raw, dict):
        return {}
    for key in ("mcpServers", "mcp_servers"):
        if isinstance(raw.get(key), dict):
            return dict(raw[key])
    return dict(raw)


def _load_servers(path: Path, notes: list[str]) -> dict[str, Any]:
    if path.suffix in (".mcpb", ".dxt"):
        notes.append(f"MCP bundle {path.name} not loaded: deepnb (like dcode) runs no .mcpb/.dxt bundles")
        return {}
    try:
        return _server_map(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:
        notes.append(f"MCP servers of {path.name} not loaded: {exc}")
        return {}


def _substitute(value: Any, env: Mapping[str, str]) -> Any:
    if isinstance(value, str):
        for key, replacement in env.items():
            value = value.replace(f"${{{key}}}", replacement)
        return value
    if isinstance(value, list):
        return [_substitute(v, env) for v in value]
    if isinstance(value, dict):
        return {k: _substitute(v, env) for k, v in value.items()}
    return value


def _connection(name: str, server: Any, root: Path, env: Mapping[str, str]) -> dict[str, Any] | str:
    """A Claude-format server entry as a deepnb ``mcp_servers`` connection, or why it is not one."""
    if not isinstance(server, dict):
        return f"MCP server {name} not loaded: its entry is not a JSON object"
    kind = server.get("type") or ("stdio" if "command" in server else "http" if "url" in server else None)
    transport = _TRANSPORTS.get(str(kind))
    if transport is None:
        return f"MCP server {name} not loaded: type {kind!r} (deepnb loads stdio, http and sse servers)"
    allowed = _STDIO_KEYS if transport == "stdio" else _HTTP_KEYS
    extra = sorted(set(server) - allowed)
    if extra:
        return f"MCP server {name} not loaded: deepnb does not support its {', '.join(extra)}"
    entry = _substitute({k: v for k, v in server.items() if k != "type"}, env)
    connection: dict[str, Any] = {"transport": transport, **entry}
    if transport == "stdio":
        cwd = connection.get("cwd")
        if isinstance(cwd, str) and cwd and not Path(cwd).is_absolute():
            connection["cwd"] = str((root / cwd).resolve())
        own = connection.get("env")
        connection["env"] = {**env, **(own if isinstance(own, dict) else {})}
        connection.setdefault("args", [])
    return connection


def read_bundle(
    folder: Path,
    *,
    plugin_id: str | None = None,
    data_dir: Path | None = None,
    project_dir: Path | None = None,
) -> Bundle:
    """The plugin at ``folder`` as dcode reads it; a manifest that cannot be read raises
    :class:`DeepnbError` naming it."""
    root = folder.resolve()
    notes: list[str] = []
    manifest_path = find_manifest(root)
    raw: dict[str, Any] = {}
    if manifest_path is not None:
        try:
            loaded = json.loads(manifest_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise DeepnbError(f"Cannot read plugin manifest {manifest_path}: {exc}") from None
        if not isinstance(loaded, dict):
            raise DeepnbError(f"Plugin manifest {manifest_path} is not a JSON object.")
        raw = loaded
    declared = raw.get("name")
    name = (
        declared if isinstance(declared, str) and declared and not re.search(r"\s", declared) else root.name
    )
    version = raw.get("version") if isinstance(raw.get("version"), str) else None
    plugin_id = plugin_id or name
    data = data_dir or deepnb_home() / "plugins" / "data" / _SAFE.sub("-", plugin_id)
    env = {
        "CLAUDE_PLUGIN_ROOT": str(root),
        "CLAUDE_PLUGIN_DATA": str(data),
        "PLUGIN_ROOT": str(root),
        "PLUGIN_DATA": str(data),
    }
    if project_dir is not None:
        env["CLAUDE_PROJECT_DIR"] = str(project_dir)

    declared_skills = _inside(root, raw["skills"], "skills", notes) if "skills" in raw else []
    skills = [root / "skills"] if (root / "skills").is_dir() else []
    skills += [p for p in declared_skills if p.is_dir() or p.name == "SKILL.md"]
    if not skills and (root / "SKILL.md").is_file():
        skills = [root / "SKILL.md"]
    folders = tuple(dict.fromkeys(p.parent if p.name == "SKILL.md" else p for p in skills if p.exists()))

    mcp = raw.get("mcpServers")
    files = [root / ".mcp.json"] if (root / ".mcp.json").is_file() else []
    if mcp is not None and not isinstance(mcp, dict):
        files += [p for p in _inside(root, mcp, "mcpServers", notes) if p.is_file()]
    servers: dict[str, Any] = {}
    for path in files:
        servers.update(_load_servers(path, notes))
    if isinstance(mcp, dict):
        servers.update(_server_map(mcp))
    connections: dict[str, dict[str, Any]] = {}
    for server_name, server in servers.items():
        made = _connection(str(server_name), server, root, env)
        if isinstance(made, str):
            notes.append(made)
        else:
            connections[str(server_name)] = made

    hooks = [(root / "hooks" / "hooks.json")] if (root / "hooks" / "hooks.json").is_file() else []
    declared_hooks = raw.get("hooks")
    if isinstance(declared_hooks, dict) and declared_hooks:
        hooks.append(manifest_path or root)
    elif declared_hooks is not None:
        hooks += _inside(root, declared_hooks, "hooks", notes)
    if hooks:
        where = ", ".join(dict.fromkeys(p.relative_to(root).as_posix() for p in hooks))
        notes.append(f"hooks ({where}) not loaded: deepnb does not run Deep Agents Code's hooks")
    notes += [
        f"{d}/ not loaded (Deep Agents Code does not load a plugin's {d}/ either)"
        for d in UNSUPPORTED_DIRS
        if (root / d).is_dir()
    ]
    return Bundle(name, plugin_id, root, version, folders, connections, tuple(notes))


# -- dcode's marketplaces and installed plugins ---------------------------------------------------


def dcode_home() -> Path:
    """Deep Agents Code's folder, ``~/.deepagents``."""
    return Path.home() / ".deepagents"


def _plugin_storage() -> Path:
    raw = os.environ.get("DEEPAGENTS_CODE_PLUGIN_CACHE_DIR")
    return Path(raw).expanduser() if raw else dcode_home() / "plugins"


def dcode_cache() -> Path:
    """Where ``dcode plugin install`` copies plugins."""
    return _plugin_storage() / "cache"


def dcode_data_dir(plugin_id: str) -> Path:
    """The data folder dcode gives an installed plugin (``plugins/data/<id>-<sha256[:32]>``)."""
    slug = "".join(c if c.isascii() and (c.isalnum() or c in "_-") else "-" for c in plugin_id)
    slug = slug.strip("-")[:48] or "plugin"
    return _plugin_storage() / "data" / f"{slug}-{hashlib.sha256(plugin_id.encode()).hexdigest()[:32]}"


def _state(name: str) -> dict[str, Any]:
    path = dcode_home() / ".state" / name
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise DeepnbError(f"Cannot read Deep Agents Code's {path}: {exc}") from None
    return data if isinstance(data, dict) else {}


def installed() -> dict[str, Path]:
    """The plugins Deep Agents Code installed: ``name@marketplace`` → its installed copy."""
    plugins = _state("installed_plugins.json").get("plugins")
    found = {}
    for plugin_id, entries in (plugins if isinstance(plugins, dict) else {}).items():
        for entry in entries if isinstance(entries, list) else []:
            path = entry.get("installPath") or entry.get("install_path") if isinstance(entry, dict) else None
            if isinstance(path, str) and path:
                found[str(plugin_id)] = Path(path)
                break
    return found


def enabled() -> frozenset[str]:
    """The installed plugins enabled in Deep Agents Code."""
    flags = _state("plugin_state.json").get("enabledPlugins")
    return frozenset(k for k, v in (flags if isinstance(flags, dict) else {}).items() if v is True)


def installed_plugin(plugin_id: str) -> Path:
    """The installed copy of ``name@marketplace``, or one line saying what is installed."""
    copies = installed()
    if plugin_id not in copies:
        known = ", ".join(sorted(copies)) or "none"
        raise DeepnbError(
            f"Deep Agents Code has no installed plugin {plugin_id!r} in {dcode_home()} (installed: {known}): "
            "install it with dcode plugin install NAME@MARKETPLACE, or name its folder."
        )
    if not copies[plugin_id].is_dir():
        raise DeepnbError(
            f"Plugin {plugin_id} is recorded as installed at {copies[plugin_id]}, which is not a folder: "
            "run dcode plugin install again."
        )
    return copies[plugin_id]


def find_marketplace(folder: Path) -> Path | None:
    for relative in MARKETPLACES:
        if (folder / relative).is_file():
            return folder / relative
    return None


def marketplace_plugins(folder: Path) -> tuple[str, list[tuple[str, Path | None, str]]]:
    """A marketplace folder's name and its plugins: ``(name, folder or None, why not)`` each; a
    plugin whose source is not a local folder (GitHub, Git, URL) has ``None`` and why."""
    path = find_marketplace(folder)
    if path is None:
        raise DeepnbError(f"{folder} holds no marketplace.json.")
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DeepnbError(f"Cannot read marketplace {path}: {exc}") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("plugins"), list):
        raise DeepnbError(f"Marketplace {path} has no plugins list.")
    name = raw.get("name") if isinstance(raw.get("name"), str) else folder.name
    base = folder.resolve()
    found: list[tuple[str, Path | None, str]] = []
    for entry in raw["plugins"]:
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            continue
        source = entry.get("source")
        if isinstance(source, dict) and source.get("source") in ("local", "directory"):
            source = source.get("path")
        if (
            isinstance(source, str)
            and not source.startswith(("http:", "https:", "git@"))
            and ":" not in source
        ):
            where = (base / source).resolve()
            ok = where.is_relative_to(base) and where.is_dir()
            found.append(
                (entry["name"], where if ok else None, "" if ok else f"its source {source!r} is not a folder")
            )
        else:
            found.append((entry["name"], None, "its source is remote: install it with dcode plugin install"))
    return str(name), found
