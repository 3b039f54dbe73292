"""Shared helpers for deepnb's offline unit tests."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Mapping
from typing import Any

import pytest

from deepnb.models.scripted import ScriptedChatModel, parse_script

# Variables that would make a run trace to LangSmith or pick a model from the environment.
_FOREIGN_ENV = (
    "DEEPNB_MODEL",
    "LANGSMITH_TRACING",
    "LANGSMITH_TRACING_V2",
    "LANGCHAIN_TRACING",
    "LANGCHAIN_TRACING_V2",
    "LANGSMITH_API_KEY",
    "LANGCHAIN_API_KEY",
)


@pytest.fixture(autouse=True)
def _offline_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _FOREIGN_ENV:
        monkeypatch.delenv(name, raising=False)


def scripted(agents: Mapping[str, Any], *, delay: float = 0.0) -> ScriptedChatModel:
    """A scripted chat model for ``agents`` (the ``agents:`` mapping of a replay script)."""
    return ScriptedChatModel(script=parse_script({"delay": delay, "agents": dict(agents)}))


def unique(prefix: str) -> str:
    """A workbench name no other test uses (the registry is global)."""
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def stream_chunks(graph: Any, prompt: str, thread_id: str | None = None) -> list[tuple]:
    """Every ``(namespace, mode, data)`` chunk of a run of ``graph``, with deepnb's stream modes."""
    from deepnb.events import STREAM_MODES

    config = {"configurable": {"thread_id": thread_id or uuid.uuid4().hex}}

    async def collect() -> list[tuple]:
        return [
            chunk
            async for chunk in graph.astream(
                {"messages": [{"role": "user", "content": prompt}]},
                config,
                stream_mode=list(STREAM_MODES),
                subgraphs=True,
            )
        ]

    return asyncio.run(collect())
