"""Real-time collaboration (jupyter-collaboration): the notebook is a shared document that the
collaboration server loads and saves itself, never the page's save.

- A notebook run in a collaborative session is saved by the collaboration server with deepnb's
  views as their snapshots and no deepnb widget state; reopened after its kernel shut down (while
  the server still holds the shared document, as it does for a minute after the last page left),
  it shows the snapshots, never "model not found".
- Two people (two browser contexts) on one notebook that was not trusted when they opened it: the
  one who runs it and the one who watches (in JupyterLab or Notebook 7) both see the live run view
  with its approval cards, and the watcher's approval is the one the run takes.

This module's JupyterLab has collaboration on; every other browser test runs without it
(tests/support/collaboration.py).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from deepnb.server.views import SNAPSHOT_MARK, WIDGET_STATE, WIDGET_VIEW
from tests.browser.conftest import APPROVALS, QUICKSTART, JupyterServer, running_server
from tests.browser.test_approvals_browser import approval_card, undecided
from tests.browser.test_reopen_browser import QUICKSTART_VIEWS, assert_readable
from tests.support import collaboration
from tests.support.notebook_ui import (
    RUN_TIMEOUT,
    code_cell,
    collect_page_errors,
    expect,
    open_notebook,
    output_text,
    run_all,
    save_notebook,
    scroll_to,
    wait_for_cell,
    wait_for_notebook_run,
)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.timeout(180),
    pytest.mark.skipif(not collaboration.installed(), reason="jupyter-collaboration is not installed"),
]

SAVE_TIMEOUT = 20  # s: the collaboration server saves a second after the document goes quiet
WIDGET_SETTINGS = "/lab/api/settings/@jupyter-widgets/jupyterlab-manager:plugin"
"""JupyterLab's user setting for writing the widgets' state into a notebook when it is saved."""


@pytest.fixture(scope="module")
def jupyter_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    """This module's JupyterLab has real-time collaboration on."""
    with running_server(tmp_path_factory, collaborative=True) as server:
        yield server


@pytest.fixture
def widget_state_saved(jupyter_server: JupyterServer) -> Iterator[None]:
    """JupyterLab writes the widgets' state into the notebook on Save (off by default)."""
    jupyter_server.api("PUT", WIDGET_SETTINGS, {"raw": json.dumps({"saveState": True})})
    try:
        yield
    finally:
        jupyter_server.api("PUT", WIDGET_SETTINGS, {"raw": "{}"})


def saved_views(server: JupyterServer, name: str, texts: list[str]) -> dict[str, Any]:
    """The notebook file once the collaboration server has saved it with every one of ``texts``."""
    deadline = time.monotonic() + SAVE_TIMEOUT
    while True:
        try:
            on_disk = json.loads((server.root / name).read_text())
        except (OSError, ValueError):  # read while the server was writing it
            on_disk = {}
        if on_disk and all(text in json.dumps(on_disk) for text in texts):
            return on_disk
        assert time.monotonic() < deadline, f"the collaboration server did not save {texts} in {name}"
        time.sleep(0.3)


def assert_snapshots_only(on_disk: dict[str, Any], views: int) -> dict[str, Any]:
    """Each of the ``views`` deepnb views is its snapshot (text/html and text/plain, no widget), and
    no deepnb model is in the saved widget state; returns that state."""
    outputs = [o for cell in on_disk["cells"] for o in cell.get("outputs", []) if "data" in o]
    snapshots = [o["data"] for o in outputs if SNAPSHOT_MARK in "".join(o["data"].get("text/html", ""))]
    assert len(snapshots) == views
    assert all("text/plain" in data and WIDGET_VIEW not in data for data in snapshots), [
        list(d) for d in snapshots
    ]
    state = on_disk["metadata"].get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    assert not [
        m for m in state.values() if str(m.get("state", {}).get("_anywidget_id", "")).startswith("deepnb.")
    ]
    return state


def test_the_collaboration_server_saves_snapshots_that_reopen_readable(
    page: Any, jupyter_server: Any, artifact: Any, widget_state_saved: None
) -> None:
    errors = collect_page_errors(page)
    name = jupyter_server.copy_notebook(QUICKSTART, "shared-quickstart.ipynb")
    open_notebook(page, jupyter_server, name)
    assert collaboration.in_page(page)
    run_all(page)
    for source, text in QUICKSTART_VIEWS:
        expect(code_cell(page, source).locator(".deepnb-run")).to_contain_text(text, timeout=RUN_TIMEOUT)
    wait_for_notebook_run(page)

    # Nobody presses Save: the collaboration server writes the shared document a second after it
    # goes quiet, through the contents manager, and deepnb's hook writes the views as snapshots.
    on_disk = saved_views(jupyter_server, name, [text for _source, text in QUICKSTART_VIEWS])
    assert_snapshots_only(on_disk, len(QUICKSTART_VIEWS))
    # Save asks the collaboration server to save (the page sends no content), with the widget
    # state JupyterLab's widget manager writes into the shared notebook's metadata first.
    before = (jupyter_server.root / name).stat().st_mtime_ns
    save_notebook(page)
    deadline = time.monotonic() + SAVE_TIMEOUT
    while (jupyter_server.root / name).stat().st_mtime_ns == before:
        assert time.monotonic() < deadline, f"{name} was not saved"
        time.sleep(0.2)
    time.sleep(0.5)
    state = assert_snapshots_only(saved_views(jupyter_server, name, []), len(QUICKSTART_VIEWS))
    assert state, "the page wrote no widget state into the shared notebook"

    # The page leaves and the kernel shuts down; the server still holds the shared notebook when
    # it is opened again, and that is what the page gets.
    page.goto("about:blank")
    jupyter_server.shutdown_kernels()
    open_notebook(page, jupyter_server, name)
    assert_readable(page, QUICKSTART_VIEWS, artifact)
    expect(page.locator(".deepnb-run")).to_have_count(0)  # no live view: its model went with the kernel
    assert_snapshots_only(saved_views(jupyter_server, name, []), len(QUICKSTART_VIEWS))
    scroll_to(code_cell(page, QUICKSTART_VIEWS[0][0]))
    page.screenshot(path=str(artifact("reopened.png")))
    assert not errors, "\n\n".join(errors)


def untrusted_approvals(server: JupyterServer, name: str) -> str:
    """The approvals demo's first cells, with their saved outputs and no signature: a notebook that
    is not trusted when it is opened (like a notebook from a colleague or a repository)."""
    notebook = json.loads(APPROVALS.read_text())
    notebook["cells"] = [cell for cell in notebook["cells"] if cell["cell_type"] == "code"][:2]
    (server.root / name).write_text(json.dumps(notebook))
    return name


@pytest.mark.parametrize("watcher_lab", [True, False], ids=["jupyterlab", "notebook7"])
def test_two_pages_see_the_live_run_and_either_can_approve(
    page: Any, second_page: Any, jupyter_server: Any, artifact: Any, watcher_lab: bool
) -> None:
    errors, second_errors = collect_page_errors(page), collect_page_errors(second_page)
    name = untrusted_approvals(jupyter_server, f"shared-approvals-{'lab' if watcher_lab else 'nb7'}.ipynb")
    open_notebook(page, jupyter_server, name)
    # The watcher is there before the run starts, in JupyterLab or in Notebook 7.
    open_notebook(second_page, jupyter_server, name, lab=watcher_lab)
    run_all(page)

    views = [code_cell(p, "%%deepagent").locator(".deepnb-run") for p in (page, second_page)]
    for view in views:  # both draw the live view, styled, with the run's card
        expect(view).to_have_attribute("data-status", "interrupted", timeout=RUN_TIMEOUT)
        card = approval_card(view, "write_file")
        expect(card).to_have_count(1)
        expect(card.locator("button.dnb-approve")).to_be_visible()
        expect(card).to_have_css("border-left-style", "solid")  # drawn with the view's stylesheet
    wait_for_cell(code_cell(page, "%%deepagent"))
    scroll_to(views[1])
    second_page.screenshot(path=str(artifact("second-page-card.png")))

    # The watcher approves; the run takes it and stops again at the two subagents' cards.
    approval_card(views[1], "write_file").locator("button.dnb-approve").click()
    for view in views:
        expect(undecided(view)).to_have_count(2, timeout=30_000)
        expect(approval_card(view, "write_file", "/announce.md")).to_have_count(1)
        expect(view.locator(".dnb-transcript")).to_contain_text("Updated file /plan.md")
    scroll_to(views[0])
    page.screenshot(path=str(artifact("first-page-after.png")))
    assert "Error displaying widget" not in output_text(code_cell(second_page, "%%deepagent"))
    assert not errors, "\n\n".join(errors)
    assert not second_errors, "\n\n".join(second_errors)
