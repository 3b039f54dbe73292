"""``deepnb.scorers`` and calling scorers: the built-ins on real runs (agentevals' trajectory
match, openevals' judge on a scripted model), any function by position or by LangSmith's
parameter names, sync or async, and every return shape; a scorer that raises is that cell's
error, never the experiment's."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

import deepnb
from deepnb import scorers
from deepnb.core.errors import DeepnbError
from deepnb.many.record import RunRecord, Score
from deepnb.many.scoring import as_score, named, score
from tests.support.agents import scripted, unique
from tests.support.waiting import WAIT


def record(result: str | None = "a0", reference: Any = "a0", **fields: Any) -> RunRecord:
    return RunRecord(0, "v", 0, {"q": "q0"}, reference, "done", result=result, **fields)


def test_exact_contains_and_regex() -> None:
    assert score(scorers.exact, record(" a0\n")) == Score(1.0)
    assert score(scorers.exact, record("a0!")) == Score(0.0)
    assert score(scorers.exact, record("b", ["a", "b"])).score == 1.0  # any of several references
    assert score(scorers.exact, record("a0", {"answer": "a0"})).score == 1.0  # LangSmith outputs of one key
    assert score(scorers.contains, record("It is A0.")).score == 1.0
    assert score(scorers.contains, record("It is b.")).score == 0.0
    missing = score(scorers.exact, record("a0", None))
    assert missing.score is None and "has none" in (missing.error or "")
    assert score(scorers.regex(r"\d{2}"), record("in 42 ways")).score == 1.0
    assert scorers.regex(r"\d").name == r"regex(\d)"  # type: ignore[attr-defined]
    with pytest.raises(DeepnbError, match="not a valid regular expression"):
        scorers.regex("(")


class Person(BaseModel):
    name: str
    age: int


def test_json_schema_checks_the_structured_output_or_the_answers_json() -> None:
    schema = {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}
    assert score(scorers.json_schema(schema), record('{"name": "Ada"}')).score == 1.0
    fenced = record('Here:\n```json\n{"name": "Ada"}\n```')
    assert score(scorers.json_schema(schema), fenced).score == 1.0
    bad = score(scorers.json_schema(schema), record('{"age": 3}'))
    assert bad.score == 0.0 and "'name' is a required property" in (bad.comment or "")
    assert score(scorers.json_schema(schema), record("not json")).comment == "the answer is not JSON"
    structured = record("ignored", output={"name": "Ada", "age": 36})
    assert score(scorers.json_schema(Person), structured).score == 1.0
    assert score(scorers.json_schema(Person), record("x", output={"name": "Ada"})).score == 0.0
    with pytest.raises(DeepnbError, match="not valid JSON Schema"):
        scorers.json_schema({"type": 12})
    with pytest.raises(DeepnbError, match="JSON Schema dict or a pydantic model class"):
        scorers.json_schema("a string")


def tool_script() -> dict[str, Any]:
    return {
        "main": [
            {
                "match": "^look$",
                "turns": [{"tool_calls": [{"name": "ls", "args": {"path": "/"}}]}, {"text": "seen"}],
            },
            {"match": ".*", "turns": [{"text": "nothing to do"}]},
        ]
    }


def test_tool_called_and_trajectory_score_real_runs(tmp_path: Path) -> None:
    name = unique("tools")
    deepnb.agent(name=name, model=scripted(tool_script()))
    reference = [
        {"role": "user", "content": "look"},
        {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "ls", "arguments": "{}"}}]},
    ]
    experiment = deepnb.experiment(
        ["look", "idle"],
        agent=name,
        scorers={
            "ls": scorers.tool_called("ls"),
            "ls_root": scorers.tool_called("ls", args={"path": "/"}, times=1),
            "grep": scorers.tool_called("grep"),
            "superset": scorers.trajectory(reference, mode="superset", tool_args="ignore"),
            "strict": scorers.trajectory(reference, mode="strict"),
        },
        log=tmp_path / "l.jsonl",
    ).wait(WAIT)
    looked, idle = experiment.records[(0, name, 0)], experiment.records[(1, name, 0)]
    assert looked.tool_calls == [{"name": "ls", "args": {"path": "/"}}]
    assert {n: s.score for n, s in looked.scores.items()} == {
        "ls": 1.0,
        "ls_root": 1.0,
        "grep": 0.0,
        "superset": 1.0,
        "strict": 0.0,  # the run also answered after the call, the reference did not
    }
    assert idle.scores["ls"].score == 0.0 and idle.scores["superset"].score == 0.0
    with pytest.raises(DeepnbError, match="use one of strict, unordered, subset, superset"):
        scorers.trajectory(reference, mode="sideways")  # type: ignore[arg-type]


def judge_model() -> Any:
    def verdict(passed: bool) -> dict[str, Any]:
        return {"tool_calls": [{"name": "score", "args": {"reasoning": f"graded {passed}", "score": passed}}]}

    return scripted(
        {
            "main": [
                {"match": r"<output(-\w+)?>\s*a0\s*</output(-\w+)?>", "turns": [verdict(True)]},
                {"match": ".*", "turns": [verdict(False)]},
            ]
        }
    )


def test_judge_grades_with_openevals_on_a_scripted_model() -> None:
    judge = scorers.judge(judge_model(), "Is the answer right?")
    right, wrong = score(judge, record("a0")), score(judge, record("b"))
    assert (right.score, right.comment, right.error) == (1.0, "graded True", None)
    assert (wrong.score, wrong.comment, wrong.error) == (0.0, "graded False", None)
    named_judge = scorers.judge(
        judge_model(), "Grade <output>{outputs}</output> against {reference_outputs}.", name="grader"
    )
    assert score(named_judge, record("a0")).score == 1.0
    assert named(named_judge) == {"grader": named_judge}
    with pytest.raises(DeepnbError, match="Malformed model"):
        scorers.judge("nonsense", "rubric")


def test_any_function_by_position_or_by_langsmith_names_sync_or_async() -> None:
    def two(output: str, reference: str) -> float:
        return 0.5 if output == reference else 0.0

    def langsmith(inputs: dict[str, Any], outputs: dict[str, Any], reference_outputs: Any) -> dict[str, Any]:
        return {"key": "x", "score": outputs["output"] == reference_outputs, "comment": inputs["q"]}

    def only_outputs(*, outputs: dict[str, Any]) -> bool:
        return len(outputs["messages"]) == 0

    async def slow(output: str, reference: str, run: RunRecord) -> bool:
        await asyncio.sleep(0)
        return run.variant == "v"

    assert score(two, record()).score == 0.5
    assert score(langsmith, record()) == Score(1.0, "q0")
    assert score(only_outputs, record()).score == 1.0
    assert score(slow, record()).score == 1.0
    assert score(lambda *args: len(args), record()).score == 3.0


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (True, Score(1.0)),
        (0, Score(0.0)),
        (0.25, Score(0.25)),
        (None, Score(None)),
        ({"score": False, "comment": "no"}, Score(0.0, "no")),
        ([{"key": "k", "score": 1, "comment": None}], Score(1.0)),
        ({"score": "yes"}, Score(1.0)),
    ],
)
def test_every_return_shape(value: Any, expected: Score) -> None:
    assert as_score(value) == expected


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("great", "a str"),
        ({"value": 1}, "has no 'score'"),
        ({"score": "high"}, "not 'high'"),
        (float("nan"), "not a finite number"),
    ],
)
def test_a_return_that_is_no_score_is_that_cells_error(value: Any, message: str) -> None:
    result = score(lambda output, reference: value, record())
    assert result.score is None and message in (result.error or "")
