"""Highlighted code follows the notebook's theme (JupyterLab 4, dark): an interpreter ``eval``
card's code and a Python file in the file viewer take their background and token colours from
JupyterLab's editor variables, not Pygments' light default (a white block with pale colours)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.notebook_ui import (
    RUN_TIMEOUT,
    code_cell,
    expect,
    luminance,
    open_notebook,
    run_all_cells,
    scroll_to,
    wait_for_notebook_run,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

pytest.importorskip("langchain_quickjs", reason="the interpreter extra: pip install 'deepnb[interpreter]'")

PYTHON = "def tide(height):\\n    # metres above chart datum\\n    return 'high' if height > 4.2 else None\\n"
CELLS = [
    "%load_ext deepnb",
    "%%deepagent -m demo:interpreter --ptc write_file -o run\nWhich station has the widest tidal range?",
    f'run.files.write("/tide.py", "{PYTHON}")',
    "%deepagent files",
]

# The colours a code block shows, and the ones the theme's variables resolve to in the same place.
COLOURS = """(block) => {
  const probe = document.createElement("span");
  probe.style.backgroundColor = "var(--jp-cell-editor-background)";
  probe.style.color = "var(--jp-mirror-editor-keyword-color)";
  block.appendChild(probe);
  const theme = getComputedStyle(probe);
  const keyword = block.querySelector(".k, .kd, .kr, .kn");
  const shown = {
    background: getComputedStyle(block).backgroundColor,
    text: getComputedStyle(block).color,
    keyword: keyword ? getComputedStyle(keyword).color : null,
    themeBackground: theme.backgroundColor,
    themeKeyword: theme.color,
  };
  probe.remove();
  return shown;
}"""


def check_follows_dark_theme(block: Any, where: str) -> None:
    shown = block.evaluate(COLOURS)
    assert shown["background"] == shown["themeBackground"], (where, shown)
    assert luminance(shown["background"]) < 0.3, (where, shown)  # dark, not Pygments' #f8f8f8
    assert luminance(shown["text"]) > 0.6, (where, shown)  # light text on it
    assert shown["keyword"] == shown["themeKeyword"], (where, shown)


def test_highlighted_code_follows_the_dark_theme(
    page: Any, jupyter_server: Any, dark: None, artifact: Any
) -> None:
    jupyter_server.put_notebook("themes.ipynb", CELLS)
    open_notebook(page, jupyter_server, "themes.ipynb")
    assert page.evaluate("document.body.dataset.jpThemeLight") == "false"
    run_all_cells(page)
    files = code_cell(page, "%deepagent files").first.locator(".deepnb-files")
    expect(files).to_be_visible(timeout=RUN_TIMEOUT)
    wait_for_notebook_run(page)

    run = code_cell(page, "%%deepagent").first.locator(".deepnb-run")
    card = run.locator(".dnb-eval-card").first
    scroll_to(card)
    code = card.locator(".dnb-eval-code pre.dnb-code")
    expect(code).to_be_visible()
    check_follows_dark_theme(code, "eval card")
    card.screenshot(path=str(artifact("eval-card-dark.png")))

    scroll_to(files)
    files.locator('.dnb-fv-tree .dnb-fv-row[data-path="/tide.py"]').click()
    viewer = files.locator(".dnb-fv-viewer")
    expect(viewer).to_have_attribute("data-state", "ready")
    source = viewer.locator(".dnb-fv-content pre.dnb-code")
    expect(source).to_be_visible()
    check_follows_dark_theme(source, "file viewer")
    files.screenshot(path=str(artifact("file-viewer-dark.png")))
