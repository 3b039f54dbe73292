"""Where extensions come from: a path you name, the ``deepnb.extensions`` entry points,
``~/.deepnb/extensions/``, and a trusted project's ``.deepnb/extensions/``; and importing one."""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import importlib.util
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from deepnb.errors import DeepnbError
from deepnb.extensions.api import ExtensionAPI, ExtensionError, ExtensionMode
from deepnb.extensions.registry import Failure, Source
from deepnb.project import deepnb_home
from deepnb.trust import is_trusted as is_trusted  # the trust record lives in deepnb.trust
from deepnb.trust import revoke as revoke
from deepnb.trust import trust as trust

ENTRY_POINT_GROUP = "deepnb.extensions"
ENTRY_FILES = ("__init__.py", "extension.py")
"""A folder holding one of these is one (package) extension."""


def user_dir() -> Path:
    return deepnb_home() / "extensions"


def project_dir(root: Path) -> Path:
    return root / ".deepnb" / "extensions"


# -- finding sources --------------------------------------------------------------------------


def _entry(entry: Path, origin: str) -> Source | None:
    if entry.is_file() and entry.suffix == ".py":
        return Source(entry.resolve(), origin)
    for name in ENTRY_FILES:
        if (entry / name).is_file():
            return Source((entry / name).resolve(), origin, package=True)
    return None


def scan(directory: Path, origin: str) -> list[Source]:
    """A folder's extensions, shallowly: each ``*.py`` file, and each subfolder holding
    ``__init__.py`` or ``extension.py`` (Deep Agents Code's rule)."""
    try:
        entries = sorted(directory.iterdir())
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as exc:
        raise DeepnbError(f"Cannot read extension folder {directory}: {exc}") from None
    return [s for s in (_entry(e, origin) for e in entries if not e.name.startswith((".", "_"))) if s]


def explicit(path: str | Path) -> list[Source]:
    """The extensions at a path you named: a ``.py`` file, a package folder (with
    ``__init__.py`` or ``extension.py``), or a folder of extensions."""
    target = Path(path).expanduser()
    if target.is_file() and target.suffix == ".py":
        return [Source(target.resolve(), "notebook")]
    if target.is_dir():
        package = _entry(target, "notebook")
        return [package] if package else scan(target, "notebook")
    raise DeepnbError(f"No extension at {str(path)!r}: give a .py file or a folder of extensions.")


def entry_points() -> list[Source]:
    """Installed packages' ``deepnb.extensions`` entry points (``name = "module"`` or
    ``"module:factory"``), by name."""
    found = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
    sources = []
    for entry in sorted(found, key=lambda e: (e.name, e.value)):
        module = entry.value.partition(":")[0].strip()
        spec = importlib.util.find_spec(module) if module else None
        origin = Path(spec.origin) if spec is not None and spec.origin else Path(module or entry.name)
        package = spec is not None and spec.submodule_search_locations is not None
        sources.append(Source(origin, "entry point", package, f"{entry.name} = {entry.value}"))
    return sources


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
        __all__=["ExtensionAPI", "ExtensionMode"],
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
    """Import a source and return its ``extension`` function (or raise ``ExtensionError``)."""
    if source.entry_point:
        value = source.entry_point.split("=", 1)[1].strip()
        try:
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
        submodule_search_locations=[str(source.path.parent)] if source.package else None,
    )
    if spec is None or spec.loader is None:
        raise ExtensionError(f"Cannot import {source.path}.")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
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
