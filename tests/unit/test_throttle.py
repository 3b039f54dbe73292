"""Throttle on the real engine loop: bounded flush rate, and the last change is never lost."""

from __future__ import annotations

import itertools
import math
import threading
import time

from deepnb.core.loop import engine_loop, in_engine_thread, run_sync
from deepnb.views.throttle import MAX_MESSAGES_PER_SECOND, Throttle

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
    assert len(times) <= math.ceil(0.5 * MAX_MESSAGES_PER_SECOND) + 1, len(times)
    assert len(times) >= 3, "changes over 0.45 s should flush several times, not once at the end"
    gaps = [b - a for a, b in itertools.pairwise(times)]
    assert min(gaps) >= throttle.interval - 0.005, gaps
    assert times[-1] >= last_poke
    assert recorder.flushes[-1][1] == POKES
    # Once the last change is flushed, nothing more is.
    assert [seen for _, seen in recorder.flushes].count(POKES) == 1


def test_first_poke_flushes_at_once_and_a_burst_coalesces() -> None:
    recorder = Recorder()
    throttle = Throttle(recorder.flush, interval=0.2)

    async def burst() -> int:
        for _ in range(50):
            throttle.poke()
        return len(recorder.flushes)

    assert run_sync(burst()) == 1
    _wait_until(lambda: len(recorder.flushes) >= 2)
    time.sleep(0.3)
    assert len(recorder.flushes) == 2
    assert recorder.flushes[1][0] - recorder.flushes[0][0] >= 0.2 - 0.005


def test_flush_now_replaces_a_pending_flush() -> None:
    recorder = Recorder()
    throttle = Throttle(recorder.flush, interval=0.2)

    async def poke_then_flush() -> None:
        throttle.poke()
        throttle.poke()  # schedules a flush 0.2 s later
        throttle.flush_now()

    run_sync(poke_then_flush())
    time.sleep(0.35)
    assert len(recorder.flushes) == 2
    assert recorder.flushes[1][0] - recorder.flushes[0][0] < 0.1


def test_a_slow_flush_spaces_the_next_so_flushing_keeps_its_share_of_the_engine() -> None:
    recorder = Recorder()
    cost = {"seconds": 0.03}

    def slow_flush() -> None:
        time.sleep(cost["seconds"])  # a view reading a long transcript
        recorder.flush()

    throttle = Throttle(slow_flush, interval=0.02, share=0.1)  # at most 10% of the loop's time

    async def poke() -> None:
        throttle.poke()

    run_sync(poke())  # flushes at once
    assert throttle.gap >= 0.3, throttle.gap
    run_sync(poke())  # the change waits for the gap, and is not lost
    _wait_until(lambda: len(recorder.flushes) == 2)
    assert recorder.flushes[1][0] - recorder.flushes[0][0] >= 0.3 - 0.005
    cost["seconds"] = 0.0
    run_sync(poke())
    _wait_until(lambda: len(recorder.flushes) == 3)
    # quick again: back towards the usual pace (a loaded machine's flush of nothing takes a few ms)
    assert throttle.interval <= throttle.gap < 0.1, throttle.gap
