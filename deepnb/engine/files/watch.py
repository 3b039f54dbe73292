"""Who hears that code changed a thread's files: the open file views, so they refresh.

A run's own writes reach a view through the run's events; a write from a notebook cell
(``run.files.write(...)``, ``edit``, ``delete``, or another view's Save) comes through here.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Sequence

from deepnb.core.failures import contained

_lock = threading.Lock()
_listeners: dict[tuple[str, str], list[weakref.WeakMethod[Callable[[Sequence[str]], None]]]] = {}


def listen(agent: str, thread_id: str, method: Callable[[Sequence[str]], None]) -> Callable[[], None]:
    """Call the bound ``method`` with the changed paths whenever code changes the files of
    ``agent``'s thread ``thread_id``. Held weakly: an object that is gone stops listening.
    Returns a function that stops it."""
    key = (agent, thread_id)
    ref = weakref.WeakMethod(method)
    with _lock:
        _listeners.setdefault(key, []).append(ref)

    def stop() -> None:
        with _lock:
            refs = _listeners.get(key, [])
            if ref in refs:
                refs.remove(ref)
            if not refs:
                _listeners.pop(key, None)

    return stop


def announce(agent: str, thread_id: str, paths: Sequence[str]) -> None:
    """Tell whoever listens to that thread that ``paths`` changed."""
    with _lock:
        refs = _listeners.get((agent, thread_id), [])
        methods = [m for m in (ref() for ref in refs) if m is not None]
        refs[:] = [ref for ref in refs if ref() is not None]
    for method in methods:  # a listener's failure must not fail the write that already happened
        contained(method, list(paths), what="a file listener", quiet=True)
