"""Scorers for experiments (``deepnb.experiment(..., scorers=[...])``): plain functions of
``(output, reference, run)`` returning a bool, a number or ``dict(score=..., comment=...)``.

``exact`` and ``contains`` compare the answer with the row's reference; ``regex``,
``json_schema``, ``tool_called``, ``trajectory`` and ``judge`` are made with their settings
(``regex(r"\\d+")``). ``trajectory`` is agentevals' trajectory match and ``judge`` openevals'
LLM-as-judge, so they score as those libraries do; both load on first use. Any function of your
own works the same way, as does a LangSmith evaluator ``(inputs, outputs, reference_outputs)``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from deepnb.core.errors import DeepnbError
from deepnb.core.text.safe_regex import RegexError, compile_bounded
from deepnb.many import pricing
from deepnb.many.record import RunRecord, Score
from deepnb.many.scoring import as_score

__all__ = ["contains", "exact", "json_schema", "judge", "regex", "tool_called", "trajectory"]

TrajectoryMode = Literal["strict", "unordered", "subset", "superset"]
TRAJECTORY_MODES: tuple[str, ...] = ("strict", "unordered", "subset", "superset")


def _named(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def mark(function: Callable[..., Any]) -> Callable[..., Any]:
        function.name = name  # type: ignore[attr-defined]  # the scorer's column name
        return function

    return mark


def _text(value: Any) -> str:
    """A reference (or answer) as text: a mapping of one value is that value."""
    if isinstance(value, Mapping) and len(value) == 1:
        value = next(iter(value.values()))
    return "" if value is None else str(value)


def _references(reference: Any) -> list[str]:
    if isinstance(reference, list | tuple):
        return [_text(item) for item in reference]
    return [_text(reference)]


def _need_reference(reference: Any, scorer: str) -> None:
    if reference is None:
        raise ValueError(f"{scorer} compares with the row's reference, and this row has none")


def exact(output: str | None, reference: Any, run: RunRecord | None = None) -> bool:
    """Whether the answer is the reference (either stripped of surrounding whitespace; a list
    of references: any of them)."""
    _need_reference(reference, "exact")
    answer = (output or "").strip()
    return any(answer == text.strip() for text in _references(reference))


def contains(output: str | None, reference: Any, run: RunRecord | None = None) -> bool:
    """Whether the answer contains the reference, ignoring case (a list: any of them)."""
    _need_reference(reference, "contains")
    answer = (output or "").casefold()
    return any(text.strip().casefold() in answer for text in _references(reference))


def regex(pattern: str, *, flags: int = 0, name: str | None = None) -> Callable[..., bool]:
    """A scorer: whether the answer matches ``pattern`` anywhere (as ``re.search`` would), in
    time linear in the answer: the pattern runs on RE2 (``google-re2``), so one it cannot run
    (a backreference, a lookaround) is refused here, when the scorer is made. ``flags`` may be
    ``re.IGNORECASE``, ``re.MULTILINE`` and ``re.DOTALL``; ``\\d``, ``\\w``, ``\\s`` match ASCII."""
    if not isinstance(pattern, str):
        raise DeepnbError(f"regex() takes a pattern as text, not a {type(pattern).__name__}.")
    try:
        compiled = compile_bounded(pattern, flags)
    except RegexError as exc:
        raise DeepnbError(f"regex({pattern!r}) is not a valid regular expression here: {exc}.") from None

    @_named(name or f"regex({pattern})")
    def score(output: str | None, reference: Any = None, run: RunRecord | None = None) -> bool:
        return compiled.search(output or "") is not None

    return score


def json_schema(schema: Any, *, name: str = "json_schema") -> Callable[..., dict[str, Any]]:
    """A scorer: whether the run's structured output (``run.output``, else the answer read as
    JSON) is valid against ``schema``, a JSON Schema dict or a pydantic model class; the comment
    says what is wrong. A schema is data: a ``$ref`` outside it, a reference that loops, a
    ``pattern`` RE2 cannot run or a schema past its bounds is refused here, when the scorer is
    made (``deepnb.many.schemas``); checking reads nothing but the answer."""
    validate = _validator(schema)

    @_named(name)
    def score(output: str | None, reference: Any = None, run: RunRecord | None = None) -> dict[str, Any]:
        value = run.output if run is not None and run.output is not None else None
        if value is None:
            try:
                value = json.loads(_json_text(output or ""))
            except ValueError:
                return {"score": False, "comment": "the answer is not JSON"}
            except RecursionError:
                return {"score": False, "comment": "the answer's JSON nests too deep to read"}
        problem = validate(value)
        return {"score": problem is None, "comment": problem}

    return score


_FENCED = compile_bounded(r"```(?:json)?\s*\n(.*?)```", re.DOTALL)
"""A fenced ```json block (matched by RE2: an answer of a fence and 100k newlines is linear)."""


def _json_text(text: str) -> str:
    """The answer's JSON, a fenced ```json block's content if it has one."""
    fenced = _FENCED.search(text)
    return str(fenced.group(1)) if fenced else text


def _validator(schema: Any) -> Callable[[Any], str | None]:
    validate_model = getattr(schema, "model_validate", None)
    if isinstance(schema, type) and callable(validate_model):

        def check_model(value: Any) -> str | None:
            try:
                validate_model(value)
            except Exception as exc:  # pydantic's ValidationError: its message is the comment
                return str(exc)[:500]
            return None

        return check_model
    if not isinstance(schema, Mapping):
        raise DeepnbError(
            "json_schema() takes a JSON Schema dict or a pydantic model class, "
            f"not a {type(schema).__name__}."
        )
    from deepnb.many.schemas import schema_checker  # noqa: PLC0415  # lazy: jsonschema, only this scorer needs it

    return schema_checker(schema)


def tool_called(
    name: str, *, args: Mapping[str, Any] | None = None, times: int | None = None
) -> Callable[..., dict[str, Any]]:
    """A scorer: whether the run called the tool ``name`` (with ``args`` among its arguments,
    if given; exactly ``times`` times, if given)."""

    @_named(f"tool_called({name})")
    def score(output: str | None, reference: Any = None, run: RunRecord | None = None) -> dict[str, Any]:
        calls = [call for call in (run.tool_calls if run is not None else []) if call["name"] == name]
        if args:
            calls = [c for c in calls if all(c["args"].get(k) == v for k, v in args.items())]
        found = len(calls)
        passed = found == times if times is not None else found > 0
        return {"score": passed, "comment": f"{found} call(s) of {name}"}

    return score


def trajectory(
    reference: Sequence[Mapping[str, Any]] | None = None,
    *,
    mode: TrajectoryMode = "strict",
    tool_args: Literal["exact", "ignore", "subset", "superset"] = "exact",
) -> Callable[..., Any]:
    """A scorer: agentevals' trajectory match of the run's messages against ``reference`` (a
    list of OpenAI-style messages; ``None``: the row's reference), in ``mode`` ``strict``,
    ``unordered``, ``subset`` or ``superset``; ``tool_args`` says how arguments must match."""
    if mode not in TRAJECTORY_MODES:
        raise DeepnbError(f"trajectory(mode={mode!r}): use one of {', '.join(TRAJECTORY_MODES)}.")
    try:
        from agentevals.trajectory.match import (  # type: ignore[import-untyped]  # noqa: PLC0415  # lazy: heavy
            create_trajectory_match_evaluator,
        )
    except ImportError:
        raise DeepnbError("deepnb.scorers.trajectory needs agentevals: pip install agentevals.") from None
    evaluator = create_trajectory_match_evaluator(trajectory_match_mode=mode, tool_args_match_mode=tool_args)
    fixed = None if reference is None else [dict(message) for message in reference]

    @_named(f"trajectory({mode})")
    def score(output: str | None, row_reference: Any = None, run: RunRecord | None = None) -> Any:
        expected = fixed if fixed is not None else row_reference
        if not isinstance(expected, list):
            raise ValueError("trajectory needs a reference trajectory (a list of messages)")
        return evaluator(outputs=run.messages if run is not None else [], reference_outputs=expected)

    return score


JUDGE_SECONDS = 300.0
"""How long a judge waits for its model's verdict on one run before that cell is an error."""


def judge(
    model: Any,
    rubric: str,
    *,
    name: str = "judge",
    continuous: bool = False,
    namespace: Mapping[str, Any] | None = None,
    timeout: float | None = JUDGE_SECONDS,
) -> Callable[..., Score]:
    """A scorer: openevals' LLM-as-judge with ``model`` (any chat model object, ``provider:model``,
    ``scripted:PATH`` or ``demo:NAME``) grading each run by ``rubric``. The rubric may use
    ``{inputs}``, ``{outputs}`` and ``{reference_outputs}``; one that uses none gets the row,
    the answer and the reference appended, each between tags marked with a random nonce. The
    answer cannot close its block or pose as the reference: delimiter-like text in it is
    neutralised, and the score's comment says it tried. The score carries the judge's tokens
    and cost (``None`` where the model has no known price). ``continuous``: a score from 0 to 1,
    not pass/fail. ``timeout``: seconds to wait for the verdict (``None``: no limit); a judge
    that gives none in time, or answers with no verdict, is an error for that run's cell."""
    try:
        from openevals.llm import create_llm_as_judge  # noqa: PLC0415  # lazy: heavy, optional
    except ImportError:
        raise DeepnbError("deepnb.scorers.judge needs openevals: pip install openevals.") from None
    from deepnb.many import judging  # noqa: PLC0415  # lazy: it imports langchain_core
    from deepnb.models import resolve_model  # noqa: PLC0415  # lazy: it imports langchain_core

    seconds = isinstance(timeout, int | float) and not isinstance(timeout, bool)
    if timeout is not None and (not seconds or timeout <= 0):
        raise DeepnbError(f"judge(timeout={timeout!r}): give seconds above 0, or None for no limit.")
    chat = resolve_model(model.strip() if isinstance(model, str) else model, dict(namespace or {}))
    priced_as = judging.model_string(model, chat)

    @_named(name)
    def score(output: str | None, reference: Any = None, run: RunRecord | None = None) -> Score:
        prompt = judging.grading(rubric, dict(run.inputs) if run is not None else {}, output or "", reference)

        def messages(**_: Any) -> Any:  # openevals' prompt callable: the messages made above
            return prompt.messages

        evaluator = create_llm_as_judge(prompt=messages, judge=chat, feedback_key=name, continuous=continuous)
        meter = judging.Meter()

        def grade() -> Any:
            return evaluator(inputs=dict(run.inputs) if run is not None else {}, outputs=output or "")

        try:
            verdict = as_score(judging.bounded(lambda: judging.metered(grade, meter), timeout))
            error = None
        except Exception as exc:  # no verdict (garbage, a failure, no answer in time): this cell's error
            verdict, error = Score(None), f"{type(exc).__name__}: {exc}"[:500]
        tried = judging.TRIED.format(found=", ".join(prompt.tried)) if prompt.tried else None
        comment = "; ".join(text for text in (tried, verdict.comment) if text) or None
        tokens = meter.tokens
        return Score(verdict.score, comment, error, tokens, pricing.cost(priced_as, tokens))

    return score
