"""The engine's event loop: one daemon thread where every run streams.

Runs live here rather than on the kernel's loop so a background run keeps streaming while other
cells execute, and so a stop can cancel a run's coroutine wherever it is waiting.

Nothing the code on this loop raises stops it: coroutines go through :func:`submit`, which hands
the caller an :class:`~deepnb.core.failures.EngineAbort` in place of ``SystemExit`` & co.; callbacks
go through :func:`call_soon` / :func:`call_later`, which log what they raise; and the loop itself
starts again if a task's ``SystemExit`` or ``KeyboardInterrupt`` escapes asyncio's task step.

Work handed to the loop from a kernel thread runs without ipykernel's parent-request variables
(:func:`detached`): what a run started in one cell sends later then goes out, like any thread's
output, with the cell executing at that moment, instead of with the cell that started it, whose
outputs a client collecting cell by cell (nbclient) has stopped reading.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import logging
import threading
from collections.abc import Callable, Coroutine
from functools import partial
from typing import Any, TypeVar

from deepnb.core.failures import EngineAbort, contained, is_abort

T = TypeVar("T")
log = logging.getLogger("deepnb")

KERNEL_PARENT_VARS = frozenset({"parent_header", "shell_parent", "shell_parent_ident"})
"""The names of ipykernel's context variables that tag what is sent with the request it answers
(each falls back to the latest request when unset)."""

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_thread: threading.Thread | None = None


def _serve(loop: asyncio.AbstractEventLoop, ready: threading.Event) -> None:
    """Run ``loop`` until it is stopped; an exit-like exception that escapes a task (asyncio
    re-raises ``SystemExit`` and ``KeyboardInterrupt`` out of ``run_forever``) is logged and the
    loop goes on with the callbacks it still holds."""
    asyncio.set_event_loop(loop)
    loop.call_soon(ready.set)
    while True:
        try:
            loop.run_forever()
            return
        except BaseException as exc:  # the task that raised it is done; its awaiter sees it
            log.debug("deepnb: %s escaped a task on the engine loop", type(exc).__name__, exc_info=True)


def engine_loop() -> asyncio.AbstractEventLoop:
    """The engine loop, started on first use."""
    global _loop, _thread
    with _lock:
        if _loop is None or _thread is None or not _thread.is_alive():
            loop = asyncio.new_event_loop()
            ready = threading.Event()
            _thread = threading.Thread(target=_serve, args=(loop, ready), name="deepnb-engine", daemon=True)
            _thread.start()
            ready.wait()
            _loop = loop
        return _loop


def engine_running() -> bool:
    """Whether the engine loop's thread has started and is still alive."""
    return _thread is not None and _thread.is_alive()


def in_engine_thread() -> bool:
    """Whether the caller runs on the engine loop's thread."""
    return _thread is not None and threading.current_thread() is _thread


def detached() -> contextvars.Context:
    """The caller's context without ipykernel's parent-request variables (the rest, such as
    LangSmith's tracing context, carried over)."""
    current = contextvars.copy_context()
    if not any(var.name in KERNEL_PARENT_VARS for var in current):
        return current

    def keep_the_rest() -> None:
        for var, value in current.items():
            if var.name not in KERNEL_PARENT_VARS:
                var.set(value)

    fresh = contextvars.Context()
    fresh.run(keep_the_rest)
    return fresh


async def _guarded(coro: Coroutine[Any, Any, T]) -> T:
    try:
        return await coro
    except BaseException as exc:
        if is_abort(exc):
            raise EngineAbort(exc) from exc
        raise


def submit(coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
    """Schedule ``coro`` on the engine loop. Should it raise ``SystemExit``,
    ``KeyboardInterrupt`` or another exception that is not an ``Exception`` (cancellation
    aside), the future holds an :class:`~deepnb.core.failures.EngineAbort` instead."""
    loop = engine_loop()
    return detached().run(asyncio.run_coroutine_threadsafe, _guarded(coro), loop)


def run_sync(coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
    """Run ``coro`` on the engine loop and wait for its result (not from the engine thread)."""
    if in_engine_thread():
        coro.close()
        raise RuntimeError("run_sync() would deadlock on the engine thread; await instead")
    return submit(coro).result(timeout)


def call_soon(callback: Callable[..., Any], *args: Any, what: str) -> asyncio.Handle:
    """Call ``callback(*args)`` on the engine loop soon (from any thread); what it raises is
    logged, never raised into the loop. ``what`` names it in the log."""
    call = partial(contained, callback, *args, what=what)
    return engine_loop().call_soon_threadsafe(call, context=detached())


def call_later(delay: float, callback: Callable[..., Any], *args: Any, what: str) -> asyncio.TimerHandle:
    """Call ``callback(*args)`` on the engine loop in ``delay`` seconds (from the engine thread);
    what it raises is logged, never raised into the loop."""
    call = partial(contained, callback, *args, what=what)
    return engine_loop().call_later(delay, call, context=detached())


async def wait_until(
    done: Callable[[], bool],
    listen: Callable[[Callable[[], None]], Callable[[], None]],
    *,
    poll: float,
) -> None:
    """Return once ``done()`` holds, awaited from another event loop (the kernel's).
    ``listen(wake)`` has ``wake()`` called (on the engine thread) whenever ``done()`` may have
    changed, and returns what stops that; the loop also wakes every ``poll`` seconds, so that a
    kernel interrupt (which schedules its cancellation without waking the loop) lands.

    Each wait is a fresh future woken by ``wake`` or a timer, not ``asyncio.wait_for``: on Python
    3.11 that drops a cancellation arriving as the inner wait ends, which a busy batch (woken at
    every run's change) meets often enough to make a kernel interrupt do nothing."""
    loop = asyncio.get_running_loop()
    waiter: asyncio.Future[None] = loop.create_future()

    def resolve(future: asyncio.Future[None]) -> None:
        if not future.done():
            future.set_result(None)

    def wake() -> None:
        with contextlib.suppress(RuntimeError):  # the waiting loop has closed
            loop.call_soon_threadsafe(resolve, waiter)

    stop_listening = listen(wake)
    try:
        while True:
            waiter = loop.create_future()  # before the check: a change after it wakes this one
            if done():
                return
            timer = loop.call_later(poll, resolve, waiter)
            try:
                await waiter
            finally:
                timer.cancel()
    finally:
        stop_listening()
