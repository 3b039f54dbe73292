"""The kernel's agents by name, and which one is current: the registry ``-a NAME`` and
``deepnb.get`` look in. Building agents is :mod:`deepnb.session.building`'s job."""

from __future__ import annotations

from deepnb.core.threads import checkpointers as checkpoint
from deepnb.session.local import Workbench

DEFAULT_AGENT = "default"

_registry: dict[str, Workbench] = {}
_current: list[str] = [DEFAULT_AGENT]


def register(workbench: Workbench) -> Workbench:
    _registry[workbench.name] = workbench
    return workbench


def registered() -> dict[str, Workbench]:
    return dict(_registry)


def find(name: str) -> Workbench | None:
    """The workbench registered as ``name``, if any (nothing is built)."""
    return _registry.get(name)


def forget(name: str) -> Workbench | None:
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
