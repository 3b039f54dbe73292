"""An experiment's judgement: ``summary()`` (means with 95 % intervals, pass rate, pass@k,
tokens, cost priced from genai-prices or unknown, latency p50/p95, errors), ``compare(a, b)``
(wins, losses, ties and a paired Wilcoxon test per scorer, the rows that differ most) and
``rescore()`` (scores again without running anything)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import deepnb
from deepnb import scorers
from deepnb.core.errors import DeepnbError
from deepnb.core.tokens import Tokens
from deepnb.many import pricing, stats
from deepnb.many.record import RunRecord, Score
from tests.support.agents import scripted, unique

WAIT = 120.0


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
