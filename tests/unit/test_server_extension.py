"""deepnb's Jupyter Server extension: the pre-save hook keeps deepnb's views as snapshots in every
notebook saved through Jupyter Server, and leaves everything else as it came."""

from __future__ import annotations

import copy
from types import SimpleNamespace
from typing import Any

from jupyter_server.services.contents.filemanager import FileContentsManager

from deepnb.server.extension import WIDGET_STATE, WIDGET_VIEW, hook_contents, pre_save, snapshots_only

SNAPSHOT = '<div class="deepnb-snapshot"><b>done</b></div>'


def output(model_id: str, html: str | None = SNAPSHOT) -> dict[str, Any]:
    data: dict[str, Any] = {"text/plain": "view", WIDGET_VIEW: {"model_id": model_id, "version_major": 2}}
    if html is not None:
        data["text/html"] = [html]
    return {"output_type": "display_data", "data": data, "metadata": {}}


def notebook(outputs: list[dict[str, Any]], state: dict[str, Any] | None = None) -> dict[str, Any]:
    metadata: dict[str, Any] = {}
    if state is not None:
        metadata["widgets"] = {WIDGET_STATE: {"state": state, "version_major": 2, "version_minor": 0}}
    return {"cells": [{"cell_type": "code", "outputs": outputs, "source": ""}], "metadata": metadata}


def kept(nb: dict[str, Any]) -> list[bool]:
    return [WIDGET_VIEW in o["data"] for o in nb["cells"][0]["outputs"]]


def test_views_named_by_the_saved_state_lose_their_widget_and_their_state() -> None:
    state = {
        "run": {"state": {"_anywidget_id": "deepnb.views.run.run_view.RunView"}},
        "columns": {"state": {"_dom_classes": ["deepnb-compare"]}},
        "slider": {"state": {"_model_name": "IntSliderModel"}},
    }
    nb = notebook([output("run"), output("columns"), output("slider", "<b>a slider</b>")], state)
    assert snapshots_only(nb) == 2
    assert kept(nb) == [False, False, True]
    assert nb["cells"][0]["outputs"][0]["data"]["text/html"] == [SNAPSHOT]
    assert set(nb["metadata"]["widgets"][WIDGET_STATE]["state"]) == {"slider"}


def test_without_saved_state_a_deepnb_snapshot_tells_the_view() -> None:
    nb = notebook([output("gone"), output("other", "<b>not ours</b>"), output("bare", None)])
    assert snapshots_only(nb) == 1
    assert kept(nb) == [False, True, True]


def test_a_foreign_widget_whose_model_is_saved_stays_even_beside_a_snapshot_mark() -> None:
    nb = notebook([output("slider")], {"slider": {"state": {"_model_name": "IntSliderModel"}}})
    assert snapshots_only(nb) == 0 and kept(nb) == [True]


def test_the_hook_changes_notebooks_only_and_never_fails_a_save() -> None:
    model = {"type": "notebook", "path": "a.ipynb", "content": notebook([output("gone")])}
    pre_save(model)
    assert kept(model["content"]) == [False]
    text = {"type": "file", "path": "a.txt", "content": "x"}
    before = copy.deepcopy(text)
    pre_save(text)
    assert text == before
    odd = {"type": "notebook", "content": {"cells": [{"outputs": [{"data": ["not", "a", "dict"]}]}]}}
    pre_save(odd)  # saved as it came
    broken = {"type": "notebook", "content": {"cells": "nope", "metadata": {"widgets": 3}}}
    pre_save(broken)


def test_the_hook_follows_a_contents_manager_another_extension_puts_in_its_place() -> None:
    """jupytext's server extension, loaded after deepnb's, makes a contents manager of its own:
    deepnb's hook goes on that one too (once the server runs), and never twice on one."""
    app = SimpleNamespace(contents_manager=FileContentsManager())
    hook_contents(app)
    hook_contents(app)
    assert app.contents_manager._pre_save_hooks.count(pre_save) == 1
    app.contents_manager = FileContentsManager()  # what jupytext does while it loads
    hook_contents(app)
    assert app.contents_manager._pre_save_hooks == [pre_save]
