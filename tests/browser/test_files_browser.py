"""The file browser in a real browser (JupyterLab 4 and Notebook 7).

A notebook runs ``demo:quickstart`` (which writes ``/notes/stresses.md``), adds a file whose name
is an HTML tag, then shows ``%deepagent files``. The test uses the view as a person would: expand
``/notes/``, open the note (rendered Markdown), edit and save it (the new text rendered), find a
word with the grep search, download it, open the hostile file by keyboard, read the run's diff;
then a view whose agent's rules deny writing (read-only, the rule shown), and a view that lists a
folder a background run wrote after it was shown. Nothing from a file name or content may run.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.support.notebook_ui import (
    RUN_TIMEOUT,
    code_cell,
    collect_page_errors,
    expect,
    no_pwned,
    open_notebook,
    run_all_cells,
    save_notebook,
    saved_output,
    scroll_to,
    wait_for_notebook_run,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

NOTES = "/notes/stresses.md"
HOSTILE_NAME = "<img src=x onerror=window.__pwned=1>.md"
HOSTILE_BODY = "# Hostile\\n\\n<script>window.__pwned=2</script>\\n<img src=x onerror=window.__pwned=3>\\n"
CELLS = [
    "%load_ext deepnb",
    "%%deepagent -m demo:quickstart -o run\nWrite me a short brief on life in tide pools.",
    f'run.files.write("/{HOSTILE_NAME}", "{HOSTILE_BODY}")',
    "%deepagent files",
    "import deepnb\nfrom deepagents import FilesystemPermission\n"
    "from deepnb.session import building\n"
    'locked = deepnb.agent("locked", "demo:quickstart", checkpointer=building.get().checkpointer,\n'
    '    permissions=[FilesystemPermission(operations=["write"], paths=["/notes/**"], mode="deny")])\n'
    "thread = run.thread_id",
    "%deepagent files -a locked -t {thread}",
    "%%deepagent -a live -m scripted:live.yaml -o first\nfirst",
    "%deepagent files -a live",
    "%%deepagent -a live --bg -o second\nsecond",
]
LIVE_SCRIPT = """\
delay: 0.05
agents:
  main:
    - match: "first"
      turns:
        - text: "Writing a first file."
          tool_calls:
            - {name: write_file, args: {file_path: /a.md, content: "first"}}
        - text: "Done."
    - match: "second"
      turns:
        - text: "Thinking about it for a while before I write anything at all, word by word, slowly."
          tool_calls:
            - {name: write_file, args: {file_path: /later/live.md, content: "# Written live"}}
        - text: "Done."
"""
RULE = "(operations=['write'], paths=['/notes/**'], mode='deny')"
ADDED = "- Hermit crabs swap shells as they grow"


def row(view: Any, path: str) -> Any:
    """The tree row of ``path`` (folders end with ``/``)."""
    return view.locator(f'.dnb-fv-tree .dnb-fv-row[data-path="{path}"]')


def run_files_notebook(page: Any, server: Any, name: str, *, lab: bool = True) -> Any:
    """Put the notebook on the server, open it, run every cell; return the file browser."""
    (server.root / "live.yaml").write_text(LIVE_SCRIPT)
    server.put_notebook(name, CELLS)
    open_notebook(page, server, name, lab=lab)
    run_all_cells(page)
    view = code_cell(page, "%deepagent files").first.locator(".deepnb-files")
    expect(view).to_be_visible(timeout=RUN_TIMEOUT)
    wait_for_notebook_run(page)
    return view


def test_file_browser_in_jupyterlab(page: Any, jupyter_server: Any, artifact: Any) -> None:
    errors = collect_page_errors(page)
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    view = run_files_notebook(page, jupyter_server, "files.ipynb")
    scroll_to(view)

    # The first render lists the root folder: /notes/ and the hostile file, its name as text.
    notes = row(view, "/notes/")
    expect(notes).to_have_attribute("aria-expanded", "false")
    hostile = row(view, f"/{HOSTILE_NAME}")
    expect(hostile.locator(".dnb-fv-name")).to_have_text(HOSTILE_NAME)
    expect(view.locator(".dnb-fv-tab-changes")).to_be_visible()

    # Expand /notes/ lazily; the note shows its size.
    notes.click()
    expect(notes).to_have_attribute("aria-expanded", "true")
    note = row(view, NOTES)
    expect(note.locator(".dnb-fv-name")).to_have_text("stresses.md")
    expect(note.locator(".dnb-fv-size")).to_have_text(re.compile(r"^\d+ B$"))

    # Open it: rendered Markdown.
    note.click()
    viewer = view.locator(".dnb-fv-viewer")
    expect(viewer).to_have_attribute("data-state", "ready")
    expect(viewer.locator(".dnb-fv-path")).to_have_text(NOTES)
    expect(viewer.locator(".dnb-fv-content h1").first).to_have_text("Tide-pool stresses")
    expect(viewer.locator(".dnb-fv-content li", has_text="Anemones fold in to hold water")).to_be_visible()
    expect(note).to_have_attribute("aria-selected", "true")
    view.screenshot(path=str(artifact("viewer.png")))

    # Edit and save: the new text is rendered, and the kernel has it.
    viewer.locator(".dnb-fv-edit").click()
    textarea = viewer.locator(".dnb-fv-textarea")
    expect(textarea).to_be_focused()
    expect(viewer.locator(".dnb-fv-edit")).to_be_hidden()
    expect(textarea).to_have_value(re.compile(r"^# Tide-pool stresses\n"))
    textarea.press("Control+End")
    textarea.type(f"\n{ADDED}\n")
    view.screenshot(path=str(artifact("editing.png")))
    viewer.locator(".dnb-fv-save").click()
    expect(textarea).to_be_hidden()
    expect(viewer.locator(".dnb-fv-content li", has_text=ADDED[2:])).to_be_visible()
    expect(viewer.locator(".dnb-fv-editor-error")).to_have_text("")

    # Download: the browser saves the file's bytes under its name.
    with page.expect_download() as download:
        viewer.locator(".dnb-fv-download").click()
    assert download.value.suggested_filename == "stresses.md"
    assert ADDED in Path(download.value.path()).read_text(encoding="utf-8")

    # Search the files' text (grep) for the new word: one hit, which opens the file.
    view.locator(".dnb-fv-mode-grep").click()
    expect(view.locator(".dnb-fv-mode-grep")).to_have_attribute("aria-pressed", "true")
    query = view.locator(".dnb-fv-query")
    query.fill("Hermit")
    query.press("Enter")
    hits = view.locator(".dnb-fv-hit")
    expect(hits).to_have_count(1)
    expect(hits.first).to_contain_text(NOTES)
    expect(hits.first.locator(".dnb-fv-hit-text")).to_have_text(ADDED)
    expect(view.locator(".dnb-fv-results-summary")).to_contain_text("1 line contains “Hermit”")

    # The hostile file, opened from the keyboard: its name and content stay text.
    hostile.focus()
    page.keyboard.press("Enter")
    expect(viewer.locator(".dnb-fv-path")).to_have_text(f"/{HOSTILE_NAME}")
    expect(viewer.locator(".dnb-fv-content h1")).to_have_text("Hostile")
    expect(viewer.locator(".dnb-fv-content")).to_contain_text("<script>window.__pwned=2</script>")
    # Arrow keys move between rows without leaving the tree (nor moving the notebook's cells).
    page.keyboard.press("ArrowUp")
    expect(note).to_be_focused()

    # "Changed in this run": the run's diff of the note, + lines marked.
    view.locator(".dnb-fv-tab-changes").click()
    change = view.locator(f'.dnb-fv-change[data-path="{NOTES}"]')
    expect(change).to_have_attribute("data-kind", "added")
    expect(change.locator(".dnb-fv-add", has_text="+# Tide-pool stresses")).to_be_visible()
    view.screenshot(path=str(artifact("changes.png")))
    view.locator(".dnb-fv-tab-files").click()

    page.wait_for_timeout(500)  # give an onerror handler (image load failure) time to fire
    assert view.locator("img").count() == 0
    assert view.locator("script").count() == 0
    no_pwned(page)
    assert dialogs == []
    assert errors == []

    # Where the agent's rules deny writing, the file is read-only and the rule is shown.
    locked = code_cell(page, "%deepagent files -a locked").locator(".deepnb-files")
    scroll_to(locked)
    row(locked, "/notes/").click()
    expect(row(locked, NOTES).locator(".dnb-fv-lock")).to_be_visible()
    row(locked, NOTES).click()
    locked_viewer = locked.locator(".dnb-fv-viewer")
    expect(locked_viewer.locator(".dnb-fv-readonly")).to_have_text(
        f"Read-only: Changing {NOTES} is denied by the agent's permission rule {RULE}."
    )
    expect(locked_viewer.locator(".dnb-fv-edit")).to_have_text("View source")
    locked_viewer.locator(".dnb-fv-edit").click()
    expect(locked_viewer.locator(".dnb-fv-textarea")).to_have_attribute("readonly", "")
    expect(locked_viewer.locator(".dnb-fv-textarea")).to_have_value(re.compile(ADDED))
    expect(locked_viewer.locator(".dnb-fv-save")).to_be_hidden()
    locked.screenshot(path=str(artifact("read-only.png")))

    # A background run on the live agent's thread wrote /later/live.md after its view was shown:
    # the view listed its root again by itself, and the new folder opens to the new file.
    live = code_cell(page, "%deepagent files -a live").locator(".deepnb-files")
    scroll_to(live)
    later = row(live, "/later/")
    expect(later).to_be_visible(timeout=30_000)
    later.click()
    row(live, "/later/live.md").click()
    expect(live.locator(".dnb-fv-content h1")).to_have_text("Written live")
    expect(live.locator(".dnb-fv-tab-changes")).to_be_visible()
    live.locator(".dnb-fv-tab-changes").click()
    expect(live.locator('.dnb-fv-change[data-path="/later/live.md"]')).to_have_attribute("data-kind", "added")
    live.screenshot(path=str(artifact("live.png")))

    # The static listing saved with the output escapes the hostile name too.
    save_notebook(page)
    # The server writes a notebook in place: read it once the tab says it is saved.
    expect(page.locator(".lm-TabBar-tab.jp-mod-current.jp-mod-dirty")).to_have_count(0)
    data = saved_output(jupyter_server, "files.ipynb", cell=3, page=page)
    # Saved, the view is its snapshot alone: the file needs no kernel to show it.
    assert "application/vnd.jupyter.widget-view+json" not in data
    assert "&lt;img src=x onerror=window.__pwned=1&gt;.md" in data["text/html"]
    assert "<img" not in data["text/html"]
    scroll_to(view)


def test_file_browser_in_notebook7(page: Any, jupyter_server: Any) -> None:
    view = run_files_notebook(page, jupyter_server, "files-notebook7.ipynb", lab=False)
    notes = row(view, "/notes/")
    notes.focus()
    page.keyboard.press("Enter")  # expand from the keyboard
    expect(notes).to_have_attribute("aria-expanded", "true")
    note = row(view, NOTES)
    expect(note).to_be_visible()  # listed once the kernel answered
    page.keyboard.press("ArrowDown")
    expect(note).to_be_focused()
    page.keyboard.press("Enter")
    expect(view.locator(".dnb-fv-content h1").first).to_have_text("Tide-pool stresses")
    scroll_to(view)
