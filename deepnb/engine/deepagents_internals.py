"""The private names of deepagents (and of its interpreter, langchain-quickjs) that deepnb uses, all
of them here: no public API gives what they give (deepagents 0.7).

- ``FilesystemMiddleware._permissions`` and ``._with_permissions``: a filesystem middleware's
  rules, and a copy with other rules (deepnb adds patterns that match dotfiles);
- ``_fs_interrupt._build_interrupt_on_from_permissions``: which tools an ``interrupt`` rule gates;
- ``backends.protocol._supports_delete``, ``filesystem._FS_WCMATCH_FLAGS`` and
  ``filesystem._resolve_real_path``: what the agent's own file tools check, checked the same way
  on the notebook's side;
- ``StoreBackend._store`` / ``._namespace``: a store backend rebuilt with the agent's store;
- ``_models.get_model_identifier`` / ``get_model_provider`` and the harness profile registry:
  which harness profile ``create_deep_agent`` chose; ``_ToolExclusionMiddleware._excluded``: the
  tools that profile hides;
- ``SubAgentMiddleware._subagents``: the subagents an agent was built with (``inspect``);
- ``CodeInterpreterMiddleware._ptc`` / ``._subagents``: what code in the interpreter may call.

Each is used directly, never behind a guard that would hide a change: when a release renames one,
``tests/unit/test_deepagents_internals.py`` fails on that release, naming it, and no module but
this one reaches for them (the same test reads the package for it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def _is_filesystem(middleware: Any) -> bool:
    from deepagents.middleware.filesystem import FilesystemMiddleware  # noqa: PLC0415  # lazy: heavy

    return isinstance(middleware, FilesystemMiddleware)


def filesystem_rules(middleware: Any) -> list[Any]:
    """The permission rules of a ``FilesystemMiddleware`` (``[]`` for any other middleware or
    ``None``)."""
    if middleware is None or not _is_filesystem(middleware):
        return []
    return list(middleware._permissions)


def with_filesystem_rules(middleware: Any, rules: Sequence[Any] | None) -> Any:
    """A copy of a ``FilesystemMiddleware`` whose rules are ``rules``."""
    return middleware._with_permissions(list(rules or ()))


def interrupt_on_from_rules(rules: Sequence[Any]) -> dict[str, Any]:
    """The ``interrupt_on`` configuration deepagents derives from ``FilesystemPermission`` rules."""
    from deepagents.middleware._fs_interrupt import _build_interrupt_on_from_permissions  # noqa: PLC0415

    return dict(_build_interrupt_on_from_permissions(list(rules)))


def supports_delete(backend: Any) -> bool:
    """Whether ``backend`` can delete files, as ``FilesystemMiddleware`` decides per call."""
    from deepagents.backends.protocol import _supports_delete  # noqa: PLC0415  # lazy: heavy

    return bool(_supports_delete(backend))


def model_identity(model: Any) -> tuple[str | None, str | None]:
    """A chat model's identifier and provider, as ``create_deep_agent`` reads them to pick a
    harness profile."""
    from deepagents._models import get_model_identifier, get_model_provider  # noqa: PLC0415  # lazy: heavy

    return get_model_identifier(model), get_model_provider(model)


def harness_profiles() -> dict[str, Any]:
    """deepagents' registered harness profiles by key (loaded first, as ``create_deep_agent``
    loads them)."""
    from deepagents.profiles.harness import harness_profiles as profiles  # noqa: PLC0415  # lazy: heavy

    profiles._ensure_harness_profiles_loaded()
    return dict(profiles._HARNESS_PROFILES)


def harness_profile(key: str) -> Any | None:
    """The harness profile deepagents uses for ``key`` (a ``provider:model`` or a provider)."""
    from deepagents.profiles.harness import harness_profiles as profiles  # noqa: PLC0415  # lazy: heavy

    return profiles._get_harness_profile(key)


def glob_flags() -> int:
    """The wcmatch flags deepagents' permission checks match paths with."""
    from deepagents.middleware.filesystem import _FS_WCMATCH_FLAGS  # noqa: PLC0415  # lazy: heavy

    return int(_FS_WCMATCH_FLAGS)


def resolve_real_path(backend: Any, path: str) -> str:
    """The path an operation on ``path`` touches, as the agent's own tools resolve it (through
    links, on a folder on disk); raises what they raise for a path that leads outside."""
    from deepagents.middleware.filesystem import _resolve_real_path  # noqa: PLC0415  # lazy: heavy

    return str(_resolve_real_path(backend, path))


def store_parts(backend: Any) -> tuple[Any, Any]:
    """A ``StoreBackend``'s store (``None`` when the agent's is to be used) and namespace."""
    return backend._store, backend._namespace


def excluded_tools(exclusion: Any) -> list[str]:
    """The tools a harness profile's ``_ToolExclusionMiddleware`` hides (``[]`` for ``None``)."""
    return [] if exclusion is None else sorted(exclusion._excluded or ())


def interpreter_ptc(interpreter: Any) -> Any:
    """What a QuickJS interpreter middleware was given as ``ptc`` (the tools code may call)."""
    return interpreter._ptc


def interpreter_runs_subagents(interpreter: Any) -> bool:
    """Whether a QuickJS interpreter middleware gives code ``task()`` (``subagents=True``)."""
    return bool(interpreter._subagents)


def declared_subagents(middleware: Any) -> list[Any]:
    """The subagent specs a ``SubAgentMiddleware`` was built with (``[]`` for ``None``)."""
    return [] if middleware is None else list(middleware._subagents or ())
