"""Continuing a run from its view in a real browser (JupyterLab 4): once the run has ended, typing a
follow-up in the box under it and pressing Enter sends it as a widget message while no cell runs;
the new run streams in the same view below the first turn, ``run.follow_ups`` holds it, and the
saved notebook's output shows both turns."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.notebook_ui import (
    RUN_TIMEOUT,
    code_cell,
    collect_page_errors,
    expect,
    menu,
    no_pwned,
    open_notebook,
    output_text,
    save_notebook,
    saved_output,
    select_cell,
    wait_for_cell,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

SCRIPT = (
    "open('talk.yaml', 'w').write('''agents:\n"
    "  main:\n"
    "    - match: Plan\n"
    '      turns: ["Step one: pack."]\n'
    "    - match: then\n"
    '      turns: ["Step two: go."]\n'
    "''')"
)
AGENT = "%%deepagent -m scripted:talk.yaml -a box --new -o run\nPlan a trip"
CHECK = "print(run.result, [r.result for r in run.follow_ups])"


def test_a_follow_up_typed_in_the_box_streams_in_the_same_view(page: Any, jupyter_server: Any) -> None:
    errors = collect_page_errors(page)
    jupyter_server.put_notebook("follow_up.ipynb", ["%load_ext deepnb", SCRIPT, AGENT, CHECK])
    open_notebook(page, jupyter_server, "follow_up.ipynb")
    check = code_cell(page, "print(run.result")
    select_cell(check)
    menu(page, "Run", "Run All Above Selected Cell")

    agent_cell = code_cell(page, "%%deepagent")
    view = agent_cell.locator(".deepnb-run")
    expect(view).to_have_attribute("data-status", "done", timeout=RUN_TIMEOUT)
    wait_for_cell(agent_cell)  # no cell runs: the box's message is handled at once
    box = view.get_by_role("textbox", name="Follow-up prompt")
    expect(view.get_by_role("button", name="Send")).to_be_visible()
    box.fill("And then?")
    box.press("Enter")

    earlier = view.get_by_role("list", name="Earlier turns of this conversation")
    expect(earlier.locator(".dnb-turn-prompt")).to_have_text("› Plan a trip", timeout=RUN_TIMEOUT)
    expect(earlier.locator(".dnb-turn-answer")).to_contain_text("Step one: pack.")
    expect(view.locator(".dnb-transcript")).to_contain_text("Step two: go.", timeout=RUN_TIMEOUT)
    expect(view).to_have_attribute("data-status", "done")
    expect(box).to_have_value("")
    expect(view.locator(".dnb-follow-up-cell code")).to_contain_text("%%deepagent -a box -t ")
    assert page.locator(".deepnb-run").count() == 1, "the follow-up opened no other view"

    select_cell(check)
    menu(page, "Run", "Run Selected Cell and Do not Advance")
    wait_for_cell(check)
    assert output_text(check).strip() == "Step one: pack. ['Step two: go.']", output_text(check)

    save_notebook(page)
    saved = saved_output(jupyter_server, "follow_up.ipynb", 2, page=page)["text/plain"]
    saved = "".join(saved) if isinstance(saved, list) else saved
    assert saved.index("Plan a trip") < saved.index("Follow-up 1") < saved.index("Step two: go."), saved
    no_pwned(page)
    assert errors == [], errors
