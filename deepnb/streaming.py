"""How a run reads its graph: the stream of ``(namespace, mode, data)`` chunks, on the engine loop.

``astream()`` it is. Driving the synchronous ``stream()`` in a worker thread instead (its chunks
handed to the engine loop in batches, Stop acting at the next chunk) is timed by
``bench/overhead.py`` in the same repeats as the bare ``stream()`` loop. On a 300-step run it
was not consistently faster: ×1.11 against ×1.16 for this in one run of 5 repeats, ×1.22 against
×1.16 in the next run of 7, ×1.16 against ×1.38 in a later run of 7 (wall time, medians of
per-repeat ratios, on a shared 2-core machine); on a 1,200-step run it was slower (47.0 s against
41.5 s), and ``bench/longrun.py`` had found them within noise. And it cannot run what only has an async
implementation: a tool given only a coroutine raises ``NotImplementedError: StructuredTool does
not support sync invocation`` under ``stream()``, a graph node given only an async function
``TypeError: No synchronous function provided``. Choosing it per graph (only where every node,
tool and subagent has a synchronous implementation) would be the way to use it, were it faster.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from deepnb import events as ev


async def chunks(graph: Any, graph_input: Any, config: dict[str, Any]) -> AsyncIterator[Any]:
    """The run's stream chunks, in every mode the events layer reads, subagents included."""
    async for chunk in graph.astream(graph_input, config, stream_mode=list(ev.STREAM_MODES), subgraphs=True):
        yield chunk
