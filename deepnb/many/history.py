"""``deepnb.experiments()``: the experiment logs of a folder as a table, the newest first, each
with its headline scores (per scorer, each variant's mean over the rows), and how each variant's
score moved from one log of an experiment (its name) to the next. A log that cannot be read is
listed with its ``error`` and nothing else known, as before."""

from __future__ import annotations

import os
import statistics
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from deepnb.core.displayable import Displayable
from deepnb.core.errors import DeepnbError
from deepnb.core.frames import records_frame
from deepnb.core.text.safe_display import safe_display
from deepnb.many import log as logs
from deepnb.many import stats
from deepnb.many.record import RunRecord

KEYS = ("path", "name", "created", "variants", "rows", "epochs", "runs", "done", "scores", "dataset", "error")
"""What each listed log says (``scores``: scorer -> variant -> mean; ``dataset``: the SHA-256 of
its rows; ``error``: why a log cannot be read, ``None`` for the others)."""
MOVEMENT_KEYS = ("name", "scorer", "variant", "points")
"""What each series of :meth:`Experiments.movement` says (``points``: a dict per log, the oldest
first, with its ``created``, ``path``, ``mean``, ``rows`` and ``dataset``)."""


def headline_scores(
    records: Iterable[RunRecord], scorers: Iterable[str], reducer: stats.Reducer = stats.MEAN
) -> dict[str, dict[str, float]]:
    """Per scorer, each variant's mean over the rows of each row's score (its epochs reduced by
    ``reducer``), as the summary's ``NAME mean``; a variant with no score on a scorer is left out."""
    by_variant: dict[str, list[RunRecord]] = {}
    for record in records:
        by_variant.setdefault(record.variant, []).append(record)
    found: dict[str, dict[str, float]] = {}
    for scorer in scorers:
        for variant, mine in by_variant.items():
            rows = stats.row_scores(mine, scorer, reducer)
            if rows:
                found.setdefault(scorer, {})[variant] = statistics.fmean(rows.values())
    return found


def scorer_names(contents: logs.LogContents) -> list[str]:
    """The log's scorers: its header's, then any other a run has a score of (a grade's, a rescore's)."""
    names = dict.fromkeys(str(name) for name in contents.header.get("scorers") or ())
    for record in contents.runs.values():
        names.update(dict.fromkeys(record.scores))
    return list(names)


def _entry(path: Path) -> dict[str, Any]:
    try:
        contents = logs.read(path)
    except DeepnbError as exc:
        return {
            **dict.fromkeys(KEYS),
            "path": str(path),
            "variants": [],
            **dict.fromkeys(("rows", "runs", "done"), 0),
            "scores": {},
            "error": str(exc),
        }
    header = contents.header
    epochs = int(header.get("epochs") or 1)
    reducer = stats.logged_reducer(header.get("epochs_reducer"), epochs=epochs)
    runs = list(contents.runs.values())
    variants = list(dict.fromkeys([*(header.get("variants") or {}), *(r.variant for r in runs)]))
    dataset = header.get("dataset")
    return {
        "path": str(path),
        "name": header.get("name"),
        "created": header.get("created"),
        "variants": variants,
        "rows": len(contents.rows),
        "epochs": epochs,
        "runs": len(runs),
        "done": sum(1 for r in runs if r.status == "done"),
        "scores": headline_scores(runs, scorer_names(contents), reducer),
        "dataset": str(dataset["sha256"]) if isinstance(dataset, dict) and dataset.get("sha256") else None,
        "error": None,
    }


@safe_display
class Experiments(Displayable, list[dict[str, Any]]):
    """The experiment logs of a folder, the newest first: a list of dicts (``path``, ``name``,
    ``created``, ``variants``, ``rows``, ``epochs``, ``runs``, ``done``, ``scores``, ``dataset``
    and ``error``) that shows as a table, followed by how the scores moved (:meth:`movement`),
    with ``to_records()`` (flat, a ``SCORER VARIANT`` column per mean) and ``to_pandas()``."""

    def __init__(self, entries: Iterable[Mapping[str, Any]] = (), *, folder: str = "") -> None:
        super().__init__(dict(e) for e in entries)
        self.folder = folder
        """Where the logs were looked for (what an empty table names)."""

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per log: its fields (``variants`` as a list) with ``scores`` spread into a
        ``SCORER VARIANT`` column per variant's mean (``None`` where it has none)."""
        columns = list(
            dict.fromkeys(
                f"{scorer} {variant}"
                for entry in self
                for scorer, means in (entry.get("scores") or {}).items()
                for variant in means
            )
        )
        records = []
        for entry in self:
            record = {key: entry.get(key) for key in KEYS if key != "scores"}
            record["variants"] = list(entry.get("variants") or [])
            spread = {
                f"{scorer} {variant}": mean
                for scorer, means in (entry.get("scores") or {}).items()
                for variant, mean in means.items()
            }
            record.update({column: spread.get(column) for column in columns})
            records.append(record)
        return records

    def to_pandas(self) -> Any:
        """``to_records()`` as a pandas ``DataFrame``, a row per log."""
        return records_frame(self.to_records(), what="experiments listing")

    def movement(self) -> list[dict[str, Any]]:
        """How each variant's headline score moved from one log of an experiment to the next: a
        dict (``name``, ``scorer``, ``variant``, ``points``) per experiment name, scorer and variant
        that two logs or more have a mean of; ``points`` holds a dict per log, the oldest first
        (``created``, ``path``, ``mean``, ``rows``, ``dataset``: a log whose dataset differs from the
        one before it scored other rows). Logs that cannot be read, or have no name, are left out."""
        series: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
        for entry in sorted(self, key=lambda item: (str(item.get("created") or ""), str(item.get("path")))):
            if entry.get("error") or not entry.get("name"):
                continue
            point = {key: entry.get(key) for key in ("created", "path", "rows", "dataset")}
            for scorer, means in (entry.get("scores") or {}).items():
                order = dict.fromkeys([*(v for v in entry.get("variants") or () if v in means), *means])
                for variant in order:  # the log's order of variants
                    key = (str(entry["name"]), scorer, variant)
                    series.setdefault(key, []).append({**point, "mean": means[variant]})
        return [
            {"name": name, "scorer": scorer, "variant": variant, "points": points}
            for (name, scorer, variant), points in series.items()
            if len(points) > 1
        ]


def experiments(folder: str | os.PathLike[str] | None = None) -> Experiments:
    """The experiment logs under ``folder`` (default ``.deepnb/experiments``), the newest first,
    each with its headline scores; a log that cannot be read is listed with its ``error``."""
    where = Path(folder) if folder is not None else logs.FOLDER
    found = [_entry(path) for path in sorted(where.glob("*.jsonl"))] if where.is_dir() else []
    found.sort(key=lambda item: str(item["created"] or ""), reverse=True)
    return Experiments(found, folder=str(where))
