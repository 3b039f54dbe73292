"""Raw LangGraph interrupts: an ``interrupt(value)`` that is not a human-in-the-loop approval (a
question, a dict, a form) as a pending request answered with ``resume(value)``, the value shown
as JSON-ready data, and the answers a card may send checked before anything is resumed."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from deepnb.core.errors import DeepnbError
from deepnb.core.schema import PendingRequest
from deepnb.core.text.safe_display import safe_display
from deepnb.core.text.secrets import redact

VALUE_LIMIT = 2000
"""Characters of an interrupt's value (as JSON) a card shows; ``run.pending[i].value`` has it all."""
ANSWER_DEPTH = 32
"""How deeply a reply may nest (a card's reply is data, not a program)."""


class Resumer(Protocol):
    """A run as its pending requests see it: it resumes one interrupt with a value."""

    def answer(self, interrupt_id: str, value: Any) -> None: ...


def is_approval(value: Any) -> bool:
    """Whether an interrupt's value is a human-in-the-loop approval (``action_requests``)."""
    return isinstance(value, Mapping) and isinstance(value.get("action_requests"), list)


def jsonable(value: Any) -> Any:
    """``value`` as plain JSON data (what is not JSON becomes its ``str``)."""
    return json.loads(json.dumps(value, ensure_ascii=False, default=str))


def question_entry(interrupt_id: str, agent: str, value: Any, *, answer: str | None = None) -> PendingRequest:
    """One pending raw interrupt as a view shows it: ``value`` (JSON data, ``None`` when it was
    too long to show whole) and ``value_json`` (its JSON text, clipped), secrets removed, and the
    ``answer`` once sent."""
    data = jsonable(value)
    text = redact(json.dumps(data, indent=2, ensure_ascii=False))
    whole = len(text) <= VALUE_LIMIT
    return PendingRequest(
        id=interrupt_id,
        agent=agent,
        kind="question",
        actions=[],
        value=json.loads(text) if whole else None,
        value_json=text if whole else text[: VALUE_LIMIT - 1] + "…",
        answer=answer,
    )


def value_text(value: Any, limit: int = 80) -> str:
    """A one-line form of an interrupt's value or of an answer, for text views and logs."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(redact(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def check_answer(value: Any, *, depth: int = 0) -> Any:
    """``value`` if it is JSON data a graph can be resumed with (strings, numbers, booleans,
    ``None``, lists, objects with string keys); else ``DeepnbError`` saying what is wrong."""
    if depth > ANSWER_DEPTH:
        raise DeepnbError(f"The answer nests deeper than {ANSWER_DEPTH} levels: nothing was sent.")
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise DeepnbError(f"The answer holds {value!r}, which JSON cannot carry: nothing was sent.")
        return value
    if isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
        return [check_answer(v, depth=depth + 1) for v in value]
    if isinstance(value, Mapping):
        bad = next((k for k in value if not isinstance(k, str)), None)
        if bad is not None:
            raise DeepnbError(f"The answer's keys must be text, not {bad!r}: nothing was sent.")
        return {k: check_answer(v, depth=depth + 1) for k, v in value.items()}
    raise DeepnbError(
        f"The answer must be JSON data (text, a number, true/false, a list or an object), "
        f"not {type(value).__name__}: nothing was sent."
    )


def check_answer_card(content: Mapping[str, Any], pending: Sequence[Mapping[str, Any]]) -> str:
    """Check an ``answer`` message from a card: it must name a pending raw interrupt (an approval
    is answered with its own decisions) not answered yet, and carry JSON data. Returns the
    interrupt id; anything else raises ``DeepnbError`` and nothing is resumed."""
    interrupt_id = content.get("interrupt_id")
    request = next((p for p in pending if p.get("id") == interrupt_id), None)
    if not isinstance(interrupt_id, str) or request is None:
        raise DeepnbError(f"No question {interrupt_id!r} is waiting (any more): nothing was sent.")
    if request.get("kind") != "question":
        raise DeepnbError("That is an approval: decide it with its card's buttons. Nothing was sent.")
    if request.get("answer") is not None:
        raise DeepnbError("That question was already answered; an answer is sent once.")
    if "value" not in content:
        raise DeepnbError("An answer needs a value: nothing was sent.")
    check_answer(content["value"])
    return interrupt_id


@safe_display
@dataclass(frozen=True)
class PendingInterrupt:
    """A raw ``interrupt(value)`` waiting for an answer: ``value`` is what the graph asked
    (secrets removed); ``resume(value)`` answers it with any JSON-able value, and the run goes
    on (exactly that interrupt: others pending at the same time keep waiting)."""

    run: Resumer
    interrupt_id: str
    value: Any
    agent: str

    def resume(self, value: Any) -> None:
        """Answer the interrupt with ``value``: what ``interrupt()`` returns in the graph."""
        self.run.answer(self.interrupt_id, value)

    def __repr__(self) -> str:
        where = "" if self.agent == "main" else f" in {self.agent}"
        return f"<PendingInterrupt{where} {value_text(self.value)}>"
