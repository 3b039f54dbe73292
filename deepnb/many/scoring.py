"""Calling scorers: each is named, called with the shape it asks for, and what it returns is
made a :class:`~deepnb.many.record.Score`.

A scorer is any callable, sync or async. Called by position it gets ``(output, reference,
run)`` (as many of them as it takes); one whose parameters are named like LangSmith's
evaluators (``inputs``, ``outputs``, ``reference_outputs``) gets those by name instead:
``inputs`` the row's fields, ``outputs`` ``{"output": answer, "messages": [...]}``,
``reference_outputs`` the row's reference. It returns a bool, a number, ``None`` (no score) or a
dict with ``score`` (and ``comment``); a scorer that raises, or gives a score that is not a
finite number (NaN, infinity, in any of those shapes), gives that run an error score.

In an experiment each scorer runs under its ``score_timeout`` (on a thread of its own, waited
for): one that takes longer is that run's scorer error, and stopping the experiment gives up on
a scorer still running at once. Python cannot stop a thread, so a scorer that never returns keeps
its (daemon) thread; nothing waits for it.
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import inspect
import math
import numbers
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from deepnb.core.errors import DeepnbError
from deepnb.many.record import RunRecord, Score

Scorer = Callable[..., Any]
BY_NAME = frozenset({"inputs", "outputs", "reference_outputs"})
"""Parameter names that make a scorer be called LangSmith's way."""
_NAMED = BY_NAME | {"output", "reference", "run"}
SCORE_TIMEOUT = 300.0
"""Seconds a scorer has to score one run in an experiment (its ``score_timeout``), a judge's
model call included."""
TICK = 0.1
"""Seconds between two looks at whether the experiment stopped, while a scorer runs."""


class ScoringStopped(Exception):
    """The experiment stopped while a scorer ran: the run it scored is not kept (the same log
    runs it again)."""


def scorer_name(scorer: Scorer) -> str:
    """A scorer's name: its ``name`` (deepnb's scorers), else ``__name__``, else its class."""
    name = getattr(scorer, "name", None) or getattr(scorer, "__name__", None)
    return str(name or type(scorer).__name__)


def named(scorers: Iterable[Scorer] | Mapping[str, Scorer] | Scorer | None) -> dict[str, Scorer]:
    """Scorers by name: a dict as given, a list by each one's name; two of one name, or
    something that is not callable, is one line."""
    if scorers is None:
        return {}
    if callable(scorers) and not isinstance(scorers, Mapping):
        scorers = [scorers]
    pairs = (
        [(str(k), v) for k, v in scorers.items()]
        if isinstance(scorers, Mapping)
        else [(scorer_name(s) if callable(s) else "", s) for s in scorers]
    )
    found: dict[str, Scorer] = {}
    for name, scorer in pairs:
        if not callable(scorer):
            raise DeepnbError(
                f"A scorer is a function (output, reference, run) -> bool | float | dict, not a "
                f"{type(scorer).__name__}: see deepnb.scorers for built-in ones."
            )
        if name in found:
            raise DeepnbError(
                f"Two scorers are named {name!r}: give them as a dict, "
                f"scorers={{'{name}': ..., 'other': ...}}."
            )
        found[name] = scorer
    return found


def score(
    scorer: Scorer,
    record: RunRecord,
    *,
    timeout: float | None = None,
    halt: threading.Event | None = None,
) -> Score:
    """``scorer``'s verdict on ``record`` (run to its end if it is async); its exception is the
    score's ``error``. Call it off any running event loop (a worker thread). With ``timeout``
    (seconds) or ``halt``, the scorer runs on a thread of its own: taking longer than
    ``timeout`` is an error score, and ``halt`` set meanwhile raises :class:`ScoringStopped`
    within :data:`TICK` seconds."""
    if timeout is None and halt is None:
        return _score_here(scorer, record)
    outcome: list[Score] = []
    finished = threading.Event()

    def work() -> None:
        try:
            outcome.append(_score_here(scorer, record))
        finally:
            finished.set()

    context = contextvars.copy_context()  # a judge's tracing and settings, as on the caller's thread
    threading.Thread(target=context.run, args=(work,), name="deepnb-scorer", daemon=True).start()
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        left = TICK if deadline is None else min(TICK, deadline - time.monotonic())
        if finished.wait(max(left, 0.0)):
            return outcome[0] if outcome else Score(None, error="the scorer's thread ended without a score")
        if halt is not None and halt.is_set():
            raise ScoringStopped(scorer_name(scorer))
        if deadline is not None and time.monotonic() >= deadline:
            late = f"TimeoutError: the scorer took longer than {timeout:g} s"
            return Score(None, error=f"{late} (the experiment's score_timeout)")


def _score_here(scorer: Scorer, record: RunRecord) -> Score:
    try:
        value = _call(scorer, record)
        if inspect.isawaitable(value):
            value = asyncio.run(_awaited(value))
        made = as_score(value)
        if made.score is not None and not math.isfinite(made.score):
            raise ValueError(f"the scorer gave {made.score!r}, not a finite number")
        return made
    except Exception as exc:
        return Score(None, error=f"{type(exc).__name__}: {exc}"[:500])


async def _awaited(value: Any) -> Any:
    return await value


def _call(scorer: Scorer, record: RunRecord) -> Any:
    try:
        parameters = list(inspect.signature(scorer).parameters.values())
    except (TypeError, ValueError):  # a builtin without a signature: the positional shape
        return scorer(record.result, record.reference, record)
    names = {p.name for p in parameters}
    if names & BY_NAME:
        given = {
            "inputs": dict(record.inputs),
            "outputs": {"output": record.result, "messages": record.messages},
            "reference_outputs": record.reference,
            "output": record.result,
            "reference": record.reference,
            "run": record,
        }
        return scorer(**{name: given[name] for name in names & _NAMED})
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in parameters):
        return scorer(record.result, record.reference, record)
    positional = [
        p
        for p in parameters
        if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    ]
    args = (record.result, record.reference, record)[: len(positional)]
    return scorer(*args)


def as_score(value: Any) -> Score:
    """A scorer's return value as a :class:`Score`: a bool (1 or 0), a number, ``None``, a dict
    with ``score`` (and ``comment``; openevals' and agentevals' results are such dicts), a list
    of one such dict, or an object with ``score`` / ``value`` and ``comment`` / ``explanation``."""
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if isinstance(value, Score):  # a scorer's, never a person's
        return dataclasses.replace(value, human=False) if value.human else value
    if value is None or isinstance(value, bool | numbers.Real):
        return Score(_number(value))
    if isinstance(value, Mapping):
        if "score" not in value:
            raise TypeError(f"the scorer's dict has no 'score' (its keys: {', '.join(map(str, value))})")
        comment = value.get("comment", value.get("explanation"))
        return Score(_number(value["score"]), None if comment is None else str(comment))
    for attribute in ("score", "value"):
        if hasattr(value, attribute):
            comment = getattr(value, "comment", None) or getattr(value, "explanation", None)
            return Score(_number(getattr(value, attribute)), None if comment is None else str(comment))
    raise TypeError(
        f"the scorer returned a {type(value).__name__}: "
        "return a bool, a number or dict(score=..., comment=...)"
    )


def _number(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, numbers.Real):  # numpy's numbers too
        number = float(value)
        if not math.isfinite(number):
            raise ValueError(f"the scorer gave {number!r}, not a finite number")
        return number
    if isinstance(value, str) and value.strip().lower() in ("true", "false", "yes", "no"):
        return 1.0 if value.strip().lower() in ("true", "yes") else 0.0
    raise TypeError(f"a score is a bool or a number, not {value!r}"[:200])
