"""A run's timeline: one record per model call and per tool call, with when it started and ended
(seconds from the run's start), its latency, and for a model call its tokens.

Times are taken as the events are emitted (the run state's clock, in ``Run.emit``: the wall clock,
or the stream's own times for a stream replayed from its start). Times are run time: the time the
run spent waiting for decisions or answers (from ``RunPaused`` to ``RunResumed``) is left out, as
the run's header leaves it out of its elapsed time, and :attr:`Timeline.waited` says it apart.
A model call starts when its agent was last ready to call it — the run's (or the subagent's)
start, or the end of its previous model call or tool call — and ends with its ``ModelTurn``.
The main agent's model calls also carry the thread's step they are (the thread's step before the
run, from ``RunStarted``, plus one per main model call), the number ``history`` lists and a fork
takes: ``%deepagent fork -t THREAD --at STEP``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict

from deepnb.core import events as ev
from deepnb.core.tokens import Tokens


class TimelineRecord(TypedDict):
    """One model call or tool call of a run."""

    kind: str
    """``"model"`` or ``"tool"``."""
    agent: str
    """The agent's path: ``"main"``, ``"main/general-purpose#2"``, …"""
    agent_name: str
    """The agent's name (its path's last part)."""
    name: str
    """The tool's name (empty for a model call)."""
    start: float
    end: float | None
    """``None`` while the call is going on."""
    latency: float | None
    tokens_in: int | None
    tokens_out: int | None
    """A model call's tokens (``None``: its provider reported no usage; 0 for a tool call)."""
    tokens_unreported: int
    """1 for a model call whose provider reported no usage, else 0."""
    step: int | None
    """For the main agent's model calls: the thread's step it is (what ``--at`` takes)."""
    call_id: str
    """A tool call's id (empty for a model call)."""
    calls: list[str]
    """The ids of the tool calls a model call asked for (empty for a tool call)."""


RESUMES = (ev.RunResumed, ev.RunFinished, ev.RunFailed, ev.RunCancelled)
"""What ends a wait for decisions or answers: the run goes on, or ends."""


def _round(seconds: float) -> float:
    return round(seconds, 4)


class Timeline:
    """Collects a run's model and tool calls as its events come (not thread-safe: ``Run.emit``
    calls :meth:`note` under the run's lock)."""

    def __init__(self) -> None:
        self._origin: float | None = None
        self._ready: dict[str, float] = {}
        self._open: dict[str, TimelineRecord] = {}
        self._records: list[TimelineRecord] = []
        self._changes = 0
        self._step = 0
        self._waited = 0.0
        self._paused_at: float | None = None

    def note(self, event: ev.Event, now: float) -> None:
        """Take ``event``, emitted at ``now`` (seconds)."""
        if self._origin is None:
            self._origin = now
        if isinstance(event, ev.RunPaused) and self._paused_at is None:
            self._paused_at = now
        elif self._paused_at is not None and isinstance(event, RESUMES):
            self._waited += max(0.0, now - self._paused_at)
            self._paused_at = None
        at = _round(now - self._origin - self._waited)
        if isinstance(event, ev.ModelTurn | ev.ToolCallStarted | ev.ToolCallFinished):
            self._changes += 1
        if isinstance(event, ev.ModelTurn):
            start = self._ready.get(event.agent, 0.0)
            record = self._record("model", event.agent, "", start)
            record["end"], record["latency"] = at, _round(at - start)
            tokens = Tokens(event.input_tokens, event.output_tokens, int(not event.usage_reported))
            columns = tokens.columns()
            record["tokens_in"], record["tokens_out"] = columns["tokens_in"], columns["tokens_out"]
            record["tokens_unreported"] = columns["tokens_unreported"]
            record["calls"] = [
                str(call.get("id") or "") for call in event.tool_calls if isinstance(call, Mapping)
            ]
            if ev.is_thread_step(event):
                self._step += 1
                record["step"] = self._step
            self._ready[event.agent] = at
        elif isinstance(event, ev.ToolCallStarted):
            if event.call_id not in self._open:
                self._open[event.call_id] = self._record("tool", event.agent, event.name, at)
                self._open[event.call_id]["call_id"] = event.call_id
        elif isinstance(event, ev.ToolCallFinished):
            started = self._open.pop(event.call_id, None)
            if started is not None:
                started["end"], started["latency"] = at, _round(at - started["start"])
            self._ready[event.agent] = at
        elif isinstance(event, ev.RunStarted):
            self._step = event.first_step
        elif isinstance(event, ev.SubagentStarted):
            self._ready[event.path] = at
        elif isinstance(event, ev.RunResumed):
            self._ready[ev.MAIN] = at

    def _record(self, kind: str, agent: str, name: str, start: float) -> TimelineRecord:
        record = TimelineRecord(
            kind=kind,
            agent=agent,
            agent_name=ev.agent_kind(agent),
            name=name,
            start=start,
            end=None,
            latency=None,
            tokens_in=0,
            tokens_out=0,
            tokens_unreported=0,
            step=None,
            call_id="",
            calls=[],
        )
        self._records.append(record)
        return record

    @property
    def waited(self) -> float:
        """Seconds the run waited for decisions or answers (left out of the records' times)."""
        return _round(self._waited)

    @property
    def version(self) -> int:
        """Changes with every call that came or ended."""
        return self._changes

    def records(self) -> list[TimelineRecord]:
        """A copy of the records, in the order the calls started."""
        copies = (TimelineRecord(**{**r, "calls": list(r["calls"])}) for r in self._records)
        return sorted(copies, key=lambda r: r["start"])

    def to_dicts(self) -> list[dict[str, Any]]:
        return [dict(r) for r in self.records()]
