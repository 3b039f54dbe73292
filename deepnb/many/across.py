"""``deepnb.compare_experiments(a, b)``: two experiments (or their logs) compared over the rows
they share, with the statistics of :meth:`~deepnb.many.experiment.Experiment.compare`.

Rows are matched by their dataset ``id`` where they have one, else by their input fields (a row
repeated in a dataset is matched by its place among its repeats); variants by name: every
variant both have is compared with itself (``variant="x"`` picks one; ``variant=("x", "y")``
compares a's ``x`` with b's ``y``). Per scorer both have, each row's epochs are reduced to one
score by each experiment's own ``epochs_reducer``, then the pairs are compared as ``compare``
does: wins, losses and ties over the rows, the mean difference (a - b) and the Wilcoxon
signed-rank p; and per scorer the rows where the two differ on that scorer. What is not compared
(rows, variants or scorers one of them lacks) is counted and said."""

from __future__ import annotations

import dataclasses
import json
import os
import statistics
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from deepnb.core.displayable import Displayable
from deepnb.core.errors import DeepnbError
from deepnb.core.frames import records_frame
from deepnb.core.text.safe_display import safe_display
from deepnb.many import log as logs
from deepnb.many import stats
from deepnb.many.datasets import Row
from deepnb.many.experiment import (
    Experiment,
    VariantComparison,
    by_row,
    each_row,
    load_experiment,
    paired_by_row,
)
from deepnb.many.record import RunRecord

SIDES = ("A", "B")
"""How the comparison names its two experiments."""


@dataclass(frozen=True)
class Side:
    """One experiment of the comparison: its name, when it was made, its log, its epochs and
    how they were reduced, and the rows, variants and scorers only it has."""

    name: str
    created: str | None
    path: str
    epochs: int
    reducer: str
    only_rows: int
    only_variants: tuple[str, ...]
    only_scorers: tuple[str, ...]


@dataclass(frozen=True)
class VariantMove:
    """One compared variant pair on one scorer: each side's mean over the shared rows both
    scored (how the score moved from A to B)."""

    a: str
    b: str
    scorer: str
    a_mean: float | None
    b_mean: float | None


@safe_display
@dataclass(frozen=True, repr=False)  # repr: the renderer's text
class ExperimentComparison(Displayable):
    """Experiment ``a`` against experiment ``b`` over their shared rows: ``comparisons`` holds one
    :class:`~deepnb.many.experiment.VariantComparison` per compared variant pair (its labels say
    the side: ``x (A)``), ``moves`` each pair's means per scorer, ``shared_rows`` the rows both
    have, and each :class:`Side` what only it has."""

    a: Side
    b: Side
    shared_rows: int
    pairs: tuple[tuple[str, str], ...]
    comparisons: tuple[VariantComparison, ...]
    moves: tuple[VariantMove, ...]

    @property
    def paired(self) -> str:
        """What each pair's comparison pairs and tests, in words (as
        :attr:`VariantComparison.paired <deepnb.many.experiment.VariantComparison.paired>`, saying
        each side's epochs where they differ)."""
        a, b = self.a, self.b
        if a.epochs == b.epochs and a.reducer == b.reducer:
            return paired_by_row(each_row(a.epochs, a.reducer))
        return paired_by_row(
            f"each row's score: in A its {a.reducer} over {a.epochs} epochs, "
            f"in B its {b.reducer} over {b.epochs}"
        )

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per compared variant pair and scorer: ``variant_a``, ``variant_b``,
        ``scorer``, ``a_mean`` and ``b_mean`` (over the rows both scored), ``pairs``, ``wins``,
        ``losses``, ``ties``, ``mean_difference`` (a - b), ``p_value``."""
        means = {(m.a, m.b, m.scorer): m for m in self.moves}
        records = []
        for (va, vb), comparison in zip(self.pairs, self.comparisons, strict=True):
            for s in comparison.scorers:
                move = means.get((va, vb, s.scorer))
                records.append(
                    {
                        "variant_a": va,
                        "variant_b": vb,
                        "scorer": s.scorer,
                        "a_mean": move.a_mean if move else None,
                        "b_mean": move.b_mean if move else None,
                        "pairs": s.pairs,
                        "wins": s.wins,
                        "losses": s.losses,
                        "ties": s.ties,
                        "mean_difference": s.mean_difference,
                        "p_value": s.p_value,
                    }
                )
        return records

    def to_pandas(self) -> Any:
        """``to_records()`` as a pandas ``DataFrame``."""
        return records_frame(self.to_records(), what="comparison of experiments")


def _opened(given: Any, side: str) -> Experiment:
    if isinstance(given, Experiment):
        return given
    if isinstance(given, (str, os.PathLike)):
        return load_experiment(given)
    raise DeepnbError(
        f"compare_experiments takes two experiments or their log paths: {side} is a {type(given).__name__}."
    )


def row_key(row: Row) -> str:
    """What matches a row across experiments: its ``id`` where it has one, else its fields."""
    if row.id is not None:
        return "id " + json.dumps(row.id, sort_keys=True, default=str)
    return "fields " + json.dumps(dict(row.fields), sort_keys=True, default=str)


def _keys(rows: Iterable[Row]) -> dict[tuple[str, int], int]:
    """Each row's key with its place among rows of the same key -> the row's index."""
    seen: dict[str, int] = {}
    keyed = {}
    for row in rows:
        key = row_key(row)
        keyed[(key, seen.get(key, 0))] = row.index
        seen[key] = seen.get(key, 0) + 1
    return keyed


def _pairs(a: Experiment, b: Experiment, variant: str | tuple[str, str] | None) -> list[tuple[str, str]]:
    ours, theirs = a.variants, b.variants
    if isinstance(variant, tuple):
        if len(variant) != 2 or not all(isinstance(v, str) for v in variant):
            raise DeepnbError(f"variant=({variant!r}) takes two names: a's variant, then b's.")
        picked = [variant]
    elif variant is not None:
        picked = [(variant, variant)]
    else:
        picked = [(v, v) for v in ours if v in theirs]
        if not picked:
            raise DeepnbError(
                f"The two experiments share no variant name (A: {', '.join(ours)}; B: {', '.join(theirs)}): "
                "name the two to compare, e.g. variant=('x', 'y') for A's x against B's y."
            )
    for va, vb in picked:
        if va not in ours:
            raise DeepnbError(f"A has no variant {va!r}: its variants are {', '.join(ours)}.")
        if vb not in theirs:
            raise DeepnbError(f"B has no variant {vb!r}: its variants are {', '.join(theirs)}.")
    return picked


def _header(experiment: Experiment) -> Mapping[str, Any]:
    """The log's first line, its header (``{}`` where it cannot be read)."""
    try:
        with open(experiment.path, encoding="utf-8") as log:
            header = json.loads(log.readline(logs.MAX_LINE_BYTES) or "{}")
    except (OSError, ValueError):
        return {}
    return header if isinstance(header, dict) else {}


def _scorers(experiment: Experiment, header: Mapping[str, Any]) -> list[str]:
    """The experiment's scorers: its own and its records', then those its log's header names."""
    named = header.get("scorers")
    return list(dict.fromkeys([*experiment.scorer_names(), *(named if isinstance(named, list) else [])]))


def _side(
    experiment: Experiment,
    header: Mapping[str, Any],
    only_rows: int,
    variants: Iterable[str],
    scorers: Iterable[str],
) -> Side:
    created = header.get("created")
    reducer = experiment.plan.epochs_reducer
    return Side(
        experiment.name,
        str(created) if created else None,
        str(experiment.path),
        experiment.plan.epochs,
        f"{reducer.name} ({reducer.note})" if reducer.note else reducer.name,
        only_rows,
        tuple(variants),
        tuple(scorers),
    )


def compare_experiments(
    a: Experiment | str | os.PathLike[str],
    b: Experiment | str | os.PathLike[str],
    *,
    variant: str | tuple[str, str] | None = None,
) -> ExperimentComparison:
    """Experiment ``a`` against experiment ``b`` (each an :class:`Experiment` or its log's path)
    over the rows they share (matched by ``id``, else by their fields), with ``compare``'s
    statistics per scorer both have: every variant both have against itself, or ``variant="x"``,
    or ``variant=("x", "y")`` (a's x against b's y). Rows, variants and scorers only one has are
    counted and said; nothing shared is one clear error."""
    first, second = _opened(a, "a"), _opened(b, "b")
    keys_a, keys_b = _keys(first.plan.rows), _keys(second.plan.rows)
    shared = [key for key in keys_a if key in keys_b]
    if not shared:
        raise DeepnbError(
            f"{first.name!r} ({first.path}) and {second.name!r} ({second.path}) share no rows (matched by "
            "each row's id, else its fields): compare experiments run on the same dataset."
        )
    pairs = _pairs(first, second, variant)
    header_a, header_b = _header(first), _header(second)
    scorers_a, scorers_b = _scorers(first, header_a), _scorers(second, header_b)
    scorers = [s for s in scorers_a if s in scorers_b]
    if not scorers:
        raise DeepnbError(
            f"The two experiments share no scorer (A: {', '.join(scorers_a) or 'none'}; "
            f"B: {', '.join(scorers_b) or 'none'}): rescore one with the other's scorers first."
        )
    to_a = {keys_b[key]: keys_a[key] for key in shared}  # b's row -> the same row's index in a
    kept_a = set(to_a.values())
    compared_a = {va for va, _ in pairs}
    compared_b = {vb for _, vb in pairs}
    comparisons, moves = [], []
    records_a, records_b = first.records.values(), second.records.values()
    for va, vb in pairs:
        mine = [r for r in records_a if r.variant == va and r.row in kept_a]
        theirs = [
            dataclasses.replace(r, row=to_a[r.row]) for r in records_b if r.variant == vb and r.row in to_a
        ]
        comparison, moved = _compared(first, second, (va, vb), mine, theirs, scorers)
        comparisons.append(comparison)
        moves += moved
    only_a = len(keys_a) - len(shared)
    only_b = len(keys_b) - len(shared)
    return ExperimentComparison(
        _side(
            first,
            header_a,
            only_a,
            [v for v in first.variants if v not in compared_a],
            [s for s in scorers_a if s not in scorers],
        ),
        _side(
            second,
            header_b,
            only_b,
            [v for v in second.variants if v not in compared_b],
            [s for s in scorers_b if s not in scorers],
        ),
        len(shared),
        tuple(pairs),
        tuple(comparisons),
        tuple(moves),
    )


def _compared(
    first: Experiment,
    second: Experiment,
    pair: tuple[str, str],
    mine: list[RunRecord],
    theirs: list[RunRecord],
    scorers: list[str],
) -> tuple[VariantComparison, list[VariantMove]]:
    """One variant pair over the shared rows (``theirs`` already renumbered as a's rows)."""
    va, vb = pair
    reducer_a, reducer_b = first.plan.epochs_reducer, second.plan.epochs_reducer
    a_scores = {name: stats.row_scores(mine, name, reducer_a) for name in scorers}
    b_scores = {name: stats.row_scores(theirs, name, reducer_b) for name in scorers}
    per_scorer = tuple(stats.compare_rows(name, a_scores[name], b_scores[name]) for name in scorers)
    moves = []
    for name in scorers:
        both = set(a_scores[name]) & set(b_scores[name])
        moves.append(
            VariantMove(
                va,
                vb,
                name,
                statistics.fmean(a_scores[name][r] for r in both) if both else None,
                statistics.fmean(b_scores[name][r] for r in both) if both else None,
            )
        )
    same = first.plan.epochs == second.plan.epochs and reducer_a.name == reducer_b.name
    comparison = VariantComparison(
        f"{va} (A)",
        f"{vb} (B)",
        per_scorer,
        tuple(stats.differences(by_row(mine), by_row(theirs), a_scores, b_scores)),
        first.plan.epochs if same else max(2, first.plan.epochs, second.plan.epochs),
        reducer_a.name
        if same
        else f"A: {reducer_a.name} of {first.plan.epochs}, B: {reducer_b.name} of {second.plan.epochs}",
    )
    return comparison, moves
