"""The numbers an experiment is judged by: per variant, each score's mean with a 95 % interval
clustered by row, its pass rate and pass@k, tokens, cost, latency and errors; between two
variants, wins, losses and ties per scorer with a paired test (scipy's Wilcoxon signed-rank) over
the rows, and, per scorer, the rows where they differ most.

Every figure about a score rests on the rows: first each row's epoch scores are reduced to one
score by the experiment's epoch reducer (Inspect's names: ``mean``, ``median``, ``mode``, ``max``,
``pass_at_k``, ``at_least_k``, or a function), then the mean is taken over the rows, its interval
is clustered by row (see :func:`mean_interval`), and the comparison pairs the two variants' scores
of each row. A score passes when it is at least ``threshold`` (0.5: a True, a 1); the pass rate is
the share of scored runs that pass, pass@k the share of rows where at least one of the k epochs
passed (k = the experiment's epochs).
"""

from __future__ import annotations

import math
import re
import statistics
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from deepnb.core.errors import DeepnbError
from deepnb.core.tokens import Tokens
from deepnb.many.record import RunRecord

THRESHOLD = 0.5
CONFIDENCE = 0.95
TOP_DIFFERENCES = 5
"""Rows listed per scorer where two variants differ most."""
DIGITS = 12
"""Decimals a difference between two rows' scores is rounded to: a mean over epochs carries
rounding noise (1 - 2/3 is not 1/3 - 0 in floating point), which would otherwise make a tie a win
and break the Wilcoxon test's ties of equal differences."""
REDUCERS = ("mean", "median", "mode", "max", "pass_at_k", "at_least_k")
"""The epoch reducers' names (Inspect's): ``pass_at_k`` and ``at_least_k`` with k a whole number,
e.g. ``pass_at_2``."""
FUNCTION = "function "
"""How the log names an epoch reducer that is a Python function: ``function module.name``."""


@dataclass(frozen=True)
class Reducer:
    """How a row's epoch scores become the row's one score: ``name`` is what the log and the
    summary say (``mean``, ``pass_at_2``, ``function mymodule.best``); ``kind`` the reduction
    (a name of :data:`REDUCERS` without its k, or ``function``); ``note`` says why a reopened log
    reduces otherwise than it logged (its function is code the log does not hold)."""

    name: str
    kind: str
    k: int = 0
    function: Callable[[list[float]], Any] | None = field(default=None, compare=False)
    note: str = ""

    def __call__(self, scores: Sequence[float], threshold: float = THRESHOLD) -> float | None:
        """The row's score from its epochs' scores (``None``: no score, e.g. fewer scored
        epochs than pass_at_k's k). ``pass_at_k`` and ``at_least_k`` count an epoch as correct
        at ``threshold`` or above (Inspect's ``value``, which is 1.0 there: the same for a True
        or a 1)."""
        if not scores:
            return None
        values = list(scores)
        if self.kind == "mean":
            return statistics.fmean(values)
        if self.kind == "median":
            return float(statistics.median(values))
        if self.kind == "mode":
            return Counter(values).most_common(1)[0][0]  # ties: the first seen, as Inspect's
        if self.kind == "max":
            return max(values)
        correct = sum(1 for v in values if v >= threshold)
        if self.kind == "at_least":
            return 1.0 if correct >= self.k else 0.0
        if self.kind == "pass_at":
            return pass_at_k(len(values), correct, self.k)
        return self._called(values)

    def _called(self, values: list[float]) -> float | None:
        assert self.function is not None
        try:
            given = self.function(values)
        except Exception as exc:  # the user's code: one line saying where
            raise DeepnbError(
                f"epochs_reducer {self.name} raised {type(exc).__name__}: {exc} (on the epoch scores "
                f"{values}): fix it to return a number for a list of scores."
            ) from exc
        if given is None:
            return None
        if isinstance(given, (bool, int, float)):
            number = float(given)
            return None if math.isnan(number) else number
        raise DeepnbError(
            f"epochs_reducer {self.name} returned {type(given).__name__} for the epoch scores {values}: "
            "it must return a number (or a bool, or None for no score)."
        )


MEAN = Reducer("mean", "mean")


def pass_at_k(total: int, correct: int, k: int) -> float | None:
    """The unbiased estimate of pass@k from ``total`` epochs of which ``correct`` passed (Chen et
    al. 2021, as Inspect's ``pass_at``): 1 - C(total - correct, k) / C(total, k); ``None`` for fewer
    than k epochs."""
    if total < k:
        return None
    return 1.0 - math.comb(total - correct, k) / math.comb(total, k)


def reducer(spec: str | Callable[[list[float]], Any] | Reducer, *, epochs: int) -> Reducer:
    """The epoch reducer ``spec`` names (see :data:`REDUCERS`) or is (a function of a row's
    epoch scores, a list of floats, returning its score); an unknown name, or a k above
    ``epochs``, is refused in one line."""
    if isinstance(spec, Reducer):
        return spec
    if callable(spec):
        where = getattr(spec, "__module__", None)
        called = getattr(spec, "__qualname__", None) or type(spec).__name__
        named = f"{where}.{called}" if where else str(called)
        return Reducer(f"{FUNCTION}{named}", "function", function=spec)
    if isinstance(spec, str):
        if spec in REDUCERS[:4]:
            return Reducer(spec, spec)
        matched = re.fullmatch(r"(pass_at|at_least)_(\d+)", spec)
        if matched:
            k = int(matched.group(2))
            if 1 <= k <= epochs:
                return Reducer(spec, matched.group(1), k)
            raise DeepnbError(
                f"epochs_reducer={spec!r} needs k from 1 to epochs ({epochs}): "
                f"{'raise epochs= or ' if k > epochs else ''}use a smaller k."
            )
    raise DeepnbError(
        f"epochs_reducer={spec!r} is not a reducer: use mean, median, mode, max, pass_at_K or "
        "at_least_K (K a whole number up to epochs, e.g. pass_at_2), or a function of a row's "
        "epoch scores returning its score."
    )


def logged_reducer(name: Any, *, epochs: int) -> Reducer:
    """The reducer a log names (``mean`` when it names none: logs before reducers); a function,
    which the log cannot hold, becomes ``mean`` with a note saying so."""
    if not name:
        return MEAN
    text = str(name)
    try:
        if text.startswith(FUNCTION):
            raise DeepnbError(text)
        return reducer(text, epochs=epochs)
    except DeepnbError:
        return Reducer(
            "mean",
            "mean",
            note=f"the log's epochs_reducer, {text}, is code the log does not hold: each row's mean here",
        )


@dataclass(frozen=True)
class ScoreSummary:
    """One scorer over one variant's runs: ``mean`` (over ``rows``, of each row's reduced score)
    with its 95 % interval clustered by row (``low``, ``high``), ``n`` the scored runs it rests on."""

    scorer: str
    n: int
    mean: float | None
    low: float | None
    high: float | None
    pass_rate: float | None
    pass_at_k: float | None
    errors: int
    rows: int = 0
    """The rows with a score: what the mean, its interval and the comparison rest on."""


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
    """``a`` against ``b`` on one scorer, row by row: ``pairs`` is the rows both have a score
    for (each variant's reduced score of the row), the paired test's n."""

    scorer: str
    pairs: int
    wins: int
    losses: int
    ties: int
    mean_difference: float | None
    p_value: float | None
    """Wilcoxon signed-rank over the rows, two-sided; 1.0 when every pair ties; ``None`` with no
    pairs."""


@dataclass(frozen=True)
class Difference:
    """A row where the two variants' scores differ on ``scorer``: ``difference`` is a - b of the
    row's reduced scores; ``a`` and ``b`` each variant's answer in the epoch that shows the
    difference (``a_epoch``, ``b_epoch``: where a scored its highest on that scorer and b its
    lowest when a is ahead, the other way round when b is; the first epoch on a tie)."""

    row: int
    difference: float
    a: str | None
    b: str | None
    inputs: Mapping[str, Any] = field(default_factory=dict)
    scorer: str = ""
    a_epoch: int | None = None
    b_epoch: int | None = None


def mean_interval(values: Sequence[float]) -> tuple[float | None, float | None, float | None]:
    """The mean of ``values``, one per row (a row's epochs reduced to one score), and its 95 %
    interval clustered by row; no interval for fewer than two rows; kept within 0 and 1 when
    every value is.

    The formula is Inspect's clustered standard error (``stderr(cluster=...)``, Appendix A of
    Miller, "Adding Error Bars to Evals", arXiv:2411.00640, with its finite-cluster correction):
    for N scores x_ic in C clusters with mean m, SE = sqrt(C / (C - 1) * sum_c (sum_i (x_ic - m))^2)
    / N. Epochs of a row are not independent samples (the same question, the same agent: they
    pass and fail together), so the row is the cluster. Given each row's one score r_c this is
    sqrt(C / (C - 1) * sum_c (r_c - m)^2) / C = stdev(r) / sqrt(C), scipy's ``sem``; and for the
    ``mean`` reducer with every row scored in the same number of epochs E it equals the clustered
    SE over the N = C * E epoch scores themselves, since sum_i (x_ic - m) = E (r_c - m). Rows
    scored in fewer epochs than others count as much as the rest. The interval is Student's t
    with C - 1 degrees of freedom, as statsmodels' cluster-robust inference uses: the same
    interval as an intercept-only OLS with ``cov_type="cluster"`` by row. Treating every epoch
    as an independent sample (a t over all C * E runs) gives an interval too narrow whenever a
    row's epochs agree."""
    if not values:
        return None, None, None
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, None, None
    from scipy import stats  # type: ignore[import-untyped]  # noqa: PLC0415  # lazy: heavy

    sem = float(stats.sem(values))
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
    reducer: Reducer = MEAN,
) -> VariantSummary:
    """One variant's summary over its ended runs: each scorer's mean over the rows of each row's
    score (its epochs' scores reduced by ``reducer``) with its interval clustered by row."""
    ended = [r for r in records if r.status in ("done", "error", "cancelled")]
    summaries = []
    for name in scorers:
        by_row = epoch_scores(ended, name)
        numbers = [v for values in by_row.values() for v in values]
        errors = sum(1 for r in ended if name in r.scores and r.scores[name].error)
        reduced = reduce_rows(by_row, reducer, threshold)
        mean, low, high = mean_interval(list(reduced.values()))
        passed = [v >= threshold for v in numbers]
        passed_rows = [any(v >= threshold for v in values) for values in by_row.values()]
        summaries.append(
            ScoreSummary(
                name,
                len(numbers),
                mean,
                low,
                high,
                sum(passed) / len(passed) if passed else None,
                sum(passed_rows) / len(passed_rows) if passed_rows and epochs >= 1 else None,
                errors,
                len(reduced),
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


def epoch_scores(records: Iterable[RunRecord], scorer: str) -> dict[int, list[float]]:
    """Each row's scores on ``scorer``, in epoch order (rows with no score left out)."""
    found: dict[int, list[tuple[int, float]]] = {}
    for r in records:
        s = r.scores.get(scorer)
        if s is not None and s.score is not None:
            found.setdefault(r.row, []).append((r.epoch, s.score))
    return {row: [v for _e, v in sorted(pairs, key=lambda p: p[0])] for row, pairs in found.items()}


def reduce_rows(
    by_row: Mapping[int, Sequence[float]], reducer: Reducer = MEAN, threshold: float = THRESHOLD
) -> dict[int, float]:
    """Each row's one score: its epoch scores reduced by ``reducer`` (a row it gives no score
    left out)."""
    reduced = {row: reducer(values, threshold) for row, values in by_row.items()}
    return {row: value for row, value in reduced.items() if value is not None}


def row_scores(
    records: Iterable[RunRecord], scorer: str, reducer: Reducer = MEAN, threshold: float = THRESHOLD
) -> dict[int, float]:
    """Each row's score on ``scorer``: its epochs' scores reduced by ``reducer``."""
    return reduce_rows(epoch_scores(records, scorer), reducer, threshold)


def row_means(records: Iterable[RunRecord], scorer: str) -> dict[int, float]:
    """Each row's mean score over its epochs (rows with no score left out)."""
    return row_scores(records, scorer, MEAN)


def compare_scorer(
    a: Iterable[RunRecord],
    b: Iterable[RunRecord],
    scorer: str,
    reducer: Reducer = MEAN,
    threshold: float = THRESHOLD,
) -> ScorerComparison:
    """``a`` against ``b`` on ``scorer``, paired by row: each row's score (its epochs reduced by
    ``reducer``) in ``a`` against the same row's in ``b``, over the rows both have a score for."""
    mine, theirs = row_scores(a, scorer, reducer, threshold), row_scores(b, scorer, reducer, threshold)
    return compare_rows(scorer, mine, theirs)


def compare_rows(scorer: str, mine: Mapping[int, float], theirs: Mapping[int, float]) -> ScorerComparison:
    """Each row's one score in ``mine`` against the same row's in ``theirs`` (what
    :func:`compare_scorer` compares once each side's epochs are reduced), over the rows both have."""
    rows = sorted(set(mine) & set(theirs))
    diffs = [round(mine[row] - theirs[row], DIGITS) for row in rows]
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
    a: Mapping[int, RunRecord | Sequence[RunRecord]],
    b: Mapping[int, RunRecord | Sequence[RunRecord]],
    a_scores: Mapping[str, Mapping[int, float]],
    b_scores: Mapping[str, Mapping[int, float]],
    *,
    top: int = TOP_DIFFERENCES,
) -> list[Difference]:
    """Per scorer (in ``a_scores``' order), the rows where a's and b's scores on that scorer
    differ, furthest apart first, at most ``top`` each; ``a`` and ``b`` hold each variant's runs
    of a row (its epochs; or one run), whose answers show the difference (see
    :class:`Difference`). Scorers are never added together: a row is listed under each scorer it
    differs on, with that scorer's difference, and never under one whose scores are equal."""
    listed = []
    for scorer, mine in a_scores.items():
        theirs = b_scores.get(scorer, {})
        apart = [(row, round(mine[row] - theirs[row], DIGITS)) for row in sorted(set(mine) & set(theirs))]
        ranked = sorted((item for item in apart if item[1] != 0), key=lambda item: -abs(item[1]))
        for row, difference in ranked[:top]:
            run_a = _telling(a.get(row), scorer, highest=difference > 0)
            run_b = _telling(b.get(row), scorer, highest=difference < 0)
            listed.append(
                Difference(
                    row,
                    difference,
                    run_a.result if run_a else None,
                    run_b.result if run_b else None,
                    dict(run_a.inputs) if run_a else {},
                    scorer,
                    run_a.epoch if run_a else None,
                    run_b.epoch if run_b else None,
                )
            )
    return listed


def _telling(runs: RunRecord | Sequence[RunRecord] | None, scorer: str, *, highest: bool) -> RunRecord | None:
    """Of a row's runs, the one scored highest (or lowest) on ``scorer``, the first epoch on a
    tie; the first epoch where none has a score."""
    if runs is None or isinstance(runs, RunRecord):
        return runs
    ordered = sorted(runs, key=lambda r: r.epoch)
    scored = [
        (s.score, r) for r in ordered if (s := r.scores.get(scorer)) is not None and s.score is not None
    ]
    if not scored:
        return ordered[0] if ordered else None
    best = (max if highest else min)(score for score, _r in scored)
    return next(r for score, r in scored if score == best)
