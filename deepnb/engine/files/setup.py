"""Where an agent's files live and which of them the agent loads itself: its backend, its
permission rules, its memory files and its skill folders — read from the options deepnb built it
with, or found in a graph compiled elsewhere (:mod:`deepnb.core.graphs.reading`).

Memory and skill sources are passed to the backend as they are written (``"./AGENTS.md"``,
``"skills/"``, ``("/skills/", "Project")``), and each backend reads them its own way.
:func:`agent_path` says which path of the agent's filesystem — the one its file tools and
``run.files`` use — a source names, the way deepagents' backend resolves it.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deepnb.core.file_paths import UnsafePathError, clean_path
from deepnb.core.graphs.reading import middleware_of, subgraphs_of
from deepnb.engine.deepagents_internals import filesystem_rules


def source_path(source: Any) -> str | None:
    """The path of a memory or skill source (a skill source may be a ``(path, label)`` pair)."""
    if isinstance(source, tuple | list) and source:
        source = source[0]
    return source if isinstance(source, str) and source else None


def agent_path(backend: Any, source: str, *, directory: bool = False) -> str | None:
    """The path in the agent's filesystem that ``source`` names when ``backend`` reads it, or
    ``None`` when it names nothing the agent's file tools can reach.

    - a ``FilesystemBackend`` in virtual mode reads ``"./AGENTS.md"`` and ``"AGENTS.md"`` as
      ``/AGENTS.md`` under its folder, and refuses ``..`` and ``~``;
    - one with ``virtual_mode=False`` reads a relative source under its folder, an absolute
      one as it is (a path on this machine, as its file tools name it);
    - a ``CompositeBackend`` sends a source under a route to that route's backend;
    - any other backend (the thread's state, a store) looks the source up as written: a
      relative one is a key the file tools, which write only absolute paths, never write.
    """
    from deepagents.backends import CompositeBackend, FilesystemBackend  # noqa: PLC0415  # lazy: heavy

    try:
        if isinstance(backend, CompositeBackend):
            for prefix, routed in sorted(backend.routes.items(), key=lambda r: -len(r[0])):
                bare = prefix.rstrip("/")
                if source == bare or source.startswith(bare + "/"):
                    inner = agent_path(routed, "/" + source[len(bare) :].lstrip("/"), directory=directory)
                    return None if inner is None else clean_path(bare + inner, directory=directory)
            return agent_path(backend.default, source, directory=directory)
        if isinstance(backend, FilesystemBackend):
            if backend.virtual_mode:
                virtual = source if source.startswith("/") else "/" + source
                if ".." in virtual or virtual.startswith("~"):  # deepagents refuses these
                    return None
                return clean_path(posixpath.normpath(virtual), directory=directory)
            host = Path(source) if Path(source).is_absolute() else Path(backend.cwd) / source
            return clean_path(posixpath.normpath(host.as_posix()), directory=directory)
        return clean_path(source, directory=directory) if source.startswith("/") else None
    except UnsafePathError:
        return None


@dataclass(frozen=True)
class FileSetup:
    """An agent's files: where they live and which of them it loads as memory and skills."""

    backend: Any = None
    """The backend object (``None``: the thread's state)."""
    permissions: Sequence[Any] | None = None
    memory: tuple[Any, ...] = ()
    """The memory sources as the agent was given them."""
    skills: tuple[Any, ...] = ()
    """The skill sources as the agent was given them."""
    known: bool = True
    """``False`` for a graph compiled elsewhere whose backend deepnb could not find: its files
    are then read from the thread's state, which may not be where the agent keeps them."""

    @classmethod
    def of_options(cls, options: Mapping[str, Any]) -> FileSetup:
        """The setup ``create_deep_agent``'s keyword arguments describe."""
        return cls(
            backend=options.get("backend"),
            permissions=options.get("permissions"),
            memory=tuple(options.get("memory") or ()),
            skills=tuple(options.get("skills") or ()),
        )

    @classmethod
    def of_graph(cls, graph: Any, *, backend: Any = None) -> FileSetup:
        """The setup found in a compiled graph: the backend and rules of its filesystem
        middleware (the main agent's, else the first subagent's, nested ones too), and the
        sources of its memory and skills middleware (subagents' included). ``backend``, when
        given, wins."""
        from deepagents.middleware.filesystem import FilesystemMiddleware  # noqa: PLC0415  # lazy: heavy
        from deepagents.middleware.memory import MemoryMiddleware  # noqa: PLC0415  # lazy: heavy
        from deepagents.middleware.skills import SkillsMiddleware  # noqa: PLC0415  # lazy: heavy

        agents = [graph]
        for agent in agents:  # the list grows as it is read: subagents, then theirs, …
            agents.extend(inner for inner in subgraphs_of(agent) if all(inner is not a for a in agents))
        stacks = [middleware_of(agent) or [] for agent in agents]  # None: not a create_agent graph
        filesystems = [m for stack in stacks for m in stack if isinstance(m, FilesystemMiddleware)]
        found = filesystems[0] if filesystems else None
        memory: dict[Any, None] = {}
        skills: dict[Any, None] = {}
        for stack in stacks:
            for m in stack:
                if isinstance(m, MemoryMiddleware):
                    memory.update(dict.fromkeys(m.sources))
                elif isinstance(m, SkillsMiddleware):
                    skills.update(dict.fromkeys(m.sources))
        if backend is None and found is not None:
            backend = found.backend
        return cls(
            backend=backend,
            permissions=filesystem_rules(found) or None,
            memory=tuple(memory),
            skills=tuple(skills),
            known=backend is not None,
        )

    def memory_paths(self) -> dict[str, str]:
        """Each memory source (as written) → the path of the agent's filesystem it names."""
        found = {}
        for source in self.memory:
            raw = source_path(source)
            path = agent_path(self.backend, raw) if raw else None
            if raw and path:
                found[raw] = path
        return found

    def skill_folders(self) -> list[str]:
        """The folders of the agent's filesystem its skill sources name."""
        found = []
        for source in self.skills:
            raw = source_path(source)
            path = agent_path(self.backend, raw, directory=True) if raw else None
            if path and path not in found:
                found.append(path)
        return found
