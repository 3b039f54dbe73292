"""How a run reads its graph: the stream of ``(namespace, mode, data)`` chunks, on the engine loop.

``astream()`` it is. Driving the synchronous ``stream()`` in a worker thread instead was measured
(``bench/longrun.py --sync-thread``) and kept out: on a 2,000-step run it took ×1.19 the bare loop's
time against ×1.18 for this (×1.13 against ×1.24 on 300 steps: within this machine's noise), and
it cannot run tools or middleware that only have an async implementation.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from deepnb import events as ev


async def chunks(graph: Any, graph_input: Any, config: dict[str, Any]) -> AsyncIterator[Any]:
    """The run's stream chunks, in every mode the events layer reads, subagents included."""
    async for chunk in graph.astream(graph_input, config, stream_mode=list(ev.STREAM_MODES), subgraphs=True):
        yield chunk
