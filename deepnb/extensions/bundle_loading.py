"""Loading a plugin folder of the released Deep Agents Code format
(:mod:`deepnb.extensions.bundles`) as one extension: its skills folders mounted read-only at
``/plugins/NAME/skills/`` and given to agents as skills sources, its MCP servers given to every
agent deepnb builds, and one note for each part it does not load. No code of the plugin is
imported: its MCP servers start when an agent is built, as any ``mcp_servers`` entry does."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from deepnb.core.project import project_root
from deepnb.extensions.api import ExtensionAPI
from deepnb.extensions.bundles import SUPPORTED, Bundle, dcode_cache, dcode_data_dir, read_bundle
from deepnb.extensions.registry import REGISTRY, Source
from deepnb.extensions.rules import ExtensionError

__all__ = ["factory", "refusal", "route_of"]

_SEGMENT = re.compile(r"[^a-z0-9_-]+")


def route_of(bundle: Bundle, index: int) -> str:
    """Where the plugin's ``index``-th skills folder is mounted: ``/plugins/notes-kit/skills/``
    (then ``skills-2/``, …)."""
    slug = _SEGMENT.sub("-", bundle.name.lower()).strip("-_") or "plugin"
    return f"/plugins/{slug}/skills/" if index == 0 else f"/plugins/{slug}/skills-{index + 1}/"


def server_name(bundle: Bundle, server: str) -> str:
    """The ``mcp_servers`` name of a plugin's server: ``notes-kit.shout``."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", f"{bundle.name}.{server}")


def refusal(bundle: Bundle) -> str:
    """One line for a plugin with nothing deepnb loads: what it holds, and what is supported."""
    return f"Plugin {bundle.plugin_id} has nothing deepnb can load: it holds {bundle.found()}; {SUPPORTED}."


@functools.cache
def _read_only() -> type:
    """A ``FilesystemBackend`` whose writes, edits, uploads and deletes are refused: a plugin's
    skills are the plugin's, not the agent's to change."""
    # lazy: deepagents is heavy to import
    from deepagents.backends import FilesystemBackend  # noqa: PLC0415
    from deepagents.backends.protocol import (  # noqa: PLC0415
        DeleteResult,
        EditResult,
        FileUploadResponse,
        WriteResult,
    )

    said = "read-only: a plugin's skills are not the agent's to change"

    class ReadOnlyFilesystemBackend(FilesystemBackend):
        def write(self, file_path: str, *args: Any, **kwargs: Any) -> Any:
            return WriteResult(error=f"{file_path} is {said}")

        def edit(self, file_path: str, *args: Any, **kwargs: Any) -> Any:
            return EditResult(error=f"{file_path} is {said}")

        def delete(self, file_path: str, *args: Any, **kwargs: Any) -> Any:
            return DeleteResult(error=f"{file_path} is {said}")

        def upload_files(self, files: list[tuple[str, bytes]]) -> list[Any]:
            return [FileUploadResponse(path=path, error="permission_denied") for path, _ in files]

    return ReadOnlyFilesystemBackend


def read_only_folder(folder: Path) -> Any:
    """``folder`` as a read-only backend (its files at ``/`` of the route it is mounted at)."""
    return _read_only()(root_dir=folder, virtual_mode=True)


def one_skill(folder: Path, name: str) -> Any:
    """A plugin whose root is its one skill, as a skills folder: the root shown as ``/NAME/``
    (where the agent's skills middleware looks for ``NAME/SKILL.md``), read-only."""
    from deepagents.backends import CompositeBackend  # noqa: PLC0415  # lazy: deepagents is heavy

    return CompositeBackend(read_only_folder(folder), {f"/{name}/": read_only_folder(folder)})


def _skill_name(folder: Path) -> str | None:
    """The ``name`` of ``folder/SKILL.md``'s front matter, if it is a plain one (the skills
    middleware wants a skill's folder named as the skill)."""
    try:
        head = (folder / "SKILL.md").read_text(encoding="utf-8")[:4000]
    except (OSError, UnicodeDecodeError):
        return None
    found = re.search(
        r"^---\s*\n(?:.*\n)*?name:\s*['\"]?([a-z0-9][a-z0-9_-]{0,63})['\"]?\s*$", head, re.MULTILINE
    )
    return found.group(1) if found else None


def _data_dir(source: Source) -> Path | None:
    """A plugin dcode installed (its copy in dcode's cache) keeps the data folder dcode gives it;
    any other plugin folder gets one of deepnb's (``None``)."""
    if source.bundle and "@" in source.bundle and source.path.is_relative_to(dcode_cache().resolve()):
        return dcode_data_dir(source.bundle)
    return None


def factory(source: Source) -> Callable[[ExtensionAPI], None]:
    """The ``extension(d)`` that loads the plugin folder ``source.path``."""

    def extension(api: ExtensionAPI) -> None:
        bundle = read_bundle(
            source.path, plugin_id=source.bundle, data_dir=_data_dir(source), project_dir=project_root()
        )
        if not bundle.loadable:
            raise ExtensionError(refusal(bundle))
        if bundle.servers:  # the folder dcode substitutes as ${CLAUDE_PLUGIN_DATA}, made as dcode makes it
            data = bundle.servers[next(iter(bundle.servers))].get("env", {}).get("CLAUDE_PLUGIN_DATA")
            if data:
                Path(data).mkdir(parents=True, exist_ok=True)
        for index, folder in enumerate(bundle.skills):
            prefix = route_of(bundle, index)
            if folder == bundle.root:  # one SKILL.md at the plugin's root: the folder is the skill
                api.register_backend_route(
                    prefix, one_skill(folder, _skill_name(folder) or prefix.split("/")[2])
                )
            else:
                api.register_backend_route(prefix, read_only_folder(folder))
            api._add("skills", prefix, prefix)
        for name, connection in bundle.servers.items():
            api._add("mcp_server", server_name(bundle, name), connection)
        with REGISTRY.lock:
            REGISTRY.ignored += [
                (source.key, f"plugin {bundle.plugin_id}: {line}") for line in bundle.not_loaded
            ]

    return extension
