"""The LangGraph store an agent gets when it has none, as ``langgraph dev`` gives one to every
graph it serves: one in-memory store per kernel, shared by the agents deepnb builds or attaches.

Without it, a ``StoreBackend`` route (Deep Agents Code's reference ``memory_store`` extension
mounts one at ``/memories/``) fails the run with ``'NoneType' object has no attribute 'aget'``.
The store lives as long as the kernel; pass ``store=`` (a Postgres or SQLite store) to keep
memories across restarts.
"""

from __future__ import annotations

import threading
from typing import Any

__all__ = ["default_store", "give_store"]

_lock = threading.Lock()
_store: list[Any] = []


def default_store() -> Any:
    """The kernel's in-memory store, made on first use."""
    with _lock:
        if not _store:
            from langgraph.store.memory import InMemoryStore  # noqa: PLC0415  # lazy: langgraph is heavy

            _store.append(InMemoryStore())
        return _store[0]


def give_store(graph: Any, name: str) -> str | None:
    """Give a compiled graph that has no store the kernel's, on the graph itself (so a graph
    attached with its own checkpointer stays the object you passed); or one line saying why it
    cannot take one."""
    if getattr(graph, "store", None) is not None:
        return None
    try:
        graph.store = default_store()
    except (AttributeError, TypeError):
        return (
            f"Agent {name!r} has no LangGraph store and deepnb cannot give it one: "
            "a StoreBackend route in it will fail; compile it with store=InMemoryStore()."
        )
    return None
