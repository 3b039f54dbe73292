"""How each domain object shows: the renderers :class:`deepnb.core.displayable.Displayable` looks up,
installed on the first display. A new displayable type gets its renderer here."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from deepnb.core.displayable import Renderer, register
from deepnb.engine.anatomy import Anatomy
from deepnb.engine.graph_shape import GraphDrawing
from deepnb.engine.interpreter import Interpreter
from deepnb.engine.state import RunState
from deepnb.engine.step_state import StateDiff, StepState
from deepnb.engine.tree import SubagentNode
from deepnb.extensions.report import Listing
from deepnb.many.across import ExperimentComparison
from deepnb.many.batch import Batch
from deepnb.many.comparing import Comparison, ComparisonTable
from deepnb.many.datasets import Dataset
from deepnb.many.experiment import Experiment, Summary, VariantComparison
from deepnb.many.history import Experiments
from deepnb.many.record import RunRecord
from deepnb.session.files.files import Files
from deepnb.session.protocol import History
from deepnb.session.run import Run
from deepnb.views.anatomy_view import anatomy_html, anatomy_text
from deepnb.views.batch.batch_view import batch_bundle, show_batch
from deepnb.views.compare_view import (
    comparison_bundle,
    comparison_table_html,
    comparison_table_text,
    show_comparison,
)
from deepnb.views.dataset_view import dataset_html, dataset_text
from deepnb.views.experiment.across_view import across_html, across_text
from deepnb.views.experiment.experiment_live import experiment_live_bundle, show_experiment
from deepnb.views.experiment.experiment_view import (
    comparison_html,
    comparison_text,
    experiment_html,
    experiment_text,
    record_html,
    record_text,
    summary_html,
    summary_text,
)
from deepnb.views.experiment.listing import experiments_html, experiments_text
from deepnb.views.graph_view import graph_bundle, graph_text
from deepnb.views.history_live import history_bundle
from deepnb.views.history_view import history_html, history_text
from deepnb.views.listings import (
    extensions_html,
    extensions_text,
    interpreter_html,
    interpreter_text,
    thread_files_html,
    thread_files_text,
)
from deepnb.views.live import batch_live, comparison_live, experiment_live, files_live, run_live
from deepnb.views.output import run_bundle, show_run
from deepnb.views.run.snapshot import snapshot_bundle
from deepnb.views.run.subagent_tree import tree_html, tree_text
from deepnb.views.state_view import diff_html, diff_text, state_html, state_text
from deepnb.views.styles import inline


def _inlined(html: Callable[[Any], str]) -> Callable[[Any], str]:
    """A renderer's HTML with the static stylesheet's rules inline (it carries no ``<style>``),
    its table cells' too: these are small tables (an anatomy, a listing, a comparison's rows)."""
    return lambda obj: inline(html(obj), cells=True)


RENDERERS: dict[type, Renderer] = {
    Run: Renderer(bundle=run_bundle, show=show_run, live=run_live),  # repr(run) stays its own one line
    Files: Renderer(text=thread_files_text, html=thread_files_html, live=files_live),
    SubagentNode: Renderer(text=tree_text, html=_inlined(tree_html)),
    Interpreter: Renderer(text=interpreter_text, html=_inlined(interpreter_html)),
    Listing: Renderer(text=extensions_text, html=_inlined(extensions_html)),
    Anatomy: Renderer(text=anatomy_text, html=_inlined(anatomy_html)),
    RunState: Renderer(bundle=snapshot_bundle),  # a run as saved: its static view (deepnb.ship.exporting)
    Comparison: Renderer(
        bundle=comparison_bundle, show=show_comparison, live=comparison_live
    ),  # repr(comparison) stays its own one line
    ComparisonTable: Renderer(text=comparison_table_text, html=_inlined(comparison_table_html)),
    Batch: Renderer(bundle=batch_bundle, show=show_batch, live=batch_live),  # repr(batch) stays its own line
    Experiment: Renderer(
        text=experiment_text,
        html=experiment_html,
        bundle=experiment_live_bundle,
        show=show_experiment,
        live=experiment_live,
    ),
    Summary: Renderer(text=summary_text, html=summary_html),
    VariantComparison: Renderer(text=comparison_text, html=comparison_html),
    ExperimentComparison: Renderer(text=across_text, html=across_html),
    RunRecord: Renderer(text=record_text, html=record_html),
    History: Renderer(text=history_text, html=_inlined(history_html), bundle=history_bundle),
    Dataset: Renderer(text=dataset_text, html=_inlined(dataset_html)),
    StepState: Renderer(text=state_text, html=state_html),
    StateDiff: Renderer(text=diff_text, html=diff_html),
    Experiments: Renderer(text=experiments_text, html=_inlined(experiments_html)),
    GraphDrawing: Renderer(text=graph_text, bundle=graph_bundle),  # an SVG: no HTML to trust
}


def install() -> None:
    """Register every renderer with :mod:`deepnb.core.displayable`."""
    for cls, renderer in RENDERERS.items():
        register(cls, renderer)
