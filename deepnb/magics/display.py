"""Show a run in the notebook: the live view now, a static snapshot in the output once it ends."""

from __future__ import annotations

from typing import Any

from deepnb import events as ev
from deepnb.run import Run

_ENDS = (ev.RunFinished, ev.RunFailed, ev.RunCancelled, ev.RunPaused)


def show_run(run: Run, *, live_controls: bool = True) -> Any:
    """Display ``run``'s live view. When the run stops, the same output also gets ``text/html``
    and ``text/plain`` snapshots of the final state, for places where widgets don't run."""
    from IPython.display import display

    from deepnb.views.run_view import RunView
    from deepnb.views.snapshot import snapshot_bundle

    view = RunView(run, live_controls=live_controls)
    shown = view._repr_mimebundle_()
    assert shown is not None  # anywidget has no bundle only for a widget without a front-end
    widget_data, _ = shown

    def bundle() -> dict[str, Any]:
        return {
            **snapshot_bundle(run.state),
            **{k: v for k, v in widget_data.items() if k != "text/plain"},
        }

    handle = display(bundle(), raw=True, display_id=True)

    def on_event(event: ev.Event) -> None:
        if isinstance(event, _ENDS):
            handle.update(bundle(), raw=True)

    run.subscribe(on_event)
    if run.done:
        handle.update(bundle(), raw=True)
    return view
