"""Agents served over the Agent Protocol (a LangGraph Agent Server: ``langgraph dev``, a
deployment): ``deepnb.connect`` registers one as a workbench, so the same cells, views and
subcommands work on it as on an agent in the kernel."""

from __future__ import annotations

from deepnb.session.remote.connecting import connect
from deepnb.session.remote.workbench import RemoteWorkbench

__all__ = ["RemoteWorkbench", "connect"]
