"""When a run's events happened, for graphs whose stream says so.

A run's state stamps what it folds (a subagent's start and end, the run's end) with the time
each event is folded. For a stream that is live, that is when it happened. A stream replayed
from its first event (a run joined on an Agent Server after a kernel restart, or started by
another client) arrives all at once, long after: its own stamps say when each event happened.
A graph that knows them offers ``chunk_time(thread_id)``, the time (seconds since the epoch) of
the chunk it yielded last; :func:`event_clock` reads it while the stream is behind, and the wall
clock once it is live (or for a graph that says nothing). A graph that joined a run from its start
also offers ``stream_began(thread_id)``: the time of the stream's first event, which is not a chunk
(the run's metadata, and the time it was queued, come before its first chunk): the run began then
(:func:`stream_began`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from deepnb.core import clock as clocks

REPLAY_LAG = 2.0
"""Seconds a chunk's own time may lag the wall clock and still count as live."""
_STREAM_ID = re.compile(r"^(\d{12,14})-\d+$")


def stamp_of(event_id: Any) -> float | None:
    """The time (seconds since the epoch) a resumable stream's event id says (``"<ms>-<n>"``,
    as the Agent Server numbers its events), or ``None`` for an id of another shape."""
    found = _STREAM_ID.match(str(event_id or ""))
    return int(found.group(1)) / 1000 if found else None


def event_clock(graph: Any, thread_id: str, *, clock: clocks.Clock | None = None) -> Callable[[], float]:
    """A clock for the events of a run of ``graph`` on ``thread_id``: the time of the chunk
    being read where the stream is replaying what happened earlier, else the wall clock
    (``clock``'s, :func:`deepnb.core.clock.current`'s when none is given)."""
    wall = (clock or clocks.current()).wall
    chunk_time = getattr(graph, "chunk_time", None)
    if not callable(chunk_time):
        return wall

    def events() -> float:
        now = wall()
        at = chunk_time(thread_id)
        return float(at) if isinstance(at, int | float) and now - at > REPLAY_LAG else now

    return events


def stream_began(graph: Any, thread_id: str) -> float | None:
    """When the run ``graph`` streams on ``thread_id`` began, as its stream's first event says, for
    a graph that joined it from its start; ``None`` where the graph says nothing."""
    began = getattr(graph, "stream_began", None)
    at = began(thread_id) if callable(began) else None
    return float(at) if isinstance(at, int | float) else None
