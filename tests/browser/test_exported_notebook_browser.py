"""An exported thread keeps its run's view through Run All: the view is a Markdown cell, so running
the notebook (and the autosave after it) has no output to clear, in JupyterLab and Notebook 7."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import expect

import deepnb
from tests.support.notebook_ui import (
    collect_page_errors,
    menu,
    no_pwned,
    open_notebook,
    run_all_cells,
    save_notebook,
)
from tests.unit.conftest import unique

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

PROMPT = "Write me a short brief on life in tide pools. Keep notes in a file as you go."


def exported(server: Any, name: str) -> str:
    """A finished demo run's thread, exported into the server's root as ``name``."""
    bench = deepnb.agent(name=unique("exported"), model="demo:quickstart")
    assert bench.start(PROMPT).wait(60).status == "done"
    deepnb.export(server.root / name, agent=bench.name)
    return name


def view_cells(server: Any, name: str) -> list[str]:
    notebook = json.loads((server.root / name).read_text(encoding="utf-8"))
    return [
        "".join(cell["source"])
        for cell in notebook["cells"]
        if cell.get("metadata", {}).get("deepnb", {}).get("view") == "run"
    ]


@pytest.mark.parametrize("lab", [True, False], ids=["jupyterlab", "notebook7"])
def test_an_exported_run_view_survives_run_all_and_the_save_after_it(
    page: Any, jupyter_server: Any, lab: bool, artifact: Any
) -> None:
    errors = collect_page_errors(page)
    name = exported(jupyter_server, f"exported-{'lab' if lab else 'nb7'}.ipynb")
    before = view_cells(jupyter_server, name)
    open_notebook(page, jupyter_server, name, lab=lab)
    # the exported view, in its Markdown cell (its code cells, run, show a run view of their own)
    exported_view = ".jp-Notebook .jp-MarkdownCell .deepnb-snapshot"
    view = page.locator(exported_view)
    expect(view).to_have_count(1)
    expect(view).to_contain_text("tide pools")
    expect(view.locator("details, .dnb-tool").first).to_be_attached()
    page.screenshot(path=str(artifact("opened.png")))

    menu(page, "Edit", "Clear Outputs of All Cells")
    run_all_cells(page)
    page.wait_for_timeout(1_500)  # Markdown cells render as they are run: nothing to wait for
    expect(view).to_have_count(1)
    expect(view).to_contain_text("tide pools")
    save_notebook(page)
    page.wait_for_timeout(1_500)
    assert len(before) == 1 and view_cells(jupyter_server, name) == before  # kept as it was
    page.reload()
    expect(page.locator(exported_view)).to_have_count(1, timeout=60_000)
    no_pwned(page)
    assert not errors, errors
