"""Coalesce bursts of changes into few flushes, at most :data:`MAX_MESSAGES_PER_SECOND` a second,
and keep flushing a small share of the engine's time however costly a flush grows.

Two buckets set the pace. One holds :data:`BURST` flushes and earns one per ``interval``: a
change after a quiet moment goes out at once even right after another flush (the first word of
an answer, just after a tool card's), a steady stream of changes gets one flush per interval,
and any second holds at most ``BURST + 1 / interval`` flushes. The other holds the engine's time
that flushing may take: each second earns :data:`SHARE` of a second, up to :data:`ALLOWANCE`,
and a flush spends what it took. A steady run of flushes that take ``d`` seconds each then gets
one per ``d / SHARE``, while one slow flush (the first to load a renderer) holds nothing back.
Changes made together (in one turn of the loop) go out in one flush."""

from __future__ import annotations

from collections.abc import Callable

from deepnb.core import clock as clocks
from deepnb.core.failures import contained

MAX_MESSAGES_PER_SECOND = 20
BURST = 2
"""Flushes that may go out back to back after a quiet moment."""
MARGIN = 1.2
"""Flush a little less often than the limit allows: messages bunch up on their way to the browser."""
SHARE = 0.025
"""The most of the engine loop's time flushing may take. A view's flush reads its whole
transcript, so on a run of thousands of steps it grows from a fraction of a millisecond to
several; the run streams on at the same speed and the view updates a little less often."""
ALLOWANCE = 0.05
"""Seconds of flushing the time bucket holds: what flushes may take at once before the share
spaces them (the share of two seconds)."""
LONGEST_WAIT = 5.0
"""Seconds a change waits for its flush at most, however far the last flush overdrew the time
bucket. A flush's cost is the time it held the loop, and on a busy machine that includes time the
kernel was not given a core: one flush stalled for 3 s would otherwise hold the next for 2 minutes
(3 / SHARE), and every one after it until that was earned back. The bucket is never overdrawn by
more than ``LONGEST_WAIT * share``: flushes that really cost more go out once per ``LONGEST_WAIT``."""


class Throttle:
    """Call ``flush`` after a change, at the pace of the two buckets, and never lose the last
    change. Everything runs on the engine loop; calls from other threads hop onto it. The time
    and the loop are ``clock``'s (:func:`deepnb.core.clock.current` when none is given)."""

    def __init__(
        self,
        flush: Callable[[], None],
        interval: float = MARGIN / MAX_MESSAGES_PER_SECOND,
        share: float = SHARE,
        allowance: float = ALLOWANCE,
        *,
        longest_wait: float = LONGEST_WAIT,
        clock: clocks.Clock | None = None,
    ) -> None:
        self._flush = flush
        self._clock = clock or clocks.current()
        self.interval = interval
        self.share = share
        self.allowance = allowance
        self.longest_wait = longest_wait
        self._flushes = float(BURST)
        """Flushes the first bucket held at :attr:`_at`."""
        self._time = allowance
        """Seconds of flushing the second bucket held at :attr:`_at`."""
        self._at = self._clock.now()
        self._timer: clocks.Timer | None = None

    def poke(self) -> None:
        """Note a change: flush once the loop is through what it is doing now (so changes made
        together go out together) if both buckets allow one, else once they do."""
        if not self._clock.on_loop():
            self._clock.call_soon(self.poke)
            return
        if self._timer is not None:
            return
        self._timer = self._clock.call_later(self.wait(), self._fire)

    def wait(self) -> float:
        """Seconds from now until both buckets allow a flush (at most :attr:`longest_wait`)."""
        flushes, spare = self._held(self._clock.now())
        for_a_flush = (1.0 - flushes) * self.interval
        for_the_time = -spare / self.share  # the time bucket may be overdrawn by the last flush
        return max(0.0, for_a_flush, for_the_time)

    def flush_now(self) -> None:
        """Flush at once, replacing a pending flush. Call it on the engine loop."""
        if self._timer is not None:
            self._timer.cancel()
        self._fire()

    def _held(self, now: float) -> tuple[float, float]:
        """What the buckets hold at ``now``: flushes, and seconds of flushing (below zero while
        the last flush's cost is not earned back yet)."""
        elapsed = now - self._at
        flushes = min(float(BURST), self._flushes + elapsed / self.interval)
        spare = min(self.allowance, self._time + elapsed * self.share)
        return flushes, spare

    def _fire(self) -> None:
        self._timer = None
        start = self._clock.now()
        flushes, spare = self._held(start)
        contained(self._flush, what="a view's update")  # a view's bug never stops the engine
        end = self._clock.now()
        self._flushes = max(0.0, flushes - 1.0)  # flush_now may go out with none held
        # a stall costs the next change LONGEST_WAIT at most, and the ones after it nothing more
        self._time = max(spare - (end - start), -self.longest_wait * self.share)
        self._at = start
