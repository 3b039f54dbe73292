"""The compare view in JupyterLab: ``%%deepagent --compare`` with two scripted models that answer
differently shows two columns, each a live run view with its own answer, over the table."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.notebook_ui import (
    RUN_TIMEOUT,
    code_cell,
    expect,
    open_notebook,
    run_all,
    save_notebook,
    saved_output,
    wait_for_notebook_run,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

CELLS = [
    "from pathlib import Path\n"
    "for name, answer in (('a', 'Paris, says model A.'), ('b', 'Lyon, says model B.')):\n"
    "    script = f\"agents:\\n  main:\\n    - turns: [{{text: '{answer}'}}]\\n\"\n"
    "    Path(f'cmp_{name}.yaml').write_text(script)\n"
    "%load_ext deepnb",
    "%%deepagent --compare scripted:cmp_a.yaml,scripted:cmp_b.yaml\nWhat is the capital of France?",
]


def test_the_compare_view_shows_two_columns_and_the_table(page: Any, jupyter_server: Any) -> None:
    name = "compare.ipynb"
    jupyter_server.put_notebook(name, CELLS)
    open_notebook(page, jupyter_server, name)
    run_all(page)

    cell = code_cell(page, "%%deepagent --compare")
    compare = cell.locator(".deepnb-compare")
    expect(compare).to_have_count(1, timeout=RUN_TIMEOUT)
    views = compare.locator(".deepnb-run")
    expect(views).to_have_count(2)
    for index, (model, answer) in enumerate(
        (("scripted:cmp_a.yaml", "Paris, says model A."), ("scripted:cmp_b.yaml", "Lyon, says model B."))
    ):
        expect(views.nth(index)).to_have_attribute("data-status", "done", timeout=RUN_TIMEOUT)
        expect(views.nth(index).locator(".dnb-final-answer")).to_contain_text(answer)
        expect(compare.locator(".dnb-compare-head").nth(index)).to_have_text(model)
    # Side by side: the second column starts to the right of the first.
    first, second = views.nth(0).bounding_box(), views.nth(1).bounding_box()
    assert first and second and second["x"] >= first["x"] + first["width"] - 1, (first, second)

    rows = compare.locator(".deepnb-compare-table tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.nth(0)).to_contain_text("Paris, says model A.")
    expect(rows.nth(1)).to_contain_text("Lyon, says model B.")
    expect(rows.nth(0)).to_contain_text("done")
    wait_for_notebook_run(page)

    save_notebook(page)
    saved = saved_output(jupyter_server, name, 1, page=page)
    assert "application/vnd.jupyter.widget-view+json" not in saved, "saved as its snapshot: no widget to miss"
    html = saved["text/html"]
    assert html.count('class="dnb-compare-column"') == 2
    assert "Paris, says model A." in html and "Lyon, says model B." in html
    assert "deepnb-compare-table" in html
