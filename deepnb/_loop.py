"""The engine's event loop: one daemon thread where every run streams.

Runs live here rather than on the kernel's loop so a background run keeps streaming while other
cells execute, and so a stop can cancel a run's coroutine wherever it is waiting.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_thread: threading.Thread | None = None


def engine_loop() -> asyncio.AbstractEventLoop:
    """The engine loop, started on first use."""
    global _loop, _thread
    with _lock:
        if _loop is None or _thread is None or not _thread.is_alive():
            loop = asyncio.new_event_loop()
            ready = threading.Event()

            def serve() -> None:
                asyncio.set_event_loop(loop)
                loop.call_soon(ready.set)
                loop.run_forever()

            _thread = threading.Thread(target=serve, name="deepnb-engine", daemon=True)
            _thread.start()
            ready.wait()
            _loop = loop
        return _loop


def in_engine_thread() -> bool:
    """Whether the caller runs on the engine loop's thread."""
    return _thread is not None and threading.current_thread() is _thread


def submit(coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
    """Schedule ``coro`` on the engine loop."""
    return asyncio.run_coroutine_threadsafe(coro, engine_loop())


def run_sync(coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
    """Run ``coro`` on the engine loop and wait for its result (not from the engine thread)."""
    if in_engine_thread():
        coro.close()
        raise RuntimeError("run_sync() would deadlock on the engine thread; await instead")
    return submit(coro).result(timeout)
