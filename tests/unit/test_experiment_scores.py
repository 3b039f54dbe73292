"""Scores accumulate: ``rescore`` adds scorers and replaces only those named again (``replace=``
drops the others) in every view and in the reopened log; a person's grade (``exp.grade``) is a
score like any other, marked human, logged at once, kept by rescoring and reopening, set while
the experiment runs; and a score that is not a finite number is that run's scorer error, never
written to the log as ``NaN`` / ``Infinity``."""

from __future__ import annotations

import json
import math
import threading
from pathlib import Path
from statistics import mean
from typing import Any

import pytest

import deepnb
from deepnb import scorers
from deepnb.core.errors import DeepnbError
from deepnb.many import log as logs
from deepnb.many.record import Score
from tests.support.agents import scripted, unique
from tests.support.waiting import WAIT

ROWS = [{"q": "q0", "reference": "a0"}, {"q": "q1", "reference": "a1"}, {"q": "q2", "reference": "a2"}]


def model() -> Any:
    table = {"q0": "a0", "q1": "wrong", "q2": "a2"}
    return scripted({"main": [{"match": f"^{q}$", "turns": [{"text": a}]} for q, a in table.items()]})


def run(tmp_path: Path, **options: Any) -> Any:
    name = unique("scores")
    deepnb.agent(name=name, model=model())
    options.setdefault("scorers", [scorers.exact])
    return deepnb.experiment(ROWS, agent=name, template="{q}", log=tmp_path / "l.jsonl", **options).wait(WAIT)


def strict_lines(path: Path) -> list[dict[str, Any]]:
    """The log's lines as a strict JSON reader takes them (no NaN, no Infinity)."""

    def refuse(name: str) -> Any:
        raise AssertionError(f"the log holds {name}, which is not JSON")

    return [json.loads(line, parse_constant=refuse) for line in path.read_text("utf-8").splitlines()]


def starts_with_a(output: str) -> bool:
    return output.startswith("a")


def test_rescoring_adds_scorers_and_every_view_and_the_reopened_log_keeps_the_earlier_ones(
    tmp_path: Path,
) -> None:
    experiment = run(tmp_path)
    experiment.rescore([starts_with_a])
    expected = {0: (1.0, 1.0), 1: (0.0, 0.0), 2: (1.0, 1.0)}  # (exact, starts_with_a) by row
    for view in (experiment, deepnb.load_experiment(experiment.path)):
        assert view.scorer_names() == ["exact", "starts_with_a"]
        assert "exact=1" in repr(view) and "starts_with_a=1" in repr(view)  # the matrix shows both
        for (row, _variant, _epoch), record in view.records.items():
            assert record.scores == {
                "exact": Score(expected[row][0]),
                "starts_with_a": Score(expected[row][1]),
            }
        frame = view.to_pandas()
        assert list(frame["exact"]) == [1.0, 0.0, 1.0] and list(frame["starts_with_a"]) == [1.0, 0.0, 1.0]
        (variant,) = view.summary().variants
        assert [(s.scorer, s.mean) for s in variant.scores] == [
            ("exact", pytest.approx(2 / 3)),
            ("starts_with_a", pytest.approx(2 / 3)),
        ]

    # A scorer named again replaces its own scores only.
    experiment.rescore({"exact": lambda output: output == "wrong"})
    assert [experiment.records[(r, experiment.variants[0], 0)].scores["exact"].score for r in range(3)] == [
        0.0,
        1.0,
        0.0,
    ]
    assert all("starts_with_a" in r.scores for r in experiment.records.values())
    reopened = deepnb.load_experiment(experiment.path)
    assert reopened.records == experiment.records

    with pytest.raises(DeepnbError, match="no scorer to score with"):
        reopened.rescore(replace=True)  # a reopened experiment has no scorers: nothing is dropped
    assert reopened.records == experiment.records

    # replace=True drops the others, in memory and in the log.
    reopened.rescore([scorers.contains], replace=True)
    assert reopened.scorer_names() == ["contains"]
    assert deepnb.load_experiment(experiment.path).scorer_names() == ["contains"]
    assert list(deepnb.load_experiment(experiment.path).to_pandas().columns).count("exact") == 0


def test_a_human_grade_is_a_score_kept_in_the_log_summary_compare_and_by_rescoring(tmp_path: Path) -> None:
    experiment = run(tmp_path, variants={"a": model(), "b": model()}, baseline="b")
    experiment.grade(1, "a", 0, True, comment="a synonym: right", scorer="exact")  # over exact's 0
    experiment.grade(0, "a", 0, 0.25, scorer="style")
    given = experiment.records[(1, "a", 0)].scores["exact"]
    assert given == Score(1.0, "a synonym: right", human=True)

    def means(exp: Any) -> dict[tuple[str, str], float | None]:
        return {(v.variant, s.scorer): s.mean for v in exp.summary().variants for s in v.scores}

    # independently: a's exact is 1, 1, 1 (row 1 graded), b's 1, 0, 1; style only on a's row 0
    assert means(experiment)[("a", "exact")] == pytest.approx(mean([1.0, 1.0, 1.0]))
    assert means(experiment)[("b", "exact")] == pytest.approx(mean([1.0, 0.0, 1.0]))
    assert means(experiment)[("a", "style")] == 0.25
    compared = {s.scorer: s for s in experiment.compare("a").scorers}
    assert (compared["exact"].wins, compared["exact"].losses, compared["exact"].ties) == (1, 0, 2)

    graded = [line for line in strict_lines(experiment.path) if line["type"] == "grade"]
    assert graded[0] == {
        "type": "grade",
        "row": 1,
        "variant": "a",
        "epoch": 0,
        "scorer": "exact",
        "score": 1.0,
        "comment": "a synonym: right",
    }
    experiment.rescore([scorers.exact])  # a person's grade stands over the scorer's
    assert experiment.records[(1, "a", 0)].scores["exact"] == given
    experiment.rescore([scorers.contains], replace=True)
    assert experiment.records[(1, "a", 0)].scores["exact"] == given

    reopened = deepnb.load_experiment(experiment.path)
    assert reopened.records == experiment.records
    assert reopened.records[(1, "a", 0)].scores["exact"].human
    assert means(reopened) == means(experiment)
    reopened.grade(1, "b", 0, 1.0)  # grading a reopened experiment logs it too
    assert deepnb.load_experiment(experiment.path).records[(1, "b", 0)].scores["human"] == Score(
        1.0, human=True
    )
    gone = deepnb.load_experiment(experiment.path)
    experiment.path.unlink()
    with pytest.raises(DeepnbError, match="is gone"):
        gone.grade(2, "b", 0, 1.0)
    assert not experiment.path.exists() and "human" not in gone.records[(2, "b", 0)].scores


@pytest.mark.parametrize(
    ("key", "score", "options", "message"),
    [
        ((9, "a", 0), 1.0, {}, r"No run \(9, 'a', 0\) to grade"),
        ((0, "zz", 0), 1.0, {}, r"No run \(0, 'zz', 0\) to grade"),
        ((0, "a", 1), 1.0, {}, "epochs 0-0"),
        ((0, "a", 0), float("nan"), {}, "finite number"),
        ((0, "a", 0), float("inf"), {}, "finite number"),
        ((0, "a", 0), "good", {}, "finite number"),
        ((0, "a", 0), None, {}, "finite number"),
        ((0, "a", 0), 1.0, {"scorer": " "}, "scorer= is the name"),
        ((0, "a", 0), 1.0, {"comment": 3}, "comment is text"),
    ],
)
def test_a_bad_grade_is_one_line_and_changes_nothing(
    tmp_path: Path, key: tuple[int, str, int], score: Any, options: dict[str, Any], message: str
) -> None:
    experiment = run(tmp_path, variants={"a": model()})
    before = experiment.path.read_text("utf-8")
    with pytest.raises(DeepnbError, match=message):
        experiment.grade(*key, score, **options)
    assert experiment.path.read_text("utf-8") == before
    assert all(not s.human for r in experiment.records.values() for s in r.scores.values())


def test_grades_given_while_the_experiment_runs_and_scores_are_all_logged(tmp_path: Path) -> None:
    """A grade set while the scoring threads work (and several at once from other threads) is
    kept in memory and in the log, in an order that reopens to the same scores."""
    release = threading.Event()
    first_done = threading.Event()

    def held(output: str, reference: Any, run: Any) -> bool:
        if run.row != 0:
            assert release.wait(WAIT)  # the other rows' scoring waits until row 0 is graded
        return bool(output == reference)

    name = unique("graded-live")
    deepnb.agent(name=name, model=model())
    experiment = deepnb.experiment(
        ROWS, agent=name, template="{q}", scorers={"held": held}, log=tmp_path / "l.jsonl"
    )

    def listener() -> None:
        if experiment.record_for((0, name, 0)) is not None:
            first_done.set()

    experiment.subscribe(listener)
    listener()
    assert first_done.wait(WAIT)
    assert not experiment.done
    experiment.grade(0, name, 0, 0.5, comment="graded while running", scorer="held")
    with pytest.raises(DeepnbError, match="no answer to grade"):
        experiment.grade(1, name, 0, 1.0)  # still being scored
    release.set()
    experiment.wait(WAIT)

    keys = [(row, name, 0) for row in range(3)]
    threads = [
        threading.Thread(target=experiment.grade, args=(*key, i / 10), kwargs={"scorer": "many"})
        for i, key in enumerate(keys)
    ]
    rescoring = threading.Thread(target=experiment.rescore, args=([scorers.contains],))
    for thread in [*threads, rescoring]:
        thread.start()
    for thread in [*threads, rescoring]:
        thread.join(WAIT)
    assert experiment.records[(0, name, 0)].scores["held"] == Score(0.5, "graded while running", human=True)
    assert {experiment.records[key].scores["many"].score for key in keys} == {0.0, 0.1, 0.2}
    assert all("contains" in experiment.records[key].scores for key in keys)
    assert deepnb.load_experiment(experiment.path).records == experiment.records


class Verdict:
    def __init__(self, value: float) -> None:
        self.score = value
        self.explanation = "an object's verdict"


@pytest.mark.parametrize(
    "given",
    [
        float("nan"),
        float("inf"),
        -math.inf,
        {"score": float("nan"), "comment": "judged"},
        [{"score": float("inf")}],
        Verdict(float("-inf")),
        Score(float("nan")),
    ],
)
def test_a_score_that_is_not_finite_is_that_runs_scorer_error_and_the_log_stays_json(
    tmp_path: Path, given: Any
) -> None:
    def odd(output: str) -> Any:
        return given if output == "wrong" else 1.0

    experiment = run(tmp_path, scorers={"odd": odd})
    record = next(r for r in experiment.records.values() if r.result == "wrong")
    assert record.scores["odd"].score is None and "not a finite number" in (record.scores["odd"].error or "")
    (variant,) = experiment.summary().variants
    (summary,) = variant.scores
    assert (summary.n, summary.mean, summary.errors) == (2, 1.0, 1)  # two scored runs, one error
    logged_scores = [line["scores"]["odd"] for line in strict_lines(experiment.path) if line["type"] == "run"]
    assert sorted(str(s["score"]) for s in logged_scores) == ["1.0", "1.0", "None"]
    assert deepnb.load_experiment(experiment.path).records == experiment.records


def test_the_log_writes_a_float_that_is_not_finite_as_text(tmp_path: Path) -> None:
    writer = logs.LogWriter(tmp_path / "l.jsonl")
    writer.write("note", {"output": {"x": float("nan"), "y": [math.inf, -math.inf], "z": 1.5}})
    (line,) = strict_lines(tmp_path / "l.jsonl")
    assert line == {"type": "note", "output": {"x": "NaN", "y": ["Infinity", "-Infinity"], "z": 1.5}}
