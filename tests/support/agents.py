"""Helpers that build and drive agents in tests: scripted models, unique names, raw stream chunks."""

from __future__ import annotations

import asyncio
import textwrap
import uuid
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

from langchain_core.outputs import ChatGenerationChunk

from deepnb.core.events import STREAM_MODES
from deepnb.models.scripted import ScriptedChatModel, parse_script


def scripted(agents: Mapping[str, Any], *, delay: float = 0.0) -> ScriptedChatModel:
    """A scripted chat model for ``agents`` (the ``agents:`` mapping of a replay script)."""
    return ScriptedChatModel(script=parse_script({"delay": delay, "agents": dict(agents)}))


class HeldModel(ScriptedChatModel):
    """A scripted model whose turn waits at ``gate`` (a :class:`tests.support.waiting.Gate`)
    before it answers: every turn, or with ``holds`` only those whose latest message holds it."""

    gate: Any = None
    holds: str | None = None

    async def _astream(
        self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> AsyncIterator[ChatGenerationChunk]:
        if self.holds is None or self.holds in str(messages[-1].content):
            await asyncio.to_thread(self.gate.hold)
        async for chunk in super()._astream(messages, stop, run_manager, **kwargs):
            yield chunk


def unique(prefix: str) -> str:
    """A workbench name no other test uses (the registry is global)."""
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def stream_chunks(graph: Any, prompt: str, thread_id: str | None = None) -> list[tuple]:
    """Every ``(namespace, mode, data)`` chunk of a run of ``graph``, with deepnb's stream modes."""
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


def write(path: Path, text: str) -> Path:
    """Write ``text`` (dedented) to ``path``, making its folders."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def tool_messages(bench: Any, thread: str) -> list[tuple[str, str]]:
    """The (tool name, content) of every tool message on a thread."""
    messages = bench.state_values(thread)["messages"]
    return [(m.name, m.content) for m in messages if m.type == "tool"]
