"""Waiting for something outside the test (a run on the engine thread, a kernel, a process, a
server) to get somewhere: one helper and one timeout policy for every test.

A test waits on an event (``run.wait``, a ``threading.Event``) where there is one, and through
:func:`wait_until` where there is only a state to look at. Neither is a way to let time pass:
code that keeps time takes a clock, and tests move a :class:`deepnb.core.clock.FakeClock`.

:data:`WAIT` is how long anything in a test may take before it counts as stuck: generous,
since a machine running other work can hold a thread up for seconds; a test that passes never
waits that long. ``DEEPNB_TEST_WAIT`` (seconds) changes it for a slow machine."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable

import pytest

WAIT = float(os.environ.get("DEEPNB_TEST_WAIT", "120"))
"""Seconds before a wait counts as stuck and fails the test."""
POLL = 0.01
"""Seconds between two looks at the condition."""


def wait_until(
    condition: Callable[[], object],
    what: str,
    *,
    timeout: float = WAIT,
    gone: Callable[[], str | None] | None = None,
) -> None:
    """Return once ``condition()`` is true; fail the test naming ``what`` after ``timeout``
    seconds, or at once when ``gone()`` says (with a reason, such as a process's exit and its
    log) that it can never come."""
    deadline = time.monotonic() + timeout
    while not condition():
        reason = gone() if gone is not None else None
        if reason is not None:
            pytest.fail(f"waiting for {what}: {reason}")
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(POLL)


def eventually(check: Callable[[], object], what: str, *, timeout: float = WAIT) -> None:
    """Run ``check`` (assertions on a page or a state that settles: a scroll, a layout) until it
    passes; after ``timeout`` seconds its last failure fails the test, naming ``what``."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            check()
            return
        except AssertionError as failed:
            if time.monotonic() > deadline:
                raise AssertionError(f"{what}: {failed}") from failed
        time.sleep(POLL * 10)


class Gate:
    """Holds whatever calls :meth:`hold` (a tool, a graph's node) until the test opens it: the
    test knows the run is inside that call (``reached``) for as long as it needs, instead of
    sleeping in the call and hoping the test acts in time."""

    def __init__(self) -> None:
        self.reached = threading.Event()
        """Set once a call is held."""
        self._open = threading.Event()

    def hold(self) -> None:
        """Wait here until the gate opens (at most :data:`WAIT` seconds)."""
        self.reached.set()
        if not self._open.wait(WAIT):
            raise TimeoutError(f"the test never opened the gate in {WAIT:.0f} s")

    def wait_reached(self) -> None:
        """Wait until a call is held; fail the test if none comes within :data:`WAIT`."""
        if not self.reached.wait(WAIT):
            pytest.fail(f"nothing reached the gate in {WAIT:.0f} s")

    def open(self) -> None:
        """Let every held call (and every later one) through."""
        self._open.set()
