"""Saved notebooks reopen readable: Run All → Save → kernel shut down → reopen, in JupyterLab 4 and
Notebook 7, and every run view and file view shows its snapshot again (never "model not found",
never an empty output box).

A notebook executed by ``jupyter nbconvert --execute --to notebook`` reopens readable too.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.browser.conftest import APPROVALS, QUICKSTART
from tests.support.notebook_ui import (
    RUN_TIMEOUT,
    code_cell,
    collect_page_errors,
    dismiss_dialogs,
    expect,
    menu,
    open_notebook,
    run_all,
    run_all_cells,
    save_notebook,
    scroll_to,
    wait_for_notebook_run,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

# Cells of the approvals demo, added at its end: the file browser over the last thread, and a run
# left waiting for approval (nothing decides it).
APPROVALS_EXTRA = (
    "%deepagent files",
    "%%deepagent -m demo:approvals --interrupt-on write_file,edit_file --new -o waiting\n"
    "Plan our product launch.",
)

# For each notebook: (a piece of the cell's source, a text its view shows live and in its snapshot).
QUICKSTART_VIEWS = (
    ("%%deepagent -m demo:quickstart -o run", "Life in a tide pool"),
    ("%%deepagent --new -o second", "Life in a tide pool"),
)
APPROVALS_VIEWS = (
    ("-o run\n", "Announcement drafted."),
    ("--auto-approve", "Announcement drafted."),
    ("%deepagent files", "announce.md"),
    ("-o waiting", "/plan.md"),
)


def snapshot_cells(path: Path) -> list[str]:
    """The sources of the code cells of the saved notebook at ``path`` whose outputs hold a deepnb
    view's static snapshot (``text/html``)."""
    cells = [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]
    return [
        "".join(cell["source"])
        for cell in cells
        if any("deepnb-snapshot" in "".join(o.get("data", {}).get("text/html", "")) for o in cell["outputs"])
    ]


CELL_SOURCE = "(el) => el.closest('.jp-CodeCell')?.querySelector('.cm-content')?.textContent"
"""The source of the code cell an output element is under."""


def assert_readable(page: Any, views: tuple[tuple[str, str], ...], artifact: Any = None) -> None:
    """Every view shows its text; nothing says "model not found"; no output box is empty."""
    for index, (source, text) in enumerate(views):
        output = code_cell(page, source).locator(".jp-OutputArea-output").first
        expect(output).to_contain_text(text, timeout=RUN_TIMEOUT)
        if artifact is not None:
            output.screenshot(path=str(artifact(f"view-{index}.png")))
    expect(page.get_by_text("model not found")).to_have_count(0)
    expect(page.get_by_text("Error displaying widget")).to_have_count(0)
    # JupyterLab draws only the cells near the screen (content-visibility): each output is brought
    # into view, then given a moment to draw, before it counts as empty.
    outputs = page.locator(".jp-Notebook .jp-OutputArea-output")
    empty = []
    for index in range(outputs.count()):
        output = outputs.nth(index)
        output.scroll_into_view_if_needed()
        try:
            expect(output).to_contain_text(re.compile(r"\S"), timeout=5_000)
        except AssertionError:
            empty.append(output.evaluate(CELL_SOURCE))
            continue
        box = output.bounding_box()
        if box is None or box["height"] < 4:
            empty.append(output.evaluate(CELL_SOURCE))
    assert not empty, f"empty output boxes under cells: {empty}"


def assert_static_html(path: Path, views: tuple[tuple[str, str], ...]) -> None:
    """``jupyter nbconvert --to html`` (what GitHub and nbviewer run) shows every view's snapshot."""
    html = subprocess.run(
        [sys.executable, "-m", "jupyter", "nbconvert", "--to", "html", "--stdout", str(path)],
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    assert html.count('class="deepnb-snapshot') >= len(views), "a view's snapshot is missing"
    for _source, text in views:
        assert text in html, text


def run_save_reopen(
    page: Any, server: Any, name: str, views: tuple[tuple[str, str], ...], *, lab: bool, artifact: Any
) -> None:
    open_notebook(page, server, name, lab=lab)
    run_all(page)
    for source, text in views:
        expect(code_cell(page, source).locator(".jp-OutputArea-output").first).to_contain_text(
            text, timeout=RUN_TIMEOUT
        )
    wait_for_notebook_run(page)
    before = (server.root / name).stat().st_mtime_ns
    save_notebook(page)
    deadline = time.monotonic() + 15
    while (server.root / name).stat().st_mtime_ns == before:
        assert time.monotonic() < deadline, f"{name} was not saved"
        page.wait_for_timeout(200)
    page.wait_for_timeout(500)  # the contents API writes the file, then renames it
    saved = snapshot_cells(server.root / name)
    for source, _text in views:
        assert any(source in cell for cell in saved), f"no snapshot saved under {source!r}"
    shutil.copyfile(server.root / name, artifact("saved.ipynb"))
    assert_static_html(server.root / name, views)
    print(f"{name}: saved {(server.root / name).stat().st_size:,} bytes")
    server.shutdown_kernels()
    page.goto("about:blank")

    open_notebook(page, server, name, lab=lab)
    assert_readable(page, views, artifact)
    scroll_to(code_cell(page, views[0][0]))
    page.screenshot(path=str(artifact("reopened.png")))


@pytest.mark.parametrize("lab", [True, False], ids=["jupyterlab", "notebook7"])
def test_quickstart_reopens_readable(page: Any, jupyter_server: Any, artifact: Any, lab: bool) -> None:
    errors = collect_page_errors(page)
    name = jupyter_server.copy_notebook(QUICKSTART, f"reopen-quickstart-{'lab' if lab else 'nb7'}.ipynb")
    run_save_reopen(page, jupyter_server, name, QUICKSTART_VIEWS, lab=lab, artifact=artifact)
    assert not errors, "\n\n".join(errors)


@pytest.mark.parametrize("lab", [True, False], ids=["jupyterlab", "notebook7"])
def test_approvals_and_files_reopen_readable(
    page: Any, jupyter_server: Any, artifact: Any, lab: bool
) -> None:
    errors = collect_page_errors(page)
    name = jupyter_server.copy_notebook(
        APPROVALS, f"reopen-approvals-{'lab' if lab else 'nb7'}.ipynb", APPROVALS_EXTRA
    )
    run_save_reopen(page, jupyter_server, name, APPROVALS_VIEWS, lab=lab, artifact=artifact)
    assert not errors, "\n\n".join(errors)


def test_nbconvert_executed_notebook_reopens_readable(page: Any, jupyter_server: Any) -> None:
    """``jupyter nbconvert --execute --to notebook``, then the result opened in JupyterLab."""
    name = jupyter_server.copy_notebook(QUICKSTART, "reopen-nbconvert.ipynb")
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEEPNB_")}
    subprocess.run(
        [sys.executable, "-m", "jupyter", "nbconvert", "--execute", "--to", "notebook", "--inplace", name],
        cwd=jupyter_server.root,
        env=env,
        check=True,
        capture_output=True,
        timeout=240,
    )
    open_notebook(page, jupyter_server, name)
    assert_readable(page, QUICKSTART_VIEWS)


# -- a view knows when its kernel is gone ---------------------------------------------------------

SLOW_WORDS = 400  # streamed at 0.2 s a word: still running when the kernel goes


def kernel_gone_notebook(server: Any, name: str) -> None:
    script = server.root / "slow-reopen.yaml"
    story = " ".join(f"word{n}" for n in range(SLOW_WORDS))
    script.write_text(yaml.safe_dump({"delay": 0.2, "agents": {"main": [{"text": story}]}}))
    server.put_notebook(
        name,
        [
            "%load_ext deepnb",
            "%%deepagent -m demo:approvals --interrupt-on write_file,edit_file -o run\n"
            "Plan our product launch.",
            f"%%deepagent -m scripted:{script} --bg --new -o slow\nTell me a very long story.",
        ],
    )


@pytest.mark.parametrize(
    ("lab", "action"),
    [(True, "Restart Kernel…"), (True, "Shut Down Kernel"), (False, "Restart Kernel…")],
    ids=["jupyterlab-restart", "jupyterlab-shutdown", "notebook7-restart"],
)
def test_views_know_their_kernel_is_gone(
    page: Any, jupyter_server: Any, artifact: Any, lab: bool, action: str
) -> None:
    errors = collect_page_errors(page)
    sent: list[str] = []
    page.on("pageerror", lambda exc: sent.append(str(exc)) if "Cannot send" in str(exc) else None)
    name = f"kernel-gone-{'lab' if lab else 'nb7'}-{action[:4].lower()}.ipynb"
    kernel_gone_notebook(jupyter_server, name)
    open_notebook(page, jupyter_server, name, lab=lab)
    run_all_cells(page)

    waiting = code_cell(page, "-o run\n").locator(".deepnb-run")
    slow = code_cell(page, "-o slow").locator(".deepnb-run")
    expect(waiting).to_have_attribute("data-status", "interrupted", timeout=RUN_TIMEOUT)
    expect(slow).to_have_attribute("data-status", "running", timeout=RUN_TIMEOUT)
    approve = waiting.locator(".dnb-approval button[data-act='approve']").first
    expect(approve).to_be_enabled()
    expect(slow.locator(".dnb-stop")).to_be_visible()
    expect(waiting.locator(".dnb-stop")).to_be_visible()  # a run waiting for approval can be stopped
    thread = waiting.locator(".dnb-thread").inner_text().removeprefix("thread ").strip()

    menu(page, "Kernel", action)
    dismiss_dialogs(page)

    expect(waiting.locator(".dnb-pending-title")).to_have_text(
        f"kernel restarted — %deepagent approvals -t {thread} brings these back"
    )
    buttons = waiting.locator(".dnb-pending button")
    for index in range(buttons.count()):
        expect(buttons.nth(index)).to_be_disabled()
    expect(slow.locator(".dnb-stop")).to_be_hidden()
    expect(waiting.locator(".dnb-stop")).to_be_hidden()
    # What still reaches for the kernel (a tool card's file link, the subagent tree) sends nothing.
    waiting.evaluate("(el) => el.querySelectorAll('button').forEach((b) => b.click())")
    page.wait_for_timeout(500)
    scroll_to(waiting)
    page.screenshot(path=str(artifact("gone.png")))
    assert not sent, sent
    assert not errors, "\n\n".join(errors)
