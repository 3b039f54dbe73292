"""Untrusted content makes no requests, in a real browser (JupyterLab 4, headless Chromium).

``demo:research`` with remote images (inline and reference-style) in the final answer, the
summary and the report file it writes, and a file whose name holds an RTL override. Every request
the page makes is recorded: none may leave the local JupyterLab server until a person clicks
"load image", and then only for that image.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
import yaml

from tests.browser.conftest import REPO
from tests.support.notebook_ui import (
    RUN_TIMEOUT,
    code_cell,
    collect_page_errors,
    expect,
    open_notebook,
    run_all_cells,
    save_notebook,
    saved_output,
    scroll_to,
    wait_for_notebook_run,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

TRACKER = "tracker.example"
ANSWER = f"https://{TRACKER}/answer.png"
REFERENCE = f"https://{TRACKER}/reference.png"
SUMMARY = f"//{TRACKER}/summary.png"
IN_FILE = f"http://{TRACKER}/file.png"
RLO_NAME = "/invoice\u202efdp.md"


def tracking_script(path: Path) -> None:
    """``demo:research`` whose answer, summary and report hold remote images."""
    data = yaml.safe_load((REPO / "deepnb" / "demos" / "research.yaml").read_text())
    data["delay"] = 0
    turns = data["agents"]["main"][0]["turns"]
    turns[-1]["text"] += f"\n\n![chart]({ANSWER}) and ![ref][r]\n\n[r]: {REFERENCE}\n"
    data["summaries"]["main"] += f"- A picture: ![pixel]({SUMMARY})\n"
    report = turns[5]["tool_calls"][0]["args"]
    report["content"] += f"\n![figure]({IN_FILE})\n"
    path.write_text(yaml.safe_dump(data, allow_unicode=True))


def outside(url: str, server: Any) -> bool:
    """Whether the browser asked for ``url`` somewhere other than the local JupyterLab server."""
    parsed = urlparse(url)
    if parsed.scheme in ("data", "blob", "about"):
        return False
    return (parsed.hostname, parsed.port) != ("127.0.0.1", server.port)


def test_remote_images_load_only_on_click(page: Any, jupyter_server: Any, artifact: Any) -> None:
    requests: list[str] = []
    page.context.on("request", lambda request: requests.append(request.url))
    errors = collect_page_errors(page)
    script = jupyter_server.root / "tracking.yaml"
    tracking_script(script)
    jupyter_server.put_notebook(
        "tracking.ipynb",
        [
            "%load_ext deepnb",
            f"%%deepagent -m scripted:{script} -o r\nWrite a short report on coral reefs.",
            f"r.files.write({RLO_NAME!r}, 'bidi')",
            "%deepagent files",
        ],
    )
    open_notebook(page, jupyter_server, "tracking.ipynb")
    run_all_cells(page)
    view = code_cell(page, "%%deepagent").locator(".deepnb-run")
    expect(view).to_have_attribute("data-status", "done", timeout=RUN_TIMEOUT)
    files = code_cell(page, "%deepagent files").locator(".deepnb-files")
    expect(files).to_be_visible(timeout=RUN_TIMEOUT)
    wait_for_notebook_run(page)

    # Open everything that shows Markdown: the summary card, and the report in the file browser.
    transcript = view.locator(".dnb-transcript")
    card = view.locator(".dnb-item.dnb-summary")
    card.locator("summary.dnb-summary-toggle").click()
    files.locator('.dnb-fv-tree .dnb-fv-row[data-path="/report.md"]').click()
    content = files.locator(".dnb-fv-viewer .dnb-fv-content")
    expect(content.locator("h1").first).to_have_text("How coral reefs recover after bleaching")
    page.wait_for_timeout(500)  # give any request that would be made the time to start
    assert [url for url in requests if outside(url, jupyter_server)] == []
    assert requests, "no request was recorded at all: the recorder is not working"
    assert page.locator(f'img[src*="{TRACKER}"]').count() == 0

    # Each remote image is a placeholder naming its URL, with a "load image" button.
    answer = transcript.locator(f'.dnb-image-blocked[data-src="{ANSWER}"]')
    expect(answer).to_have_count(1)
    expect(answer).to_contain_text(ANSWER)
    expect(answer.locator("button.dnb-image-load")).to_have_text("load image")
    expect(transcript.locator(f'.dnb-image-blocked[data-src="{REFERENCE}"]')).to_have_count(1)
    expect(card.locator(f'.dnb-summary-text .dnb-image-blocked[data-src="{SUMMARY}"]')).to_be_visible()
    expect(content.locator(f'.dnb-image-blocked[data-src="{IN_FILE}"]')).to_be_visible()
    # The file named with an RTL override is listed with the override escaped.
    expect(files.locator(".dnb-fv-name", has_text="invoice\\u202efdp.md")).to_have_count(1)
    scroll_to(view.locator(".dnb-transcript"))
    page.screenshot(path=str(artifact("placeholders.png")))

    # A click is what it takes: then the browser asks for that image, and for no other.
    with page.expect_request(lambda request: request.url == ANSWER):
        answer.locator("button.dnb-image-load").click()
    loaded = transcript.locator(f'img.dnb-image-loaded[src="{ANSWER}"]')
    expect(loaded).to_have_count(1)
    expect(loaded).to_have_attribute("alt", "chart")
    page.wait_for_timeout(300)
    assert [url for url in requests if outside(url, jupyter_server)] == [ANSWER]

    # The snapshot saved with the notebook names the images as text and loads none.
    save_notebook(page)
    snapshot = saved_output(jupyter_server, "tracking.ipynb", cell=1, page=page)["text/html"]
    assert ANSWER in snapshot and "<img" not in snapshot, snapshot
    assert not errors, "\n\n".join(errors)
