"""The time the engine reads: one :class:`Clock` for the throttle, the views' timers, batches'
times and thread claims, so that tests can hold time still and move it by hand.

:data:`REAL` reads the machine's clocks (``time.monotonic``, ``time.time``) and schedules on the
engine loop; it is what runs everywhere outside tests. :class:`FakeClock` stands still until a
test calls :meth:`FakeClock.advance`, which fires the timers that came due on the way, in order,
on the calling thread (as trio's ``MockClock`` and ``time-machine`` do for their worlds). Code
that takes a ``clock=`` uses :func:`current` when given none; a test installs a fake one for a
block with :func:`using`.
"""

from __future__ import annotations

import heapq
import itertools
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Protocol

from deepnb.core.loop import detached, engine_loop, in_engine_thread


class Timer(Protocol):
    """A callback scheduled for later, until it is cancelled."""

    def cancel(self) -> None:
        """Do not call it (nothing happens once it was called)."""
        ...


class Clock(Protocol):
    """What code that keeps time reads and schedules through."""

    def now(self) -> float:
        """Monotonic seconds: only differences between two readings mean anything."""
        ...

    def wall(self) -> float:
        """Seconds since the epoch (what a person reads as a date and time)."""
        ...

    def sleep(self, seconds: float) -> None:
        """Block the calling thread for ``seconds``."""
        ...

    def on_loop(self) -> bool:
        """Whether the caller runs where :meth:`call_later` may be called (the engine thread)."""
        ...

    def call_soon(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` on the loop soon (from any thread)."""
        ...

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        """Call ``callback`` on the loop in ``delay`` seconds (call it :meth:`on_loop`)."""
        ...


class RealClock:
    """The machine's clocks and the engine loop: what deepnb runs on outside tests."""

    def now(self) -> float:
        return time.monotonic()

    def wall(self) -> float:
        return time.time()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)

    def on_loop(self) -> bool:
        return in_engine_thread()

    def call_soon(self, callback: Callable[[], None]) -> None:
        engine_loop().call_soon_threadsafe(callback, context=detached())

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        return engine_loop().call_later(delay, callback, context=detached())


REAL: Clock = RealClock()
"""The real clock."""


class _FakeTimer:
    def __init__(self, due: float, callback: Callable[[], None]) -> None:
        self.due, self.callback, self.cancelled = due, callback, False

    def cancel(self) -> None:
        self.cancelled = True


class FakeClock:
    """A clock that moves only when told to. Its "loop" is whoever calls :meth:`advance`: every
    caller counts as on it, :meth:`call_soon` is a timer due now, and :meth:`sleep` moves the
    time without firing timers (a blocked loop fires none); the next :meth:`advance` fires them.

    ``start`` is the monotonic reading at first and ``wall`` the time since the epoch then."""

    def __init__(self, start: float = 1000.0, wall: float = 1_750_000_000.0) -> None:
        self._now = start
        self._wall_offset = wall - start
        self._timers: list[tuple[float, int, _FakeTimer]] = []
        self._order = itertools.count()  # timers due together fire in the order they were set
        self._lock = threading.RLock()

    def now(self) -> float:
        with self._lock:
            return self._now

    def wall(self) -> float:
        with self._lock:
            return self._now + self._wall_offset

    def sleep(self, seconds: float) -> None:
        with self._lock:
            self._now += max(0.0, seconds)

    def on_loop(self) -> bool:
        return True

    def call_soon(self, callback: Callable[[], None]) -> None:
        self.call_later(0.0, callback)

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        with self._lock:
            timer = _FakeTimer(self._now + max(0.0, delay), callback)
            heapq.heappush(self._timers, (timer.due, next(self._order), timer))
            return timer

    def advance(self, seconds: float = 0.0) -> None:
        """Move the time ``seconds`` on, firing each timer due by then at its own time, in order
        (those the fired ones set too). ``advance()`` fires what is due now."""
        with self._lock:
            until = self._now + max(0.0, seconds)
        while (timer := self._next_due(until)) is not None:
            timer.callback()
        with self._lock:
            self._now = max(self._now, until)

    def pending(self) -> list[float]:
        """The times (in :meth:`now`'s seconds) the timers still waiting are due at, soonest first."""
        with self._lock:
            return sorted(due for due, _, timer in self._timers if not timer.cancelled)

    def _next_due(self, until: float) -> _FakeTimer | None:
        with self._lock:
            while self._timers and self._timers[0][2].cancelled:
                heapq.heappop(self._timers)
            if not self._timers or self._timers[0][0] > until:
                return None
            _, _, timer = heapq.heappop(self._timers)
            self._now = max(self._now, timer.due)
            return timer


_current: Clock = REAL


def current() -> Clock:
    """The clock code reads when it is given none: :data:`REAL` unless a test installed another."""
    return _current


@contextmanager
def using(clock: Clock) -> Iterator[Clock]:
    """Make ``clock`` the :func:`current` one inside the block (for tests)."""
    global _current
    before, _current = _current, clock
    try:
        yield clock
    finally:
        _current = before
