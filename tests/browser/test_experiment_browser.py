"""The experiment matrix in a real browser (JupyterLab 4): ``%%deepagent eval --bg`` shows a row
per question and a column per variant that fill in as runs end; a header sorts, the filter keeps
matching rows, a click on a cell opens that run's live view, whose approval card decides a run
that waits, Escape closes it; a bar chart per scorer and the comparison with the baseline come
under it, a differing row's answer opening its run; and the saved notebook holds the final static
matrix. Structured outputs' fields are columns that sort and filter, in the dark theme too, where
the chart's bars and whiskers stay readable."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.test_reopen_browser import run_save_reopen
from tests.support.experiment_logs import finished_log
from tests.support.notebook_ui import (
    RUN_TIMEOUT,
    code_cell,
    collect_page_errors,
    expect,
    luminance,
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

    # the chart: a bar per variant with its value; careful answered all three right
    chart = matrix.locator('.dnb-experiment-chart[data-scorer="contains"]')
    expect(chart.locator(".dnb-experiment-chart-bar")).to_have_count(2)
    expect(chart.locator(".dnb-experiment-chart-bar").nth(0)).to_contain_text("careful", timeout=30_000)
    expect(chart.locator(".dnb-experiment-chart-value").nth(0)).to_contain_text(
        "1.00 [1.00, 1.00] n = 3 rows × 1 epoch"
    )
    # the comparison with the baseline (two variants: the first): a differing row's answer opens its run
    comparison = matrix.locator(".dnb-experiment-comparison")
    expect(comparison).to_contain_text("hasty against careful, per row")
    expect(comparison.locator(".dnb-experiment-compared")).to_contain_text("contains")
    differing = comparison.locator('.dnb-experiment-diff-run[data-run-row="2"][data-run-variant="hasty"]')
    expect(differing).to_contain_text("Chad.", timeout=30_000)
    differing.click()
    expect(run_view).to_be_visible(timeout=30_000)
    expect(run_view).to_contain_text("Chad.")
    differing.press("Escape")
    expect(run_view).to_have_count(0)

    save_notebook(page)
    saved = saved_output(jupyter_server, "experiment.ipynb", 2, page=page)
    assert "application/vnd.jupyter.widget-view+json" not in saved
    html = "".join(saved["text/html"])
    assert "6/6 done" in html and 'aria-label="Experiment"' in html and "<img src=x" not in html
    assert 'aria-label="contains by variant"' in html and "hasty against careful, per row" in html
    no_pwned(page)
    assert not errors, errors


STRUCTURED = """import deepnb
from pydantic import BaseModel
from deepnb.models.scripted import ScriptedChatModel, parse_script

class Verdict(BaseModel):
    country: str
    confidence: float

def model(answers):
    conversations = [
        {"match": q, "turns": [{"tool_calls": [{"name": "Verdict", "args": dict(country=c, confidence=p)}]}]}
        for q, (c, p) in answers.items()
    ]
    return ScriptedChatModel(script=parse_script({"agents": {"main": conversations}}))

def confident(output, reference, run):
    return run.output["confidence"]

def broken(output, reference, run):
    raise ValueError("<b>no</b>")

deepnb.agent(name="typed", model=model({"": ("?", 0.0)}))
variants = {
    "sure": {"model": model({"Paris": ("France", 0.9), "Lima": ("Peru", 0.8)}), "response_format": Verdict},
    "unsure": {"response_format": Verdict, "model": model(
        {"Paris": ("<img src=x onerror=window.__pwned=1>", 0.2), "Lima": ("Chile", 0.6)})},
}
exp = deepnb.experiment(["Paris", "Lima"], agent="typed", variants=variants, scorers=[confident, broken])
exp"""


def test_structured_fields_are_columns_and_the_chart_reads_in_the_dark_theme(
    page: Any, jupyter_server: Any, dark: None
) -> None:
    errors = collect_page_errors(page)
    jupyter_server.put_notebook("structured.ipynb", ["%load_ext deepnb", STRUCTURED])
    open_notebook(page, jupyter_server, "structured.ipynb")
    run_all(page)
    wait_for_notebook_run(page)
    matrix = code_cell(page, "exp = deepnb.experiment").locator(".deepnb-experiment")
    expect(matrix.locator(".dnb-experiment-title")).to_contain_text("4/4 done", timeout=RUN_TIMEOUT)
    heads = matrix.locator(".dnb-experiment-grid th")
    expect(heads).to_have_text(
        [
            "Row",
            "sure",
            "sure · country",
            "sure · confidence",
            "unsure",
            "unsure · country",
            "unsure · confidence",
        ]
    )
    rows = matrix.locator(".dnb-experiment-row")
    expect(rows.nth(0).locator(".dnb-experiment-field").nth(2)).to_have_text(
        "<img src=x onerror=window.__pwned=1>"
    )
    # sort by unsure's confidence (a number, low first), then reversed
    heads.nth(6).click()
    expect(rows.nth(0)).to_contain_text("Paris")
    heads.nth(6).click()
    expect(rows.nth(0)).to_contain_text("Lima")
    matrix.locator(".dnb-experiment-filter").fill("chile")
    expect(rows).to_have_count(1)
    expect(rows.nth(0)).to_contain_text("Lima")

    # a chart per scorer; the one whose every score is an error says so
    expect(
        matrix.locator('.dnb-experiment-chart[data-scorer="broken"] .dnb-experiment-chart-note')
    ).to_contain_text("Every score is an error (4)", timeout=30_000)
    chart = matrix.locator('.dnb-experiment-chart[data-scorer="confident"]')
    expect(chart.locator(".dnb-experiment-chart-value").nth(0)).to_contain_text("0.85 [")
    colours = (
        chart.locator(".dnb-experiment-chart-bar")
        .nth(0)
        .evaluate(
            """(bar) => {
          const style = (cls) => getComputedStyle(bar.querySelector(cls));
          return {track: style(".dnb-experiment-chart-track").backgroundColor,
                  whisker: style(".dnb-experiment-chart-whisker").backgroundColor,
                  value: style(".dnb-experiment-chart-value").color,
                  fill: style(".dnb-experiment-chart-fill").backgroundColor};
        }"""
        )
    )
    assert luminance(colours["track"]) < 0.3, colours  # the dark theme's, not a light grey
    assert luminance(colours["whisker"]) > 0.6 and luminance(colours["value"]) > 0.6, colours
    assert colours["fill"] != colours["track"], colours
    no_pwned(page)
    assert not errors, errors


REOPEN = """exp = deepnb.experiment(questions, agent="quiz", variants={"hasty": variants["hasty"]},
                        scorers=[deepnb.scorers.contains], log="reopened.jsonl").wait(60)
again = deepnb.load_experiment("reopened.jsonl")
again"""


def test_a_reopened_matrix_opens_a_logged_run_read_only(page: Any, jupyter_server: Any) -> None:
    """A matrix reopened from its log opens a cell's run as the log keeps it (its conversation and
    score, read-only, the model's text as text), and Escape closes it. A log of 150 rows is paged:
    the pager says which rows the matrix shows and brings the next page from the kernel."""
    errors = collect_page_errors(page)
    finished_log(jupyter_server.root, 150, name="long")
    long = 'deepnb.load_experiment("long.jsonl")'
    jupyter_server.put_notebook("reopened.ipynb", ["%load_ext deepnb", SETUP, REOPEN, long])
    open_notebook(page, jupyter_server, "reopened.ipynb")
    run_all(page)
    wait_for_notebook_run(page)
    matrix = code_cell(page, "reopened.jsonl").locator(".deepnb-experiment")
    expect(matrix.locator(".dnb-experiment-row")).to_have_count(3, timeout=RUN_TIMEOUT)
    paris = matrix.locator('[data-row="0"][data-variant="hasty"]')
    paris.click()
    record = matrix.locator(".dnb-batch-detail .dnb-logged")
    expect(record).to_be_visible(timeout=30_000)
    expect(record).to_contain_text("Run (row 0, hasty, epoch 0): done")
    expect(record).to_contain_text("read-only")
    expect(record).to_contain_text("contains: 0.00")
    expect(record).to_contain_text("Which country is Paris the capital of?")
    expect(record).to_contain_text("<img src=x onerror=window.__pwned=1> Spain.")  # as text
    paris.press("Escape")
    expect(record).to_have_count(0)

    paged = code_cell(page, "long.jsonl").locator(".deepnb-experiment")
    pager = paged.locator(".dnb-experiment-pager")
    expect(pager).to_contain_text("Rows 1–100 of 150", timeout=RUN_TIMEOUT)
    expect(paged.locator(".dnb-experiment-row")).to_have_count(100)
    expect(pager.locator(".dnb-experiment-previous")).to_be_disabled()
    pager.locator(".dnb-experiment-next").click()
    expect(pager).to_contain_text("Rows 101–150 of 150")
    expect(paged.locator(".dnb-experiment-row")).to_have_count(50)
    expect(paged.locator('.dnb-experiment-cell[data-row="149"][data-variant="b"]')).to_be_visible()
    expect(pager.locator(".dnb-experiment-next")).to_be_disabled()
    no_pwned(page)
    assert not errors, errors


def test_a_saved_matrix_reopens_readable_once_its_kernel_is_gone(
    page: Any, jupyter_server: Any, artifact: Any
) -> None:
    """Saved, the kernel shut down and the notebook opened again: the matrix is its static
    snapshot (scores, structured fields, the model's text as text), in JupyterLab and as
    nbconvert's HTML, never "model not found"."""
    errors = collect_page_errors(page)
    jupyter_server.put_notebook("matrix-reopen.ipynb", ["%load_ext deepnb", STRUCTURED])
    views = (("deepnb.experiment(", "4/4 done"),)
    run_save_reopen(page, jupyter_server, "matrix-reopen.ipynb", views, lab=True, artifact=artifact)
    reopened = code_cell(page, "deepnb.experiment(").locator(".jp-OutputArea-output").first
    expect(reopened).to_contain_text("confident")
    expect(reopened).to_contain_text("<img src=x onerror=window.__pwned=1>")  # as text
    expect(reopened.locator(".dnb-experiment-filter")).to_have_count(0)  # no live matrix: its snapshot
    no_pwned(page)
    assert not errors, errors
