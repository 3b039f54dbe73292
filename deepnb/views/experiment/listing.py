"""``deepnb.experiments()`` drawn as a table: a row per log, the newest first, with its name,
when it was made, variants, rows, epochs, runs and headline scores (per scorer, each variant's
mean, in the log's order of variants, the best marked); a log that cannot be read says why in
place of its scores. Every text is escaped where it becomes HTML (:class:`Table`)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from deepnb.core.text.figures import number
from deepnb.many.history import Experiments
from deepnb.views.listings import Table

COLUMNS = ("name", "created (UTC)", "variants", "rows", "epochs", "runs (done)", "headline scores", "log")
SHOWN_VARIANTS = 4
"""Variants a scorer's headline names at most (beyond: the best and how many more)."""
ERROR_CHARS = 200


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


def experiments_table(listed: Experiments) -> Table:
    """The logs as a :class:`Table`."""
    where = listed.folder or ".deepnb/experiments"
    empty = f"No experiment logs in {where}: deepnb.experiment(...) writes one."
    return Table(COLUMNS, tuple(_row(entry) for entry in listed), empty=empty)


def experiments_text(listed: Experiments) -> str:
    """``repr(deepnb.experiments())``: the table in plain text."""
    return repr(experiments_table(listed))


def experiments_html(listed: Experiments) -> str:
    """The table as escaped HTML."""
    return experiments_table(listed)._repr_html_()
