"""Once the cell that ran ``%load_ext deepnb`` has ended, the kernel imports the agent stack
(deepagents, LangChain, LangGraph, anywidget and deepnb's own layers) while it is idle, so the
first ``%%deepagent`` cell does not wait seconds for it.

The imports run on the kernel's own thread and event loop, one module of :data:`STEPS` at a time
with a pause between two, never on a thread of their own: two threads importing one package's
modules at once can meet in a circular import, which Python 3.11 answers with an error in one of
them. A message that arrives meanwhile (a cell to run, a widget's click) waits for one step at
most. ``%load_ext`` itself imports none of it; ``DEEPNB_PRELOAD=0`` turns the preload off; a
terminal IPython (no kernel) has none.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import os
import sys
from typing import Any

STEPS = (
    "anywidget",
    "deepnb.views.output",  # the run view, which the next cell shows first (no LangChain)
    "pydantic",
    "langsmith.client",
    "langsmith.run_trees",
    "langchain_core.messages",
    "langchain_core.language_models",
    "langchain_core.tools",
    "langgraph.graph",
    "langchain.agents",
    "deepagents",
    "deepnb.magics.commands.cell",
    "deepnb.models.resolve",
)
"""What is imported, in order: each step's own cost is a fraction of a second, the modules
before it being loaded."""
PAUSE = 0.02
"""Seconds between two steps, for the kernel to handle what came meanwhile."""

log = logging.getLogger("deepnb")


def in_kernel(shell: Any) -> bool:
    """Whether ``shell`` is a kernel's (a notebook's), not a terminal's."""
    return getattr(shell, "kernel", None) is not None


def enabled(shell: Any) -> bool:
    """Whether ``shell`` is a kernel's and the preload is not turned off."""
    return in_kernel(shell) and os.environ.get("DEEPNB_PRELOAD", "1") != "0"


def schedule(shell: Any) -> None:
    """Start the preload once the current cell has ended (once per kernel)."""
    if not enabled(shell) or getattr(shell, "_deepnb_preload_scheduled", False):
        return
    shell._deepnb_preload_scheduled = True

    def after_the_cell(_result: Any = None) -> None:
        shell.events.unregister("post_run_cell", after_the_cell)
        try:
            loop = asyncio.get_running_loop()  # the kernel's: cells run on it
        except RuntimeError:
            return
        loop.call_later(PAUSE, _step, loop, list(STEPS))

    shell.events.register("post_run_cell", after_the_cell)


def _step(loop: asyncio.AbstractEventLoop, left: list[str]) -> None:
    """Import the next module of ``left`` that is not loaded yet, then schedule the rest."""
    while left:
        name = left.pop(0)
        if name in sys.modules:
            continue
        try:
            importlib.import_module(name)
        except Exception:  # the cell that needs it imports it again and says what is wrong
            log.debug("deepnb: preloading %s failed", name, exc_info=True)
        break
    if left:
        loop.call_later(PAUSE, _step, loop, left)


__all__ = ["PAUSE", "STEPS", "enabled", "schedule"]
