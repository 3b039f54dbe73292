"""Where extensions come from: a path you name, the ``deepnb.extensions`` and Deep Agents Code's
``dcode.extensions`` entry points,
``~/.deepnb/extensions/``, and a trusted project's ``.deepnb/extensions/`` and
``.deepagents/extensions/`` (Deep Agents Code's folder); and importing one. A plugin folder (a
``plugin.json`` manifest, or ``skills/``, ``.mcp.json``) in any of them loads the Python entries
its manifest names (:mod:`deepnb.extensions.plugins`) and its skills and MCP servers
(:mod:`deepnb.extensions.bundles`); a marketplace folder, or ``NAME@MARKETPLACE`` of a plugin Deep
Agents Code installed, loads those plugins. A folder with nothing to load is refused, saying what
it holds.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import importlib.util
import re
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from deepnb.core.errors import DeepnbError
from deepnb.core.project import deepnb_home
from deepnb.core.trust import is_trusted as is_trusted  # the trust record lives in deepnb.core.trust
from deepnb.core.trust import revoke as revoke
from deepnb.core.trust import trust as trust
from deepnb.extensions import bundle_loading, bundles, plugins
from deepnb.extensions.annotations import lazy_annotations, loader_for
from deepnb.extensions.api import CommandContext, ExtensionAPI, ExtensionError, ExtensionMode
from deepnb.extensions.registry import Failure, Source

ENTRY_POINT_GROUPS = ("deepnb.extensions", "dcode.extensions")
"""deepnb's entry-point group, and Deep Agents Code's: a package made for either loads here."""
ENTRY_POINT_GROUP = ENTRY_POINT_GROUPS[0]
ENTRY_FILES = ("__init__.py", "extension.py")
"""A folder holding one of these is one (package) extension."""


def user_dir() -> Path:
    return deepnb_home() / "extensions"


def project_dirs(root: Path) -> tuple[Path, ...]:
    """A project's extension folders, in load order: deepnb's own, then Deep Agents Code's."""
    return (root / ".deepnb" / "extensions", root / ".deepagents" / "extensions")


# -- finding sources --------------------------------------------------------------------------


def _entry(entry: Path, origin: str) -> list[Source] | None:
    """The extension(s) ``entry`` is: a ``.py`` file, a plugin folder's entries, or a package
    folder; ``None`` if it is none of these."""
    if entry.is_file() and entry.suffix == ".py":
        return [Source(entry.resolve(), origin)]
    if not entry.is_dir():
        return None
    manifest = plugins.find_manifest(entry)
    if manifest is not None:
        plugin = plugins.read_plugin(entry, manifest)
        found = [
            Source(path, origin, package=path.name == "__init__.py", plugin=plugin.name)
            for path in plugin.entries
        ]
        if plugin.problem:
            found.append(Source(manifest.resolve(), origin, plugin=plugin.name, problem=plugin.problem))
        return found + _bundle(entry, origin, found)
    for name in ENTRY_FILES:
        if (entry / name).is_file():
            return [Source((entry / name).resolve(), origin, package=True)]
    if bundles.is_bundle(entry):  # a plugin folder without a manifest (skills/, .mcp.json, …)
        return _bundle(entry, origin, [])
    return None


def _bundle(folder: Path, origin: str, python: list[Source], plugin_id: str | None = None) -> list[Source]:
    """The plugin folder's skills and MCP servers (released Deep Agents Code's format) as one
    source, when it has any, or when it has nothing else deepnb loads (then it fails, saying
    what it found)."""
    try:
        bundle = bundles.read_bundle(folder, plugin_id=plugin_id)
    except DeepnbError as exc:  # an unreadable manifest: its Python entries said so already
        return [] if python else [Source(folder.resolve(), origin, plugin=folder.name, problem=str(exc))]
    if python and not bundle.loadable:
        return []
    return [Source(bundle.root, origin, plugin=bundle.name, bundle=bundle.plugin_id)]


def scan(directory: Path, origin: str) -> list[Source]:
    """A folder's extensions, shallowly: each ``*.py`` file, each plugin folder's entries, and
    each subfolder holding ``__init__.py`` or ``extension.py`` (Deep Agents Code's rule)."""
    try:
        entries = sorted(directory.iterdir())
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as exc:
        raise DeepnbError(f"Cannot read extension folder {directory}: {exc}") from None
    found = (_entry(e, origin) for e in entries if not e.name.startswith((".", "_")))
    return [source for sources in found if sources for source in sources]


def explicit(path: str | Path) -> list[Source]:
    """The extensions at a path you named: a ``.py`` file, a plugin folder, a package folder
    (with ``__init__.py`` or ``extension.py``), or a folder of extensions."""
    target = Path(path).expanduser()
    if target.is_file() and target.suffix == ".py":
        return [Source(target.resolve(), "notebook", plugin=_plugin_of(target.resolve()))]
    if target.is_dir():
        found = _entry(target, "notebook")
        if found is None and bundles.find_marketplace(target) is not None:
            found = _marketplace(target)
        if found is None:
            found = scan(target, "notebook")
        if not found:
            raise DeepnbError(_nothing_at(target))
        return found
    if PLUGIN_ID.fullmatch(str(path)):  # a plugin Deep Agents Code installed: name@marketplace
        root = bundles.installed_plugin(str(path))
        return _bundle(root, "notebook", [], plugin_id=str(path))
    raise DeepnbError(
        f"No extension at {str(path)!r}: give a .py file, a folder of extensions, a plugin or "
        "marketplace folder, or NAME@MARKETPLACE of a plugin Deep Agents Code installed."
    )


PLUGIN_ID = re.compile(r"[^\s@/]+@[^\s@/]+")
"""``name@marketplace``: how Deep Agents Code names an installed plugin."""


def _marketplace(folder: Path) -> list[Source]:
    """Each plugin a marketplace folder lists by a local path, as ``name@marketplace``; one whose
    source is remote fails, saying so."""
    name, listed = bundles.marketplace_plugins(folder)
    found = []
    for plugin, root, why in listed:
        if root is None:
            found.append(
                Source(
                    folder.resolve() / plugin,
                    "notebook",
                    plugin=plugin,
                    problem=(
                        f"Plugin {plugin}@{name} not loaded: {why}; deepnb loads plugins from a local folder."
                    ),
                )
            )
        else:
            found += _bundle(root, "notebook", [], plugin_id=f"{plugin}@{name}")
    return found


def _nothing_at(folder: Path) -> str:
    """One line for a folder with nothing deepnb loads: what it holds, what is supported."""
    try:
        names = sorted(p.name + ("/" if p.is_dir() else "") for p in folder.iterdir())
    except OSError as exc:
        return f"Cannot read {folder}: {exc}"
    shown = ", ".join(names[:8]) + (f", … ({len(names)} in all)" if len(names) > 8 else "")
    return (
        f"Nothing deepnb can load in {folder}: it holds {shown or 'nothing'} (no .py file, package, "
        f"plugin manifest, skills/, .mcp.json or marketplace.json); {bundles.SUPPORTED}."
    )


def _plugin_of(entry: Path, *, levels: int = 4) -> str | None:
    """The name of the plugin whose manifest lists ``entry`` (a file you named inside a plugin
    folder keeps the plugin's label), looking a few folders up."""
    for folder in list(entry.parents)[:levels]:
        manifest = plugins.find_manifest(folder)
        if manifest is not None:
            plugin = plugins.read_plugin(folder, manifest)
            return plugin.name if entry in plugin.entries else None
    return None


def entry_points() -> list[Source]:
    """Installed packages' ``deepnb.extensions`` and ``dcode.extensions`` entry points
    (``name = "module"`` or ``"module:factory"``), by group then name; one that both groups
    name the same way loads once."""
    sources, seen = [], set()
    for group in ENTRY_POINT_GROUPS:
        found = importlib.metadata.entry_points(group=group)
        for entry in sorted(found, key=lambda e: (e.name, e.value)):
            if (entry.name, entry.value) in seen:
                continue
            seen.add((entry.name, entry.value))
            module = entry.value.partition(":")[0].strip()
            spec = _find_spec(module)
            origin = Path(spec.origin) if spec is not None and spec.origin else Path(module or entry.name)
            package = spec is not None and spec.submodule_search_locations is not None
            label = "entry point" if group == ENTRY_POINT_GROUP else f"entry point ({group})"
            sources.append(Source(origin, label, package, f"{entry.name} = {entry.value}"))
    return sources


def _find_spec(module: str) -> Any:
    """The module's spec without importing it (``None`` where it, or its parent, is missing)."""
    if not module:
        return None
    try:
        return importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None


# -- importing ----------------------------------------------------------------------------------


@contextlib.contextmanager
def deepagents_code_names() -> Iterator[None]:
    """Let ``from deepagents_code.extensions import ExtensionAPI`` work while an extension
    written for Deep Agents Code loads, when that package is not installed."""
    if "deepagents_code" in sys.modules or importlib.util.find_spec("deepagents_code") is not None:
        yield
        return
    package = types.ModuleType("deepagents_code")
    package.__path__ = []
    module = types.ModuleType("deepagents_code.extensions")
    module.__dict__.update(
        ExtensionAPI=ExtensionAPI,
        ExtensionMode=ExtensionMode,
        ExtensionError=ExtensionError,
        CommandContext=CommandContext,
        __all__=["CommandContext", "ExtensionAPI", "ExtensionMode"],
    )
    package.__dict__["extensions"] = module
    sys.modules.update({"deepagents_code": package, "deepagents_code.extensions": module})
    try:
        yield
    finally:
        for name in ("deepagents_code.extensions", "deepagents_code"):
            if sys.modules.get(name) in (package, module):
                del sys.modules[name]


def _module_name(path: Path) -> str:
    return f"deepnb_extension_{hashlib.sha256(str(path).encode()).hexdigest()[:16]}"


def import_factory(source: Source) -> Callable[[ExtensionAPI], Any]:
    """Import a source and return its ``extension`` function (or raise ``ExtensionError``); a
    plugin folder of the released format imports nothing (:mod:`deepnb.extensions.bundle_loading`)."""
    if source.bundle:
        return bundle_loading.factory(source)
    if source.entry_point:
        value = source.entry_point.split("=", 1)[1].strip()
        try:
            with lazy_annotations(value.partition(":")[0].strip().split(".")[0]):
                target = importlib.metadata.EntryPoint(source.label, value, ENTRY_POINT_GROUP).load()
        except Exception as exc:
            raise ExtensionError(
                f"Failed to import entry point {value}: {type(exc).__name__}: {exc}"
            ) from exc
        factory: Callable[[ExtensionAPI], Any] | None = (
            getattr(target, "extension", None) if isinstance(target, types.ModuleType) else target
        )
        if not callable(factory):
            raise ExtensionError(f"Entry point {value} has no callable 'extension' function.")
        return factory
    name = _module_name(source.path)
    spec = importlib.util.spec_from_file_location(
        name,
        source.path,
        loader=loader_for(name, str(source.path)),
        submodule_search_locations=[str(source.path.parent)] if source.package else None,
    )
    if spec is None or spec.loader is None:
        raise ExtensionError(f"Cannot import {source.path}.")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        with lazy_annotations(name):  # a package's own modules too
            spec.loader.exec_module(module)
    except (Exception, SystemExit) as exc:
        sys.modules.pop(name, None)
        raise ExtensionError(f"Failed to import {source.path}: {type(exc).__name__}: {exc}") from exc
    defined: Callable[[ExtensionAPI], Any] | None = getattr(module, "extension", None)
    if not callable(defined):
        sys.modules.pop(name, None)
        raise ExtensionError(f"{source.path} does not define an 'extension(d)' function.")
    return defined


def failure(source: Source, exc: BaseException) -> Failure:
    message = str(exc) if isinstance(exc, ExtensionError) else f"{type(exc).__name__}: {exc}"
    return Failure(source, message)
