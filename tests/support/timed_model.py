"""A scripted chat model whose every turn takes a set time and counts the turns under way at once
(how the batch tests and bench/batch.py see how many runs think at the same time)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Mapping
from typing import Any

from langchain_core.outputs import ChatGenerationChunk

from deepnb.models.scripted import ScriptedChatModel, parse_script


class Meter:
    """Counts turns under way now and the most ever at once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.now = 0
        self.most = 0
        self.turns = 0

    def enter(self) -> None:
        with self._lock:
            self.now += 1
            self.turns += 1
            self.most = max(self.most, self.now)

    def leave(self) -> None:
        with self._lock:
            self.now -= 1


class TimedScriptedModel(ScriptedChatModel):
    """A scripted model whose every turn first waits ``turn_seconds`` (asynchronously, as a
    model's network call does) while ``meter`` counts it."""

    turn_seconds: float = 0.0
    meter: Any = None

    async def _astream(
        self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> AsyncIterator[ChatGenerationChunk]:
        meter = self.meter
        if meter is not None:
            meter.enter()
        try:
            await asyncio.sleep(self.turn_seconds)
            async for chunk in super()._astream(messages, stop, run_manager, **kwargs):
                yield chunk
        finally:
            if meter is not None:
                meter.leave()


def timed(
    agents: Mapping[str, Any], *, turn_seconds: float, meter: Meter | None = None
) -> TimedScriptedModel:
    """A :class:`TimedScriptedModel` for ``agents`` (the ``agents:`` mapping of a replay script)."""
    script = parse_script({"agents": dict(agents)})
    return TimedScriptedModel(script=script, turn_seconds=turn_seconds, meter=meter)
