"""Callbacks that a run or a batch calls as it changes, added and removed from any thread."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Listeners(Generic[T]):
    """The callbacks to call with each ``T`` (an event, a row index): ``add`` returns the function
    that removes the callback again, and ``now`` the callbacks to call at this moment (a copy, so
    one may remove itself while it is called)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._callbacks: list[Callable[[T], None]] = []

    def add(self, callback: Callable[[T], None]) -> Callable[[], None]:
        """Call ``callback`` from now on; the function returned stops that (twice is harmless)."""
        with self._lock:
            self._callbacks.append(callback)

        def remove() -> None:
            with self._lock:
                if callback in self._callbacks:
                    self._callbacks.remove(callback)

        return remove

    def now(self) -> list[Callable[[T], None]]:
        """The callbacks to call at this moment."""
        with self._lock:
            return list(self._callbacks)

    def __len__(self) -> int:
        with self._lock:
            return len(self._callbacks)
