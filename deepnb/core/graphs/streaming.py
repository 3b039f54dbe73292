"""How a run reads its graph: the stream of ``(namespace, mode, data)`` chunks, on the engine loop.

``astream()`` it is. Much of what made it slower than the synchronous ``stream()`` was LangSmith
handing two functions per middleware hook to a worker thread even with tracing off; with those
done in place (:mod:`deepnb.core.graphs.langsmith_inline`) bare ``astream()`` on the engine loop took ×0.94
the time of a bare ``stream()`` loop on a 300-step run, and deepnb's cell ×1.04
(``bench/overhead.py``, 5 repeats, medians of per-repeat ratios, on a shared 2-core machine).

Driving the synchronous ``stream()`` in a worker thread instead (its chunks handed to the engine
loop in batches, Stop acting at the next chunk) is timed in the same repeats: ×1.20 there, and
before that change ×1.11–1.22 against ×1.16–1.38 for ``astream()``, and slower on a 1,200-step
run (47.0 s against 41.5 s). And it cannot run what only has an async implementation: a tool
given only a coroutine raises ``NotImplementedError: StructuredTool does not support sync
invocation`` under ``stream()``, a graph node given only an async function ``TypeError: No
synchronous function provided``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from deepnb.core import events as ev
from deepnb.core.graphs import langsmith_inline


async def chunks(
    graph: Any, graph_input: Any, config: dict[str, Any], *, context: dict[str, Any] | None = None
) -> AsyncIterator[Any]:
    """The run's stream chunks, in every mode the events layer reads, subagents included, the
    runtime ``context`` passed where there is one. LangSmith's untraced bookkeeping runs in place
    (:mod:`deepnb.core.graphs.langsmith_inline`)."""
    langsmith_inline.install()
    given = {} if context is None else {"context": context}
    modes = list(ev.STREAM_MODES)
    async for chunk in graph.astream(graph_input, config, stream_mode=modes, subgraphs=True, **given):
        yield chunk
