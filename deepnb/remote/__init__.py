"""Agents served over the Agent Protocol (a LangGraph Agent Server: ``langgraph dev``, a
deployment): ``deepnb.connect`` registers one as a workbench, so the same cells, views and
subcommands work on it as on an agent in the kernel."""

from __future__ import annotations

from collections.abc import Mapping

from deepnb import agents
from deepnb._loop import run_sync
from deepnb.remote.client import Server, find_assistant
from deepnb.remote.workbench import RemoteWorkbench

__all__ = ["RemoteWorkbench", "connect"]


def connect(
    url: str,
    assistant: str,
    *,
    name: str | None = None,
    api_key: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> RemoteWorkbench:
    """Connect to ``assistant`` (an assistant id, or a graph id) on the Agent Protocol server at
    ``url`` and register it as ``name`` (default: ``assistant``), so ``%%deepagent -a NAME`` and
    every subcommand work on it. ``api_key`` is sent as ``x-api-key`` (none if not given);
    ``headers`` go with every request. One line says what to do if the server cannot be reached,
    refuses the key, or has no such assistant."""
    server = Server(url.rstrip("/"), dict(headers or {}), api_key)
    client = server.client()
    found = run_sync(find_assistant(client, server, assistant))
    workbench = RemoteWorkbench(name or assistant, server, client, found)
    previous = agents.find(workbench.name)
    if isinstance(previous, RemoteWorkbench) and previous.url == workbench.url:
        workbench.carry_over(previous)  # the same agent again: its current thread goes on
    agents.register(workbench)
    return workbench
