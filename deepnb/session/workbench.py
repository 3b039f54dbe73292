"""Workbenches: what every agent with threads is (:mod:`deepnb.session.graph_session`), one compiled
in this kernel with its checkpointer (:mod:`deepnb.session.local`); the registry of
them by name (:mod:`deepnb.session.agents`); and building them (:mod:`deepnb.session.building`) — one place to
import them from."""

from __future__ import annotations

from deepnb.session.agents import DEFAULT_AGENT, current_name, forget_all, register, registered
from deepnb.session.building import agent, attach, get, install, lookup, rebuild, reload, use
from deepnb.session.graph_session import GraphSession
from deepnb.session.local import Workbench, new_thread_id
from deepnb.session.protocol import Checkpoint, ThreadInfo

__all__ = [
    "DEFAULT_AGENT",
    "Checkpoint",
    "GraphSession",
    "ThreadInfo",
    "Workbench",
    "agent",
    "attach",
    "current_name",
    "forget_all",
    "get",
    "install",
    "lookup",
    "new_thread_id",
    "rebuild",
    "register",
    "registered",
    "reload",
    "use",
]
