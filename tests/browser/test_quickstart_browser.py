"""deepnb in a real browser: JupyterLab and Notebook 7 served by one server, headless Chromium.

Each test runs notebooks through the UI (menu Run → Run All Cells), as a person would, and checks
what the anywidget run view shows: status, todos, tool cards, rendered Markdown, the Stop button,
and that untrusted text stays text.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
import yaml

from tests.support.notebook_ui import (
    RUN_TIMEOUT,
    code_cell,
    expect,
    open_notebook,
    run_all,
    run_all_cells,
    save_notebook,
    saved_output,
    tool_card,
    wait_for_notebook_run,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]


def prompt_of(cell: Any) -> Any:
    return cell.locator(".jp-InputPrompt").first


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
    full = card.locator(".dnb-tool-args-full")
    expect(full).to_contain_text("file_path: /notes/stresses.md")
    expect(full).to_contain_text("content:\n  # Tide-pool stresses\n  - Waves: strong")  # the text's lines
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
    run_all_cells(page)

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
    run_all_cells(page)

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
    save_notebook(page)
    data = saved_output(jupyter_server, "hostile.ipynb", cell=1, page=page)
    # Saved, the view is its snapshot alone: the file needs no kernel to show it.
    assert "application/vnd.jupyter.widget-view+json" not in data
    snapshot = data["text/html"]
    assert "&lt;img src=x" in snapshot and "&lt;script&gt;" in snapshot, snapshot
    assert "<img" not in snapshot and "<script" not in snapshot, snapshot
    assert 'href="javascript' not in snapshot, snapshot
