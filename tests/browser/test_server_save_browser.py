"""A notebook saved by a client other than JupyterLab's page (a script, VS Code, the collaboration
server: anything that writes through Jupyter Server's contents API) is written with deepnb's views
as their snapshots, by deepnb's Jupyter Server extension, and reopens readable in JupyterLab.

The notebook is executed in a kernel of its own (nbclient, as nbconvert and VS Code run one), so
its outputs hold live widget views and its metadata the widgets' saved state, then written with a
plain HTTP ``PUT /api/contents``; another library's widget in it is left as it was."""

from __future__ import annotations

import json
import os
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

from deepnb.server.extension import SNAPSHOT_MARK, WIDGET_STATE, WIDGET_VIEW
from tests.browser.conftest import QUICKSTART
from tests.browser.test_reopen_browser import QUICKSTART_VIEWS, assert_readable
from tests.support import collaboration
from tests.support.notebook_ui import open_notebook

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

SLIDER = "import ipywidgets\nipywidgets.IntSlider(value=7, description='kept')"


def executed_quickstart(server: Any, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The quickstart with a slider cell added, executed by nbclient in the server's root."""
    for name in [n for n in os.environ if n.startswith("DEEPNB_")]:
        monkeypatch.delenv(name)
    name = server.copy_notebook(QUICKSTART, "executed-elsewhere.ipynb", [SLIDER])
    notebook = nbformat.read(server.root / name, as_version=4)
    NotebookClient(notebook, timeout=240, resources={"metadata": {"path": str(server.root)}}).execute()
    return json.loads(nbformat.writes(notebook))


def widget_outputs(notebook: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        output["data"]
        for cell in notebook["cells"]
        for output in cell.get("outputs", [])
        if WIDGET_VIEW in output.get("data", {})
    ]


def test_a_notebook_saved_through_the_contents_api_keeps_deepnbs_views_as_snapshots(
    page: Any, jupyter_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    notebook = executed_quickstart(jupyter_server, monkeypatch)
    before = widget_outputs(notebook)
    ours = [data for data in before if SNAPSHOT_MARK in "".join(data.get("text/html", ""))]
    assert len(ours) >= 2 and len(before) > len(ours)  # the run views, and the slider
    saved_state = notebook["metadata"]["widgets"][WIDGET_STATE]["state"]
    assert any(str(m["state"].get("_anywidget_id", "")).startswith("deepnb.") for m in saved_state.values())

    name = "saved-elsewhere.ipynb"
    jupyter_server.api(
        "PUT", jupyter_server.contents(name), {"type": "notebook", "format": "json", "content": notebook}
    )

    on_disk = json.loads((jupyter_server.root / name).read_text())
    left = widget_outputs(on_disk)
    assert len(left) == 1 and "kept" in json.dumps(on_disk["metadata"]["widgets"])  # the slider, as it was
    assert SNAPSHOT_MARK not in "".join(left[0].get("text/html", ""))
    state = on_disk["metadata"]["widgets"][WIDGET_STATE]["state"]
    assert not any(str(m["state"].get("_anywidget_id", "")).startswith("deepnb.") for m in state.values())
    snapshots = [
        output["data"]
        for cell in on_disk["cells"]
        for output in cell.get("outputs", [])
        if SNAPSHOT_MARK in "".join(output.get("data", {}).get("text/html", ""))
    ]
    assert len(snapshots) == len(ours) and all("text/plain" in data for data in snapshots)

    open_notebook(page, jupyter_server, name)
    assert not collaboration.in_page(page)  # the browser tests' JupyterLab has it off by default
    assert_readable(page, QUICKSTART_VIEWS)
