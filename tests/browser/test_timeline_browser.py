"""The run view's timeline in a real browser (headless Chromium, no Jupyter server): the built
bundle draws the waterfall from a stand-in model (a lane per agent, a labelled bar per call), "Fork
here" on a step sends the step, and the kernel's answer shows the new thread's line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.test_run_view_a11y_browser import TRAITS, bundle_page

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

BARS = [
    {
        "kind": "model",
        "lane": 0,
        "name": "",
        "start": 0.0,
        "end": 1.2,
        "step": 1,
        "item": "tool-c1",
        "label": "model call · main · 1.20 s · 300 in / 20 out · step 1",
    },
    {
        "kind": "tool",
        "lane": 0,
        "name": "task",
        "start": 1.2,
        "end": 3.0,
        "label": "tool task · main · 1.80 s",
    },
    {
        "kind": "model",
        "lane": 1,
        "name": "",
        "start": 1.3,
        "end": 2.0,
        "label": "model call · main/general-purpose · 0.70 s · 100 in / 9 out",
    },
    {
        "kind": "tool",
        "lane": 1,
        "name": "<b>ls</b>",
        "start": 2.0,
        "end": None,
        "label": "tool <b>ls</b> · main/general-purpose · running",
    },
    {
        "kind": "model",
        "lane": 0,
        "name": "",
        "start": 3.0,
        "end": 3.5,
        "step": 5,
        "item": "final",
        "label": "model call · main · 0.50 s · 400 in / 30 out · step 5",
    },
]
TIMELINE = {
    "thread": "t-a11y",
    "lanes": [
        {"agent": "main", "label": "main"},
        {"agent": "main/general-purpose", "label": "general-purpose"},
    ],
    "bars": BARS,
    "total": 3.5,
    "left_out": 0,
}


@pytest.fixture
def page(browser: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    with bundle_page(browser, {**TRAITS, "status": "done", "timeline": TIMELINE}, request.node.name) as page:
        yield page


def test_the_timeline_draws_bars_and_fork_here_names_the_new_thread(page: Any) -> None:
    from playwright.sync_api import expect

    section = page.locator("details.dnb-timeline")
    expect(section).to_be_visible()
    section.locator("summary").click()
    expect(section.locator("summary")).to_have_text("Timeline: 3 model calls, 2 tool calls over 3.50 s")
    chart = page.get_by_role("list", name="Model and tool calls over time")
    expect(chart.get_by_role("listitem")).to_have_count(5)
    lanes = chart.locator(".dnb-tl-lane")
    expect(lanes).to_have_count(2)
    expect(lanes.nth(1).locator(".dnb-tl-bar")).to_have_count(2)  # the subagent's own lane
    running = "tool <b>ls</b> · main/general-purpose · running"
    expect(chart.get_by_role("listitem", name=running)).to_be_visible()
    assert page.locator(".dnb-tl-chart b").count() == 0  # names are text, never markup
    widths = chart.locator(".dnb-tl-bar").evaluate_all("bs => bs.map(b => b.getBoundingClientRect().width)")
    assert all(w >= 2 for w in widths) and widths[1] > widths[4]  # the 1.8 s tool outlasts the 0.5 s turn

    steps = page.get_by_role("list", name="Steps of the main agent")
    forks = steps.get_by_role("button", name="Fork here")
    expect(forks).to_have_count(2)
    forks.nth(1).click()
    sent = page.evaluate("window.model.sent.filter(m => m.type === 'fork')")
    assert sent == [{"type": "fork", "step": 5}]
    expect(page.get_by_role("status", name="Fork")).to_have_text("Forking…")
    answer = {"type": "forked", "step": 5, "thread_id": "abc123def456", "error": ""}
    page.evaluate(f"for (const fn of window.model.handlers['msg:custom'] || []) fn({json.dumps(answer)})")
    expect(page.get_by_role("status", name="Fork")).to_have_text(
        "New thread abc123def456 from step 5: continue with %%deepagent -t abc123def456"
    )
    expect(forks.nth(1)).to_be_enabled()

    # The step also shows on the transcript item its model call made: the task's card.
    card = page.get_by_role("article", name="Tool call task")
    chip = card.get_by_role("button", name="step 1 · fork here")
    expect(chip).to_be_visible()
    chip.click()
    sent = page.evaluate("window.model.sent.filter(m => m.type === 'fork')")
    assert sent[-1] == {"type": "fork", "step": 1}
    assert page.get_by_role("button", name="step 5 · fork here").count() == 0  # no final answer yet
    text_item = {"kind": "text", "id": "t9", "agent": "main", "text": "Done.", "html": "<p>Done.</p>"}
    page.evaluate(f"window.model.update({{items: [...window.model.traits.items, {json.dumps(text_item)}]}})")
    final = page.locator(".dnb-final-answer")
    expect(final.get_by_role("button", name="step 5 · fork here")).to_be_visible()
