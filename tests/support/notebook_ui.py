"""Driving JupyterLab (and Notebook 7) the way a person does, for the browser tests: open a notebook,
run cells from the menus, find a cell by its source and the run view in its output.

Shared by every browser test module.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from typing import Any

import nbformat
import pytest

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect
expect.set_options(timeout=10_000)  # a loaded CI machine can be slow to repaint

RUN_TIMEOUT = 60_000  # ms: a whole notebook, kernel start and first deepagents import included
OPEN_TIMEOUT = 60_000  # ms: the front-end's first load


def dismiss_dialogs(page: Any) -> None:
    """Accept whatever modal dialog is open (e.g. "Select Kernel": its default is the kernel)."""
    for _ in range(5):
        dialog = page.locator(".jp-Dialog")
        if not dialog.count():
            return
        accept = dialog.locator(".jp-Dialog-button.jp-mod-accept")
        if accept.count():
            accept.first.click()
        else:
            page.keyboard.press("Escape")
        expect(dialog).to_have_count(0, timeout=5_000)


def open_notebook(page: Any, server: Any, name: str, *, lab: bool = True) -> None:
    """Open notebook ``name`` (JupyterLab, or Notebook 7 if not ``lab``); wait until all its cells
    are there and its kernel is idle, accepting any dialog on the way (e.g. "Select Kernel")."""
    cells = len(json.loads((server.root / name).read_text())["cells"])
    page.goto(server.lab_url(name, f"test-{uuid.uuid4().hex[:12]}") if lab else server.notebook7_url(name))
    expect(page.locator(".jp-Notebook .jp-Cell")).to_have_count(cells, timeout=OPEN_TIMEOUT)
    # The indicator says "idle" before a session exists: also wait for the kernel's name.
    idle = page.locator(".jp-Notebook-ExecutionIndicator", has_text="Kernel status: Idle")
    kernel = page.locator(".jp-Toolbar-kernelName", has_text="Python 3")
    deadline = time.monotonic() + OPEN_TIMEOUT / 1000
    while not (idle.count() and kernel.count()):
        assert time.monotonic() < deadline, "the notebook's kernel did not become idle"
        dismiss_dialogs(page)
        page.wait_for_timeout(200)
    dismiss_dialogs(page)
    if lab:  # fold the file browser away, for roomier screenshots
        tab = page.locator(".jp-SideBar.jp-mod-left .lm-TabBar-tab.lm-mod-current")
        if tab.count():
            tab.first.click()


def menu(page: Any, top: str, item: str) -> None:
    """Click ``top`` in the menu bar, then ``item`` in its menu."""
    page.locator(".lm-MenuBar-item", has_text=re.compile(rf"^{re.escape(top)}$")).click()
    entry = page.locator(
        ".lm-Menu .lm-Menu-item",
        has=page.locator(".lm-Menu-itemLabel", has_text=re.compile(rf"^{re.escape(item)}$")),
    )
    entry.click()
    expect(page.locator(".lm-Menu")).to_have_count(0)


def code_cells(page: Any) -> Any:
    return page.locator(".jp-Notebook .jp-CodeCell")


def code_cell(page: Any, source: str) -> Any:
    """The code cell whose source contains ``source``."""
    return code_cells(page).filter(has=page.locator(".jp-InputArea .cm-content", has_text=source))


def select_cell(cell: Any) -> None:
    """Make ``cell`` the notebook's active cell, in command mode (a click on its prompt)."""
    cell.locator(".jp-InputPrompt").first.click()
    expect(cell).to_have_class(re.compile(r"\bjp-mod-active\b"))


# Notes in the page whether a cell of the notebook has been queued since ("[*]" in its prompt).
WATCH_RUN_START = """() => {
  const notebook = document.querySelector('.jp-Notebook');
  window.__deepnbRunStarted = false;
  const prompts = () => [...notebook.querySelectorAll('.jp-InputPrompt')];
  const started = () => prompts().some((p) => p.textContent.includes('*'));
  const observer = new MutationObserver(() => {
    if (started()) {
      window.__deepnbRunStarted = true;
      observer.disconnect();
    }
  });
  observer.observe(notebook, {subtree: true, childList: true, characterData: true});
}"""
RUN_ALL_ATTEMPTS = 3
"""How many times :func:`run_all_cells` clicks Run All Cells before it fails."""


def run_all_cells(page: Any) -> None:
    """Run → Run All Cells, and wait until a cell is queued ("[*]"): a click that lands while
    JupyterLab is busy, or on a freshly opened Notebook 7, can be dropped, so one that queued
    nothing in 15 seconds is made again (never once a cell is queued: nothing runs twice)."""
    page.evaluate(WATCH_RUN_START)
    for attempt in range(1, RUN_ALL_ATTEMPTS + 1):
        menu(page, "Run", "Run All Cells")
        try:
            page.wait_for_function("() => window.__deepnbRunStarted", timeout=15_000)
            return
        except sync_api.TimeoutError:
            if attempt == RUN_ALL_ATTEMPTS:
                raise AssertionError(f"Run All Cells, clicked {attempt} times, queued no cell") from None


def run_all(page: Any) -> None:
    """Clear every output (and execution count), then Run → Run All Cells."""
    menu(page, "Edit", "Clear Outputs of All Cells")
    expect(page.locator(".jp-Notebook .jp-OutputArea-output")).to_have_count(0)
    run_all_cells(page)


def wait_for_notebook_run(page: Any, timeout: float = RUN_TIMEOUT) -> None:
    """Wait until every code cell has run: each prompt shows a number, none shows ``*``."""
    page.wait_for_function(
        """() => {
            const prompts = [...document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt')];
            return prompts.length > 0 && prompts.every((p) => /\\[\\d+\\]/.test(p.textContent));
        }""",
        timeout=timeout,
    )


def wait_for_cell(cell: Any, timeout: float = RUN_TIMEOUT) -> None:
    """Wait until ``cell`` has run: its prompt shows a number."""
    expect(cell.locator(".jp-InputPrompt").first).to_have_text(re.compile(r"\[\d+\]"), timeout=timeout)


def output_text(cell: Any) -> str:
    """The text of every output of ``cell``."""
    return "\n".join(cell.locator(".jp-OutputArea-output").all_inner_texts())


def tool_card(scope: Any, name: str) -> Any:
    """The tool cards named ``name`` inside ``scope`` (a view, a transcript, a node)."""
    return scope.locator(".dnb-item.dnb-tool").filter(
        has=scope.page.locator(".dnb-tool-name", has_text=re.compile(rf"^{re.escape(name)}$"))
    )


def node(view: Any, node_id: str) -> Any:
    """The Subagents panel's card of node ``node_id`` (e.g. ``main/general-purpose#2``)."""
    return view.locator(f'.dnb-tree .dnb-node[data-node="{node_id}"]')


def node_head(view: Any, node_id: str) -> Any:
    return view.locator(f'.dnb-tree .dnb-node[data-node="{node_id}"] > .dnb-node-head')


def node_items(view: Any, node_id: str) -> Any:
    """The items of a node's own transcript (shown only while its card is open)."""
    return view.locator(
        f'.dnb-tree .dnb-node[data-node="{node_id}"] > .dnb-node-body > .dnb-node-transcript > .dnb-item'
    )


def main_items(view: Any) -> Any:
    """The main transcript's items (the main agent's; a subagent's go to its node)."""
    return view.locator(".dnb-transcript > .dnb-item")


def scroll_to(locator: Any) -> None:
    """Scroll the page so ``locator`` is at the top (for a screenshot of what follows it)."""
    locator.evaluate("(el) => el.scrollIntoView({block: 'start'})")


def no_pwned(page: Any) -> None:
    """No injected handler or script ran: ``window.__pwned`` was never set."""
    assert page.evaluate("() => typeof window.__pwned") == "undefined"


def save_notebook(page: Any) -> None:
    """Press the notebook toolbar's Save button."""
    page.locator(".jp-NotebookPanel-toolbar [data-jp-item-name='save'] jp-button").click()


def saved_output(server: Any, name: str, cell: int, timeout: float = 60, page: Any = None) -> dict[str, Any]:
    """The data of the first output of code cell ``cell`` once the front-end has saved it.

    The file is read from the server's folder on disk, never through the contents API while the
    front end may be saving: Jupyter Server writes a notebook in place (its backup beside it), and
    a read through the API that meets the half-written file "restores" the backup over it, which
    makes the save fail and the file vanish. Read from disk, a half-written file is read again.

    With ``page``, Save is pressed again every ten seconds until the file holds the output: a press
    that lands while the toolbar is being redrawn, or while JupyterLab is busy, saves nothing. A
    file that stays unreadable fails the test with what the server's folder holds and its log."""
    deadline = time.monotonic() + timeout
    press_again = time.monotonic() + 10
    path = server.root / name
    while True:
        try:
            content = nbformat.reads(path.read_text(encoding="utf-8"), as_version=4)  # lines joined
        except (OSError, ValueError) as exc:  # not there yet, or being written: again
            if time.monotonic() > deadline:
                raise AssertionError(_unreadable(server, name, exc)) from exc
            content = None
        if content is not None:
            outputs = content["cells"][cell]["outputs"]
            if outputs:
                return outputs[0]["data"]
            assert time.monotonic() < deadline, f"{name} was not saved with its outputs"
        if page is not None and time.monotonic() > press_again:
            save_notebook(page)
            press_again = time.monotonic() + 10
        time.sleep(0.2)


def _unreadable(server: Any, name: str, error: Exception) -> str:
    """Why ``name`` could not be read back: the error, whether the server still runs, the files
    in its folder and the end of its log."""
    running = "running" if server.process.poll() is None else f"exited with {server.process.returncode}"
    try:
        files = sorted(path.name for path in server.root.iterdir())
    except OSError as exc:
        files = [f"(its folder cannot be listed: {exc})"]
    return (
        f"{name} could not be read back ({error}); the server is {running}; its folder holds "
        f"{files}; the end of its log:\n{server.log_tail()}"
    )


def collect_page_errors(page: Any) -> list[str]:
    """A list that fills with the uncaught exceptions thrown by code in a ``blob:`` module (where
    anywidget loads the run view's ESM), and the console errors that mention anywidget or deepnb.
    Errors of Jupyter's own bundles are left out: they are not ours to test."""
    errors: list[str] = []

    def on_error(exc: Any) -> None:
        stack = str(exc.stack or "")
        if "blob:" in stack or "/static/" not in stack:
            errors.append(f"{exc}\n{stack}")

    def on_console(msg: Any) -> None:
        if msg.type == "error" and re.search(r"anywidget|deepnb|dnb-", msg.text, re.IGNORECASE):
            errors.append(f"console: {msg.text}")

    page.on("pageerror", on_error)
    page.on("console", on_console)
    return errors


def luminance(rgb: str) -> float:
    """Relative brightness (0 black … 1 white) of a computed ``rgb(r, g, b)`` colour."""
    r, g, b = (int(v) / 255 for v in rgb[rgb.index("(") + 1 : rgb.index(")")].split(",")[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b
