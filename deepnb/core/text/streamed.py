"""Secrets in streamed text: redacted before any piece of them is shown.

A model streams its text in pieces of a few characters, so a secret arrives as growing prefixes
that no redaction of one piece can match. :class:`StreamRedactor` stands where a run's events
leave it (``Run.emit``): it redacts every event, and of each stream of text it passes on only
what can no longer become part of a secret (:func:`deepnb.core.text.secrets.open_tail`), holding the rest
back until the next pieces settle it — a few characters of delay, and no innocent text redacted.

The streams (:data:`CHANNELS`) are each agent's model text (:class:`~deepnb.core.events.TextDelta`:
the main agent's answer and every subagent's), what each agent's model thinks
(:class:`~deepnb.core.events.ThinkingDelta`), and the text a tool streams with LangGraph's stream
writer (a :class:`~deepnb.core.events.Custom` event holding a string). What is held is let go, redacted
as a whole, before the event that ends its stream (the agent's model turn, tool call or task
ends, or the run finishes, fails, stops or pauses), so no text is lost.
"""

from __future__ import annotations

import dataclasses

from deepnb.core import events as ev
from deepnb.core.text.secrets import open_tail, redact, redact_data, secret_forms

__all__ = ["CHANNELS", "HELD", "StreamRedactor"]

HELD = 8192
"""Characters a stream's open end may hold (beyond the longest secret's form): no key is this
long, so a key-shaped token that grows past it (a model streaming ``"sk-aaaa…"`` for ever) is let
go, redacted, rather than read again at each piece (which made streaming it quadratic)."""

CHANNELS: dict[type[ev.Event], str] = {ev.TextDelta: "text", ev.ThinkingDelta: "text", ev.Custom: "data"}
"""The events that carry a piece of a stream, and the field that holds the piece (a ``Custom``
event is one only when its data is a string)."""
ENDS_AGENT = (ev.ModelTurn, ev.ToolCallStarted, ev.ToolCallFinished, ev.Interrupted)
"""Events after which an agent's streams have ended (its model call, or its tool call, is over)."""
ENDS_ALL = (ev.RunFinished, ev.RunFailed, ev.RunCancelled, ev.RunPaused)
"""Events after which no stream of the run goes on."""
ENDS_STREAM: dict[type[ev.Event], type[ev.Event]] = {ev.TextDelta: ev.ThinkingDelta}
"""A piece of one stream that ends another of the same agent: its answer starts, so what it
thought is let go in full before the answer's first piece."""


def _piece(event: ev.Event) -> str | None:
    """The streamed text ``event`` carries, or ``None`` for an event that is no stream's piece."""
    name = CHANNELS.get(type(event))
    value = getattr(event, name) if name is not None else None
    return value if isinstance(value, str) else None


@dataclasses.dataclass
class _Held:
    """One stream: the text it holds back, the event to put it in, the last character shown."""

    text: str
    event: ev.Event
    before: str = ""


def _redacted(before: str, text: str) -> str:
    """``text`` redacted as it reads after ``before`` (the character shown last: a key shape
    starts at a word boundary)."""
    cleaned = redact(before + text)
    return cleaned[len(before) :] if cleaned.startswith(before) else redact(text)


class StreamRedactor:
    """Redacts a run's events; holds back the end of each stream that could still become a secret.
    Not thread-safe: its caller holds the run's lock."""

    def __init__(self) -> None:
        self._held: dict[tuple[type[ev.Event], str], _Held] = {}

    def feed(self, event: ev.Event) -> list[ev.Event]:
        """The events to pass on for ``event``, redacted: none, a piece of a stream, or what
        streams it ends let go followed by the event itself."""
        piece = _piece(event)
        if piece is not None:
            return self._stream(event, piece)
        if isinstance(event, ENDS_ALL):
            out = self.release()
        else:
            ended = _ended_by(event)
            out = self.release(ended) if ended is not None else []
        out.append(redact_data(event))
        return out

    def release(self, agent: str | None = None) -> list[ev.Event]:
        """Let go what every stream of ``agent`` (``None``: of every agent) holds, redacted."""
        out = []
        for key in [k for k in self._held if agent is None or k[1] == agent]:
            out += self._let_go(key)
        return out

    def _stream(self, event: ev.Event, piece: str) -> list[ev.Event]:
        ended = ENDS_STREAM.get(type(event))
        before = self._let_go((ended, event.agent)) if ended is not None else []
        return before + self._piece(event, piece)

    def _let_go(self, key: tuple[type[ev.Event], str]) -> list[ev.Event]:
        held = self._held.pop(key, None)
        return [_with(held.event, _redacted(held.before, held.text))] if held and held.text else []

    def _piece(self, event: ev.Event, piece: str) -> list[ev.Event]:
        key = (type(event), event.agent)
        held = self._held.get(key)
        if held is None:
            held = self._held[key] = _Held("", event)
        text = held.before + held.text + piece
        skip = len(held.before)
        cut = max(skip, open_tail(text))
        forms = secret_forms()
        if len(text) - cut > HELD + (len(forms[0]) if forms else 0):
            cut = len(text)
        released = text[skip:cut]
        held.text, held.event = text[cut:], event
        if not released:
            return []
        out = _redacted(held.before, released)
        held.before = text[cut - 1]
        return [_with(event, out)]


def _ended_by(event: ev.Event) -> str | None:
    """The agent whose streams ``event`` ends, or ``None`` for an event that ends none."""
    if isinstance(event, ENDS_AGENT):
        return event.agent
    if isinstance(event, ev.SubagentFinished):
        return event.path
    return None


def _with(event: ev.Event, text: str) -> ev.Event:
    """``event`` with its piece replaced by ``text`` (already redacted) and its other fields
    redacted."""
    name = CHANNELS[type(event)]
    others: ev.Event = redact_data(dataclasses.replace(event, **{name: ""}))
    return dataclasses.replace(others, **{name: text})
