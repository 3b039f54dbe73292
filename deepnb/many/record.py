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
from deepnb.core.tokens import TOKEN_COLUMNS, Tokens
from deepnb.many import fields
from deepnb.many.fields import Malformed

Key = tuple[int, str, int]
"""A run's place in an experiment: (row, variant, epoch)."""


@dataclass(frozen=True)
class Score:
    """One scorer's verdict on one run: ``score`` (a finite number; a bool as 1 or 0; ``None``
    when the scorer gave none or failed), its ``comment``, ``error`` when the scorer raised or
    gave no finite number, and ``human`` when a person set it (``Experiment.grade``). A scorer
    that calls a model (a judge) gives the ``tokens`` of those calls and their ``cost``
    (``None``: unknown); others leave both ``None``."""

    score: float | None
    comment: str | None = None
    error: str | None = None
    tokens: Tokens | None = None
    cost: float | None = None
    human: bool = False

    def to_json(self) -> dict[str, Any]:
        """The score as the log holds it (tokens and cost only for a metered scorer, ``human``
        only where true)."""
        data: dict[str, Any] = {"score": self.score, "comment": self.comment, "error": self.error}
        if self.tokens is not None:
            data.update(self.tokens.columns(), cost=self.cost)
        if self.human:
            data["human"] = True
        return data

    @classmethod
    def from_json(cls, data: Any) -> Score:
        """A score read from a log (:class:`~deepnb.many.fields.Malformed` if it is not one)."""
        if not isinstance(data, Mapping):
            raise Malformed(f"a score is a {type(data).__name__}, not an object")
        human = data.get("human", False)
        if not isinstance(human, bool):
            raise Malformed("a score's 'human' is not true or false")
        metered = any(name in data for name in TOKEN_COLUMNS)
        return cls(
            fields.number(data, "score"),
            fields.optional_text(data, "comment"),
            fields.optional_text(data, "error"),
            Tokens.of(data) if metered else None,
            fields.number(data, "cost"),
            human=human,
        )


def scores_from_json(data: Any) -> dict[str, Score]:
    """A log's ``scores`` object (scorer name -> score), checked."""
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise Malformed(f"its 'scores' is a {type(data).__name__}, not an object")
    return {str(name): Score.from_json(value) for name, value in data.items()}


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
            "attempts": self.attempts,
            "cached": self.cached,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], inputs: Mapping[str, Any], reference: Any) -> RunRecord:
        """A record read from a log's ``run`` line, every field checked
        (:class:`~deepnb.many.fields.Malformed` names the first that is wrong)."""
        tokens_in, tokens_out = (
            fields.optional_whole(data, "tokens_in"),
            fields.optional_whole(data, "tokens_out"),
        )
        return cls(
            row=fields.whole(data, "row"),
            variant=fields.text(data, "variant"),
            epoch=fields.whole(data, "epoch"),
            inputs=inputs,
            reference=reference,
            status=fields.optional_text(data, "status") or "error",
            result=fields.optional_text(data, "result"),
            output=data.get("output"),
            error=fields.optional_text(data, "error"),
            **Tokens.of(
                {
                    "tokens_in": tokens_in,
                    "tokens_out": tokens_out,
                    "tokens_unreported": fields.optional_whole(data, "tokens_unreported"),
                }
            ).columns(),
            cost=fields.number(data, "cost"),
            latency=fields.number(data, "latency") or 0.0,
            thread_id=fields.optional_text(data, "thread_id"),
            messages=fields.items(data, "messages"),
            scores=scores_from_json(data.get("scores")),
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
