"""What an experiment keeps of each run: a :class:`RunRecord` (the answer, status, counters,
messages and scores), the same whether the run happened in this kernel or was read from a log.
Scorers are given one as their ``run``."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from deepnb.core.call_args import call_args
from deepnb.core.displayable import Displayable
from deepnb.core.text.safe_display import safe_display
from deepnb.core.tokens import Tokens

Key = tuple[int, str, int]
"""A run's place in an experiment: (row, variant, epoch)."""


@dataclass(frozen=True)
class Score:
    """One scorer's verdict on one run: ``score`` (a number; a bool as 1 or 0; ``None`` when
    the scorer gave none or failed), its ``comment``, and ``error`` when the scorer raised."""

    score: float | None
    comment: str | None = None
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"score": self.score, "comment": self.comment, "error": self.error}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Score:
        value = data.get("score")
        return cls(
            None if value is None else float(value),
            data.get("comment"),
            data.get("error"),
        )


@safe_display
@dataclass(repr=False)  # repr: the renderer's (its scores and transcript)
class RunRecord(Displayable):
    """One run of an experiment as it ended: ``inputs`` (the row's fields), ``reference``,
    ``result`` (the answer text), ``output`` (a structured response, JSON-able), ``status``,
    ``error``, tokens (``None``: no model call reported usage; a lower bound, as ``cost`` then
    is, where ``tokens_unreported`` model calls reported none), ``cost`` (``None``: unknown),
    ``latency`` (seconds), ``thread_id``,
    ``messages`` (the thread's messages in OpenAI's dict shape) and ``scores`` by scorer name."""

    row: int
    variant: str
    epoch: int
    inputs: Mapping[str, Any]
    reference: Any
    status: str
    result: str | None = None
    output: Any = None
    error: str | None = None
    tokens_in: int | None = 0
    tokens_out: int | None = 0
    tokens_unreported: int = 0
    cost: float | None = None
    latency: float = 0.0
    thread_id: str | None = None
    messages: list[dict[str, Any]] = field(default_factory=list)
    scores: dict[str, Score] = field(default_factory=dict)

    @property
    def key(self) -> Key:
        return (self.row, self.variant, self.epoch)

    @property
    def tokens(self) -> Tokens:
        """The run's tokens, with the model calls that reported none kept apart."""
        return Tokens.of(self)

    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        """Every tool call of the run, in order: ``{"name", "args"}``."""
        calls = []
        for message in self.messages:
            for call in message.get("tool_calls") or ():
                if not isinstance(call, Mapping):
                    continue
                function = call.get("function")
                function = function if isinstance(function, Mapping) else {}
                name = function.get("name", call.get("name"))
                args: Any = function.get("arguments", call.get("args"))
                if isinstance(args, str):
                    args = _json_object(args)
                calls.append({"name": name, "args": call_args(args)})  # any JSON the model sent
        return calls

    def to_json(self) -> dict[str, Any]:
        """The record as one log line's fields (``type`` aside)."""
        return {
            "row": self.row,
            "variant": self.variant,
            "epoch": self.epoch,
            "status": self.status,
            "result": self.result,
            "output": self.output,
            "error": self.error,
            **self.tokens.columns(),
            "cost": self.cost,
            "latency": self.latency,
            "thread_id": self.thread_id,
            "messages": self.messages,
            "scores": {name: score.to_json() for name, score in self.scores.items()},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], inputs: Mapping[str, Any], reference: Any) -> RunRecord:
        return cls(
            row=int(data["row"]),
            variant=str(data["variant"]),
            epoch=int(data["epoch"]),
            inputs=inputs,
            reference=reference,
            status=str(data.get("status") or "error"),
            result=data.get("result"),
            output=data.get("output"),
            error=data.get("error"),
            **Tokens.of(data).columns(),
            cost=data.get("cost"),
            latency=float(data.get("latency") or 0.0),
            thread_id=data.get("thread_id"),
            messages=list(data.get("messages") or []),
            scores={str(k): Score.from_json(v) for k, v in (data.get("scores") or {}).items()},
        )


def _json_object(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return {"arguments": text}
