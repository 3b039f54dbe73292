"""The throttle's pace on a clock the tests move by hand (deepnb.core.clock.FakeClock): a bounded
flush rate, a change after a quiet moment at once, a share of the loop's time for slow flushes,
and the last change never lost. The figures are exact: no machine's load moves them. One test
runs on the real clock and engine loop, for where the flushes run."""

from __future__ import annotations

import itertools
import math
import statistics
import threading

import pytest

from deepnb.core.clock import FakeClock
from deepnb.core.loop import in_engine_thread
from deepnb.views.throttle import BURST, LONGEST_WAIT, MAX_MESSAGES_PER_SECOND, Throttle
from tests.support.waiting import WAIT

POKES = 1000
SPAN = 0.45  # seconds over which the pokes are spread


class Recorder:
    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.changes = 0
        self.flushes: list[tuple[float, int]] = []  # (the clock's time, changes seen)

    def flush(self) -> None:
        self.flushes.append((self.clock.now(), self.changes))

    @property
    def times(self) -> list[float]:
        return [t for t, _ in self.flushes]


def test_many_pokes_give_few_flushes_and_the_last_change_is_flushed() -> None:
    clock = FakeClock()
    recorder = Recorder(clock)
    throttle = Throttle(recorder.flush, clock=clock)
    for _ in range(POKES):  # evenly over SPAN seconds
        recorder.changes += 1
        throttle.poke()
        clock.advance(SPAN / POKES)
    last_poke = clock.now()
    clock.advance(10 * throttle.interval)  # any stray flush would show up by now

    times = recorder.times
    # two at once, then one per interval over the rest of the span, and the last change's
    assert len(times) <= BURST + math.ceil(SPAN / throttle.interval) + 1, len(times)
    assert len(times) >= SPAN / throttle.interval, "changes over 0.45 s flush steadily, not once at the end"
    # the bucket's bound: between any two flushes, at most BURST more than one per interval
    for i, j in itertools.combinations(range(len(times)), 2):
        assert j - i <= BURST - 1 + (times[j] - times[i]) / throttle.interval + 1e-9, (i, j, times)
    # once the burst is spent, a steady stream gets one flush per interval exactly
    gaps = [b - a for a, b in itertools.pairwise(times[2:])]
    assert gaps == pytest.approx([throttle.interval] * len(gaps)), gaps
    assert times[-1] >= last_poke - SPAN / POKES
    assert recorder.flushes[-1][1] == POKES
    # Once the last change is flushed, nothing more is.
    assert [seen for _, seen in recorder.flushes].count(POKES) == 1
    assert clock.pending() == []


def test_changes_made_together_flush_once_and_a_change_after_a_pause_goes_at_once() -> None:
    clock = FakeClock()
    recorder = Recorder(clock)
    throttle = Throttle(recorder.flush, interval=0.2, clock=clock)
    began = clock.now()

    def burst() -> None:
        for _ in range(50):
            throttle.poke()

    burst()
    assert recorder.flushes == []  # not before the moment is through
    clock.advance()
    assert len(recorder.flushes) == 1  # the fifty changes of one moment: one flush
    # the next moment (the first word after the view's opening): at once
    assert throttle.wait() == 0.0, throttle.wait()
    burst()
    clock.advance()
    assert len(recorder.flushes) == 2
    burst()  # the bucket is spent: this one waits its gap
    clock.advance()
    assert len(recorder.flushes) == 2
    assert clock.pending() == [pytest.approx(began + 0.2)]
    clock.advance(0.2 - 1e-6)
    assert len(recorder.flushes) == 2
    clock.advance(1e-6)
    assert recorder.times[2] == pytest.approx(began + 0.2)  # two flushes at most in any interval
    clock.advance(1.0)
    assert len(recorder.flushes) == 3


def test_a_steady_stream_stays_under_the_message_limit_in_any_second() -> None:
    clock = FakeClock()
    recorder = Recorder(clock)
    throttle = Throttle(recorder.flush, clock=clock)
    for _ in range(800):  # 1.6 s
        throttle.poke()
        clock.advance(0.002)
    clock.advance(3 * throttle.interval)
    times = recorder.times
    peak = max(sum(1 for t in times if start <= t < start + 1.0) for start in times)
    # the burst and one per interval: what the limit allows with MARGIN to spare
    assert peak == BURST + math.ceil(1.0 / throttle.interval) - 1, (peak, times)
    assert peak <= MAX_MESSAGES_PER_SECOND, peak


def test_flush_now_replaces_a_pending_flush() -> None:
    clock = FakeClock()
    recorder = Recorder(clock)
    throttle = Throttle(recorder.flush, interval=0.2, clock=clock)
    throttle.poke()  # a flush is due once this moment is through
    throttle.poke()
    throttle.flush_now()  # it goes now instead
    assert len(recorder.flushes) == 1
    clock.advance(0.35)
    assert len(recorder.flushes) == 1
    assert clock.pending() == []


def test_slow_flushes_keep_their_share_of_the_engine_and_one_slow_flush_holds_nothing_back() -> None:
    clock = FakeClock()
    recorder = Recorder(clock)
    cost = {"seconds": 0.03}

    def slow_flush() -> None:
        clock.sleep(cost["seconds"])  # a view reading a long transcript
        recorder.flush()

    throttle = Throttle(slow_flush, interval=0.02, share=0.1, allowance=0.05, clock=clock)  # 10%
    throttle.poke()
    clock.advance()
    assert len(recorder.flushes) == 1
    # one slow flush spent part of the allowance only: the next may go within an interval
    assert throttle.wait() <= throttle.interval, throttle.wait()
    throttle.poke()
    clock.advance()
    assert len(recorder.flushes) == 2
    start = clock.now()
    for _ in range(300):  # changes keep coming for 1.5 s: the share spaces the flushes
        throttle.poke()
        clock.advance(0.005)
    steady = [t for t in recorder.times if t > start]
    spent = cost["seconds"] * len(steady)
    assert spent <= 0.1 * 1.5 + 0.05 + cost["seconds"], spent  # the share, the allowance, one in flight
    gaps = [b - a for a, b in itertools.pairwise(steady)]
    # once spent: one per d / share, exactly
    assert gaps and gaps == pytest.approx([0.03 / 0.1] * len(gaps)), gaps
    assert statistics.median(gaps) == pytest.approx(0.3)
    cost["seconds"] = 0.0
    clock.advance(0.5)  # the time bucket refills
    before = len(recorder.flushes)
    throttle.poke()
    clock.advance()
    assert len(recorder.flushes) == before + 1
    assert throttle.wait() <= throttle.interval, throttle.wait()  # quick again


def test_a_flush_stalled_by_a_busy_machine_holds_the_next_change_back_at_most_the_longest_wait() -> None:
    """A flush's cost is the time it held the loop, a stall on a busy machine included: one
    that took 3 s would overdraw the time bucket by 118 s of its share. The next change goes out
    within LONGEST_WAIT, and the changes after it at the usual pace."""
    clock = FakeClock()
    recorder = Recorder(clock)
    stall = {"seconds": 3.0}

    def stalled_flush() -> None:
        clock.sleep(stall["seconds"])
        stall["seconds"] = 0.0  # only the first flush stalls
        recorder.flush()

    throttle = Throttle(stalled_flush, clock=clock)
    throttle.poke()
    clock.advance()
    assert len(recorder.flushes) == 1
    held_back = throttle.wait()
    assert 0 < held_back <= LONGEST_WAIT  # 2.95 s overdrawn / SHARE would be 118 s
    before = clock.now()
    throttle.poke()
    clock.advance(LONGEST_WAIT)
    assert len(recorder.flushes) == 2 and recorder.times[-1] - before == pytest.approx(held_back)
    throttle.poke()
    clock.advance(throttle.interval)
    assert len(recorder.flushes) == 3  # the usual pace again


def test_on_the_real_clock_flushes_run_on_the_engine_thread_and_the_last_change_goes_out() -> None:
    seen: list[tuple[bool, int]] = []
    changes = {"n": 0}
    last = threading.Event()

    def flush() -> None:
        seen.append((in_engine_thread(), changes["n"]))
        if changes["n"] == 100:
            last.set()

    throttle = Throttle(flush)  # the real clock, the engine loop
    for _ in range(100):  # from this thread: each poke hops onto the engine loop
        changes["n"] += 1
        throttle.poke()
    assert last.wait(WAIT), seen
    assert {on_engine for on_engine, _ in seen} == {True}
    assert len(seen) <= 100
