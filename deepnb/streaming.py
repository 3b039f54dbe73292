"""How a run reads its graph: the stream of ``(namespace, mode, data)`` chunks, on the engine loop.

``astream()`` it is. Driving the synchronous ``stream()`` in a worker thread instead was measured
(``bench/longrun.py --sync-thread``) and kept out: it was no faster here, and it cannot run tools
or middleware that only have an async implementation.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from deepnb import events as ev


async def chunks(graph: Any, graph_input: Any, config: dict[str, Any]) -> AsyncIterator[Any]:
    """The run's stream chunks, in every mode the events layer reads, subagents included."""
    async for chunk in graph.astream(graph_input, config, stream_mode=list(ev.STREAM_MODES), subgraphs=True):
        yield chunk
