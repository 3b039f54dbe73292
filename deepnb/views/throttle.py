"""Coalesce bursts of changes into at most one flush per interval."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from deepnb._loop import engine_loop, in_engine_thread
from deepnb.failures import contained

MAX_MESSAGES_PER_SECOND = 20
MARGIN = 1.2
"""Flush a little less often than the limit allows: messages bunch up on their way to the browser."""


class Throttle:
    """Call ``flush`` after a change, at most once per ``interval`` seconds, and never lose the
    last change. Everything runs on the engine loop; calls from other threads hop onto it."""

    def __init__(self, flush: Callable[[], None], interval: float = MARGIN / MAX_MESSAGES_PER_SECOND) -> None:
        self._flush = flush
        self.interval = interval
        self._last = float("-inf")
        self._timer: asyncio.TimerHandle | None = None

    def poke(self) -> None:
        """Note a change: flush now if the interval has passed, else once it has."""
        if not in_engine_thread():
            engine_loop().call_soon_threadsafe(self.poke)
            return
        if self._timer is not None:
            return
        wait = self._last + self.interval - time.monotonic()
        if wait > 0:
            self._timer = engine_loop().call_later(wait, self._fire)
        else:
            self._fire()

    def flush_now(self) -> None:
        """Flush at once, replacing a pending flush. Call it on the engine loop."""
        if self._timer is not None:
            self._timer.cancel()
        self._fire()

    def _fire(self) -> None:
        self._timer = None
        self._last = time.monotonic()
        contained(self._flush, what="a view's update")  # a view's bug never stops the engine
