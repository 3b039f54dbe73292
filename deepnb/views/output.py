"""A live view in a notebook output, with its static form beside it: the one place where a
widget's mime bundle and the ``text/plain`` / ``text/html`` for places where widgets don't run
(GitHub, nbviewer, nbconvert, a notebook opened without a kernel) are merged."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import anywidget

from deepnb.core import events as ev
from deepnb.core.graphs.structured import output_rows
from deepnb.views.run.graph_tab import graph_section
from deepnb.views.run.run_view import RunView
from deepnb.views.run.snapshot import snapshot_bundle
from deepnb.views.run.turns import turns_bundle
from deepnb.views.starting import Starting, place

if TYPE_CHECKING:
    from deepnb.session.run import Run  # at run time the views only read a run they are given

_ENDS = (ev.RunFinished, ev.RunFailed, ev.RunCancelled, ev.RunPaused)


def with_static(widget: Mapping[str, Any], static: Mapping[str, str]) -> dict[str, Any]:
    """A widget's mime bundle whose ``text/plain`` and ``text/html`` are ``static``'s: the live
    view where widgets run, the static form everywhere else."""
    return {**static, **{mime: data for mime, data in widget.items() if mime not in static}}


def widget_bundle(widget: anywidget.AnyWidget, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The widget's own mime bundle and metadata (the live view alone)."""
    bundle = anywidget.AnyWidget._repr_mimebundle_(widget, **kwargs)
    return bundle if isinstance(bundle, tuple) else (bundle or {}, {})


def run_snapshot(run: Run) -> dict[str, str]:
    """A run's static snapshot now: its state, its timeline and its structured output."""
    return snapshot_bundle(run.snapshot().state, run.timeline, output=output_rows(run.output))


def view_snapshot(view: RunView) -> dict[str, str]:
    """A run view's static snapshot now: every turn it shows (the follow-ups its box sent too),
    and, once its Graph tab drew the agent's graph, that drawing with the latest run's path."""
    bundle = turns_bundle([run_snapshot(run) for run in view.runs], view.follow_up_cell)
    if view.graph_scene is None:
        return bundle
    html, text = graph_section(view.graph_scene, view.run.graph_path)
    return {
        **bundle,
        "text/html": bundle["text/html"] + "\n" + html,
        "text/plain": bundle["text/plain"] + "\n" + text,
    }


def run_bundle(run: Run, *, live_controls: bool = True) -> dict[str, Any]:
    """A run displayed: its live view (approval cards included) over a snapshot of its state now."""
    widget, _ = widget_bundle(RunView(run, live_controls=live_controls))
    return with_static(widget, run_snapshot(run))


def show_opening(agent: str, prompt: str, *, live_controls: bool = True, into: Starting) -> RunView:
    """Display the live view of a run about to start (``agent`` on ``prompt``) in ``into``'s
    output, before the run exists; :func:`show_run` then streams the run in it."""
    view = RunView.opening(agent, prompt, live_controls=live_controls)
    widget_data, _ = widget_bundle(view)
    place(with_static(widget_data, view_snapshot(view)), into)
    return view


def show_run(
    run: Run, *, live_controls: bool = True, into: Starting | None = None, opened: RunView | None = None
) -> Any:
    """Display ``run``'s live view (in ``into``'s output, the cell's placeholder, if given), or
    stream it in ``opened``, the view :func:`show_opening` put there. When the run stops, the
    same output also gets ``text/html`` and ``text/plain`` snapshots of the final state, for
    places where widgets don't run; a follow-up sent from the view's box adds its turn to them."""
    if opened is not None:
        opened.attach(run)
    view = opened or RunView(run, live_controls=live_controls)
    widget_data, _ = widget_bundle(view)

    def bundle() -> dict[str, Any]:
        return with_static(widget_data, view_snapshot(view))

    handle = place(bundle(), into)

    def update() -> None:
        handle.update(bundle(), raw=True)

    def on_event(event: ev.Event) -> None:
        if isinstance(event, _ENDS):
            update()

    def watch(turn: Run) -> None:
        turn.subscribe(on_event)
        turn.when_ended(update)  # with the steps the run wrote
        if turn.done:
            update()

    def on_turn(later: Run) -> None:
        update()
        watch(later)

    watch(run)
    view.on_turn(on_turn)
    view.on_graph(update)  # the drawing the Graph tab made is kept in the saved notebook
    return view
