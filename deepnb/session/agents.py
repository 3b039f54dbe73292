"""The kernel's agents by name, and which one is current: the registry ``-a NAME`` and
``deepnb.get`` look in. Building agents is :mod:`deepnb.session.building`'s job."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from deepnb.core.threads import checkpointers as checkpoint

if TYPE_CHECKING:  # the registry holds sessions; it need not load them to name the current one
    from deepnb.session.graph_session import GraphSession

DEFAULT_AGENT = "default"

S = TypeVar("S", bound="GraphSession")

_registry: dict[str, GraphSession] = {}
_current: list[str] = [DEFAULT_AGENT]


def register(workbench: S) -> S:
    _registry[workbench.name] = workbench
    return workbench


def registered() -> dict[str, GraphSession]:
    return dict(_registry)


def find(name: str) -> GraphSession | None:
    """The workbench registered as ``name``, if any (nothing is built)."""
    return _registry.get(name)


def forget(name: str) -> GraphSession | None:
    """Unregister ``name`` (its threads stay where they are); the workbench it was, if any."""
    return _registry.pop(name, None)


def current_name() -> str:
    return _current[0]


def set_current(name: str) -> None:
    _current[0] = name


def forget_all() -> None:
    """Unregister every agent and close the database connections deepnb opened for them (a
    clean slate, e.g. between tests; threads stay in their databases). Runs already made keep
    working only on in-memory threads."""
    retired = list(_registry.values())
    _registry.clear()
    _current[0] = DEFAULT_AGENT
    for saver in {id(w.checkpointer): w.checkpointer for w in retired}.values():
        checkpoint.close(saver)
