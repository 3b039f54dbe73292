"""An experiment's judgement: ``summary()`` (means over the rows with 95 % intervals clustered
by row, the rows and runs they rest on, pass rate, pass@k, tokens, cost priced from genai-prices
or unknown, latency p50/p95, errors), epoch reducers (Inspect's names), ``compare(a, b)`` (wins,
losses, ties and a paired Wilcoxon test per scorer over the rows, per scorer the rows that differ
most) and ``rescore()`` (scores again without running anything)."""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy import stats as scipy_stats

import deepnb
from deepnb import scorers
from deepnb.core.errors import DeepnbError
from deepnb.core.tokens import Tokens
from deepnb.many import pricing, stats
from deepnb.many.record import RunRecord, Score
from deepnb.views.experiment.experiment_view import (
    comparison_html,
    comparison_text,
    summary_html,
    summary_text,
)
from tests.support.agents import scripted, unique
from tests.support.waiting import WAIT


def rec(row: int, epoch: int, value: float | None, **fields: Any) -> RunRecord:
    made = RunRecord(row, "v", epoch, {"q": f"q{row}"}, None, fields.pop("status", "done"), **fields)
    if value is not None:
        made.scores = {"s": Score(value)}
    return made


def test_means_intervals_pass_rate_and_pass_at_k() -> None:
    records = [
        rec(0, 0, 0.0, latency=1.0, tokens_in=10, tokens_out=1, cost=0.5),
        rec(0, 1, 1.0, latency=2.0, tokens_in=10, tokens_out=1),  # row 0 passes on its second try
        rec(1, 0, 0.0, latency=3.0),
        rec(1, 1, 0.0, latency=4.0),
        rec(2, 0, None, status="error", error="boom"),
    ]
    summary = stats.summarize("v", records, ["s"], epochs=2)
    (s,) = summary.scores
    assert (s.n, s.mean, s.pass_rate, s.pass_at_k) == (4, 0.25, 0.25, 0.5)
    assert s.low == 0.0 and s.high is not None and 0.25 < s.high <= 1.0  # kept within 0..1
    assert (summary.runs, summary.done, summary.errors) == (5, 4, 1)
    assert (summary.tokens_in, summary.tokens_out, summary.cost) == (20, 2, 0.5)
    assert summary.cost_unknown == 4  # the sum is a lower bound: four runs have no price
    assert summary.latency_p50 == 2.5 and summary.latency_p95 == pytest.approx(3.85)


def test_the_interval_is_students_t() -> None:
    mean, low, high = stats.mean_interval([0.4, 0.5, 0.6])
    assert mean == pytest.approx(0.5)
    assert low == pytest.approx(0.5 - 4.302653 * 0.1 / 3**0.5) and high == pytest.approx(
        0.5 + 4.302653 * 0.1 / 3**0.5
    )
    assert stats.mean_interval([0.7]) == (0.7, None, None)
    assert stats.mean_interval([3.0, 3.0]) == (3.0, 3.0, 3.0)
    assert stats.mean_interval([]) == (None, None, None)


def test_paired_test() -> None:
    assert stats.paired_p_value([1.0] * 8) == pytest.approx(2 / 2**8)  # exact: all eight pairs one way
    assert stats.paired_p_value([0.0] * 5) == 1.0
    assert stats.paired_p_value([]) is None
    assert stats.paired_p_value([1.0, -1.0, 1.0, -1.0]) == pytest.approx(1.0)


def test_costs_come_from_the_price_table_and_are_unknown_without_a_price() -> None:
    from genai_prices import Usage, calc_price

    expected = float(
        calc_price(Usage(input_tokens=1000, output_tokens=100), "gpt-4o", provider_id="openai").total_price
    )
    used = Tokens(1000, 100)
    assert pricing.cost("openai:gpt-4o", used) == pytest.approx(expected) and expected > 0
    assert pricing.cost("openai:no-such-model-zz", used) is None
    assert pricing.cost("scripted:replay.yaml", used) is None
    assert pricing.cost(None, used) is None
    # tokens no model call reported have no price; those some did are priced as a lower bound
    assert pricing.cost("openai:gpt-4o", Tokens(unreported=2)) is None
    assert pricing.cost("openai:gpt-4o", Tokens(1000, 100, unreported=1)) == pytest.approx(expected)


def two_variants(tmp_path: Path, **options: Any) -> Any:
    good = {f"q{i}": f"a{i}" for i in range(8)}
    bad = {**good, "q1": "no", "q2": "no", "q3": "no", "q5": "no"}

    def model(table: dict[str, str]) -> Any:
        return scripted({"main": [{"match": f"^{q}$", "turns": [{"text": a}]} for q, a in table.items()]})

    name = unique("stats")
    deepnb.agent(name=name, model=model(good))
    rows = [{"q": f"q{i}", "reference": f"a{i}"} for i in range(8)]
    return deepnb.experiment(
        rows,
        agent=name,
        variants={"good": model(good), "bad": model(bad)},
        scorers=[scorers.exact],
        template="{q}",
        log=tmp_path / "l.jsonl",
        **options,
    ).wait(WAIT)


def test_summary_compare_and_rescore_on_an_experiment(tmp_path: Path) -> None:
    experiment = two_variants(tmp_path, baseline="bad")
    summary = {v.variant: v for v in experiment.summary().variants}
    assert summary["good"].scores[0].mean == 1.0 and summary["bad"].scores[0].mean == 0.5
    assert summary["good"].cost is None  # a scripted model has no price
    records = experiment.summary().to_records()
    assert records[0]["variant"] == "good" and records[0]["exact pass@1"] == 1.0

    comparison = experiment.compare("good")  # against the baseline
    (exact,) = comparison.scorers
    assert (exact.pairs, exact.wins, exact.losses, exact.ties) == (8, 4, 0, 4)
    assert exact.mean_difference == 0.5 and exact.p_value is not None and exact.p_value < 0.2
    assert [d.row for d in comparison.differences] == [1, 2, 3, 5]
    assert comparison.differences[0].a == "a1" and comparison.differences[0].b == "no"
    reverse = experiment.compare("bad", "good").scorers[0]
    assert (reverse.wins, reverse.losses) == (0, 4)

    def starts_with_a(output: str, reference: Any) -> bool:
        return output.startswith("a")

    experiment.rescore([starts_with_a])  # added beside the earlier scores
    assert experiment.scorer_names() == ["exact", "starts_with_a"]
    assert experiment.records[(1, "bad", 0)].scores == {"exact": Score(0.0), "starts_with_a": Score(0.0)}
    reopened = deepnb.load_experiment(experiment.path)  # the log has the new scores
    assert reopened.records[(0, "good", 0)].scores == {"exact": Score(1.0), "starts_with_a": Score(1.0)}
    reopened.rescore({"exact": scorers.exact}, replace=True)  # a reopened experiment scores again too
    assert deepnb.load_experiment(experiment.path).records[(1, "bad", 0)].scores == {"exact": Score(0.0)}


@pytest.mark.parametrize(
    ("a", "b", "message"),
    [
        ("good", None, "needs the variant to compare with"),
        ("nope", "good", "No variant 'nope'"),
        ("good", "good", "with itself"),
    ],
)
def test_compare_mistakes(tmp_path: Path, a: str, b: str | None, message: str) -> None:
    experiment = two_variants(tmp_path)
    with pytest.raises(DeepnbError, match=message):
        experiment.compare(a, b)


# -- intervals clustered by row ----------------------------------------------------------------

CORRELATED = [
    [1, 1, 1],
    [1, 1, 1],
    [0, 0, 0],
    [1, 1, 1],
    [0, 0, 0],
    [1, 1, 0],
    [1, 1, 1],
    [0, 0, 0],
    [0, 0, 1],
    [1, 1, 1],
    [0, 0, 0],
    [1, 1, 1],
]
"""12 rows × 3 epochs whose epochs mostly agree: a row passes or fails as a whole."""

STATSMODELS = (0.5833333333333334, 0.13685377681655783, 0.2821202014575964, 0.8845464652090703)
"""The mean, standard error and 95 % interval statsmodels 0.15.0 gives for CORRELATED (made in a
throwaway virtualenv, statsmodels not being a dependency)::

    y = [v for r in CORRELATED for v in r]; g = [i for i, r in enumerate(CORRELATED) for _ in r]
    fit = sm.OLS(y, np.ones(len(y))).fit(cov_type="cluster", cov_kwds={"groups": g}, use_t=True)
    fit.params[0], fit.bse[0], *fit.conf_int(0.05)[0]   # t with 11 (= rows - 1) degrees of freedom
"""


def correlated_records() -> list[RunRecord]:
    return [
        rec(row, epoch, float(v)) for row, values in enumerate(CORRELATED) for epoch, v in enumerate(values)
    ]


def inspect_clustered_stderr(values: np.ndarray, clusters: np.ndarray) -> float:
    """Inspect's ``stderr(cluster=...)`` written out (its std.py): sqrt(C/(C-1) * sum over
    clusters of (sum of the cluster's deviations from the mean)^2) / N."""
    mean = values.mean()
    ids = np.unique(clusters)
    total = sum(np.outer(values[clusters == c] - mean, values[clusters == c] - mean).sum() for c in ids)
    return float(np.sqrt(total * len(ids) / (len(ids) - 1)) / len(values))


def test_the_interval_is_clustered_by_row_and_wider_than_one_over_every_run() -> None:
    summary = stats.summarize("v", correlated_records(), ["s"], epochs=3)
    (s,) = summary.scores
    mean, stderr, low, high = STATSMODELS
    assert (s.rows, s.n) == (12, 36)
    assert s.mean == pytest.approx(mean, abs=1e-12)
    assert (s.low, s.high) == (pytest.approx(low, abs=1e-9), pytest.approx(high, abs=1e-9))
    # the same from Inspect's formula over the 36 epoch scores, with t at rows - 1 degrees of freedom
    values = np.array([v for r in CORRELATED for v in r], float)
    clusters = np.array([i for i, r in enumerate(CORRELATED) for _ in r])
    inspect = inspect_clustered_stderr(values, clusters)
    assert inspect == pytest.approx(stderr, rel=1e-9)
    half = scipy_stats.t.ppf(0.975, len(CORRELATED) - 1) * inspect
    assert (s.low, s.high) == (pytest.approx(mean - half), pytest.approx(mean + half))
    # the old interval, Student's t over all 36 runs as if independent, was far too narrow
    naive = scipy_stats.t.ppf(0.975, len(values) - 1) * values.std(ddof=1) / math.sqrt(len(values))
    assert naive < 0.6 * half
    assert s.low is not None and s.high is not None and (s.high - s.low) / 2 > 1.7 * naive


def test_a_row_scored_in_fewer_epochs_counts_as_much_as_the_others() -> None:
    records = [rec(0, 0, 1.0), rec(0, 1, 1.0), rec(0, 2, 1.0), rec(1, 0, 0.0), rec(2, 0, 0.5), rec(2, 1, 0.5)]
    records.append(rec(1, 1, None, status="error", error="boom"))
    (s,) = stats.summarize("v", records, ["s"], epochs=3).scores
    assert (s.rows, s.n, s.mean) == (3, 6, pytest.approx(0.5))
    reference = scipy_stats.t.interval(0.95, 2, loc=0.5, scale=scipy_stats.sem([1.0, 0.0, 0.5]))
    assert (s.low, s.high) == (pytest.approx(max(0.0, reference[0])), pytest.approx(min(1.0, reference[1])))


# -- epoch reducers --------------------------------------------------------------------------


def inspect_pass_at(values: list[float], k: int) -> float:
    """Inspect's pass_at estimator as its reducer.py computes it (numpy's running product)."""
    total, correct = len(values), sum(1 for v in values if v >= 1.0)
    if total - correct < k:
        return 1.0
    return float(1.0 - np.prod(1.0 - k / np.arange(total - correct + 1, total + 1)))


@pytest.mark.parametrize(
    ("name", "values", "expected"),
    [
        ("mean", [1.0, 0.0, 0.5, 0.5], 0.5),
        ("median", [0.1, 0.9, 0.3], 0.3),
        ("median", [0.0, 1.0, 1.0, 0.2], 0.6),
        ("mode", [0.0, 1.0, 1.0, 0.0, 1.0], 1.0),
        ("mode", [0.5, 0.0, 0.0, 0.5], 0.5),  # a tie: the first seen, as Inspect's Counter
        ("max", [0.2, 0.7, 0.1], 0.7),
        ("at_least_2", [1.0, 0.0, 1.0, 0.0], 1.0),
        ("at_least_3", [1.0, 0.0, 1.0, 0.0], 0.0),
        ("pass_at_1", [1.0, 0.0, 1.0, 0.0], 0.5),
        ("pass_at_2", [1.0, 0.0, 0.0, 0.0], inspect_pass_at([1.0, 0.0, 0.0, 0.0], 2)),
        ("pass_at_3", [1.0, 0.0, 1.0, 0.0, 0.0], inspect_pass_at([1.0, 0.0, 1.0, 0.0, 0.0], 3)),
        ("pass_at_4", [0.0, 0.0, 0.0, 0.0], 0.0),
        ("pass_at_2", [1.0, 1.0, 1.0, 0.0], 1.0),
    ],
)
def test_each_reducer_as_inspect_computes_it(name: str, values: list[float], expected: float) -> None:
    reducer = stats.reducer(name, epochs=len(values))
    assert reducer(values) == pytest.approx(expected)
    assert reducer.name == name


def test_pass_at_k_is_chens_unbiased_estimate() -> None:
    # 1 - C(n - c, k) / C(n, k): five epochs, two pass, k = 2 -> 1 - C(3, 2) / C(5, 2) = 0.7
    assert stats.reducer("pass_at_2", epochs=5)([1.0, 0.0, 1.0, 0.0, 0.0]) == pytest.approx(0.7)
    assert stats.reducer("pass_at_2", epochs=5)([1.0]) is None  # fewer scored epochs than k: no score


@pytest.mark.parametrize(
    ("spec", "epochs", "message"),
    [
        ("average", 3, "is not a reducer: use mean, median, mode, max, pass_at_K or at_least_K"),
        ("pass_at_k", 3, "is not a reducer"),
        ("pass_at_4", 3, r"needs k from 1 to epochs \(3\): raise epochs= or use a smaller k"),
        ("at_least_0", 3, r"needs k from 1 to epochs \(3\)"),
        (3, 3, "is not a reducer"),
    ],
)
def test_an_unknown_reducer_or_a_k_above_epochs_is_refused_at_once(
    tmp_path: Path, spec: Any, epochs: int, message: str
) -> None:
    with pytest.raises(DeepnbError, match=message) as raised:
        stats.reducer(spec, epochs=epochs)
    assert "\n" not in str(raised.value)
    name = unique("reducer")
    deepnb.agent(name=name, model=scripted({"main": [{"turns": [{"text": "a"}]}]}))
    log = tmp_path / "l.jsonl"
    with pytest.raises(DeepnbError, match=message):
        deepnb.experiment(["q0"], agent=name, epochs=epochs, epochs_reducer=spec, log=log)
    assert not log.exists()  # nothing ran, nothing was written


def by_epoch(output: str, reference: Any, run: RunRecord) -> float:
    """Row r's epoch e scores 1 when e < r: row 0 never passes, row 1 once, row 2 twice."""
    return 1.0 if run.epoch < run.row else 0.0


def epoch_experiment(tmp_path: Path, reducer: Any, log: str = "l.jsonl") -> Any:
    name = unique("reduced")
    deepnb.agent(name=name, model=scripted({"main": [{"turns": [{"text": "a"}]}] * 9}))
    return deepnb.experiment(
        ["q0", "q1", "q2"],
        agent=name,
        scorers=[by_epoch],
        epochs=3,
        epochs_reducer=reducer,
        log=tmp_path / log,
    ).wait(WAIT)


@pytest.mark.parametrize(
    ("reducer", "rows"),
    [("mean", [0.0, 1 / 3, 2 / 3]), ("max", [0.0, 1.0, 1.0]), ("at_least_2", [0.0, 0.0, 1.0])],
)
def test_the_reducer_makes_the_rows_the_summary_rests_on_and_is_logged(
    tmp_path: Path, reducer: str, rows: list[float]
) -> None:
    experiment = epoch_experiment(tmp_path, reducer)
    (s,) = experiment.summary().variants[0].scores
    expected = scipy_stats.t.interval(0.95, 2, loc=statistics.fmean(rows), scale=scipy_stats.sem(rows))
    assert (s.rows, s.n, s.mean) == (3, 9, pytest.approx(statistics.fmean(rows)))
    assert s.low == pytest.approx(max(0.0, expected[0])) and s.high == pytest.approx(min(1.0, expected[1]))
    record = experiment.summary().to_records()[0]
    assert (record["by_epoch rows"], record["by_epoch runs"], record["by_epoch mean"]) == (3, 9, s.mean)
    header = json.loads(experiment.path.read_text(encoding="utf-8").splitlines()[0])
    assert header["epochs_reducer"] == reducer
    reopened = deepnb.load_experiment(experiment.path)  # the logged reducer, not the default
    assert reopened.plan.epochs_reducer.name == reducer
    assert reopened.summary().variants[0].scores[0].mean == pytest.approx(s.mean)


def test_a_function_reducer_is_logged_by_name_and_a_reopened_log_says_it_cannot_rebuild_it(
    tmp_path: Path,
) -> None:
    def last(scores: list[float]) -> float:
        return scores[-1]

    experiment = epoch_experiment(tmp_path, last)
    (s,) = experiment.summary().variants[0].scores
    assert s.mean == pytest.approx(statistics.fmean([0.0, 0.0, 0.0]))  # epoch 2 passes in no row < 3
    header = json.loads(experiment.path.read_text(encoding="utf-8").splitlines()[0])
    assert header["epochs_reducer"].startswith("function ") and header["epochs_reducer"].endswith(".last")
    reopened = deepnb.load_experiment(experiment.path).summary()
    assert reopened.variants[0].scores[0].mean == pytest.approx(statistics.fmean([0.0, 1 / 3, 2 / 3]))
    assert reopened.reducer.startswith("mean (the log's epochs_reducer, function ")
    assert "does not hold" in summary_text(reopened)

    def broken(scores: list[float]) -> str:
        return "high"

    with pytest.raises(DeepnbError, match=r"epochs_reducer function .*broken returned str"):
        epoch_experiment(tmp_path, broken, "b.jsonl").summary()


def test_a_log_before_reducers_reduces_by_the_mean(tmp_path: Path) -> None:
    experiment = epoch_experiment(tmp_path, "max")
    lines = experiment.path.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    del header["epochs_reducer"]
    old = tmp_path / "old.jsonl"
    old.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    assert deepnb.load_experiment(old).plan.epochs_reducer == stats.MEAN


# -- the paired comparison and the rows that differ, per scorer ----------------------------------


def test_the_comparison_pairs_each_rows_reduced_scores() -> None:
    a = [
        rec(row, e, float(v))
        for row, values in enumerate([[1, 0, 0], [1, 1, 1], [0, 0, 0]])
        for e, v in enumerate(values)
    ]
    b = [
        rec(row, e, float(v))
        for row, values in enumerate([[0, 0, 0], [0, 1, 1], [0, 0, 1]])
        for e, v in enumerate(values)
    ]
    by_mean = stats.compare_scorer(a, b, "s")
    assert (by_mean.pairs, by_mean.wins, by_mean.losses, by_mean.ties) == (3, 2, 1, 0)
    assert by_mean.mean_difference == pytest.approx(statistics.fmean([1 / 3, 1 / 3, -1 / 3]))
    expected = scipy_stats.wilcoxon([1 / 3, 1 / 3, -1 / 3]).pvalue
    assert by_mean.p_value == pytest.approx(expected)
    by_max = stats.compare_scorer(a, b, "s", stats.reducer("max", epochs=3))
    assert (by_max.pairs, by_max.wins, by_max.losses, by_max.ties) == (3, 1, 1, 1)


def two_scorers(row: int, variant: str, epoch: int, exact: float, judged: float, answer: str) -> RunRecord:
    made = RunRecord(row, variant, epoch, {"q": f"q{row}"}, None, "done", result=answer)
    made.scores = {"exact": Score(exact), "judged": Score(judged)}
    return made


def test_rows_that_differ_are_listed_per_scorer_never_added_together() -> None:
    # row 0: exact +1 and judged -1 (the sum, 0, hid it); row 1: the same answers, scored the same;
    # row 2: only judged differs
    a = {
        0: two_scorers(0, "a", 0, 1.0, 0.0, "A0"),
        1: two_scorers(1, "a", 0, 1.0, 1.0, "same"),
        2: two_scorers(2, "a", 0, 0.0, 0.9, "A2"),
    }
    b = {
        0: two_scorers(0, "b", 0, 0.0, 1.0, "B0"),
        1: two_scorers(1, "b", 0, 1.0, 1.0, "same"),
        2: two_scorers(2, "b", 0, 0.0, 0.4, "B2"),
    }
    scores = {
        side: {name: stats.row_scores(records.values(), name) for name in ("exact", "judged")}
        for side, records in (("a", a), ("b", b))
    }
    listed = stats.differences(a, b, scores["a"], scores["b"])
    assert [(d.scorer, d.row, d.difference, d.a, d.b) for d in listed] == [
        ("exact", 0, 1.0, "A0", "B0"),
        ("judged", 0, -1.0, "A0", "B0"),
        ("judged", 2, pytest.approx(0.5), "A2", "B2"),
    ]


def test_a_differing_rows_answers_are_those_of_the_epochs_that_score_apart() -> None:
    # per (row, variant): each epoch's (exact, judged, answer); epoch 0's answers are the same on
    # both sides for every row, so the first answers would show nothing apart
    runs = {
        (0, "a"): [(1.0, 0.5, "same"), (1.0, 0.9, "A0 right")],
        (0, "b"): [(1.0, 0.5, "same"), (0.0, 0.5, "B0 wrong")],
        (1, "a"): [(0.0, 0.2, "same"), (0.0, 0.2, "A1 again")],
        (1, "b"): [(0.0, 0.2, "same"), (1.0, 0.2, "B1 right")],
        (2, "a"): [(1.0, 0.7, "same"), (1.0, 0.7, "A2")],
        (2, "b"): [(1.0, 0.7, "same"), (1.0, 0.7, "B2")],
    }
    records: dict[str, list[RunRecord]] = {"a": [], "b": []}
    for (row, variant), epochs in runs.items():
        for epoch, (exact, judged, answer) in enumerate(epochs):
            made = RunRecord(row, variant, epoch, {"q": f"q{row}"}, None, "done", result=answer)
            made.scores = {"exact": Score(exact), "judged": Score(judged)}
            records[variant].append(made)
    by_row = {
        side: {row: [r for r in made if r.row == row] for row in range(3)} for side, made in records.items()
    }
    scores = {
        side: {name: stats.row_scores(made, name) for name in ("exact", "judged")}
        for side, made in records.items()
    }
    listed = stats.differences(by_row["a"], by_row["b"], scores["a"], scores["b"])
    # independently: each scorer's rows whose epoch means differ, and the epochs that show it
    expected = []
    for name, at in (("exact", 0), ("judged", 1)):
        for row in range(3):
            mean = {side: statistics.fmean(e[at] for e in runs[(row, side)]) for side in "ab"}
            if mean["a"] == mean["b"]:
                continue
            ahead = mean["a"] > mean["b"]
            values = {side: [e[at] for e in runs[(row, side)]] for side in "ab"}
            high, low = ("a", "b") if ahead else ("b", "a")
            picked = {high: values[high].index(max(values[high])), low: values[low].index(min(values[low]))}
            pick_a, pick_b = picked["a"], picked["b"]
            expected.append((name, row, mean["a"] - mean["b"], pick_a, pick_b))
    got = [(d.scorer, d.row, d.difference, d.a_epoch, d.b_epoch) for d in listed]
    assert sorted(got) == sorted((n, r, pytest.approx(v), ea, eb) for n, r, v, ea, eb in expected)
    shown = {(d.scorer, d.row): (d.a, d.b) for d in listed}
    assert shown == {
        ("exact", 0): ("same", "B0 wrong"),
        ("exact", 1): ("same", "B1 right"),
        ("judged", 0): ("A0 right", "same"),
    }
    assert all(a != b for a, b in shown.values())  # no row listed with the same answers on both sides


def hostile_records(variant: str, row_values: list[list[float]]) -> list[RunRecord]:
    out = []
    for row, values in enumerate(row_values):
        for epoch, v in enumerate(values):
            made = RunRecord(row, variant, epoch, {"q": f"q{row}"}, None, "done", result=f"<i>{variant}</i>")
            made.scores = {"<b>s</b>": Score(v)}
            out.append(made)
    return out


def test_the_summary_and_the_comparison_say_what_they_rest_on_escaped(tmp_path: Path) -> None:
    lines: list[dict[str, Any]] = [
        {
            "type": "experiment",
            "format": 1,
            "name": "n",
            "variants": {"<a>": "", "b": ""},
            "scorers": ["<b>s</b>"],
            "epochs": 2,
            "epochs_reducer": "max",
            "rows": 3,
        },
    ]
    values = {"<a>": [[1.0, 0.0], [1.0, 1.0], [0.0, 0.0]], "b": [[0.0, 0.0], [1.0, 1.0]]}
    for row in range(3):
        lines.append(
            {"type": "row", "row": row, "inputs": {"q": f"q{row}"}, "reference": None, "given": f"q{row}"}
        )
    for variant, rows in values.items():
        for record in hostile_records(variant, rows):
            lines.append({"type": "run", **record.to_json()})
    path = tmp_path / "n.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    experiment = deepnb.load_experiment(path)
    summary = experiment.summary()
    text = summary_text(summary)
    assert "n = 3 rows × 2 epochs" in text and "n = 2 rows × 2 epochs" in text
    assert "each row's max over its epochs; 95 % intervals clustered by row" in text
    html = summary_html(summary)
    assert "n = 3 rows × 2 epochs" in html and "&lt;b&gt;s&lt;/b&gt; n" in html and "<b>s</b>" not in html
    record = {r["variant"]: r for r in summary.to_records()}
    assert (record["<a>"]["<b>s</b> rows"], record["<a>"]["<b>s</b> runs"]) == (3, 6)
    assert (record["b"]["<b>s</b> rows"], record["b"]["<b>s</b> runs"]) == (2, 4)
    for name in ("mean", "low", "high", "pass", "pass@2", "errors"):
        assert f"<b>s</b> {name}" in record["b"]  # every earlier column is still there
    comparison = experiment.compare("<a>", "b")
    assert comparison.to_records()[0]["pairs"] == 2
    shown = comparison_text(comparison)
    assert "Paired by row (each row's max over its 2 epochs)" in shown
    assert "  <b>s</b> (a − b):\n    row 0: +1.00  <a>: (epoch 0) <i><a></i> | b: (epoch 0) <i>b</i>" in shown
    html = comparison_html(comparison)
    assert "pairs (rows)" in html and "&lt;b&gt;s&lt;/b&gt;: a − b" in html and "<b>s</b>" not in html
    assert 'aria-label="Rows where they differ on &lt;b&gt;s&lt;/b&gt;"' in html
