"""``deepnb.experiments()`` drawn as a table: a row per log, the newest first, with its name,
when it was made, variants, rows, epochs, runs and headline scores (per scorer, each variant's
mean, in the log's order of variants, the best marked); a log that cannot be read says why in
place of its scores. Under it, how each variant's score moved from one log of an experiment to the
next (:meth:`Experiments.movement`). Every text is escaped where it becomes HTML (:class:`Table`)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from deepnb.core.text.figures import number
from deepnb.many.history import Experiments
from deepnb.views import blocks
from deepnb.views.blocks import Block, Line
from deepnb.views.listings import Table

COLUMNS = ("name", "created (UTC)", "variants", "rows", "epochs", "runs (done)", "headline scores", "log")
SHOWN_VARIANTS = 4
"""Variants a scorer's headline names at most (beyond: the best and how many more)."""
ERROR_CHARS = 200
MOVEMENT_COLUMNS = ("experiment", "scorer", "variant", "mean, oldest log first", "last change")
SHOWN_POINTS = 6
"""Logs a series of the movement table shows at most (the newest; the earlier ones counted)."""
MOVEMENT_HEAD = "How the scores moved, from one log of an experiment (by name) to the next:"


def headline(scores: Mapping[str, Mapping[str, float]], variants: list[str]) -> str:
    """Per scorer, each variant's mean (``exact: a 0.50 · b 0.75 ★``: the best marked), scorers
    apart by ``;``."""
    said = []
    for scorer, means in scores.items():
        order = [v for v in variants if v in means] + [v for v in means if v not in variants]
        best = max(means.values()) if len(means) > 1 else None
        shown = order[:SHOWN_VARIANTS]
        parts = [f"{v} {number(means[v])}" + (" ★" if means[v] == best else "") for v in shown]
        if len(order) > len(shown):
            top = max(order, key=lambda v: means[v])
            parts.append(f"… {len(order) - len(shown)} more (best {top} {number(means[top])})")
        said.append(f"{scorer}: {' · '.join(parts)}")
    return "; ".join(said) or "–"


def _row(entry: Mapping[str, Any]) -> tuple[Any, ...]:
    error = entry.get("error")
    variants = [str(v) for v in entry.get("variants") or []]
    created = str(entry.get("created") or "")[:19].replace("T", " ")
    if error:
        scores = f"⚠ cannot be read: {str(error)[:ERROR_CHARS]}"
    else:
        scores = headline(entry.get("scores") or {}, variants)
    runs = f"{entry.get('runs') or 0} ({entry.get('done') or 0})"
    return (
        entry.get("name") or "–",
        created or "–",
        ", ".join(variants) or "–",
        entry.get("rows") or 0,
        entry.get("epochs") or "–",
        runs,
        scores,
        Path(str(entry.get("path") or "")).name,
    )


def change(before: float, after: float) -> str:
    """A move from ``before`` to ``after``, in words as well as an arrow: ``▲ up 0.17``."""
    moved = after - before
    if abs(moved) < 0.005:
        return "= no change"
    return f"{'▲ up' if moved > 0 else '▼ down'} {number(abs(moved))}"


def _other_rows(before: Mapping[str, Any], point: Mapping[str, Any]) -> bool:
    """Whether ``point``'s log scored other rows than the log ``before`` it."""
    if before.get("dataset") and point.get("dataset"):
        return bool(before["dataset"] != point["dataset"])
    return bool(before.get("rows") != point.get("rows"))


def _series_row(series: Mapping[str, Any]) -> tuple[Any, ...]:
    points = list(series["points"])
    shown = points[-SHOWN_POINTS:]
    said = [f"… {len(points) - len(shown)} earlier"] if len(points) > len(shown) else []
    first = len(points) - len(shown)
    for at, point in enumerate(shown, start=first):
        other = at > 0 and _other_rows(points[at - 1], point)
        said.append(number(point["mean"]) + (" (other rows)" if other else ""))
    last = change(points[-2]["mean"], points[-1]["mean"])
    if _other_rows(points[-2], points[-1]):
        last += " (other rows)"
    return (series["name"], series["scorer"], series["variant"], " → ".join(said), last)


def movement_table(listed: Experiments) -> Table:
    """How each variant's score moved across the logs of one experiment, as a :class:`Table`."""
    return Table(
        MOVEMENT_COLUMNS,
        tuple(_series_row(series) for series in listed.movement()),
        empty="No experiment has two logs yet: its scores have not moved.",
    )


def _blocks(listed: Experiments) -> list[Block]:
    found: list[Block] = [experiments_table(listed).block()]
    moved = movement_table(listed)
    if moved.rows:
        found += [Line.of(MOVEMENT_HEAD, tag="p"), moved.block()]
    return found


def experiments_table(listed: Experiments) -> Table:
    """The logs as a :class:`Table`."""
    where = listed.folder or ".deepnb/experiments"
    empty = f"No experiment logs in {where}: deepnb.experiment(...) writes one."
    return Table(COLUMNS, tuple(_row(entry) for entry in listed), empty=empty)


def experiments_text(listed: Experiments) -> str:
    """``repr(deepnb.experiments())``: the logs' table, then how the scores moved, in plain text."""
    return "\n".join(blocks.text(_blocks(listed)))


def experiments_html(listed: Experiments) -> str:
    """The logs' table, then how the scores moved, as escaped HTML."""
    return blocks.html(_blocks(listed))
