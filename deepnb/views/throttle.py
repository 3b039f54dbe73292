"""Coalesce bursts of changes into at most one flush per interval, and keep flushing a small share
of the engine's time however costly a flush grows."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from deepnb.core.failures import contained
from deepnb.core.loop import detached, engine_loop, in_engine_thread

MAX_MESSAGES_PER_SECOND = 20
MARGIN = 1.2
"""Flush a little less often than the limit allows: messages bunch up on their way to the browser."""
SHARE = 0.025
"""The most of the engine loop's time flushing may take: after a flush that took ``d`` seconds the
next one waits at least ``d / SHARE``. A view's flush reads its whole transcript, so on a run of
thousands of steps it grows from a fraction of a millisecond to several; the run streams on at
the same speed and the view updates a little less often."""


class Throttle:
    """Call ``flush`` after a change, at most once per ``interval`` seconds, and never lose the
    last change. Everything runs on the engine loop; calls from other threads hop onto it."""

    def __init__(
        self,
        flush: Callable[[], None],
        interval: float = MARGIN / MAX_MESSAGES_PER_SECOND,
        share: float = SHARE,
    ) -> None:
        self._flush = flush
        self.interval = interval
        self.share = share
        self.gap = interval
        """Seconds from one flush to the next at least: ``interval``, or longer after a slow flush."""
        self._last = float("-inf")
        self._timer: asyncio.TimerHandle | None = None

    def poke(self) -> None:
        """Note a change: flush now if the interval has passed, else once it has."""
        if not in_engine_thread():
            engine_loop().call_soon_threadsafe(self.poke, context=detached())
            return
        if self._timer is not None:
            return
        wait = self._last + self.gap - time.monotonic()
        if wait > 0:
            self._timer = engine_loop().call_later(wait, self._fire, context=detached())
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
        self.gap = max(self.interval, (time.monotonic() - self._last) / self.share)
