"""The experiment matrix in a real browser (JupyterLab 4): ``%%deepagent eval --bg`` shows a row
per question and a column per variant that fill in as runs end; a header sorts, the filter keeps
matching rows, a click on a cell opens that run's live view, whose approval card decides a run
that waits, Escape closes it, and the saved notebook holds the final static matrix."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.notebook_ui import (
    RUN_TIMEOUT,
    code_cell,
    collect_page_errors,
    expect,
    no_pwned,
    open_notebook,
    run_all,
    save_notebook,
    saved_output,
    wait_for_notebook_run,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

SETUP = """import deepnb
from deepnb.models.scripted import ScriptedChatModel, parse_script

def model(answers, gate=None):
    conversations = [{"match": q, "turns": [{"text": a}]} for q, a in answers.items()]
    if gate:
        conversations.insert(0, {"match": gate, "turns": [
            {"tool_calls": [{"name": "write_file", "args": {"file_path": "/a.md", "content": "ok"}}]},
            {"text": "Kenya."}]})
    return ScriptedChatModel(script=parse_script({"delay": 0.05, "agents": {"main": conversations}}))

right = {"Paris": "France.", "Lisbon": "Portugal.", "Nairobi": "Kenya."}
wrong = {"Paris": "<img src=x onerror=window.__pwned=1> Spain.", "Lisbon": "Portugal.", "Nairobi": "Chad."}
deepnb.agent(name="quiz", model=model(right))
variants = {
    "careful": {"model": model(right, gate="Nairobi"), "interrupt_on": {"write_file": True}},
    "hasty": model(wrong),
}
questions = [
    {"q": "Which country is Paris the capital of?", "reference": "France"},
    {"q": "Which country is Lisbon the capital of?", "reference": "Portugal"},
    {"q": "Which country is Nairobi the capital of?", "reference": "Kenya"},
]"""
EVAL = "%%deepagent eval questions -a quiz --variants variants --scorer contains -c 4 --bg -o exp\n{q}"


def test_the_matrix_sorts_filters_opens_a_run_and_saves_its_end(page: Any, jupyter_server: Any) -> None:
    errors = collect_page_errors(page)
    jupyter_server.put_notebook("experiment.ipynb", ["%load_ext deepnb", SETUP, EVAL])
    open_notebook(page, jupyter_server, "experiment.ipynb")
    run_all(page)
    wait_for_notebook_run(page)
    matrix = code_cell(page, "%%deepagent eval").locator(".deepnb-experiment")
    expect(matrix).to_be_visible(timeout=RUN_TIMEOUT)
    rows = matrix.locator(".dnb-experiment-row")
    expect(rows).to_have_count(3)
    hasty_paris = matrix.locator('[data-row="0"][data-variant="hasty"]')
    expect(hasty_paris).to_contain_text("contains 0.00", timeout=30_000)
    expect(hasty_paris).to_contain_text("<img src=x")  # as text
    waiting = matrix.locator('[data-row="2"][data-variant="careful"]')
    expect(waiting).to_contain_text("interrupted", timeout=30_000)

    # sort by the hasty column, best first: Lisbon (1.00) leads
    matrix.locator('.dnb-experiment-sort[data-column="2"]').click()
    expect(rows.nth(0)).to_contain_text("Lisbon")
    # filter by an answer's text
    matrix.locator(".dnb-experiment-filter").fill("chad")
    expect(rows).to_have_count(1)
    expect(rows.nth(0)).to_contain_text("Nairobi")
    matrix.locator(".dnb-experiment-filter").fill("")
    expect(rows).to_have_count(3)

    # the waiting run: open it, approve its write, and the cell is scored
    waiting.click()
    run_view = matrix.locator(".dnb-batch-detail .deepnb-run")
    expect(run_view).to_be_visible(timeout=30_000)
    run_view.locator('.dnb-approval button[data-act="approve"]').click()
    expect(waiting).to_contain_text("contains 1.00", timeout=30_000)
    waiting.press("Escape")
    expect(run_view).to_have_count(0)
    expect(matrix.locator(".dnb-experiment-title")).to_contain_text("6/6 done", timeout=30_000)
    expect(matrix.locator(".dnb-experiment-summary")).to_contain_text("careful")

    save_notebook(page)
    saved = saved_output(jupyter_server, "experiment.ipynb", 2, page=page)
    assert "application/vnd.jupyter.widget-view+json" not in saved
    html = "".join(saved["text/html"])
    assert "6/6 done" in html and 'aria-label="Experiment"' in html and "<img src=x" not in html
    no_pwned(page)
    assert not errors, errors
