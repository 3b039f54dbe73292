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

    def keeps(
        self, experiment: Experiment, row: int, prompt: str, cells: list[dict[str, Any]], scorers: list[str]
    ) -> bool:
        """Whether the row ``row`` (its input ``prompt``), whose matrix cells are ``cells`` (scores
        in ``scorers``' order), is shown."""
        mine = [c for c in cells if not self.variant or c.get("v") == self.variant]
        judged = [self.scorer] if self.scorer else scorers
        if self.failures and not any(self._fails(c, scorers, judged) for c in mine):
            return False
        if self.status and not any(self.status in _statuses(c) for c in mine):
            return False
        needle = self.text.strip().lower()
        texts = [prompt, *_answers(experiment, row, mine)] if needle else []
        return not needle or any(needle in text.lower() for text in texts)

    def _fails(self, cell: Mapping[str, Any], scorers: list[str], judged: list[str]) -> bool:
        epochs = cell.get("epochs")
        if epochs:
            runs = [(e.get("s"), dict(zip(scorers, e.get("sc") or (), strict=False))) for e in epochs]
        else:
            scores = cell.get("scores") or {}
            runs = [(cell.get("kind"), {name: _number(scores.get(name)) for name in scorers})]
        for status, scores in runs:
            if status in FAILED:
                return True
            for name in judged:
                value = scores.get(name)
                if value == "error" or (isinstance(value, float | int) and value < self.threshold):
                    return True
        return False


def _number(text: Any) -> float | str | None:
    if text == "error":
        return "error"
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def _statuses(cell: Mapping[str, Any]) -> set[str]:
    epochs = cell.get("epochs")
    return {str(e.get("s")) for e in epochs} if epochs else {str(cell.get("kind"))}


def _answers(experiment: Experiment, row: int, cells: list[dict[str, Any]]) -> list[str]:
    """The answers, structured outputs and errors of each shown variant's runs of ``row``: what
    the text filter looks in besides the row's input (the view looks in the output's fields)."""
    texts: list[str] = []
    for cell in cells:
        for epoch in range(experiment.plan.epochs):
            record = experiment.record_for((row, str(cell.get("v")), epoch))
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
