"""The experiment report opened from disk (``file://``) in headless Chromium, as whoever it was
sent to opens it: its script runs under its own Content-Security-Policy with no console error,
nothing is requested but the file itself, "failures only" leaves the failing rows, a sample
view opens at the top on its row, variant and epoch with the judge's comment, and closes on
Escape; the text search narrows the matrix."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

import deepnb
from tests.browser.conftest import VIEWPORT
from tests.support.agents import scripted, unique

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

ANSWERS = {"q0": "Paris", "q1": "**Lyon** <img src=x onerror=alert(1)>", "q2": "Rome"}
REFERENCES = {"q0": "Paris", "q1": "Madrid", "q2": "Rome"}


def judged(output: str, reference: str) -> dict[str, Any]:
    return {"score": output == reference, "comment": f"expected {reference}"}


def report(folder: Path) -> Path:
    model = scripted({"main": [{"match": f"^{q}", "turns": [{"text": a}]} for q, a in ANSWERS.items()]})
    name = unique("report")
    deepnb.agent(name=name, model=model)
    rows = [{"q": q, "reference": r} for q, r in REFERENCES.items()]
    experiment = deepnb.experiment(
        rows,
        agent=name,
        variants={"judged": model},
        template="{q}",
        scorers=[judged],
        epochs=2,
        log=folder / "l.jsonl",
    ).wait(120)
    return experiment.report(folder / "report.html")


def test_the_report_opens_from_disk_filters_to_failures_and_opens_a_sample(
    browser: Any, tmp_path: Path, artifact: Any
) -> None:
    path = report(tmp_path)
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(15_000)
    page = context.new_page()
    problems: list[str] = []
    requests: list[str] = []
    page.on("console", lambda msg: problems.append(msg.text) if msg.type in ("error", "warning") else None)
    page.on("pageerror", lambda exc: problems.append(str(exc)))
    page.on("request", lambda request: requests.append(request.url))
    try:
        page.goto(path.as_uri())
        matrix = page.get_by_role("table", name="Matrix: rows × variants")
        expect(matrix.locator("tbody tr")).to_have_count(3)
        page.screenshot(path=str(artifact("opened.png")), full_page=True)

        page.get_by_label("failures only").check()
        expect(matrix.locator("tbody tr")).to_have_count(1)
        expect(matrix.locator("tbody tr")).to_contain_text("q1")
        expect(page.get_by_role("status")).to_contain_text("Showing 1 of 1 matching rows")

        page.get_by_role("button", name="Open row 1, judged, epoch 1").click()
        dialog = page.get_by_role("dialog")
        expect(dialog).to_be_visible()
        expect(dialog.get_by_role("heading", level=2)).to_have_text("Row 1 · judged · epoch 1")
        expect(dialog).to_contain_text("expected Madrid")
        expect(dialog.locator("strong")).to_have_text("Lyon")  # the answer as Markdown
        expect(dialog).to_contain_text("<img src=x onerror=alert(1)>")  # its HTML as text
        assert dialog.evaluate("node => node.scrollTop") == 0
        page.screenshot(path=str(artifact("sample.png")))

        dialog.get_by_role("button", name="0", exact=True).click()  # the row's other epoch
        expect(dialog.get_by_role("heading", level=2)).to_have_text("Row 1 · judged · epoch 0")
        page.keyboard.press("ArrowRight")  # the next sample the filters leave
        expect(dialog.get_by_role("heading", level=2)).to_have_text("Row 1 · judged · epoch 1")
        page.keyboard.press("Escape")
        expect(dialog).to_be_hidden()

        page.get_by_label("failures only").uncheck()
        page.get_by_label("Search").fill("rome")  # an answer's text, in any case
        expect(matrix.locator("tbody tr")).to_have_count(1)
        expect(matrix.locator("tbody tr")).to_contain_text("q2")
        page.get_by_label("Search").fill("")
        expect(matrix.locator("tbody tr")).to_have_count(3)
    finally:
        context.close()
    assert problems == []
    assert requests == [path.as_uri()]
