"""The live matrix's filters, applied in the kernel over every row of the experiment (the view
holds only the rows that fit one message, so a filter that looked only at those would miss the
failures further down): failures only, one scorer, one variant, one status, and text in the row's
input or answers. The front end applies the same filters to the rows it holds, at once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from deepnb.core.errors import DeepnbError
from deepnb.many import stats
from deepnb.many.experiment import Experiment
from deepnb.many.record import Key, RunRecord
from deepnb.many.report_data import as_text

TEXT_CHARS = 200
"""Characters of the text filter the kernel reads."""
STATUSES: tuple[str, ...] = ("queued", "running", "waiting", "scoring", "retrying", "done", "error")
STATUSES += ("cancelled", "interrupted", "unsaved")
"""The statuses a run can have (``Experiment.status_of``)."""
FAILED = frozenset({"error", "cancelled", "interrupted", "unsaved"})
"""Statuses that count as a failure whatever the scores."""


@dataclass(frozen=True)
class RowFilter:
    """What the matrix shows: only rows with a failure (``failures``), judged on ``scorer`` alone
    and on ``variant`` alone when given, with a run of ``status``, holding ``text``."""

    failures: bool = False
    scorer: str = ""
    variant: str = ""
    status: str = ""
    text: str = ""
    threshold: float = stats.THRESHOLD

    @property
    def active(self) -> bool:
        """Whether it leaves any row out."""
        return self.failures or bool(self.status or self.text.strip())

    @classmethod
    def of(cls, content: Mapping[str, Any], experiment: Experiment) -> RowFilter:
        """The filter a front end's ``filter`` message asks for; a scorer, variant or status the
        experiment has not is one line."""
        scorer, variant, status = (str(content.get(name) or "") for name in ("scorer", "variant", "status"))
        if scorer and scorer not in experiment.scorer_names():
            raise DeepnbError(f"The experiment has no scorer {scorer[:80]!r} to filter by.")
        if variant and variant not in experiment.variants:
            raise DeepnbError(f"The experiment has no variant {variant[:80]!r} to filter by.")
        if status and status not in STATUSES:
            raise DeepnbError(f"No run status {status[:80]!r}: filter by one of {', '.join(STATUSES)}.")
        text = str(content.get("text") or "")[:TEXT_CHARS]
        return cls(bool(content.get("failures")), scorer, variant, status, text)

    def rows(self, experiment: Experiment, scorers: list[str]) -> list[int]:
        """The experiment's rows this filter keeps, in order: read from its records (one copy of
        them), not from matrix cells, so that looking through 10,000 rows stays cheap."""
        records = experiment.records
        variants = [self.variant] if self.variant else experiment.variants
        judged = [self.scorer] if self.scorer else scorers
        needle = self.text.strip().lower()
        epochs = range(experiment.plan.epochs)
        kept = []
        for row in experiment.plan.rows:
            keys = [(row.index, v, e) for v in variants for e in epochs]
            found = [(key, records.get(key)) for key in keys]
            if self.failures and not any(self._fails(experiment, key, r, judged) for key, r in found):
                continue
            if self.status and not any(experiment.status_of(key) == self.status for key, _ in found):
                continue
            if needle and not any(needle in text.lower() for text in [row.prompt, *_answers(found)]):
                continue
            kept.append(row.index)
        return kept

    def _fails(self, experiment: Experiment, key: Key, record: RunRecord | None, judged: list[str]) -> bool:
        """Whether run ``key`` failed: it ended badly, or a score of ``judged`` is below the
        threshold or in error."""
        status = record.status if record is not None else experiment.status_of(key)
        if status in FAILED:
            return True
        for name in judged:
            score = record.scores.get(name) if record is not None else None
            if score is None:
                continue
            if score.score is None and score.error:
                return True
            if score.score is not None and score.score < self.threshold:
                return True
        return False


def _answers(found: list[tuple[Key, RunRecord | None]]) -> list[str]:
    """The answers, structured outputs and errors of the runs ``found``: what the text filter
    looks in besides the row's input (the view looks in the output's fields)."""
    texts: list[str] = []
    for _, record in found:
        if record is not None:
            output = as_text(record.output) if record.output is not None else ""
            texts += [record.result or "", record.error or "", output]
    return texts


def human_grades(experiment: Experiment) -> tuple[tuple[Any, ...], ...]:
    """Every grade a person set, as ``(row, variant, epoch, scorer, score, comment)`` in order:
    what changes when one is set or set again (the records do not)."""
    return tuple(
        sorted(
            (*key, name, score.score, score.comment or "")
            for key, record in experiment.records.items()
            for name, score in record.scores.items()
            if score.human
        )
    )
