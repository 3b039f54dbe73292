"""deepnb's Jupyter Server extension: every notebook saved through Jupyter Server is written with
each deepnb view as its static snapshot, whichever client saved it.

A view is a widget output whose model lives in the kernel; a reopened notebook has none, and
JupyterLab, Notebook 7 and VS Code prefer the widget to the ``text/html`` beside it, so they would
show "model not found". JupyterLab's own save is handled in the browser (the live notebook keeps
its views, the saved copy gets snapshots), but other writers never run that code: the
collaboration server saving the shared document, VS Code or a script writing through the contents
API. This hook runs where the file is written, for all of them: the saved copy of each deepnb view
output keeps its ``text/html`` and ``text/plain`` snapshot and drops the widget, and deepnb's
models leave the saved widget state. Other libraries' widgets are left as they are.

Enabled by ``jupyter_server_config.d/deepnb.json``, installed with the package.
"""

from __future__ import annotations

import logging
from collections.abc import MutableMapping
from typing import Any

from tornado.ioloop import IOLoop

from deepnb.server.shared_notebooks import follow_kernels
from deepnb.server.views import SNAPSHOT_MARK, WIDGET_STATE, WIDGET_VIEW, text_of

__all__ = ["SNAPSHOT_MARK", "WIDGET_STATE", "WIDGET_VIEW", "pre_save", "snapshots_only"]

log = logging.getLogger(__name__)


def _deepnb_model(state: Any) -> bool:
    """Whether a saved widget model is one of deepnb's: its anywidgets, and the ipywidgets
    layouts it marks with a ``deepnb-`` class (the comparison's columns)."""
    if not isinstance(state, MutableMapping):
        return False
    if str(state.get("_anywidget_id") or "").startswith("deepnb."):
        return True
    classes = state.get("_dom_classes")
    return isinstance(classes, list) and any(str(c).startswith("deepnb-") for c in classes)


def snapshots_only(notebook: MutableMapping[str, Any]) -> int:
    """Reduce each deepnb view output of ``notebook`` (nbformat 4 JSON, changed in place) to its
    snapshot, and drop deepnb's models from its saved widget state; return how many outputs
    changed. An output is a deepnb view when its widget's model is one of deepnb's in the saved
    state, or, without saved state, when its ``text/html`` is a deepnb snapshot."""
    widgets = notebook.get("metadata", {}).get("widgets")
    saved = widgets.get(WIDGET_STATE) if isinstance(widgets, MutableMapping) else None
    models = saved.get("state") if isinstance(saved, MutableMapping) else None
    models = models if isinstance(models, MutableMapping) else {}
    ours = {model_id for model_id, entry in models.items() if _deepnb_model((entry or {}).get("state"))}
    changed = 0
    for cell in notebook.get("cells") or []:
        for output in cell.get("outputs") or [] if isinstance(cell, MutableMapping) else []:
            data = output.get("data") if isinstance(output, MutableMapping) else None
            if not isinstance(data, MutableMapping) or WIDGET_VIEW not in data:
                continue
            view = data[WIDGET_VIEW]
            model_id = str(view.get("model_id") or "") if isinstance(view, MutableMapping) else ""
            html = text_of(data.get("text/html"))
            if not html or (model_id not in ours and (model_id in models or SNAPSHOT_MARK not in html)):
                continue
            del data[WIDGET_VIEW]
            changed += 1
    for model_id in ours:
        del models[model_id]
    return changed


def pre_save(model: MutableMapping[str, Any], **_kwargs: Any) -> None:
    """The contents manager's pre-save hook: notebooks are saved with deepnb's views as snapshots."""
    content = model.get("content")
    if model.get("type") != "notebook" or not isinstance(content, MutableMapping):
        return
    try:
        changed = snapshots_only(content)
    except Exception:  # a notebook deepnb cannot read is saved as it came
        log.warning("deepnb: could not save the notebook's views as snapshots", exc_info=True)
        return
    if changed:
        log.debug("deepnb: saved %d view(s) as snapshots in %s", changed, model.get("path"))


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "deepnb.server.extension"}]


def hook_contents(serverapp: Any) -> None:
    """Register :func:`pre_save` with the contents manager the server has now, once."""
    manager = serverapp.contents_manager
    if pre_save not in getattr(manager, "_pre_save_hooks", ()):
        manager.register_pre_save_hook(pre_save)


def _load_jupyter_server_extension(serverapp: Any) -> None:
    """Register :func:`pre_save` with the server's contents manager, and keep the collaboration
    server's shared notebooks (when it runs) in step with their kernels. An extension loaded
    after this one may replace the contents manager (jupytext makes one of its own): once the
    server runs, the hook goes on the one it kept, too."""
    hook_contents(serverapp)
    IOLoop.current().add_callback(hook_contents, serverapp)
    follow_kernels(serverapp)
    serverapp.log.info("deepnb: notebooks are saved with deepnb's views as their snapshots")
