"""What an experiment keeps of each run: a :class:`RunRecord` (the answer, status, counters,
messages and scores), the same whether the run happened in this kernel or was read from a log.
Scorers are given one as their ``run``."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from deepnb.core.displayable import Displayable
from deepnb.core.text.safe_display import safe_display
from deepnb.core.tokens import TOKEN_COLUMNS, Tokens

Key = tuple[int, str, int]
"""A run's place in an experiment: (row, variant, epoch)."""


@dataclass(frozen=True)
class Score:
    """One scorer's verdict on one run: ``score`` (a number; a bool as 1 or 0; ``None`` when
    the scorer gave none or failed), its ``comment``, and ``error`` when the scorer raised. A
    scorer that calls a model (a judge) gives the ``tokens`` of those calls and their ``cost``
    (``None``: unknown); others leave both ``None``."""

    score: float | None
    comment: str | None = None
    error: str | None = None
    tokens: Tokens | None = None
    cost: float | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"score": self.score, "comment": self.comment, "error": self.error}
        if self.tokens is not None:
            data.update(self.tokens.columns(), cost=self.cost)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Score:
        value = data.get("score")
        metered = any(name in data for name in TOKEN_COLUMNS)
        cost = data.get("cost")
        return cls(
            None if value is None else float(value),
            data.get("comment"),
            data.get("error"),
            Tokens.of(data) if metered else None,
            float(cost) if isinstance(cost, int | float) and not isinstance(cost, bool) else None,
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
    attempts: int = 1
    """Runs it took: more than 1 where a run failing with an error that may pass was run again
    (``retries=``); the record is the last one's."""
    cached: int = 0
    """Its model calls answered from the experiment's cache (``cache=``): they spent nothing."""

    @property
    def key(self) -> Key:
        return (self.row, self.variant, self.epoch)

    @property
    def tokens(self) -> Tokens:
        """The run's tokens, with the model calls that reported none kept apart."""
        return Tokens.of(self)

    @property
    def scoring_cost(self) -> float | None:
        """What its scorers' model calls (a judge's) cost in US dollars: ``None`` when no scorer
        priced a call (none called a model, or no price is known)."""
        costs = [s.cost for s in self.scores.values() if s.cost is not None]
        return sum(costs) if costs else None

    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        """Every tool call of the run, in order: ``{"name", "args"}``."""
        calls = []
        for message in self.messages:
            for call in message.get("tool_calls") or ():
                function = call.get("function") or {}
                name = function.get("name", call.get("name"))
                args: Any = function.get("arguments", call.get("args"))
                if isinstance(args, str):
                    args = _json_object(args)
                calls.append({"name": name, "args": args or {}})
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
            "attempts": self.attempts,
            "cached": self.cached,
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
            attempts=max(1, _whole(data.get("attempts"), 1)),
            cached=_whole(data.get("cached"), 0),
        )


def _whole(value: Any, default: int) -> int:
    """A logged count, ``default`` where the log has none (or something else)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else default


def _json_object(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return {"arguments": text}
