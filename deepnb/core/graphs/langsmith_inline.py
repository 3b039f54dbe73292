"""LangSmith's per-call bookkeeping, done in place on the engine loop while tracing is off.

LangChain's agents wrap each middleware hook (``awrap_model_call``, ``awrap_tool_call``) in
LangSmith's ``traceable``. Its async wrapper hands two functions to a worker thread on every call,
one that opens the span and one that closes it, even when tracing is off and neither does more
than copy a context. A deep agent calls about eight such hooks per step, so a 300-step run made
some 4,800 round trips through the thread pool, each one waking the loop through its self-pipe:
that alone made bare ``astream()`` slower than the synchronous ``stream()`` (×1.10–1.17), and
with them done in place it is faster (×0.81–0.88, ``bench/overhead.py``).

LangSmith's documented ``set_runtime_overrides(aio_to_thread=...)`` lets the host decide how those
functions run. :func:`install` sets one that runs them in place when the call comes from deepnb's
engine thread and tracing is off in the caller's context (``tracing_is_enabled()``: the context's
setting, then a current run tree, then the environment), where both functions only read context
variables; every other call, traced or on another thread, goes to LangSmith's default. It never
replaces an override someone else set, and :func:`uninstall` (``%unload_ext deepnb``) removes it.

One effect reaches beyond deepnb's runs: while any override is set, LangSmith runs a traced
coroutine in its caller's task under ``tracing_context(...)`` rather than in a task of its own.
That is LangSmith's own path for hosts with overrides, and traces are the same.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from contextvars import Context
from typing import Any

from deepnb.core.loop import in_engine_thread


async def _in_place_when_untraced(
    default: Callable[..., Any], ctx: Context, func: Callable[..., Any], /, *args: Any, **kwargs: Any
) -> Any:
    """Run ``func`` in ``ctx`` at once on the engine thread while tracing is off; else as LangSmith
    would, in a worker thread."""
    from langsmith.utils import tracing_is_enabled  # noqa: PLC0415  # loaded with LangChain

    if in_engine_thread() and not tracing_is_enabled():
        return ctx.run(func, *args, **kwargs)
    return await default(ctx, func, *args, **kwargs)


def install() -> bool:
    """Set the override unless one is set already (ours or another's); whether ours is set now.
    Does nothing where LangSmith has no runtime overrides."""
    try:
        import langsmith  # noqa: PLC0415  # loaded with LangChain
        from langsmith._runtime_overrides import get_runtime_overrides  # noqa: PLC0415
    except ImportError:
        return False
    current = get_runtime_overrides().aio_to_thread
    if current is None:
        langsmith.set_runtime_overrides(aio_to_thread=_in_place_when_untraced)
        return True
    return current is _in_place_when_untraced


def uninstall() -> None:
    """Remove the override if it is ours; leave any other alone. Imports nothing new."""
    overrides = sys.modules.get("langsmith._runtime_overrides")
    if overrides is not None and overrides.get_runtime_overrides().aio_to_thread is _in_place_when_untraced:
        sys.modules["langsmith"].set_runtime_overrides()
