"""The registrar ``extension(d)`` receives: Deep Agents Code's ``ExtensionAPI``, in a notebook.

Same methods, same meanings: ``register_tool``, ``register_middleware``,
``register_backend_route(prefix, backend)``, ``register_command(name, handler)`` (run as
``%deepagent /name ARGS``), ``on_shutdown(callback)``, and read-only ``cwd``, ``mode``,
``has_ui``, ``path``. ``mode`` is ``"notebook"``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from deepnb.core.errors import DeepnbError
from deepnb.core.text.safe_display import safe_display
from deepnb.extensions.registry import REGISTRY, Registration, Source
from deepnb.extensions.rules import ExtensionError, check_prefix, overlaps, reserved_routes
from deepnb.extensions.sync_hooks import async_ready

__all__ = [  # ExtensionError and the route rules live in deepnb.extensions.rules
    "Command",
    "CommandContext",
    "ExtensionAPI",
    "ExtensionError",
    "ExtensionMode",
    "check_prefix",
    "overlaps",
    "reserved_routes",
]


COMMAND_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
"""A command's name: a lowercase slug, so a registration cannot forge other syntax."""


@dataclass(frozen=True, slots=True)
class CommandContext:
    """What a command's handler is given when it runs (Deep Agents Code's ``CommandContext``)."""

    args: str
    """The text typed after the command's name."""
    cwd: Path
    """The kernel's working directory."""
    mode: str
    """``"notebook"``."""
    data: dict[str, Any] = field(default_factory=dict)
    """Free-form data a host may attach (none yet)."""


@dataclass(frozen=True)
class Command:
    """A registered ``/name`` command: its handler (sync or async, taking a
    :class:`CommandContext`, returning text to show or ``None``) and its description."""

    handler: Callable[[CommandContext], Any]
    description: str = ""


@safe_display
class ExtensionMode(StrEnum):
    """Where an extension runs. deepnb is always ``notebook``; the other two are Deep Agents
    Code's, so extensions that compare against them keep working."""

    NOTEBOOK = "notebook"
    INTERACTIVE = "interactive"
    HEADLESS = "headless"


@safe_display
class ExtensionAPI:
    """What one extension's ``extension(d)`` receives: registration methods and read-only
    context. Registrations made while ``extension(d)`` runs are installed together when it
    returns, or not at all if it raises; later ones are installed as they are made."""

    def __init__(self, source: Source, *, cwd: Path, has_ui: bool) -> None:
        self._source = source
        self._cwd = cwd
        self._has_ui = has_ui
        self._staged: list[Registration] | None = []
        self._active = True

    # -- read-only context -------------------------------------------------------------------

    @property
    def cwd(self) -> Path:
        """The kernel's working directory when the extension loaded."""
        return self._cwd

    @property
    def mode(self) -> ExtensionMode:
        """Always ``"notebook"``."""
        return ExtensionMode.NOTEBOOK

    @property
    def has_ui(self) -> bool:
        """Whether a Jupyter front-end shows this kernel's output (False in plain Python)."""
        return self._has_ui

    @property
    def path(self) -> Path:
        """The extension's entry file."""
        return self._source.path

    # -- registration ------------------------------------------------------------------------

    def register_tool(self, tool: Any) -> None:
        """Give agents a tool: a LangChain ``BaseTool`` or a plain function (its signature and
        docstring become the schema). Agents see it on their next model call."""
        # lazy: langchain_core is heavy to import
        from langchain_core.tools import BaseTool  # noqa: PLC0415
        from langchain_core.tools import tool as as_tool  # noqa: PLC0415

        self._ensure_active()
        if not isinstance(tool, BaseTool):
            try:
                tool = as_tool(tool)
            except Exception as exc:
                name = getattr(tool, "__name__", repr(tool))
                raise ExtensionError(f"Could not turn {name} into a tool: {exc}") from exc
        self._add("tool", tool.name, tool)

    def register_middleware(self, middleware: Any) -> None:
        """Add a LangChain ``AgentMiddleware`` (an instance, or a class built with no arguments)
        to agents built from now on; ``%deepagent reload`` rebuilds the others. Hooks defined
        only in sync form (``wrap_tool_call`` without ``awrap_tool_call``, …) work: each gets an
        async twin that runs it in a thread."""
        from langchain.agents.middleware.types import AgentMiddleware  # noqa: PLC0415  # lazy: heavy

        self._ensure_active()
        try:
            instance = middleware() if isinstance(middleware, type) else middleware
        except Exception as exc:
            raise ExtensionError(f"Could not construct middleware {middleware!r}: {exc}") from exc
        if not isinstance(instance, AgentMiddleware):
            raise ExtensionError(
                f"Registered middleware must be an AgentMiddleware, got {type(instance).__name__}."
            )
        try:
            instance = async_ready(instance)  # deepnb's runs are async: sync-only hooks get a twin
        except DeepnbError as exc:
            raise ExtensionError(str(exc)) from None
        self._add("middleware", getattr(instance, "name", type(instance).__name__), instance)

    def register_backend_route(self, prefix: str, backend: Any) -> None:
        """Mount ``backend`` at ``prefix`` (e.g. ``/scratch/``) in agents' filesystems, through a
        ``CompositeBackend`` around each agent's own backend."""
        from deepagents.backends.protocol import BackendProtocol  # noqa: PLC0415  # lazy: heavy

        self._ensure_active()
        check_prefix(prefix)
        if not isinstance(backend, BackendProtocol):
            raise ExtensionError(
                f"Backend route {prefix!r} got {type(backend).__name__}, which is not a deepagents "
                "BackendProtocol (e.g. FilesystemBackend, StoreBackend, StateBackend)."
            )
        self._add("route", prefix, backend)

    def register_command(
        self, name: str, handler: Callable[[CommandContext], Any], *, description: str = ""
    ) -> str:
        """Register ``/name``, run in a notebook as ``%deepagent /name ARGS``: ``handler`` (sync or
        async) gets a :class:`CommandContext` and returns text to show (or ``None``). Returns the
        name it was registered under: one already taken gets a ``-2`` (``-3``, …) suffix rather
        than replacing the other."""
        self._ensure_active()
        normalized = name.lstrip("/").strip().lower()
        if not COMMAND_NAME.match(normalized):
            raise ExtensionError(
                f"Invalid command name {name!r}: use lowercase letters, digits, hyphens and underscores."
            )
        if not callable(handler):
            raise ExtensionError(f"Handler for command {normalized!r} is not callable.")
        with REGISTRY.lock:
            taken = {
                r.name for r in [*REGISTRY.of_kind("command"), *(self._staged or ())] if r.kind == "command"
            }
            chosen, n = normalized, 1
            while chosen in taken:
                n += 1
                chosen = f"{normalized}-{n}"
            self._add("command", chosen, Command(handler, str(description or "")))
        return chosen

    def on_shutdown(self, hook: Callable[[], Any]) -> None:
        """Call ``hook`` (sync or async, no arguments) once when deepnb unloads or the kernel
        exits."""
        self._ensure_active()
        if not callable(hook):
            raise ExtensionError("Shutdown hook is not callable.")
        self._add("shutdown", getattr(hook, "__name__", type(hook).__name__), hook)

    # -- internals ---------------------------------------------------------------------------

    def _ensure_active(self) -> None:
        if not self._active:
            raise ExtensionError(
                f"Extension {self._source.label} is no longer loaded: its registrations are closed."
            )

    def _add(self, kind: str, name: str, unit: Any) -> None:
        REGISTRY.add(kind, name, unit, self._source, staged=self._staged)

    # -- deepnb's side (not part of Deep Agents Code's API) ------------------------------------

    @property
    def source(self) -> Source:
        """Where this extension comes from."""
        return self._source

    def commit(self) -> None:
        """The factory returned: install what it registered; later calls install at once."""
        staged, self._staged = self._staged or [], None
        REGISTRY.commit(staged)

    def deactivate(self) -> None:
        """The extension is unloaded (or failed): its registrations are closed."""
        self._staged = None
        self._active = False

    def __repr__(self) -> str:
        return f"<ExtensionAPI {self._source.label} mode='notebook'>"
