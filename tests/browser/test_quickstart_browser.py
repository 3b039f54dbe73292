"""deepnb in a real browser: JupyterLab and Notebook 7 served by one server, headless Chromium.

Each test runs notebooks through the UI (menu Run → Run All Cells), as a person would, and checks
what the anywidget run view shows: status, todos, tool cards, rendered Markdown, the Stop button,
and that untrusted text stays text.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from typing import Any

import pytest
import yaml

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect
expect.set_options(timeout=10_000)  # a loaded CI machine can be slow to repaint

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

RUN_TIMEOUT = 60_000  # ms: a whole notebook, kernel start and first deepagents import included
OPEN_TIMEOUT = 60_000  # ms: the front-end's first load

# -- driving the UI --------------------------------------------------------------------------


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


def run_all(page: Any) -> None:
    """Clear every output (and execution count), then Run → Run All Cells."""
    menu(page, "Edit", "Clear Outputs of All Cells")
    expect(page.locator(".jp-Notebook .jp-OutputArea-output")).to_have_count(0)
    menu(page, "Run", "Run All Cells")


def wait_for_notebook_run(page: Any, timeout: float = RUN_TIMEOUT) -> None:
    """Wait until every code cell has run: each prompt shows a number, none shows ``*``."""
    page.wait_for_function(
        """() => {
            const prompts = [...document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt')];
            return prompts.length > 0 && prompts.every((p) => /\\[\\d+\\]/.test(p.textContent));
        }""",
        timeout=timeout,
    )


def prompt_of(cell: Any) -> Any:
    return cell.locator(".jp-InputPrompt").first


def tool_card(view: Any, name: str) -> Any:
    return view.locator(".dnb-item.dnb-tool").filter(
        has=view.page.locator(".dnb-tool-name", has_text=re.compile(rf"^{re.escape(name)}$"))
    )


# -- JupyterLab: the quickstart notebook --------------------------------------------------------


def test_quickstart_in_jupyterlab(page: Any, jupyter_server: Any) -> None:
    name = jupyter_server.copy_quickstart("quickstart.ipynb")
    open_notebook(page, jupyter_server, name)
    run_all(page)

    cell = code_cell(page, "%%deepagent -m demo:quickstart")
    expect(cell).to_have_count(1)
    view = cell.locator(".deepnb-run")
    expect(view).to_have_attribute("data-status", "done", timeout=RUN_TIMEOUT)
    wait_for_notebook_run(page)

    # Progress line: done, no Stop button any more.
    expect(view.locator(".dnb-progress .dnb-status")).to_have_text("done")
    expect(view.locator(".dnb-stop")).to_be_hidden()

    # Todo list: three items, all completed.
    todos = view.locator(".dnb-todos .dnb-todo")
    expect(todos).to_have_count(3)
    expect(view.locator(".dnb-todos .dnb-todo[data-status='completed']")).to_have_count(3)
    expect(view.locator(".dnb-todos-progress")).to_have_text("All 3 done")
    expect(todos.first).to_contain_text("Outline what makes tide pools hard to live in")

    # Tool cards: one per call, every one finished.
    cards = view.locator(".dnb-item.dnb-tool")
    names = cards.locator(".dnb-tool-name").all_inner_texts()
    assert {"write_todos", "write_file", "read_file", "edit_file"} <= set(names), names
    assert len(names) == 7, names
    for index in range(cards.count()):
        expect(cards.nth(index)).to_have_attribute("data-status", "done")

    # A card opens on click and shows its full arguments and result.
    card = tool_card(view, "write_file")
    expect(card).to_have_count(1)
    detail = card.locator(".dnb-tool-detail")
    expect(detail).to_be_hidden()
    card.locator(".dnb-tool-head").click()
    expect(detail).to_be_visible()
    expect(card.locator(".dnb-tool-head")).to_have_attribute("aria-expanded", "true")
    expect(card.locator(".dnb-tool-args-full")).to_contain_text('"file_path": "/notes/stresses.md"')
    expect(card.locator(".dnb-tool-result-full")).to_have_text("Updated file /notes/stresses.md")

    # The final answer is rendered Markdown: a heading and a table.
    transcript = view.locator(".dnb-transcript")
    expect(transcript.locator("h2")).to_have_text("Life in a tide pool")
    table = transcript.locator("table")
    expect(table).to_have_count(1)
    expect(table.locator("tbody tr")).to_have_count(3)
    expect(table.locator("th").first).to_have_text("Animal")

    # The cells after the run saw the finished run object.
    status_cell = code_cell(page, "run.status, len(run.todos)")
    expect(status_cell.locator(".jp-OutputArea-output")).to_contain_text("('done', 3,")
    notes_cell = code_cell(page, 'print(run.files["/notes/stresses.md"])')
    expect(notes_cell.locator(".jp-OutputArea-output")).to_contain_text("Anemones fold in to hold water")
    second = code_cell(page, "%%deepagent --new -o second").locator(".deepnb-run")
    expect(second).to_have_attribute("data-status", "done")

    view.evaluate("(el) => el.scrollIntoView({block: 'start'})")


# -- Notebook 7: the same notebook ----------------------------------------------------------------


def test_quickstart_in_notebook7(page: Any, jupyter_server: Any) -> None:
    name = jupyter_server.copy_quickstart("quickstart-notebook7.ipynb")
    open_notebook(page, jupyter_server, name, lab=False)
    run_all(page)

    view = code_cell(page, "%%deepagent -m demo:quickstart").locator(".deepnb-run")
    expect(view).to_have_attribute("data-status", "done", timeout=RUN_TIMEOUT)
    wait_for_notebook_run(page)
    expect(view.locator(".dnb-todos .dnb-todo")).to_have_count(3)
    expect(view.locator(".dnb-todos .dnb-todo[data-status='completed']")).to_have_count(3)
    expect(view.locator(".dnb-item.dnb-tool[data-status='done']").first).to_be_visible()
    expect(view.locator(".dnb-transcript h2")).to_have_text("Life in a tide pool")
    view.evaluate("(el) => el.scrollIntoView({block: 'start'})")


# -- Stop, mid-cell ------------------------------------------------------------------------------

SLOW_WORDS = 150  # streamed at 0.2 s a word: a run of about 30 s unless stopped


def test_stop_button_cancels_mid_cell(page: Any, jupyter_server: Any, artifact: Any) -> None:
    script = jupyter_server.root / "slow.yaml"
    story = " ".join(f"word{n}" for n in range(SLOW_WORDS))
    script.write_text(yaml.safe_dump({"delay": 0.2, "agents": {"main": [{"text": story}]}}))
    jupyter_server.put_notebook(
        "stop.ipynb",
        [
            "%load_ext deepnb",
            f"%%deepagent -m scripted:{script} -o r\nTell me a very long story.",
            "print(r.status)",
        ],
    )
    open_notebook(page, jupyter_server, "stop.ipynb")
    menu(page, "Run", "Run All Cells")

    agent_cell = code_cell(page, "%%deepagent")
    after_cell = code_cell(page, "print(r.status)")
    view = agent_cell.locator(".deepnb-run")
    expect(view).to_have_attribute("data-status", "running", timeout=RUN_TIMEOUT)
    # The story streams into the view while the run is still running.
    deadline = time.monotonic() + RUN_TIMEOUT / 1000
    while True:
        status = view.get_attribute("data-status")
        streamed = " ".join(view.locator(".dnb-item.dnb-text").all_inner_texts())
        if "word3" in streamed or status != "running" or time.monotonic() > deadline:
            break
        page.wait_for_timeout(100)
    seen = f"status {status!r}, text {streamed[:80]!r}"
    assert status == "running" and "word3" in streamed, f"nothing streamed while running: {seen}"

    # Mid-cell: the agent cell is still executing and the next cell has not run.
    expect(prompt_of(agent_cell)).to_contain_text("*")
    expect(after_cell.locator(".jp-OutputArea-output")).to_have_count(0)

    stop = view.locator(".dnb-stop")
    expect(stop).to_be_visible()
    expect(stop).to_be_enabled()
    view.screenshot(path=str(artifact("running.png")))
    clicked = time.monotonic()
    stop.click()
    expect(view).to_have_attribute("data-status", "cancelled", timeout=5_000)
    took = time.monotonic() - clicked
    assert took < 5, f"Stop took {took:.1f} s"

    expect(view.locator(".dnb-progress .dnb-status")).to_have_text("stopped")
    expect(view.locator(".dnb-stop")).to_be_hidden()
    # The cell ended and the next one ran, seeing the cancelled run.
    expect(after_cell.locator(".jp-OutputArea-output")).to_have_text("cancelled", timeout=15_000)
    wait_for_notebook_run(page, timeout=15_000)
    text = view.locator(".dnb-item.dnb-text").first.inner_text()
    assert f"word{SLOW_WORDS - 1}" not in text, "the whole story streamed: the run was not stopped"
    view.evaluate("(el) => el.scrollIntoView({block: 'start'})")


# -- untrusted text -----------------------------------------------------------------------------

IMG = '<img src=x onerror="window.__pwned=1">'
SCRIPT = "<script>window.__pwned=2</script>"
LINK = "[a link](javascript:window.__pwned=3)"


def test_untrusted_text_shows_as_text(page: Any, jupyter_server: Any) -> None:
    dialogs: list[str] = []

    def on_dialog(dialog: Any) -> None:
        dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    page.on("dialog", on_dialog)
    script = jupyter_server.root / "hostile.json"
    script.write_text(
        json.dumps(
            {
                "agents": {
                    "main": [
                        {
                            "text": f"Planning {IMG} now.",
                            "tool_calls": [
                                {
                                    "name": "write_todos",
                                    "args": {"todos": [{"content": f"Check {IMG}", "status": "completed"}]},
                                },
                                {
                                    "name": "write_file",
                                    "args": {"file_path": "/notes/hostile.md", "content": f"{IMG}\n{SCRIPT}"},
                                },
                            ],
                        },
                        {"text": f"## Answer\n\nHere: {IMG} and {SCRIPT} and {LINK}.\n\n{SCRIPT}\n"},
                    ]
                }
            }
        )
    )
    jupyter_server.put_notebook(
        "hostile.ipynb",
        ["%load_ext deepnb", f"%%deepagent -m scripted:{script} -o r\nSummarize this page."],
    )
    open_notebook(page, jupyter_server, "hostile.ipynb")
    menu(page, "Run", "Run All Cells")

    view = code_cell(page, "%%deepagent").locator(".deepnb-run")
    expect(view).to_have_attribute("data-status", "done", timeout=RUN_TIMEOUT)
    wait_for_notebook_run(page)

    # The write_file card's full arguments go into the DOM only when it is open.
    card = tool_card(view, "write_file")
    card.locator(".dnb-tool-head").click()
    expect(card.locator(".dnb-tool-args-full")).to_contain_text("<img src=x onerror=")
    expect(card.locator(".dnb-tool-args-full")).to_contain_text("<script>window.__pwned=2</script>")

    transcript = view.locator(".dnb-transcript")
    expect(transcript).to_contain_text(IMG)
    expect(transcript.get_by_text("<img src=x").first).to_be_visible()
    expect(transcript.locator(".dnb-md").last).to_contain_text(f"Here: {IMG} and {SCRIPT}")
    expect(transcript.locator("h2")).to_have_text("Answer")
    expect(view.locator(".dnb-todo-text")).to_have_text(f"Check {IMG}")
    expect(card.locator(".dnb-tool-args")).to_contain_text("<img src=x")

    page.wait_for_timeout(500)  # give an onerror handler (image load failure) time to fire
    assert view.locator("img[src='x']").count() == 0
    # JupyterLab rewrites relative src values in HTML outputs, so look for any image at all.
    assert page.locator(".jp-OutputArea img").count() == 0
    assert view.locator("script").count() == 0
    assert view.locator("a[href^='javascript']").count() == 0
    assert page.evaluate("() => typeof window.__pwned") == "undefined"
    assert dialogs == []
    view.evaluate("(el) => el.scrollIntoView({block: 'start'})")

    # The static snapshot that the output also carries (for nbviewer, GitHub…) escapes it too.
    page.locator(".jp-NotebookPanel-toolbar [data-jp-item-name='save'] jp-button").click()
    data = saved_output(jupyter_server, "hostile.ipynb", cell=1)
    assert "application/vnd.jupyter.widget-view+json" in data
    snapshot = data["text/html"]
    assert "&lt;img src=x" in snapshot and "&lt;script&gt;" in snapshot, snapshot
    assert "<img" not in snapshot and "<script" not in snapshot, snapshot
    assert 'href="javascript' not in snapshot, snapshot


def saved_output(server: Any, name: str, cell: int, timeout: float = 15) -> dict[str, Any]:
    """The data of the first output of code cell ``cell`` once the front-end has saved it."""
    deadline = time.monotonic() + timeout
    while True:
        content = server.api("GET", f"/api/contents/{name}?content=1")["content"]
        outputs = content["cells"][cell]["outputs"]
        if outputs:
            return outputs[0]["data"]
        assert time.monotonic() < deadline, f"{name} was not saved with its outputs"
        time.sleep(0.2)
