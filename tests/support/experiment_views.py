"""An experiment's live matrix in tests: its state that grows with the experiment (what one message
may carry at once), and waiting for it to show the summary of everything recorded and graded."""

from __future__ import annotations

from typing import Any

from deepnb.views.experiment.experiment_live import ExperimentView
from deepnb.views.experiment.row_filter import human_grades
from tests.support.waiting import wait_until

GROWING = (
    "head",
    "variants",
    "scorers",
    "fields",
    "rows",
    "more",
    "window",
    "summary",
    "charts",
    "comparisons",
    "sample",
)
"""The matrix's traits that grow with the experiment (what one message may carry at once)."""


def growing_state(view: ExperimentView) -> dict[str, Any]:
    """The :data:`GROWING` traits of ``view``, as one message would carry them all."""
    return {name: getattr(view, name) for name in view.trait_names(sync=True) if name in GROWING}


def wait_judged(view: ExperimentView) -> None:
    """Return once the summary thread has judged every recorded run and every person's grade,
    and the view shows that summary (not one copied while the thread was still at work)."""
    experiment = view.experiment

    def judged() -> bool:
        view.sync()
        seen = (len(experiment.records), human_grades(experiment))
        latest = view._judged
        return (
            view.judged_for == seen
            and bool(view.summary)
            and (view.summary, view.charts, view.comparisons)
            == (latest["summary"], latest["charts"], latest["comparisons"])
        )

    wait_until(judged, "the summary of every recorded run and grade")
