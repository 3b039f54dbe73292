"""``deepnb.connect``: register an agent served over the Agent Protocol as a workbench. The one
name of the remote kind that the layers above sessions use (``%deepagent connect``,
``deepnb serve``): everything else they do speaks the Session protocol."""

from __future__ import annotations

from collections.abc import Mapping

from deepnb.core.loop import run_sync
from deepnb.core.text.secrets import add_secret, looks_secret
from deepnb.session import agents
from deepnb.session.remote.client import Server, find_assistant, input_keys_of
from deepnb.session.remote.workbench import RemoteWorkbench

__all__ = ["connect"]


def connect(
    url: str,
    assistant: str,
    *,
    name: str | None = None,
    api_key: str | None = None,
    headers: Mapping[str, str] | None = None,
    thread: str | None = None,
) -> RemoteWorkbench:
    """Connect to ``assistant`` (an assistant id, or a graph id) on the Agent Protocol server at
    ``url`` and register it as ``name`` (default: ``assistant``), so ``%%deepagent -a NAME`` and
    every subcommand work on it. ``api_key`` is sent as ``x-api-key`` (none if not given);
    ``headers`` go with every request; a ``user:password@`` in ``url`` is sent as basic auth and
    its query with every request, and neither is ever shown. Runs go to a new thread unless
    ``thread`` names one (a server's threads may be other people's): the server's most recent
    thread is never continued by default. One line says what to do if the server cannot be
    reached, refuses the key, or has no such assistant."""
    for field, value in [("api_key", api_key or ""), *(headers or {}).items()]:
        if looks_secret(field):
            add_secret(value)  # never shown: redacted wherever deepnb shows or saves text
    server = Server.at(url, dict(headers or {}), api_key)
    client = server.client()
    found = run_sync(find_assistant(client, server, assistant))
    keys = run_sync(input_keys_of(client, str(found["assistant_id"])))
    workbench = RemoteWorkbench(name or assistant, server, client, found, input_keys=keys)
    previous = agents.find(workbench.name)
    if isinstance(previous, RemoteWorkbench) and previous.url == workbench.url:
        workbench.carry_over(previous)  # the same agent again: this kernel's current thread goes on
    if thread:
        workbench.check_thread(thread)
        workbench.use_thread(thread)
    agents.register(workbench)
    return workbench
