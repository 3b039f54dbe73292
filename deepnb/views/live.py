"""The live view each object shows as where a host displays an object by what its ``_display_``
returns (marimo's display protocol, :class:`deepnb.core.displayable.WidgetDisplayable`).

A run, a batch, an experiment and a thread's files are one anywidget each, which marimo draws
as ``mo.ui.anywidget`` would. A comparison is several: its run views side by side over its
answers and table, laid out with marimo's own ``hstack``/``vstack`` (imported only here, when
marimo asks for the view, so deepnb never needs marimo).
"""

from __future__ import annotations

from typing import Any

from deepnb.core.text.markup import escape
from deepnb.many.batch import Batch
from deepnb.many.comparing import Comparison
from deepnb.many.experiment import Experiment
from deepnb.session.files.files import Files
from deepnb.session.run import Run
from deepnb.views.batch.batch_view import BatchView
from deepnb.views.compare_view import CompareView
from deepnb.views.experiment.experiment_live import ExperimentView
from deepnb.views.files.files_view import FilesView
from deepnb.views.html_panel import HtmlPanel
from deepnb.views.run.run_view import RunView


def run_live(run: Run) -> RunView:
    """A run's live view, its approval cards included."""
    return RunView(run)


def batch_live(batch: Batch) -> BatchView:
    """A batch's live grid."""
    return BatchView(batch)


def experiment_live(experiment: Experiment) -> ExperimentView:
    """An experiment's live matrix."""
    return ExperimentView(experiment)


def files_live(files: Files) -> FilesView:
    """A thread's file browser, following the thread's latest run."""
    return FilesView(files)


def mirrored(box: Any) -> HtmlPanel:
    """An :class:`HtmlPanel` showing what an ipywidgets ``HTML`` box shows, as it changes."""
    panel = HtmlPanel(html=box.value)
    box.observe(lambda change: setattr(panel, "html", change["new"]), names="value")
    return panel


def comparison_live(comparison: Comparison) -> object:
    """A comparison's live view in marimo: a column per run, then its answers and its table,
    which fill in as the runs end."""
    import marimo as mo  # noqa: PLC0415  # lazy: only marimo asks for this view, and deepnb does not need it

    view = CompareView(comparison)
    columns = [
        mo.vstack([mo.Html(f'<div class="dnb-compare-head"><b>{escape(key)}</b></div>'), run_view])
        for key, run_view in view.views.items()
    ]
    return mo.vstack(
        [mo.hstack(columns, widths="equal", align="start"), mirrored(view.answers), mirrored(view.table)]
    )


__all__ = ["batch_live", "comparison_live", "experiment_live", "files_live", "run_live"]
