"""The clock tests move by hand fires timers in order at their own times; the real one reads the
machine's clocks and schedules on the engine loop."""

from __future__ import annotations

import threading

from deepnb.core import clock as clocks
from deepnb.core.clock import REAL, FakeClock, using
from deepnb.core.loop import in_engine_thread
from tests.support.waiting import WAIT


def test_the_fake_clock_stands_still_until_advanced_and_fires_due_timers_in_order() -> None:
    clock = FakeClock(start=10.0, wall=1000.0)
    fired: list[tuple[str, float]] = []
    clock.call_later(0.5, lambda: fired.append(("c", clock.now())))
    clock.call_later(0.25, lambda: fired.append(("a", clock.now())))
    clock.call_later(0.25, lambda: fired.append(("b", clock.now())))  # due with a: set after it
    clock.call_soon(lambda: fired.append(("now", clock.now())))
    assert fired == [] and clock.now() == 10.0 and clock.wall() == 1000.0
    clock.advance()
    assert fired == [("now", 10.0)]
    clock.advance(0.375)  # binary fractions: the sums are exact
    assert fired[1:] == [("a", 10.25), ("b", 10.25)]
    assert clock.now() == 10.375 and clock.wall() == 1000.375
    assert clock.pending() == [10.5]
    clock.advance(0.25)
    assert fired[3:] == [("c", 10.5)] and clock.now() == 10.625


def test_timers_set_while_advancing_fire_within_the_same_advance_and_cancelled_ones_never() -> None:
    clock = FakeClock(start=0.0)
    fired: list[float] = []

    def again() -> None:
        fired.append(clock.now())
        if len(fired) < 5:
            clock.call_later(0.1, again)

    clock.call_later(0.1, again)
    dropped = clock.call_later(0.2, lambda: fired.append(-1.0))
    dropped.cancel()
    clock.advance(0.35)
    assert [round(t, 9) for t in fired] == [0.1, 0.2, 0.3]
    clock.advance(1.0)
    assert len(fired) == 5 and -1.0 not in fired and clock.pending() == []


def test_sleeping_moves_the_time_without_firing_what_came_due() -> None:
    clock = FakeClock(start=0.0)
    fired: list[float] = []
    clock.call_later(0.1, lambda: fired.append(clock.now()))
    clock.sleep(0.5)  # a blocked loop fires nothing
    assert clock.now() == 0.5 and fired == []
    clock.advance()  # late, as a timer on a loop that was held up
    assert fired == [0.5]


def test_the_current_clock_is_the_real_one_unless_a_block_installs_another() -> None:
    assert clocks.current() is REAL
    fake = FakeClock()
    with using(fake):
        assert clocks.current() is fake
    assert clocks.current() is REAL


def test_the_real_clock_schedules_on_the_engine_loop() -> None:
    ran = threading.Event()
    where: list[bool] = []

    def later() -> None:
        where.append(in_engine_thread())
        ran.set()

    assert not REAL.on_loop()
    before = REAL.now()
    REAL.call_soon(lambda: REAL.call_later(0.0, later))
    assert ran.wait(WAIT)
    assert where == [True] and REAL.now() >= before
