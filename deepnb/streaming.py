"""How a run reads its graph: the stream of ``(namespace, mode, data)`` chunks, on the engine loop.

``astream()`` it is. Driving the synchronous ``stream()`` in a worker thread instead (its chunks
handed to the engine loop in batches, Stop acting at the next chunk) is measured by
``bench/overhead.py`` in the same repeats as the bare ``stream()`` loop, and is faster: on a
300-step run, ×1.11 the bare loop's wall time and ×1.10 its kernel CPU, against ×1.16 and ×1.27
for this (medians of 5 repeats on a shared 2-core machine; earlier, ``bench/longrun.py`` had
them within noise). It is kept out because it cannot run what only has an async implementation:
a tool given only a coroutine raises ``NotImplementedError: StructuredTool does not support sync
invocation`` under ``stream()``, and a graph node given only an async function raises
``TypeError: No synchronous function provided``. Choosing it per graph (only where every node,
tool and subagent has a synchronous implementation) is what would be left to take it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from deepnb import events as ev


async def chunks(graph: Any, graph_input: Any, config: dict[str, Any]) -> AsyncIterator[Any]:
    """The run's stream chunks, in every mode the events layer reads, subagents included."""
    async for chunk in graph.astream(graph_input, config, stream_mode=list(ev.STREAM_MODES), subgraphs=True):
        yield chunk
