"""Throttle on the real engine loop: bounded flush rate, a change after a quiet moment at once,
and the last change is never lost."""

from __future__ import annotations

import itertools
import math
import statistics
import threading
import time

from deepnb.core.loop import engine_loop, in_engine_thread, run_sync
from deepnb.views.throttle import BURST, MAX_MESSAGES_PER_SECOND, Throttle

POKES = 1000
SPAN = 0.45  # seconds over which the pokes are spread (~0.5 s)


class Recorder:
    def __init__(self) -> None:
        self.changes = 0
        self.flushes: list[tuple[float, int]] = []  # (monotonic time, changes seen)
        self.threads: set[bool] = set()
        self.lock = threading.Lock()

    def flush(self) -> None:
        self.threads.add(in_engine_thread())
        with self.lock:
            self.flushes.append((time.monotonic(), self.changes))


def _wait_until(predicate, timeout: float = 2.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.01)


def test_many_pokes_give_few_flushes_and_the_last_change_is_flushed() -> None:
    engine_loop()
    recorder = Recorder()
    throttle = Throttle(recorder.flush)
    start = time.monotonic()
    for n in range(POKES):
        with recorder.lock:
            recorder.changes += 1
        throttle.poke()
        # Spread the pokes evenly over SPAN seconds.
        ahead = start + SPAN * (n + 1) / POKES - time.monotonic()
        if ahead > 0:
            time.sleep(ahead)
    last_poke = time.monotonic()
    _wait_until(lambda: recorder.flushes and recorder.flushes[-1][1] == POKES)
    time.sleep(3 * throttle.interval)  # any stray flush would show up by now

    times = [t for t, _ in recorder.flushes]
    assert recorder.threads == {True}, "flush must run on the engine thread"
    assert len(times) <= BURST + math.ceil(0.5 / throttle.interval), len(times)
    assert len(times) >= 3, "changes over 0.45 s should flush several times, not once at the end"
    # the bucket's bound: between any two flushes, at most BURST more than one per interval
    for i, j in itertools.combinations(range(len(times)), 2):
        assert j - i <= BURST - 1 + (times[j] - times[i]) / throttle.interval + 0.1, (i, j, times)
    assert times[-1] >= last_poke
    assert recorder.flushes[-1][1] == POKES
    # Once the last change is flushed, nothing more is.
    assert [seen for _, seen in recorder.flushes].count(POKES) == 1


def test_changes_made_together_flush_once_and_a_change_after_a_pause_goes_at_once() -> None:
    recorder = Recorder()
    throttle = Throttle(recorder.flush, interval=0.2)

    async def burst() -> None:
        for _ in range(50):
            throttle.poke()

    run_sync(burst())
    _wait_until(lambda: len(recorder.flushes) >= 1)
    time.sleep(0.02)
    assert len(recorder.flushes) == 1  # the fifty changes of one moment: one flush
    # a moment later (the first word after the view's opening): at once, by what the throttle
    # says rather than the clock, which a busy machine holds up
    assert throttle.wait() == 0.0, throttle.wait()
    run_sync(burst())
    _wait_until(lambda: len(recorder.flushes) >= 2)
    run_sync(burst())  # the bucket is spent: this one waits its gap
    _wait_until(lambda: len(recorder.flushes) >= 3)
    # two flushes at most in any interval: counted from the first, since a second flush held up
    # by a busy machine has the bucket refill meanwhile
    assert recorder.flushes[2][0] - recorder.flushes[0][0] >= 0.2 * 0.8 - 0.005
    time.sleep(0.3)
    assert len(recorder.flushes) == 3


def test_a_steady_stream_stays_under_the_message_limit_in_any_second() -> None:
    recorder = Recorder()
    throttle = Throttle(recorder.flush)
    end = time.monotonic() + 1.6
    while time.monotonic() < end:
        throttle.poke()
        time.sleep(0.002)
    time.sleep(3 * throttle.interval)
    times = [t for t, _ in recorder.flushes]
    peak = max(sum(1 for t in times if start <= t < start + 1.0) for start in times)
    assert peak <= MAX_MESSAGES_PER_SECOND, peak


def test_flush_now_replaces_a_pending_flush() -> None:
    recorder = Recorder()
    throttle = Throttle(recorder.flush, interval=0.2)

    async def poke_then_flush() -> int:
        throttle.poke()  # a flush is due once this moment is through
        throttle.poke()
        throttle.flush_now()  # it goes now instead
        return len(recorder.flushes)

    assert run_sync(poke_then_flush()) == 1
    time.sleep(0.35)
    assert len(recorder.flushes) == 1


def test_slow_flushes_keep_their_share_of_the_engine_and_one_slow_flush_holds_nothing_back() -> None:
    recorder = Recorder()
    cost = {"seconds": 0.03}
    took: list[float] = []

    def slow_flush() -> None:
        began = time.monotonic()
        time.sleep(cost["seconds"])  # a view reading a long transcript
        took.append(time.monotonic() - began)
        recorder.flush()

    throttle = Throttle(slow_flush, interval=0.02, share=0.1, allowance=0.05)  # 10% of the loop's time

    async def poke() -> None:
        throttle.poke()

    run_sync(poke())
    _wait_until(lambda: len(recorder.flushes) == 1)
    # one slow flush spent part of the allowance only: the next may go within an interval (what
    # the throttle says, not the clock; unless a busy machine made the flush outlast the allowance)
    if took[0] < throttle.allowance:
        assert throttle.wait() <= throttle.interval, (throttle.wait(), took)
    run_sync(poke())
    _wait_until(lambda: len(recorder.flushes) == 2)
    start = time.monotonic()
    while time.monotonic() - start < 1.5:  # changes keep coming: the share spaces the flushes
        run_sync(poke())
        time.sleep(0.005)
    spent = cost["seconds"] * sum(1 for t, _ in recorder.flushes if t >= start)
    assert spent <= 0.1 * 1.5 + 0.05 + cost["seconds"], spent  # the share, the allowance, one in flight
    steady = [t for t, _ in recorder.flushes if t >= start]
    gaps = [b - a for a, b in itertools.pairwise(steady)]
    # once spent: one per d / share (a flush held up by a busy machine refills the bucket, so the
    # one after it may come soon: the typical gap, not every gap)
    assert gaps and statistics.median(gaps) >= 0.03 / 0.1 - 0.02, gaps  # a busy machine flushes fewer
    cost["seconds"] = 0.0
    time.sleep(0.5)  # the time bucket refills
    before = len(recorder.flushes)
    run_sync(poke())
    _wait_until(lambda: len(recorder.flushes) > before)
    assert throttle.wait() <= throttle.interval, throttle.wait()  # quick again
