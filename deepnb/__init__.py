"""deepnb: a Jupyter-native workbench for Deep Agents.

``%load_ext deepnb`` registers the ``%deepagent`` / ``%%deepagent`` magics. Without magics,
``deepnb.agent(...)`` builds and registers an agent, ``deepnb.attach(graph)`` registers one you
compiled, and ``deepnb.get(name)`` returns a registered agent or builds one the project's
``deepnb.toml`` defines. Extensions (``deepnb.extensions``) add tools, middleware and backend
routes to every agent deepnb builds. Heavy libraries (deepagents, LangChain) load on first use, not at import.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["__version__", "agent", "attach", "get", "load_ipython_extension", "unload_ipython_extension"]

if TYPE_CHECKING:
    from deepnb.workbench import Workbench


def agent(name: str = "default", model: Any = None, **options: Any) -> Workbench:
    """Build a deep agent, register it under ``name`` and return its workbench.

    Takes ``create_deep_agent``'s keyword arguments, plus ``checkpointer="memory" | "sqlite:PATH"
    | saver``. ``model``: a chat model, ``provider:model``, ``scripted:PATH`` or ``demo:NAME``.
    """
    from deepnb.workbench import agent as build

    return build(name, model, **options)


def attach(graph: Any, name: str = "default", **options: Any) -> Workbench:
    """Register a compiled agent under ``name`` so ``%%deepagent -a NAME`` can run it."""
    from deepnb.workbench import attach as register

    return register(graph, name, **options)


def get(name: str | None = None) -> Workbench:
    """The agent registered as ``name`` (the current one by default); one that the project's
    ``deepnb.toml`` (or ``[tool.deepnb]`` in ``pyproject.toml``) defines is built on first use."""
    from deepnb.workbench import get as lookup

    return lookup(name)


def load_ipython_extension(ipython: Any) -> None:
    """Register the magics (``%load_ext deepnb``). Imports no agent library."""
    from deepnb.magics.magic import load

    load(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    """Remove the magics and run the extensions' shutdown callbacks."""
    from deepnb.magics.magic import unload

    unload(ipython)
