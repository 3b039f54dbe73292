"""Extensions: Python files exposing ``async def extension(d)`` that give every agent deepnb
builds more tools, middleware and backend routes, with shutdown callbacks — the shape of the
extension API on Deep Agents Code's development branches (no release has it yet); and plugin
folders as released Deep Agents Code has them (Claude's format), whose skills and MCP servers
agents get (:mod:`deepnb.extensions.bundles`). The deepagents SDK's harness-profile entry points,
which deepagents applies itself, are listed beside them (:mod:`deepnb.extensions.harness`).

Sources, in load order: ``~/.deepnb/extensions/`` (``$DEEPNB_HOME/extensions``), the
``deepnb.extensions`` entry points, the project's ``.deepnb/extensions/`` then
``.deepagents/extensions/`` (Deep Agents Code's) once you ran ``%deepagent trust``, and what
``%deepagent extension`` names: a path, a marketplace folder, or ``NAME@MARKETPLACE`` of a plugin
dcode installed. A plugin folder loads the Python entries its manifest names and its skills and
MCP servers. The automatic ones load when the first agent is built (``DEEPNB_EXTENSIONS=0`` turns
them off). What cannot load is listed with why, never dropped in silence.
"""

from __future__ import annotations

import asyncio
import atexit
import inspect
import os
import sys
from pathlib import Path
from typing import Any

from deepnb.core.failures import EngineAbort
from deepnb.core.loop import engine_running, in_engine_thread, run_sync
from deepnb.core.project import project_root
from deepnb.extensions import discovery
from deepnb.extensions.api import CommandContext, ExtensionAPI, ExtensionError, ExtensionMode
from deepnb.extensions.registry import REGISTRY, Failure, Registration, Source
from deepnb.extensions.report import Listing

__all__ = [
    "CommandContext",
    "ExtensionAPI",
    "ExtensionError",
    "ExtensionMode",
    "commands",
    "ensure_loaded",
    "listing",
    "load",
    "load_deployed",
    "run_command",
    "shutdown",
    "trust",
]


_at_exit: list[Any] = []


def _has_ui() -> bool:
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return getattr(shell, "kernel", None) is not None


async def _setup(factory: Any, api: ExtensionAPI) -> None:
    """Run ``extension(d)`` (async or not) on the engine loop. An exit it attempts becomes an
    error here: let through, it would stop the loop every run streams on."""
    try:
        result = factory(api)
        if inspect.isawaitable(result):
            await result
    except (SystemExit, KeyboardInterrupt) as exc:
        raise ExtensionError(
            f"Extension {api.source.label} attempted to exit ({type(exc).__name__}: {exc})."
        ) from None


def _load_one(source: Source) -> bool:
    """Import and set up one extension, all or nothing; a failure is recorded, not raised."""

    for line in _unload(source.key):
        print(f"deepnb: {line}", file=sys.stderr)
    api = ExtensionAPI(source, cwd=Path.cwd(), has_ui=_has_ui())
    if source.problem:  # a plugin manifest's mistake: nothing to import
        api.deactivate()
        with REGISTRY.lock:
            REGISTRY.failures[source.key] = Failure(source, source.problem)
        return False
    try:
        with discovery.deepagents_code_names():
            factory = discovery.import_factory(source)
            run_sync(_setup(factory, api))
    except (Exception, SystemExit, KeyboardInterrupt) as exc:
        api.deactivate()
        with REGISTRY.lock:
            REGISTRY.failures[source.key] = discovery.failure(source, exc)
            REGISTRY.ignored = [(k, n) for k, n in REGISTRY.ignored if k != source.key]
        if isinstance(exc, KeyboardInterrupt):
            raise
        return False
    with REGISTRY.lock:
        api.commit()
        REGISTRY.loaded[source.key] = api
    return True


def _unload(key: str) -> list[str]:
    """Drop a loaded source (to load it again): its shutdown hooks run first."""
    dropped = REGISTRY.drop(key)
    return _run_hooks([r for r in dropped if r.kind == "shutdown"])


def _automatic_sources() -> list[Source]:

    sources = discovery.scan(discovery.user_dir(), "user")
    sources += discovery.entry_points()
    root = project_root()
    trusted: bool | None = None  # read once, and only for a project that has extensions
    for folder in discovery.project_dirs(root):
        found = discovery.scan(folder, "project")
        if not found:
            continue
        if trusted is None:
            trusted = discovery.is_trusted(root)
        if trusted:
            sources += found
        else:
            _list_untrusted(folder)
    unique: dict[str, Source] = {}
    for source in sources:
        unique.setdefault(source.key, source)
    return list(unique.values())


def _list_untrusted(folder: Path) -> None:
    """Show ``folder``'s extensions in the listing as not trusted (never imported)."""
    with REGISTRY.lock:
        if folder not in REGISTRY.untrusted:
            REGISTRY.untrusted.append(folder)


def ensure_loaded() -> None:
    """Load the automatic sources once per kernel (or after ``shutdown()``)."""
    with REGISTRY.lock:
        if REGISTRY.discovered:
            return
        REGISTRY.discovered = True
    if not _at_exit:
        _at_exit.append(atexit.register(shutdown))
    if os.environ.get("DEEPNB_EXTENSIONS", "").strip().lower() in ("0", "false", "no", "off"):
        return
    for source in _automatic_sources():
        if source.key not in REGISTRY.loaded:
            _load_one(source)


def load(path: str | Path) -> list[tuple[Source, str | None]]:
    """Load the extension(s) at ``path`` — a file, a package folder or a folder of them — again
    if already loaded; each comes back with ``None`` or its error."""

    ensure_loaded()
    results = []
    for source in discovery.explicit(path):
        ok = _load_one(source)
        results.append((source, None if ok else REGISTRY.failures[source.key].error))
    return results


def load_deployed(sources: list[Source]) -> None:
    """Load exactly ``sources``, a deployment's extensions (:mod:`deepnb.ship.deploy`), and none of
    the automatic ones: an Agent Server serves what was deployed, whatever its own machine has.
    The first that does not load raises ``ExtensionError`` naming it."""
    with REGISTRY.lock:
        REGISTRY.discovered = True
    for source in sources:
        if source.key not in REGISTRY.loaded and not _load_one(source):
            raise ExtensionError(
                f"Deployed extension {source.label} did not load: {REGISTRY.failures[source.key].error}"
            )


def trust(path: str | Path | None = None) -> tuple[Path, list[tuple[Source, str | None]]]:
    """Trust a project (the current one by default) and load its ``.deepnb/extensions/`` and
    ``.deepagents/extensions/``."""

    root = discovery.trust(Path(path).expanduser() if path else project_root())
    ensure_loaded()
    folders = {folder.resolve() for folder in discovery.project_dirs(root)}
    with REGISTRY.lock:
        REGISTRY.untrusted = [f for f in REGISTRY.untrusted if f.resolve() not in folders]
    results = []
    for folder in discovery.project_dirs(root):
        for source in discovery.scan(folder, "project"):
            if source.key not in REGISTRY.loaded:
                ok = _load_one(source)
                results.append((source, None if ok else REGISTRY.failures[source.key].error))
    return root, results


def revoke_trust(path: str | Path | None = None) -> tuple[Path, bool, list[str], list[str]]:
    """Stop trusting a project (the current one by default): its ``.deepnb/extensions/`` and
    ``.deepagents/extensions/`` no longer load, and those loaded now are unloaded (their
    shutdown callbacks run). Returns the project, whether it was trusted, the labels of the
    extensions unloaded, and any errors of their shutdown callbacks."""

    root = (Path(path).expanduser() if path else project_root()).resolve()
    was_trusted = discovery.revoke(root)
    unloaded, errors = [], []
    for folder in discovery.project_dirs(root):
        found = discovery.scan(folder, "project")
        for source in found:
            if source.key in REGISTRY.loaded:
                errors += _unload(source.key)
                if source.label not in unloaded:
                    unloaded.append(source.label)
        if found:
            _list_untrusted(folder)
    return root, was_trusted, unloaded, errors


def listing() -> Any:
    """What is registered, from where, what failed, and which agents need ``%deepagent reload``."""

    ensure_loaded()
    return Listing.collect()


def _run_hooks(hooks: list[Registration]) -> list[str]:
    """Call shutdown hooks, last registered first; errors come back as lines, never raised."""

    errors = []
    for hook in reversed(hooks):
        try:
            result = hook.unit()
            if inspect.isawaitable(result):
                if engine_running() and not in_engine_thread():
                    run_sync(_awaited(result), timeout=30)
                else:
                    asyncio.run(_awaited(result))
        except BaseException as exc:  # SystemExit & co. included: every other hook still runs
            if isinstance(exc, EngineAbort):  # an async hook's exit, as run_sync hands it back
                exc = exc.original
            errors.append(f"shutdown callback of {hook.source.label} failed: {type(exc).__name__}: {exc}")
    return errors


async def _awaited(result: Any) -> Any:
    return await result


def shutdown() -> list[str]:
    """Run every shutdown callback once and forget all extensions (``%unload_ext deepnb`` and
    kernel exit). Errors are printed to stderr and returned, not raised."""
    with REGISTRY.lock:
        hooks = REGISTRY.of_kind("shutdown")
        for api in REGISTRY.loaded.values():
            api.deactivate()
        REGISTRY.reset()
    errors = _run_hooks(hooks)
    for line in errors:
        print(f"deepnb: {line}", file=sys.stderr)
    return errors


def commands() -> dict[str, str]:
    """The registered ``/name`` commands and their descriptions, in load order."""
    ensure_loaded()
    return {r.name: r.unit.description for r in REGISTRY.of_kind("command")}


def run_command(name: str, args: str = "") -> str | None:
    """Run the extension command ``/name`` with the text after it (``%deepagent /name ARGS``);
    return what it says. An async handler runs on the engine loop; a failure is one line."""
    ensure_loaded()
    wanted = name.lstrip("/")
    found = next((r for r in REGISTRY.of_kind("command") if r.name == wanted), None)
    if found is None:
        known = ", ".join(f"/{n}" for n in commands()) or "none is registered"
        raise ExtensionError(f"No extension command /{wanted} ({known}): %deepagent extensions lists them.")
    context = CommandContext(args=args, cwd=Path.cwd(), mode=str(ExtensionMode.NOTEBOOK))
    try:
        result = found.unit.handler(context)
        if inspect.isawaitable(result):
            result = run_sync(_awaited(result), timeout=None)
    except Exception as exc:  # an exit an async handler attempts comes back as an EngineAbort
        cause: BaseException = exc.original if isinstance(exc, EngineAbort) else exc
        what = f"{type(cause).__name__}: {cause}"
        raise ExtensionError(f"/{wanted} of {found.source.label} failed: {what}") from None
    return None if result is None else str(result)
