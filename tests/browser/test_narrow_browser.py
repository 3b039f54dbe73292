"""A run view in a narrow output (about 600 px wide, a notebook beside another panel): its badges,
chips and links never overlap what is beside them, and file names stay readable, live and as the
static tables of a listing show them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.notebook_ui import (
    RUN_TIMEOUT,
    code_cell,
    collect_page_errors,
    expect,
    open_notebook,
    run_all,
    wait_for_notebook_run,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

NARROW = {"width": 720, "height": 1300}
"""A viewport whose notebook output area is about 600 px wide (JupyterLab, file browser folded)."""

OVERLAPS = """(root) => {
    const boxes = (selector) => [...root.querySelectorAll(selector)]
        .filter((el) => el.getClientRects().length)
        .map((el) => ({el, box: el.getBoundingClientRect()}));
    const overlap = (a, b) => a.left < b.right - 1 && b.left < a.right - 1
        && a.top < b.bottom - 1 && b.top < a.bottom - 1;
    const found = [];
    // Inline things set side by side in one line: none may cover another.
    for (const row of root.querySelectorAll('.dnb-progress, .dnb-tool-head, .dnb-head, summary')) {
        const parts = [...row.children].filter((el) => el.getClientRects().length);
        for (let i = 0; i < parts.length; i++) for (let j = i + 1; j < parts.length; j++) {
            const a = parts[i].getBoundingClientRect(), b = parts[j].getBoundingClientRect();
            if (overlap(a, b)) found.push(`${parts[i].className} / ${parts[j].className}`);
        }
    }
    // Nothing reaches past the notebook cell's right edge (or the window's).
    const edge = Math.min(window.innerWidth, root.closest('.jp-Cell').getBoundingClientRect().right);
    for (const {el, box} of boxes('.dnb-badge, .dnb-pill, .dnb-file, .dnb-step-fork, button, textarea')) {
        if (box.right > edge + 1) found.push(`${el.className} past the edge: ${box.right - edge}`);
    }
    return found;
}"""

CLIPPED = """(root) => [...root.querySelectorAll('.dnb-files .dnb-file')]
    .filter((el) => el.getClientRects().length && el.scrollWidth > el.clientWidth + 1 && !el.title)
    .map((el) => el.textContent)"""


@pytest.fixture
def narrow(browser: Any, jupyter_server: Any) -> Iterator[Any]:
    """A page in a narrow window; its kernels are shut down afterwards."""
    context = browser.new_context(viewport=NARROW)
    try:
        yield context.new_page()
    finally:
        context.close()
        jupyter_server.shutdown_kernels()


def test_a_run_view_in_a_narrow_output_keeps_its_parts_apart(
    narrow: Any, jupyter_server: Any, artifact: Any
) -> None:
    page = narrow
    errors = collect_page_errors(page)
    name = jupyter_server.copy_quickstart("narrow.ipynb")
    open_notebook(page, jupyter_server, name)
    run_all(page)
    view = code_cell(page, "%%deepagent -m demo:quickstart").locator(".deepnb-run")
    expect(view).to_have_attribute("data-status", "done", timeout=RUN_TIMEOUT)
    wait_for_notebook_run(page)
    width = view.evaluate("(el) => el.getBoundingClientRect().width")
    assert 520 <= width <= 660, width  # as wide as the notebook lets it be, not wider
    page.screenshot(path=str(artifact("narrow.png")), full_page=True)
    assert view.evaluate(OVERLAPS) == []
    assert view.evaluate(CLIPPED) == []
    assert not errors, errors


BATCH = """bench = deepnb.agent("narrow", model="demo:quickstart")
batch = bench.map(["Write me a short brief on life in tide pools, with every creature you can name " * 3,
                   "Write me a short brief on life in tide pools."]).wait(60)
batch"""


def test_a_batch_grid_in_a_narrow_output_scrolls_inside_its_own_box(
    narrow: Any, jupyter_server: Any, artifact: Any
) -> None:
    page = narrow
    errors = collect_page_errors(page)
    jupyter_server.put_notebook("narrow-batch.ipynb", ["import deepnb", BATCH])
    open_notebook(page, jupyter_server, "narrow-batch.ipynb")
    run_all(page)
    wait_for_notebook_run(page)
    grid = code_cell(page, "bench.map").locator(".deepnb-batch")
    expect(grid.locator("tbody tr")).to_have_count(2, timeout=RUN_TIMEOUT)
    width = grid.evaluate("(el) => el.getBoundingClientRect().width")
    assert 520 <= width <= 660, width
    page.screenshot(path=str(artifact("narrow-batch.png")), full_page=True)
    assert grid.evaluate(OVERLAPS) == []
    assert not errors, errors
