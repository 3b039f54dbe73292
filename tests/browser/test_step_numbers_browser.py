"""One step numbering in a real browser: the built run view, drawn over the traits of a real run
(the second on its thread), shows in its header, on its fork chips and in its timeline the numbers
``%deepagent history`` lists, and each is one ``--at`` takes."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

import deepnb
from deepnb.views.run.run_view import RunView
from tests.browser.test_run_view_a11y_browser import TRAITS, bundle_page
from tests.unit.conftest import unique

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]


@pytest.fixture
def second_run() -> Iterator[Any]:
    workbench = deepnb.agent(name=unique("stepsui"), model="demo:quickstart")
    first = workbench.start("Write a brief about tide pools").wait(30)
    run = workbench.start("And another", thread=first.thread_id).wait(30)
    assert (first.status, run.status) == ("done", "done"), run.error
    yield run


def _traits(run: Any) -> dict[str, Any]:
    view = RunView(run)
    try:
        view._flush()
        state = view.get_state()
        return {**TRAITS, **{key: state[key] for key in TRAITS if key in state}, "timeline": view.timeline}
    finally:
        view.close()


def test_header_chips_timeline_and_history_show_the_steps_at_takes(browser: Any, second_run: Any) -> None:
    from playwright.sync_api import expect

    run = second_run
    history = run.workbench.history(run.thread_id)
    own = [step for step in history.fork_at if step > run.state.first_step]
    assert own == list(range(7, 13))
    with bundle_page(browser, _traits(run), "step-numbers") as page:
        expect(page.locator(".dnb-steps")).to_have_text("6 steps (7–12)")
        chips = page.locator(".dnb-step-fork")
        expect(chips).to_have_count(6)
        shown = [int(re.match(r"step (\d+)", t).group(1)) for t in chips.all_inner_texts()]
        assert shown == own
        page.locator("details.dnb-timeline summary").click()
        steps = page.get_by_role("list", name="Steps of the main agent").get_by_role("listitem")
        expect(steps).to_have_count(6)
        listed = [int(re.match(r"step (\d+)", t).group(1)) for t in steps.all_inner_texts()]
        assert listed == own
        chips.nth(2).click()
        sent = page.evaluate("window.model.sent.filter(m => m.type === 'fork')")
        assert sent == [{"type": "fork", "step": own[2]}]
    for step in own:  # what the chips send is what --at takes: the thread as that step left it
        forked = run.workbench.fork(run.thread_id, step)
        assert run.workbench.history(forked)[0].step == step
