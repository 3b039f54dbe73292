"""Screenshots of every view in JupyterLab 4, light and dark: the run view (todos, tool cards,
subagents, a summary card, the thread switcher), a run waiting on approval cards, the file browser
with a file open in the viewer, an agent's anatomy (``%deepagent inspect``) and a run's static
snapshot. Written to ``test-artifacts/screenshots/<view>-<theme>.png`` (git-ignored) for review;
the test checks that each view is there, that the theme is applied, and that each file is written.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import ARTIFACTS
from tests.support.notebook_ui import (
    RUN_TIMEOUT,
    code_cell,
    expect,
    menu,
    open_notebook,
    scroll_to,
    wait_for_notebook_run,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(420)]

SHOTS = ARTIFACTS.parent / "screenshots"
RESEARCH = "%%deepagent -m demo:research -o research"
GATED = "%%deepagent -a gated -m demo:approvals --interrupt-on write_file,edit_file -o gated"
CELLS = [
    "%load_ext deepnb",
    f"{RESEARCH}\nWrite a short report on how coral reefs recover after bleaching.",
    "%deepagent files",
    "%deepagent inspect",
    "from IPython.display import display\nfrom deepnb.views.run.snapshot import snapshot_bundle\n"
    "display(snapshot_bundle(research.state), raw=True)",
    f"{GATED}\nPlan our product launch.",
]


def set_theme(page: Any, theme: str) -> None:
    """Settings → Theme → ``theme``, then wait until the page has it."""
    page.locator(".lm-MenuBar-item", has_text=re.compile(r"^Settings$")).click()
    page.locator(
        ".lm-Menu .lm-Menu-item", has=page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Theme$"))
    ).hover()
    page.locator(
        ".lm-Menu .lm-Menu-item", has=page.locator(".lm-Menu-itemLabel", has_text=re.compile(rf"^{theme}$"))
    ).click()
    light = "true" if "Light" in theme else "false"
    expect(page.locator(f'body[data-jp-theme-light="{light}"]')).to_have_count(1, timeout=20_000)
    page.wait_for_timeout(500)  # the theme's stylesheet applied


def shoot(locator: Any, name: str) -> Path:
    scroll_to(locator)
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    locator.screenshot(path=str(path))
    assert path.stat().st_size > 2_000, path
    return path


def test_screenshots_of_every_view_in_both_themes(page: Any, jupyter_server: Any) -> None:
    page.set_viewport_size({"width": 1280, "height": 2600})  # each view whole in its screenshot
    jupyter_server.put_notebook("screens.ipynb", CELLS)
    open_notebook(page, jupyter_server, "screens.ipynb")
    menu(page, "Run", "Run All Cells")
    gated = code_cell(page, GATED).first.locator(".deepnb-run")
    expect(gated.locator(".dnb-approval").first).to_be_visible(timeout=RUN_TIMEOUT)
    wait_for_notebook_run(page)

    research = code_cell(page, RESEARCH).first.locator(".deepnb-run")
    expect(research.locator(".dnb-node").first).to_be_visible()
    expect(research.locator(".dnb-summary-head").first).to_be_visible()
    research.locator(".dnb-threads-toggle").click()
    expect(research.locator(".dnb-thread-pick").first).to_be_visible()
    files = code_cell(page, "%deepagent files").first.locator(".deepnb-files")
    file_row = files.locator('.dnb-fv-tree .dnb-fv-row[data-kind="file"]').first
    scroll_to(file_row)
    file_row.click()
    expect(files.locator(".dnb-fv-viewer")).to_have_attribute("data-state", "ready")
    anatomy = code_cell(page, "%deepagent inspect").first.locator(".jp-OutputArea-output").first
    snapshot = code_cell(page, "snapshot_bundle").first.locator(".deepnb-snapshot").first
    expect(anatomy).to_contain_text("Agent")
    expect(snapshot).to_be_visible()

    written = []
    for theme, label in (("JupyterLab Light", "light"), ("JupyterLab Dark", "dark")):
        set_theme(page, theme)
        written += [
            shoot(research, f"run-view-{label}"),
            shoot(gated, f"run-view-approvals-{label}"),
            shoot(files, f"file-browser-and-viewer-{label}"),
            shoot(anatomy, f"anatomy-{label}"),
            shoot(snapshot, f"static-snapshot-{label}"),
        ]
    set_theme(page, "JupyterLab Light")
    assert len({p.name for p in written}) == 10
