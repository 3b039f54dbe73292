"""The numbers an experiment is judged by: per variant, each score's mean with a 95 % interval,
its pass rate and pass@k, tokens, cost, latency and errors; between two variants, wins, losses
and ties per scorer with a paired test (scipy's Wilcoxon signed-rank) and the rows where they
differ most.

A score passes when it is at least ``threshold`` (0.5: a True, a 1). pass@k is the share of
rows where at least one of the k epochs passed (k = the experiment's epochs). Pairs are per row:
each variant's mean over its epochs.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from deepnb.core.tokens import Tokens
from deepnb.many.record import RunRecord

THRESHOLD = 0.5
CONFIDENCE = 0.95
TOP_DIFFERENCES = 5


@dataclass(frozen=True)
class ScoreSummary:
    """One scorer over one variant's runs."""

    scorer: str
    n: int
    mean: float | None
    low: float | None
    high: float | None
    pass_rate: float | None
    pass_at_k: float | None
    errors: int


@dataclass(frozen=True)
class VariantSummary:
    """One variant: its runs' counts, each scorer's summary, tokens, cost and latency."""

    variant: str
    runs: int
    done: int
    errors: int
    scores: tuple[ScoreSummary, ...]
    tokens_in: int
    tokens_out: int
    """The sums of the tokens the runs' model calls reported."""
    tokens_unreported: int
    """Model calls that reported no usage: where above 0, the sums are lower bounds."""
    cost: float | None
    """US dollars over the runs that have a price; ``None`` when none has."""
    cost_unknown: int
    """Runs whose cost is unknown or a lower bound (no price, or tokens unreported): where above
    0, ``cost`` is a lower bound."""
    latency_p50: float | None
    latency_p95: float | None

    @property
    def tokens(self) -> Tokens:
        """The variant's tokens, with the model calls that reported none kept apart."""
        return Tokens(self.tokens_in, self.tokens_out, self.tokens_unreported)


@dataclass(frozen=True)
class ScorerComparison:
    """``a`` against ``b`` on one scorer, row by row."""

    scorer: str
    pairs: int
    wins: int
    losses: int
    ties: int
    mean_difference: float | None
    p_value: float | None
    """Wilcoxon signed-rank, two-sided; 1.0 when every pair ties; ``None`` with no pairs."""


@dataclass(frozen=True)
class Difference:
    """A row where the two variants' scores differ: the difference over all scorers (a - b)."""

    row: int
    difference: float
    a: str | None
    b: str | None
    inputs: Mapping[str, Any] = field(default_factory=dict)


def mean_interval(values: Sequence[float]) -> tuple[float | None, float | None, float | None]:
    """The mean and its 95 % Student-t interval (no interval for fewer than two values), kept
    within 0 and 1 when every value is."""
    if not values:
        return None, None, None
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, None, None
    from scipy import stats  # type: ignore[import-untyped]  # noqa: PLC0415  # lazy: heavy

    sem = statistics.stdev(values) / math.sqrt(len(values))
    if sem == 0:
        return mean, mean, mean
    low, high = stats.t.interval(CONFIDENCE, len(values) - 1, loc=mean, scale=sem)
    if all(0.0 <= v <= 1.0 for v in values):  # scores of 0 to 1 (pass/fail, a judge's): so is the interval
        low, high = max(0.0, low), min(1.0, high)
    return mean, float(low), float(high)


def percentile(values: Sequence[float], q: float) -> float | None:
    """The ``q``-th percentile (0-100), linear between the nearest values."""
    if not values:
        return None
    ordered = sorted(values)
    at = (len(ordered) - 1) * q / 100
    below = math.floor(at)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (at - below)


def summarize(
    variant: str,
    records: Iterable[RunRecord],
    scorers: Sequence[str],
    *,
    epochs: int,
    threshold: float = THRESHOLD,
) -> VariantSummary:
    """One variant's summary over its ended runs."""
    ended = [r for r in records if r.status in ("done", "error", "cancelled")]
    summaries = []
    for name in scorers:
        values = [
            r.scores[name].score for r in ended if name in r.scores and r.scores[name].score is not None
        ]
        numbers = [float(v) for v in values if v is not None]
        errors = sum(1 for r in ended if name in r.scores and r.scores[name].error)
        mean, low, high = mean_interval(numbers)
        passed = [v >= threshold for v in numbers]
        by_row: dict[int, bool] = {}
        for r in ended:
            s = r.scores.get(name)
            if s is not None and s.score is not None:
                by_row[r.row] = by_row.get(r.row, False) or s.score >= threshold
        summaries.append(
            ScoreSummary(
                name,
                len(numbers),
                mean,
                low,
                high,
                sum(passed) / len(passed) if passed else None,
                sum(by_row.values()) / len(by_row) if by_row and epochs >= 1 else None,
                errors,
            )
        )
    latencies = [r.latency for r in ended if r.status == "done"]
    costs = [r.cost for r in ended if r.cost is not None]
    tokens = Tokens.total(r.tokens for r in ended)
    return VariantSummary(
        variant=variant,
        runs=len(ended),
        done=sum(1 for r in ended if r.status == "done"),
        errors=sum(1 for r in ended if r.status == "error"),
        scores=tuple(summaries),
        tokens_in=tokens.tokens_in,
        tokens_out=tokens.tokens_out,
        tokens_unreported=tokens.unreported,
        cost=sum(costs) if costs else None,
        cost_unknown=sum(1 for r in ended if r.cost is None or not r.tokens.complete),
        latency_p50=percentile(latencies, 50),
        latency_p95=percentile(latencies, 95),
    )


def row_means(records: Iterable[RunRecord], scorer: str) -> dict[int, float]:
    """Each row's mean score over its epochs (rows with no score left out)."""
    found: dict[int, list[float]] = {}
    for r in records:
        s = r.scores.get(scorer)
        if s is not None and s.score is not None:
            found.setdefault(r.row, []).append(s.score)
    return {row: statistics.fmean(values) for row, values in found.items()}


def compare_scorer(a: Iterable[RunRecord], b: Iterable[RunRecord], scorer: str) -> ScorerComparison:
    """``a`` against ``b`` on ``scorer`` over the rows both have a score for."""
    mine, theirs = row_means(a, scorer), row_means(b, scorer)
    rows = sorted(set(mine) & set(theirs))
    diffs = [mine[row] - theirs[row] for row in rows]
    wins = sum(1 for d in diffs if d > 0)
    losses = sum(1 for d in diffs if d < 0)
    return ScorerComparison(
        scorer,
        len(diffs),
        wins,
        losses,
        len(diffs) - wins - losses,
        statistics.fmean(diffs) if diffs else None,
        paired_p_value(diffs),
    )


def paired_p_value(diffs: Sequence[float]) -> float | None:
    """Wilcoxon signed-rank test's two-sided p for paired differences (zeros dropped)."""
    if not diffs:
        return None
    if all(d == 0 for d in diffs):
        return 1.0
    from scipy import stats  # noqa: PLC0415  # lazy: heavy

    result = stats.wilcoxon(diffs, zero_method="wilcox", alternative="two-sided")
    p = float(result.pvalue)
    return None if math.isnan(p) else p


def differences(
    a: Mapping[int, RunRecord],
    b: Mapping[int, RunRecord],
    a_means: Mapping[str, Mapping[int, float]],
    b_means: Mapping[str, Mapping[int, float]],
    *,
    top: int = TOP_DIFFERENCES,
) -> list[Difference]:
    """The rows where the sum over scorers of (a - b) is furthest from zero, the largest first."""
    totals: dict[int, float] = {}
    for scorer, mine in a_means.items():
        theirs = b_means.get(scorer, {})
        for row in set(mine) & set(theirs):
            totals[row] = totals.get(row, 0.0) + mine[row] - theirs[row]
    ranked = sorted((item for item in totals.items() if item[1] != 0), key=lambda item: -abs(item[1]))
    listed = []
    for row, total in ranked[:top]:
        first_a, first_b = a.get(row), b.get(row)
        listed.append(
            Difference(
                row,
                total,
                first_a.result if first_a else None,
                first_b.result if first_b else None,
                dict(first_a.inputs) if first_a else {},
            )
        )
    return listed
