"""Deploying the project's agents as a LangGraph Agent Server app (``deepnb.deploy``).

A deployment is a folder that ``langgraph dev`` serves as it is and ``langgraph build`` accepts:

    langgraph.json        graphs named after the agents, and the dependencies to install
    deepnb_app.py         the module the graphs point at (generated: deploy again, don't edit)
    deepnb_agents.json    the agents' tables from deepnb.toml, with paths rewritten into the folder
    project/...           copies of what the tables name on disk (scripted: scripts, disk
                          backends' folders), at their paths in the project; served on this
                          machine (``in_place``), a disk backend works on its folder itself
    mytools.py, ...       the project's own modules that ``module:attr`` references import
    extensions/...        copies of the extensions loaded in the kernel (its agents take them):
                          files, package and plugin folders; entry points are named, not copied
    deepnb_written.json   every entry deepnb wrote there: what ``force`` deletes, and nothing else

Everything is written through :class:`~deepnb.ship.real_folders.Folder` (never through a link) and
copied by :class:`~deepnb.ship.app_copy.Copier`, which keeps the backend's rule for links: one that
leaves its folder is not copied, and the deployment says so.

The served graphs are built by deepnb from those tables, as in the kernel, so ``scripted:`` and
``demo:`` models work there too, with the extensions the kernel's agents take (exactly those: not
whatever the server's machine has); they carry no checkpointer or store of their own (the Agent
Server supplies persistence). A table that imports code or reaches outside the project is deployed
only from a trusted project (``%deepagent trust``), the same rule as building it in the kernel.
"""

from __future__ import annotations

import contextlib
import copy
import json
import keyword
import os
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from deepnb import extensions
from deepnb.core.errors import DeepnbError
from deepnb.core.project import inside, project_root
from deepnb.core.text.safe_display import safe_display
from deepnb.core.trust import is_trusted
from deepnb.engine.spec import AgentSpec
from deepnb.extensions import plugins
from deepnb.extensions.registry import REGISTRY, Source
from deepnb.session.config import ConfigFile, Key, find_config, parse_agent
from deepnb.ship.app_copy import Copier
from deepnb.ship.real_folders import Folder, LinkRefused

__all__ = [
    "AGENTS_FILE",
    "APP_MODULE",
    "CONFIG_FILE",
    "MANIFEST",
    "Deployment",
    "Plan",
    "deploy",
    "plan",
    "served_graph",
    "write",
]

CONFIG_FILE = "langgraph.json"
APP_MODULE = "deepnb_app.py"
AGENTS_FILE = "deepnb_agents.json"
MANIFEST = "deepnb_written.json"
"""Every entry deepnb wrote into the app folder: what replacing it (``force``) deletes."""
PROJECT = "project"
"""Where files from the project's folder are copied to, at their paths in it."""
EXTERNAL = "external"
"""Where files from outside the project (a trusted project may name them) are copied to."""
EXTENSIONS = "extensions"
"""Where the kernel's extensions are copied to, one numbered folder each."""

JUNK = (
    ".git",
    ".venv",
    "venv",
    "node_modules",
    "__pycache__",
    ".deepnb",
    ".langgraph_api",
    ".ipynb_checkpoints",
)
"""Folders never copied with a disk backend's folder."""


@safe_display
@dataclass(frozen=True)
class Deployment:
    """An Agent Server app folder deepnb wrote: ``graphs`` are the agents' names (each one a
    graph id and the default assistant's name on the server)."""

    folder: Path
    graphs: tuple[str, ...]
    source: Path
    extensions: tuple[str, ...] = ()
    """The labels of the extensions deployed with the agents."""
    skipped: tuple[str, ...] = ()
    """What the copies left out: links that leave their folder, dangle or loop (and why)."""

    @property
    def config(self) -> Path:
        """The app's ``langgraph.json``."""
        return self.folder / CONFIG_FILE

    def __repr__(self) -> str:
        names = ", ".join(self.graphs)
        extensions = f" with extensions {', '.join(self.extensions)}" if self.extensions else ""
        return (
            f"Deployed {names}{extensions} from {self.source.name} to {self.folder}: "
            f"serve it with `langgraph dev` there (or %deepagent serve).{skipped_note(self.skipped)}"
        )


def skipped_note(skipped: Sequence[str], listed: int = 3) -> str:
    """The sentence naming what a deployment's copies left out (the first few), or ``""``."""
    if not skipped:
        return ""
    more = f" and {len(skipped) - listed} more" if len(skipped) > listed else ""
    return f" Not copied, as the agent's tools refuse them too: {'; '.join(skipped[:listed])}{more}."


# -- what the tables name on disk ------------------------------------------------------------------


class _Copies:
    """Files and folders to copy into the app, each under a path relative to the app. With
    ``in_place`` (an app served on this machine), disk backends keep their own folders."""

    def __init__(self, root: Path, target: Path, *, in_place: bool = False) -> None:
        self.root = root
        self.target = target
        self.in_place = in_place
        self.items: dict[Path, str] = {}

    def folder(self, text: str) -> str:
        """Where a disk backend's folder ``text`` (relative to the project) is in the app: its
        copy, or, in place, the folder itself (absolute, as the kernel's backend resolves it)."""
        if self.in_place:
            path = Path(text).expanduser()
            return str((path if path.is_absolute() else self.root / path).resolve())
        return self.place(text)

    def place(self, text: str) -> str:
        """The app-relative path where the host path ``text`` (relative to the project) goes."""
        path = Path(text).expanduser()
        path = (path if path.is_absolute() else self.root / path).resolve()
        if path in self.items:
            return self.items[path]
        if inside(path, self.root) and not inside(path, self.target):
            relative = "/".join((PROJECT, *path.relative_to(self.root.resolve()).parts))
        else:
            relative = f"{EXTERNAL}/{len(self.items)}-{path.name or 'root'}"
        self.items[path] = relative
        return relative

    def module(self, reference: str) -> None:
        """Copy the project's top-level module that ``module:attr`` imports, if it is the
        project's own (installed packages are the environment's business)."""
        top = reference.partition(":")[0].partition(".")[0]
        for candidate in (self.root / top, self.root / f"{top}.py"):
            if candidate.exists() and inside(candidate, self.root):
                self.items.setdefault(candidate.resolve(), candidate.name)
                return

    def write(self, copier: Copier) -> None:
        for source, relative in self.items.items():
            copier.copy(source, relative)


def _references(table: Mapping[str, Any], copies: _Copies) -> None:
    for key in ("tools", "middleware"):
        for item in table.get(key) or ():
            if isinstance(item, str):
                copies.module(item)


def _served_table(table: Mapping[str, Any], copies: _Copies) -> dict[str, Any]:
    """``table`` as the app reads it: host paths pointing at their copies, no checkpointer."""
    served = copy.deepcopy(dict(table))
    served.pop("checkpointer", None)  # the Agent Server keeps the threads
    if "model" not in served and os.environ.get("DEEPNB_MODEL"):  # the server may not have it set
        served["model"] = os.environ["DEEPNB_MODEL"]
    _rewrite_model(served, copies)
    _references(served, copies)
    if "backend" in served:
        served["backend"] = _served_backend(served["backend"], copies)
    for subagent in served.get("subagents") or ():
        if isinstance(subagent, str):
            copies.module(subagent)
        elif isinstance(subagent, dict):
            _rewrite_model(subagent, copies)
            _references(subagent, copies)
    return served


def _rewrite_model(table: dict[str, Any], copies: _Copies) -> None:
    model = table.get("model")
    if isinstance(model, str) and model.startswith("scripted:"):
        table["model"] = f"scripted:{copies.place(model.removeprefix('scripted:'))}"


def _served_backend(value: Any, copies: _Copies) -> Any:
    if isinstance(value, str):
        if ":" in value:
            copies.module(value)
        elif value == "disk":
            return {"type": "disk", "root_dir": copies.folder(".")}
        return value
    if not isinstance(value, Mapping):
        return value
    backend = dict(value)
    if backend.get("type") == "disk":
        backend["root_dir"] = copies.folder(str(backend.get("root_dir", ".")))
    if "default" in backend:
        backend["default"] = _served_backend(backend["default"], copies)
    if isinstance(backend.get("routes"), Mapping):
        backend["routes"] = {k: _served_backend(v, copies) for k, v in backend["routes"].items()}
    return backend


# -- deploying -------------------------------------------------------------------------------------


def _config(root: Path | None) -> ConfigFile:
    root = root or project_root()
    config = find_config(root)
    if config is None:
        raise DeepnbError(
            f"No deepnb.toml in {root}: add [agents.NAME] tables to it (or [tool.deepnb.agents.NAME] "
            "to pyproject.toml) to deploy them."
        )
    if not config.agents:
        raise DeepnbError(f"{config.shown} defines no agents: add an [agents.NAME] table to deploy.")
    return config


def _chosen(config: ConfigFile, agents: Sequence[str] | None) -> list[str]:
    if agents is None or not agents:
        return sorted(config.agents)
    unknown = [name for name in agents if name not in config.agents]
    if unknown:
        raise DeepnbError(
            f"{config.shown} defines no agent {unknown[0]!r}: use one of {', '.join(sorted(config.agents))}."
        )
    return list(dict.fromkeys(agents))


def _clear(folder: Folder) -> None:
    """Empty the existing folder ``folder`` for ``force``: only when it is empty or holds
    exactly what deepnb wrote there (its manifest says what), and then only those entries."""
    found = list(folder.entries())
    if not found:
        return
    listed = _manifest(folder)
    if listed is None:
        raise DeepnbError(
            f"{folder.path} is not a deployment deepnb wrote (it has no {MANIFEST}): "
            "--force replaces only those; name a new folder."
        )
    foreign = [path for path, _ in found if path not in listed and path != MANIFEST]
    if foreign:
        more = f" and {len(foreign) - 1} more" if len(foreign) > 1 else ""
        raise DeepnbError(
            f"{folder.path} holds {foreign[0]}{more}, which deepnb did not write there: --force deletes "
            "only what deepnb wrote; move it away or name a new folder."
        )
    for path, _ in reversed(found):  # what a folder holds before the folder
        folder.remove_path(path)


def _manifest(folder: Folder) -> set[str] | None:
    data = folder.read(MANIFEST)
    try:
        entries = json.loads(data or b"null").get("written") if data else None
    except (ValueError, AttributeError):
        return None
    if not isinstance(entries, list) or not all(isinstance(e, str) for e in entries):
        return None
    return set(entries)


def _deepnb_dependency(folder: Path) -> str:
    """How the app installs deepnb: its source checkout as a local path (what ``langgraph dev``
    puts on ``sys.path`` and ``langgraph build`` installs), else the ``deepnb`` package."""
    checkout = Path(__file__).resolve().parents[__name__.count(".")]  # the folder that holds deepnb/
    pyproject = checkout / "pyproject.toml"
    try:
        name = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {}).get("name")
    except (OSError, tomllib.TOMLDecodeError):
        name = None
    if name != "deepnb":
        return "deepnb"
    relative = os.path.relpath(checkout, folder.resolve())
    return relative if relative.startswith(".") else f"./{relative}"


def _attribute(name: str, taken: Iterable[str]) -> str:
    """A Python name for the graph ``name`` in the generated module."""
    attribute = re.sub(r"\W", "_", name)
    if not attribute.isidentifier() or keyword.iskeyword(attribute) or attribute.startswith("_"):
        attribute = f"agent_{attribute}"
    while attribute in taken:
        attribute += "_"
    return attribute


MODULE = '''"""The agents deepnb deployed from {source}: each one a graph langgraph.json names.

Generated by deepnb.deploy: deploy again rather than editing it. Each graph is built by deepnb
from {agents_file}, without a checkpointer or store of its own (the Agent Server keeps threads).
"""

from deepnb.ship.deploy import served_graph

{graphs}
'''


@dataclass(frozen=True)
class Plan:
    """What a deployment writes, checked before anything is: the config, the agents' names and
    the project's folder (trust-gated and parsed, every mistake now rather than in the server)."""

    config: ConfigFile
    names: tuple[str, ...]
    project: Path


def plan(agents: Sequence[str] | None = None, *, root: Path | None = None) -> Plan:
    """Check the project's agents (all, or ``agents``) for deploying: the trust gate, and every
    mistake in their tables."""
    config = _config(root)
    names = _chosen(config, agents)
    project = config.path.parent.resolve()
    trusted = is_trusted(project)
    for name in names:
        parse_agent(
            config.agents[name],
            Key(config.shown, f"{config.prefix}.{name}"),
            base_dir=project,
            trusted=trusted,
        )
    return Plan(config, tuple(names), project)


def deploy(
    path: str | os.PathLike[str],
    *,
    agents: Sequence[str] | None = None,
    force: bool = False,
    root: Path | None = None,
) -> Deployment:
    """Write the project's agents (all, or ``agents``) as an Agent Server app into the folder
    ``path``: see the module's docstring. An existing folder is replaced only with ``force``,
    and only if it holds nothing but what deepnb wrote there (which is all ``force`` deletes)."""
    checked = plan(agents, root=root)
    folder = Path(os.path.abspath(Path(path).expanduser()))  # ".." resolved as typed, links not
    if inside(checked.project, folder):
        raise DeepnbError(f"{folder} holds the project itself: deploy into a new folder, e.g. ./served.")
    with _parent(folder, checked.project) as parent:
        return write(checked, parent, folder.name, force=force)


def _parent(folder: Path, project: Path) -> Folder:
    """The folder that holds ``folder``, open: inside the project, each part of the way a real
    folder (a link there is refused); outside it, the path the user named."""
    if folder.parent.is_relative_to(project):
        return Folder.walk_to(project, folder.parent, create=True)
    folder.parent.mkdir(parents=True, exist_ok=True)
    return Folder.open(folder.parent)


def write(
    checked: Plan,
    parent: Folder,
    name: str,
    *,
    force: bool = False,
    http: Mapping[str, Any] | None = None,
    in_place: bool = False,
) -> Deployment:
    """Write the deployment ``checked`` into the folder ``name`` of ``parent`` (made if missing;
    an existing one only with ``force``: see :func:`deploy`), with langgraph.json's ``http``
    settings if given. ``in_place`` (an app served on this machine): disk backends work on the
    project's folders themselves, as in the kernel, not on copies the next deployment replaces.
    A failure removes what it wrote."""
    folder_path = parent.path / name
    kind = parent.kind(name)
    if kind == "link":
        raise LinkRefused(
            f"{folder_path} is a link: deepnb deploys only into a real folder, never through a "
            "link — remove the link or name a new folder."
        )
    if kind not in (None, "folder"):
        raise DeepnbError(f"{folder_path} exists and is not a folder: name a new folder to deploy into.")
    if kind == "folder":
        if not force:
            raise DeepnbError(
                f"{folder_path} already exists: pass --force (force=True) to replace it, "
                "or name a new folder."
            )
        with parent.child(name) as existing:
            _clear(existing)
    config, project = checked.config, checked.project
    copies = _Copies(project, folder_path, in_place=in_place)
    tables = {n: _served_table(config.agents[n], copies) for n in checked.names}
    extensions = _kernel_extensions()
    with parent.child(name, create=True) as app:
        copier = Copier(app, project=project, skip=(*JUNK, "*.pyc"))
        try:
            copies.write(copier)
            recorded = [_copy_extension(s, number, copier) for number, s in enumerate(extensions)]
            _write_app(app, tables, source=config.path, extensions=recorded, http=http, copier=copier)
        except BaseException:
            for entry in reversed(copier.written):  # what a folder holds before the folder
                with contextlib.suppress(OSError):
                    app.remove_path(entry)
            if kind is None:
                with contextlib.suppress(OSError):
                    parent.remove_entry(name)
            raise
    return Deployment(
        folder_path,
        checked.names,
        config.path,
        tuple(s.label for s in extensions),
        tuple(copier.skipped),
    )


def _kernel_extensions() -> list[Source]:
    """The extensions this kernel's agents take: the automatic ones (loaded now if they were not
    yet, as building an agent would) and those loaded with ``%deepagent extension``."""
    extensions.ensure_loaded()
    with REGISTRY.lock:
        return [api.source for api in REGISTRY.loaded.values()]


def _copy_extension(source: Source, number: int, copier: Copier) -> dict[str, Any]:
    """Copy one extension into the app (a file, or its package or plugin folder whole) and say
    where it is; an entry point is named (the server's environment installs its package)."""
    if source.entry_point:
        return {"entry_point": source.entry_point}
    if source.bundle:  # a plugin folder of released dcode's format: the folder, whole
        place = Path(EXTENSIONS) / f"{number}-{source.path.name or 'plugin'}"
        copier.copy(source.path.resolve(), place.as_posix())
        return {"path": place.as_posix(), "plugin": source.plugin, "bundle": source.bundle}
    root = source.path.parent if source.package or source.plugin else source.path
    if source.plugin:  # the plugin's folder: its manifest, and the modules its entries import
        root = next((p for p in source.path.parents if plugins.find_manifest(p) is not None), root)
    root = root.resolve()
    place = Path(EXTENSIONS) / f"{number}-{root.stem or 'extension'}"
    if root.is_dir():
        copier.copy(root, place.as_posix())
        entry = place / source.path.resolve().relative_to(root)
    else:
        copier.copy(root, (place / root.name).as_posix())
        entry = place / root.name
    return {"path": entry.as_posix(), "package": source.package, "plugin": source.plugin}


def _write_app(
    app: Folder,
    tables: Mapping[str, Any],
    *,
    source: Path,
    extensions: Sequence[Mapping[str, Any]],
    http: Mapping[str, Any] | None,
    copier: Copier,
) -> None:
    attributes: dict[str, str] = {}
    for name in tables:
        attributes[name] = _attribute(name, attributes.values())
    graphs = "\n".join(f"{attr} = served_graph(__file__, {name!r})" for name, attr in attributes.items())
    module = MODULE.format(source=source.name, agents_file=AGENTS_FILE, graphs=graphs)
    data = {"source": str(source), "agents": tables, "extensions": list(extensions)}
    langgraph: dict[str, Any] = {
        "dependencies": [".", _deepnb_dependency(app.path)],
        "graphs": {name: f"./{APP_MODULE}:{attr}" for name, attr in attributes.items()},
    }
    if http is not None:
        langgraph["http"] = dict(http)
    for name, text in (
        (APP_MODULE, module),
        (AGENTS_FILE, json.dumps(data, indent=2, default=str) + "\n"),
        (CONFIG_FILE, json.dumps(langgraph, indent=2) + "\n"),
    ):
        app.write(name, text.encode("utf-8"))
        copier.written.setdefault(name, None)
    written = {
        "written": sorted(copier.written),
        "by": "deepnb.deploy: --force deletes these, and only these",
    }
    app.write(MANIFEST, (json.dumps(written, indent=2) + "\n").encode("utf-8"))


# -- in the server ---------------------------------------------------------------------------------


def served_graph(module_file: str, name: str) -> Any:
    """The compiled agent ``name`` of the deployment whose module is ``module_file``: built
    from its tables like an agent in the kernel, with no checkpointer or store (the server's)."""
    from deepnb.extensions.hosting import apply  # noqa: PLC0415  # lazy: it imports langchain

    folder = Path(module_file).resolve().parent
    data = json.loads((folder / AGENTS_FILE).read_text(encoding="utf-8"))
    extensions.load_deployed([_deployed_source(entry, folder) for entry in data.get("extensions", [])])
    definition = parse_agent(data["agents"][name], Key(AGENTS_FILE, f"agents.{name}"), base_dir=folder)
    spec = AgentSpec(definition.model, definition.label, dict(definition.options), definition.todos)
    effective, _ = apply(spec)  # as the kernel builds it: the extensions' tools, middleware, routes
    options = {key: value for key, value in effective.options.items() if key != "store"}
    return replace(effective, options=options).build(name=name, checkpointer=None, served=True)


def _deployed_source(entry: Mapping[str, Any], folder: Path) -> Source:
    """A recorded extension as a source to load, its path inside the app ``folder``."""
    if entry.get("entry_point"):
        value = str(entry["entry_point"])
        return Source(Path(value.split("=", 1)[-1].strip()), "entry point", entry_point=value)
    path = (folder / str(entry["path"])).resolve()
    bundle = entry.get("bundle")
    return Source(
        path, "deployment", package=bool(entry.get("package")), plugin=entry.get("plugin"), bundle=bundle
    )
