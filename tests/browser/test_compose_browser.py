"""The box under a run view in a real browser (headless Chromium, no Jupyter server): typing and
pressing Send or Enter sends a follow-up once the run has ended, the box says Steer while the run
runs, a refusal from the kernel shows in one line, and the earlier turns show above."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.browser.test_run_view_a11y_browser import TRAITS, bundle_page

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

PROMPT = {"kind": "prompt", "id": "p", "agent": "main", "text": "Plan a trip"}
ANSWER = {"kind": "text", "id": "t1", "agent": "main", "text": "Step one.", "html": "<p>Step one.</p>"}


@pytest.fixture
def pages(browser: Any, request: pytest.FixtureRequest) -> Iterator[Callable[[str], Any]]:
    """Opens a page of the built view over a run of the given status (each checked as it closes)."""
    with contextlib.ExitStack() as opened:

        def make(status: str) -> Any:
            traits = {**TRAITS, "status": status, "items": [PROMPT, ANSWER], "tree": []}
            return opened.enter_context(bundle_page(browser, traits, f"{request.node.name}-{status}"))

        yield make


def sent(page: Any) -> list[dict[str, Any]]:
    return page.evaluate("window.model.sent.filter((m) => m.type === 'follow_up' || m.type === 'steer')")


def kernel_says(page: Any, message: dict[str, Any]) -> None:
    page.evaluate(
        f"for (const fn of window.model.handlers['msg:custom'] || []) fn({json.dumps(message)}, [])"
    )


def test_send_and_enter_send_a_follow_up_and_shift_enter_is_a_new_line(pages: Any) -> None:
    from playwright.sync_api import expect

    page = pages("done")
    box = page.get_by_role("textbox", name="Follow-up prompt")
    send = page.get_by_role("button", name="Send")
    expect(send).to_be_visible()
    box.fill("And then?")
    box.press("Shift+Enter")
    box.press_sequentially("Keep it short.")
    assert sent(page) == []
    expect(box).to_have_value("And then?\nKeep it short.")
    box.press("Enter")
    assert sent(page) == [{"type": "follow_up", "prompt": "And then?\nKeep it short."}]
    expect(send).to_be_disabled()  # one message at a time, until the kernel answers
    kernel_says(page, {"type": "composed", "kind": "follow_up", "error": ""})
    expect(box).to_have_value("")
    box.fill("Anything else?")
    send.click()
    assert sent(page)[-1] == {"type": "follow_up", "prompt": "Anything else?"}


def test_the_box_steers_while_the_run_runs_and_shows_a_refusal_in_one_line(pages: Any) -> None:
    from playwright.sync_api import expect

    page = pages("running")
    box = page.get_by_role("textbox", name="Message to steer the running agent")
    steer = page.get_by_role("button", name="Steer")
    expect(steer).to_be_visible()
    box.fill("Focus on otters")
    steer.click()
    assert sent(page) == [{"type": "steer", "message": "Focus on otters"}]
    refusal = "Agent 'remote' cannot be steered: <b>deepnb steers the agents it builds</b>."
    kernel_says(page, {"type": "composed", "kind": "steer", "error": refusal})
    line = page.locator(".dnb-compose-said")
    expect(line).to_have_text(refusal)
    expect(line).to_have_class("dnb-compose-said dnb-error")
    assert page.locator(".dnb-compose-said b").count() == 0  # text, never markup
    expect(box).to_have_value("Focus on otters")  # a refused message stays to be sent again

    # the run ends; a follow-up starts and streams in the same view, the earlier turn above
    page.evaluate("window.model.update({status: 'done'})")
    expect(page.get_by_role("button", name="Send")).to_be_visible()
    turn = {
        "run_id": "run-1",
        "prompt": "Plan <img src=x onerror=alert(1)>",
        "status": "done",
        "head": "deepnb · agent researcher · thread t-a11y · done · 1 step",
        "answer_html": "<p>Step <strong>one</strong>.</p>",
        "error": "",
    }
    page.evaluate(
        "window.model.update({status: 'running', items: [{kind: 'prompt', id: 'p', agent: 'main', "
        f"text: 'And then?'}}], turns: [{json.dumps(turn)}], "
        "follow_up_cell: '%%deepagent -a researcher -t t-a11y'})"
    )
    earlier = page.get_by_role("list", name="Earlier turns of this conversation")
    expect(earlier.locator(".dnb-turn-prompt")).to_have_text("› Plan <img src=x onerror=alert(1)>")
    expect(earlier.locator(".dnb-turn-answer strong")).to_have_text("one")
    assert page.locator(".dnb-turns img").count() == 0
    expect(page.locator(".dnb-follow-up-cell code")).to_have_text("%%deepagent -a researcher -t t-a11y")
    expect(page.get_by_role("button", name="Steer")).to_be_visible()
