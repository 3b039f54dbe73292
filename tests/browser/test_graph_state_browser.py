"""The run view's Graph tab and step state panel in a real browser (JupyterLab 4), against a real
kernel: the agent's graph drawn with the node that runs lit (its tool held by a gate) and the
path outlined once the run ended; a timeline step's state with what it changed; an edited file
and Run from here, whose new run reads the edited content while the original thread keeps its
own; ``%deepagent history``'s rows, a step of which opens its state read-only; the saved notebook
keeps the drawing as SVG. Model text in a node name or a state value is shown as text."""

from __future__ import annotations

import re
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

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

SCRIPT = (
    "open('lit.yaml', 'w').write('''agents:\n"
    "  main:\n"
    "    - text: 'Noting <img src=x onerror=\"window.__pwned=1\">.'\n"
    "      tool_calls:\n"
    '        - {name: write_file, args: {file_path: /notes.md, content: "The launch is in June.\\\\n"}}\n'
    "    - text: Looking it up.\n"
    "      tool_calls: [{name: slow_lookup, args: {topic: launch}}]\n"
    "    - text: Reading.\n"
    "      tool_calls: [{name: read_file, args: {file_path: /notes.md}}]\n"
    "    - Done.\n"
    "''')"
)
AGENT = (
    "import threading, deepnb\n"
    "gate = threading.Event()\n"
    "def slow_lookup(topic: str) -> str:\n"
    '    """Look a topic up (slowly)."""\n'
    "    gate.wait(120)\n"
    "    return 'looked up ' + topic\n"
    "lit = deepnb.agent('lit', model='scripted:lit.yaml', tools=[slow_lookup])"
)
RUN = "%%deepagent -a lit --new --bg -o run\nPlan the launch"
RELEASE = "gate.set()"
CHECK = (
    "forked = lit.threads()[0].thread_id\n"
    "def reads(t):\n"
    "    said = lit.state_values(t)['messages']\n"
    "    return [m.content for m in said if getattr(m, 'name', '') == 'read_file']\n"
    "print(forked != run.thread_id, 'May' in reads(forked)[-1], 'June' in reads(run.thread_id)[-1])"
)
HISTORY = "%deepagent history -a lit -t {run.thread_id}"


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_graph_lights_the_running_node_and_a_step_edited_runs_on(
    page: Any, jupyter_server: Any, theme: str, request: pytest.FixtureRequest
) -> None:
    if theme == "dark":
        request.getfixturevalue("dark")  # set before the notebook opens: JupyterLab reads it on load
    errors = collect_page_errors(page)
    name = f"graph_state_{theme}.ipynb"  # its own file: the other theme's page may still hold its own
    jupyter_server.put_notebook(name, ["%load_ext deepnb", SCRIPT, AGENT, RUN, RELEASE, CHECK, HISTORY])
    open_notebook(page, jupyter_server, name)
    select_cell(code_cell(page, RELEASE))
    menu(page, "Run", "Run All Above Selected Cell")

    run_cell = code_cell(page, "%%deepagent")
    view = run_cell.locator(".deepnb-run")
    expect(view).to_be_visible(timeout=RUN_TIMEOUT)
    wait_for_cell(run_cell)  # --bg: the cell returned, the kernel answers the view's messages
    view.get_by_role("tab", name="Graph").click()
    drawing = view.locator(".dnb-graph-drawing svg")
    tools = drawing.locator('g.dnb-node[data-node="tools"]')
    expect(tools).to_have_class(re.compile(r"\bdnb-active\b"), timeout=RUN_TIMEOUT)  # lit
    expect(view.locator(".dnb-graph-running")).to_have_text("Running now: tools (slow_lookup)")
    expect(drawing.locator('g.dnb-node[data-node="model"]')).to_have_class(re.compile(r"\bdnb-visited\b"))
    tools.scroll_into_view_if_needed()
    view.locator(".dnb-panels").screenshot(path=f"docs/images/run-graph-tab-{theme}.png")

    release = code_cell(page, RELEASE)
    select_cell(release)
    menu(page, "Run", "Run Selected Cell and Do not Advance")
    expect(view).to_have_attribute("data-status", "done", timeout=RUN_TIMEOUT)
    expect(drawing.locator('g.dnb-node[data-node="__end__"]')).to_have_class(
        re.compile(r"\bdnb-visited\b"), timeout=RUN_TIMEOUT
    )
    expect(drawing.locator("g.dnb-node.dnb-active")).to_have_count(0)
    expect(view.locator(".dnb-graph-running")).to_have_text("Nothing runs now.")

    view.locator(".dnb-timeline-title").click()  # the timeline opens: each step has its State
    view.locator('.dnb-tl-state[data-state-step="1"]').click()
    panel = view.locator(".dnb-step-panel")
    expect(panel.locator(".dnb-step-where")).to_contain_text("1 of 4", timeout=RUN_TIMEOUT)
    diff = panel.locator(".dnb-step-diff")
    expect(diff).to_contain_text("from the start to step 1")
    expect(diff.locator(".dnb-add")).to_contain_text("+The launch is in June.")
    expect(panel.locator(".dnb-step-message").nth(1)).to_contain_text(
        'Noting <img src=x onerror="window.__pwned=1">.'
    )
    panel.locator(".dnb-step-file summary").click()
    panel.locator(".dnb-step-edit-file").click()
    editor = panel.get_by_role("textbox", name="Text of /notes.md")
    editor.fill("The launch is in May.\n")
    expect(panel.locator(".dnb-step-result")).to_have_text("1 edit to run from step 1")
    panel.screenshot(path=f"docs/images/run-step-state-{theme}.png")
    panel.get_by_role("button", name="Run from here").click()
    expect(panel.locator(".dnb-step-result")).to_contain_text(
        "forked from step 1 of thread", timeout=RUN_TIMEOUT
    )
    expect(view).to_have_attribute("data-status", "done", timeout=RUN_TIMEOUT)

    check = code_cell(page, "forked = ")
    select_cell(check)
    menu(page, "Run", "Run Selected Cell and Do not Advance")
    wait_for_cell(check)
    assert output_text(check).strip() == "True True True", output_text(check)

    history = code_cell(page, "%deepagent history")  # the original thread's steps, each opening its state
    select_cell(history)
    menu(page, "Run", "Run Selected Cell and Do not Advance")
    rows = history.locator(".deepnb-history .dnb-history-row")
    expect(rows).to_have_count(4, timeout=RUN_TIMEOUT)
    expect(rows.nth(0).locator(".dnb-history-did")).to_contain_text("window.__pwned")  # as text
    rows.nth(0).get_by_role("button", name="State").click()
    opened = history.locator(".dnb-step-panel")
    expect(opened.locator(".dnb-step-where")).to_contain_text("1 of 4", timeout=RUN_TIMEOUT)
    expect(opened.locator(".dnb-step-diff .dnb-add")).to_contain_text("+The launch is in June.")
    expect(opened.locator(".dnb-step-edit-file")).to_have_count(0)  # it only reads
    expect(opened.get_by_role("button", name="Run from here")).to_be_hidden()
    expect(history.locator(".dnb-history-fork")).to_contain_text("%deepagent fork")
    history.locator(".deepnb-history").screenshot(path=f"docs/images/history-step-state-{theme}.png")

    save_notebook(page)
    saved = saved_output(jupyter_server, name, 3, page=page)
    html = "".join(saved["text/html"]) if isinstance(saved["text/html"], list) else saved["text/html"]
    assert 'class="deepnb-graph"' in html and "dnb-visited" in html, "the drawing is kept as SVG"
    no_pwned(page)
    assert errors == [], errors
