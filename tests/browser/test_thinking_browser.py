"""What a model thinks, in a real browser (headless Chromium, no Jupyter server): the built bundle
shows it open while it streams, folds it once the answer starts, keeps it as text, finds it with
the transcript's search, and says the reasoning tokens apart in the head line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.test_run_view_a11y_browser import TRAITS, bundle_page

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

PROMPT = {"kind": "prompt", "id": "p", "agent": "main", "text": "Which otter is fastest?"}
STREAMING = {
    "kind": "thinking",
    "id": "k1",
    "agent": "main",
    "text": "Compare <img src=x> speeds",
    "html": None,
}
SETTLED = {
    **STREAMING,
    "text": "Compare <img src=x> speeds first.",
    "html": "<p>Compare &lt;img src=x&gt; speeds first.</p>",
}
ANSWER = {"kind": "text", "id": "t1", "agent": "main", "text": "The sea otter", "html": None}


@pytest.fixture
def page(browser: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    traits = {**TRAITS, "items": [PROMPT, STREAMING], "tree": []}
    with bundle_page(browser, traits, request.node.name) as page:
        yield page


def update(page: Any, **traits: Any) -> None:
    page.evaluate(f"window.model.update({json.dumps(traits)})")


def test_thinking_streams_open_then_folds_once_the_answer_starts(page: Any) -> None:
    from playwright.sync_api import expect

    note = page.get_by_role("note", name="Thinking")
    fold = note.locator("details.dnb-thinking-details")
    body = note.locator(".dnb-thinking-text")
    expect(fold).to_have_attribute("open", "")
    expect(body).to_have_text("Compare <img src=x> speeds")
    expect(body).to_be_visible()
    assert page.locator(".dnb-thinking-text img").count() == 0  # text, never markup

    update(page, items=[PROMPT, SETTLED, ANSWER])
    expect(fold).not_to_have_attribute("open", "")
    expect(body).to_be_hidden()
    expect(note.locator("summary")).to_have_text("Thinking")

    note.locator("summary").click()  # the reader's choice stands from here on
    expect(body).to_have_text("Compare <img src=x> speeds first.")
    assert page.locator(".dnb-thinking-text img").count() == 0
    update(
        page,
        items=[
            PROMPT,
            SETTLED,
            {**ANSWER, "text": "The sea otter wins.", "html": "<p>The sea otter wins.</p>"},
        ],
    )
    expect(fold).to_have_attribute("open", "")


def test_the_search_finds_thinking_and_the_head_counts_reasoning(page: Any) -> None:
    from playwright.sync_api import expect

    update(
        page,
        items=[PROMPT, SETTLED, ANSWER],
        progress={**TRAITS["progress"], "tokens_in": 1200, "tokens_out": 300, "tokens_reasoning": 80},
    )
    page.get_by_role("searchbox", name="Search the transcript").fill("speeds first")
    expect(page.locator('.dnb-item[data-kind="thinking"]')).to_have_class(
        "dnb-item dnb-thinking dnb-match", timeout=5_000
    )
    expect(page.get_by_text("tokens 1,200 in / 300 out (80 reasoning)")).to_be_visible()
