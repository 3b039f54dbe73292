"""Middleware written with sync hooks only, made to work in deepnb's runs (which are async).

LangChain's ``AgentMiddleware`` has each hook twice: ``wrap_tool_call`` / ``awrap_tool_call``,
``before_model`` / ``abefore_model``, and so on. A graph streamed with ``astream()`` calls the
async one, and the base class's async one raises ``NotImplementedError`` for a middleware that
defines only the sync one — so Deep Agents Code's reference ``tool_counter`` and ``audit_log``
extensions (``wrap_tool_call`` only) would fail every run at its first tool call.

:func:`async_ready` gives such a middleware the async twin of each sync-only hook: the sync hook
runs in a thread of its own (so it may block without stopping other runs), and a ``wrap_*``
hook's ``handler`` — async in a run — is called from that thread on the run's event loop and
waited for. The middleware keeps its identity, class name, state and sync hooks; only its class
gains the missing async methods (a subclass made once per class).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import functools
import inspect
import threading
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

from deepnb.core.errors import DeepnbError

__all__ = ["async_ready", "hook_pairs", "sync_only_hooks"]


@functools.cache
def hook_pairs() -> tuple[tuple[str, str], ...]:
    """Every (sync, async) hook pair of LangChain's ``AgentMiddleware``, read from the class so a
    hook a later LangChain adds is covered too."""
    # lazy: langchain is heavy to import
    from langchain.agents.middleware.types import AgentMiddleware  # noqa: PLC0415

    pairs = []
    for name, value in vars(AgentMiddleware).items():
        twin = vars(AgentMiddleware).get(f"a{name}")
        if (
            callable(value)
            and not name.startswith("_")
            and twin is not None
            and inspect.iscoroutinefunction(twin)
        ):
            pairs.append((name, f"a{name}"))
    return tuple(pairs)


_adapted: weakref.WeakKeyDictionary[type, type] = weakref.WeakKeyDictionary()


def sync_only_hooks(cls: type) -> list[str]:
    """The hooks ``cls`` defines in sync form only (its own or inherited, not the base class's)."""
    from langchain.agents.middleware.types import AgentMiddleware  # noqa: PLC0415  # lazy: heavy

    return [
        sync
        for sync, twin in hook_pairs()
        if getattr(cls, sync) is not getattr(AgentMiddleware, sync)
        and getattr(cls, twin) is getattr(AgentMiddleware, twin)
    ]


def async_ready(middleware: Any) -> Any:
    """``middleware`` itself, given an async twin for each hook it defines only in sync form
    (nothing changes for one that needs none). Raises ``DeepnbError`` in one line when its class
    cannot take them."""
    cls = type(middleware)
    missing = sync_only_hooks(cls)
    if not missing:
        return middleware
    adapted = _adapted.get(cls)
    if adapted is None:
        methods: dict[str, Any] = {
            "__slots__": (),
            "__module__": cls.__module__,
            "__qualname__": cls.__qualname__,
        }
        for sync in missing:
            methods[f"a{sync}"] = _wrap_twin(sync) if sync.startswith("wrap_") else _node_twin(sync)
        adapted = type(cls.__name__, (cls,), methods)
        _adapted[cls] = adapted
    try:  # object's own setter: a frozen dataclass's __setattr__ would refuse it
        object.__setattr__(middleware, "__class__", adapted)
    except (TypeError, AttributeError) as exc:
        raise DeepnbError(
            f"Middleware {cls.__name__} defines only sync {', '.join(missing)} and deepnb, whose runs "
            f"are async, could not add the async twin ({exc}): define {', '.join('a' + m for m in missing)}."
        ) from None
    return middleware


# -- the async twins ----------------------------------------------------------------------------------


def _node_twin(sync: str) -> Callable[..., Awaitable[Any]]:
    """``abefore_model`` & co.: the sync hook, run in a thread."""

    async def twin(self: Any, state: Any, runtime: Any) -> Any:
        return await _in_thread(getattr(self, sync), state, runtime)

    twin.__name__ = f"a{sync}"
    return twin


def _wrap_twin(sync: str) -> Callable[..., Awaitable[Any]]:
    """``awrap_tool_call`` / ``awrap_model_call``: the sync hook, run in a thread, with a sync
    ``handler`` that runs the async one on the run's loop and waits for it."""

    async def twin(self: Any, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        loop = asyncio.get_running_loop()
        calls: list[concurrent.futures.Future[Any]] = []
        stopped = False
        # A call is started and listed in one step, and a stop reads the list in one step: a stop
        # that comes while the hook's thread starts a call still finds it, and one that came
        # before leaves nothing to start.
        lock = threading.Lock()

        def call(req: Any) -> Any:
            with lock:
                if stopped:
                    raise concurrent.futures.CancelledError()
                future = asyncio.run_coroutine_threadsafe(_awaited(handler, req), loop)
                calls.append(future)
            return future.result()

        try:
            return await _in_thread(getattr(self, sync), request, call)
        except asyncio.CancelledError:
            with lock:
                stopped = True
                for future in calls:  # a stopped run stops the tool or model call the hook waits for
                    future.cancel()
            raise

    twin.__name__ = f"a{sync}"
    return twin


async def _awaited(handler: Callable[[Any], Awaitable[Any]], request: Any) -> Any:
    return await handler(request)


async def _in_thread(function: Callable[..., Any], *args: Any) -> Any:
    """Run ``function(*args)`` in a new thread with this task's context variables (LangGraph's
    config, stream writer, store). A thread per call, not a pool: hooks nest (a subagent's tool
    call inside the ``task`` tool's), and a bounded pool could fill with hooks waiting on each other."""
    loop = asyncio.get_running_loop()
    result: asyncio.Future[Any] = loop.create_future()
    context = contextvars.copy_context()

    def settle(outcome: Any, error: BaseException | None) -> None:
        if result.done():
            return
        if error is None:
            result.set_result(outcome)
        else:
            result.set_exception(error)

    def target() -> None:
        try:
            outcome = context.run(function, *args)
        except BaseException as exc:  # SystemExit & co. too: the run reports them, the thread ends
            _deliver(loop, settle, None, exc)
        else:
            _deliver(loop, settle, outcome, None)

    threading.Thread(
        target=target, name=f"deepnb-{getattr(function, '__name__', 'hook')}", daemon=True
    ).start()
    return await result


def _deliver(loop: asyncio.AbstractEventLoop, settle: Callable[..., None], outcome: Any, error: Any) -> None:
    with contextlib.suppress(RuntimeError):  # the loop closed while the hook ran: nobody waits
        loop.call_soon_threadsafe(settle, outcome, error)
