"""Reviewing an experiment in JupyterLab 4 as a researcher does, keyboard only: the matrix's
scores coloured and written out (a mark and a word beside each colour), an epoch strip per cell;
failures only, scorer, variant, status and text filters; a cell opening its sample view at its
top (row, variant and epoch; input, reference and answer as Markdown with the model's HTML as
text; each score with the judge's reasoning; tokens, cost, time, cache hits) with previous /
next and the row's other epochs and variants; a person's grade saved from it, shown as human,
there again when the log is reopened; Escape and Close closing it, the focus back on its cell;
the summary and comparison tables' headers apart and inside their card; screenshots in both
themes under ``docs/images/``."""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

import pytest

from tests.browser.test_screenshots_browser import set_theme
from tests.support.notebook_ui import (
    RUN_TIMEOUT,
    code_cell,
    collect_page_errors,
    expect,
    menu,
    no_pwned,
    open_notebook,
    run_all,
    scroll_to,
    select_cell,
    wait_for_notebook_run,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images"

SETUP = """import deepnb
from deepnb.models.scripted import ScriptedChatModel, parse_script

def model(answers):
    conversations = [{"match": q, "turns": [{"text": a}]} for q, a in answers.items()]
    return ScriptedChatModel(script=parse_script({"agents": {"main": conversations}}))

def judge(output, reference, run):
    named = reference.lower() in (output or "").lower()
    verdict = "names" if named else "does not name"
    return {"score": 1.0 if named else 0.0,
            "comment": f"The answer {verdict} {reference}. <b>not bold</b>"}

right = {"Paris": "**France**, of course.", "Lisbon": "Portugal.", "Nairobi": "Kenya."}
wrong = {"Paris": "**Spain** <img src=x onerror=window.__pwned=1>", "Lisbon": "Portugal.",
         "Nairobi": "Chad.\\n\\n- a list item"}
deepnb.agent(name="quiz", model=model(right))
questions = [
    {"q": "Which country is Paris the capital of?", "reference": "France"},
    {"q": "Which country is Lisbon the capital of?", "reference": "Portugal"},
    {"q": "Which country is Nairobi the capital of?", "reference": "Kenya"},
]
exp = deepnb.experiment(questions, agent="quiz", variants={"careful": model(right), "hasty": model(wrong)},
                        scorers=[judge], epochs=2, template="{q}", log="review.jsonl", name="review")
exp.wait(60)
exp"""
SUMMARY = "exp.summary()"
COMPARE = 'exp.compare("hasty", "careful")'
REOPEN = """again = deepnb.load_experiment("review.jsonl")
again"""


def _cell(matrix: Any, row: int, variant: str) -> Any:
    return matrix.locator(f'.dnb-experiment-cell[data-row="{row}"][data-variant="{variant}"]')


def _apart(table: Any) -> None:
    """No two header cells of ``table`` overlap, none's text runs out of it, and the table stays
    inside its view's card."""
    boxes = table.locator("th").evaluate_all(
        "(ths) => ths.map((th) => { const r = th.getBoundingClientRect(); return [r.left, r.right, r.top]; })"
    )
    spilled = table.locator("th").evaluate_all(
        "(ths) => ths.filter((th) => th.scrollWidth > th.clientWidth + 1).map((th) => th.textContent)"
    )
    assert not spilled, f"header text runs out of its cell: {spilled}"
    for (_left, right, top), (next_left, _, next_top) in itertools.pairwise(boxes):
        if abs(top - next_top) < 1:
            assert right <= next_left + 1, boxes
    inside = table.evaluate(
        """(t) => { const card = t.closest('.deepnb-experiment').getBoundingClientRect();
                    const scroller = t.closest('.dnb-experiment-scroll') || t;
                    const box = scroller.getBoundingClientRect();
                    return box.left >= card.left - 1 && box.right <= card.right + 1; }"""
    )
    assert inside, "the table overflows its card"


def test_review_an_experiment_by_keyboard_grade_a_sample_and_reopen(page: Any, jupyter_server: Any) -> None:
    errors = collect_page_errors(page)
    page.set_viewport_size({"width": 1100, "height": 1400})
    jupyter_server.put_notebook("review.ipynb", ["%load_ext deepnb", SETUP, SUMMARY, COMPARE, REOPEN])
    open_notebook(page, jupyter_server, "review.ipynb")
    run_all(page)
    wait_for_notebook_run(page)
    matrix = code_cell(page, "exp = deepnb.experiment").locator(".deepnb-experiment")
    expect(matrix.locator(".dnb-experiment-title")).to_contain_text("12/12 done", timeout=RUN_TIMEOUT)
    rows = matrix.locator(".dnb-experiment-row")
    expect(rows).to_have_count(3)

    # each score written out beside its colour; an epoch strip per cell
    paris = _cell(matrix, 0, "hasty")
    expect(paris.locator(".dnb-experiment-score")).to_have_text("✗ judge 0.00 fail")
    expect(paris.locator(".dnb-experiment-score")).to_have_attribute("data-verdict", "fail")
    expect(_cell(matrix, 0, "careful").locator(".dnb-experiment-score")).to_have_text("✓ judge 1.00 pass")
    expect(paris.locator(".dnb-experiment-epoch")).to_have_text(["✗ e0", "✗ e1"])
    colours = matrix.locator(".dnb-experiment-score").evaluate_all(
        "(badges) => badges.map((b) => getComputedStyle(b).backgroundColor)"
    )
    assert len(set(colours)) == 2, colours  # pass and fail differ

    # the summary and comparison: headers apart, inside the card
    expect(matrix.locator(".dnb-experiment-summary")).to_contain_text("hasty", timeout=30_000)
    _apart(matrix.locator(".dnb-experiment-summary"))
    expect(matrix.locator(".dnb-experiment-compared")).to_contain_text("judge", timeout=30_000)
    _apart(matrix.locator(".dnb-experiment-compared"))

    # narrow, and as static HTML (JupyterLab's rendered-HTML tables are fixed-layout): the same
    page.set_viewport_size({"width": 760, "height": 1400})
    _apart(matrix.locator(".dnb-experiment-summary"))
    _apart(matrix.locator(".dnb-experiment-compared"))
    page.screenshot(path="/tmp/review-narrow.png", full_page=True)
    for source in (SUMMARY, COMPARE):
        static = code_cell(page, source).locator(".deepnb-experiment table").first
        scroll_to(static)
        static.screenshot(path=f"/tmp/review-static-{source[4:11]}.png")
        _apart(static)
    page.set_viewport_size({"width": 1100, "height": 1400})

    # filters: failures only, then by variant, status and text
    matrix.locator(".dnb-experiment-failures").check()
    expect(rows).to_have_count(2)  # Paris and Nairobi: hasty fails them
    matrix.locator(".dnb-experiment-by-variant").select_option("careful")
    expect(rows).to_have_count(0)
    expect(matrix.locator(".dnb-experiment-grid th")).to_have_text(["Row", "careful"])
    matrix.locator(".dnb-experiment-by-variant").select_option("")
    matrix.locator(".dnb-experiment-failures").uncheck()
    matrix.locator(".dnb-experiment-by-status").select_option("done")
    expect(rows).to_have_count(3)
    matrix.locator(".dnb-experiment-by-status").select_option("")
    matrix.locator(".dnb-experiment-filter").fill("chad")
    expect(rows).to_have_count(1)
    matrix.locator(".dnb-experiment-filter").fill("")
    expect(rows).to_have_count(3)

    # keyboard only: a cell opens its sample, at its top, the focus on its title
    paris.focus()
    page.keyboard.press("Enter")
    sample = matrix.locator(".dnb-experiment-sample")
    title = sample.locator(".dnb-sample-title")
    expect(title).to_have_text("Row 0 · hasty · epoch 0", timeout=30_000)
    expect(title).to_be_focused()
    expect(title).to_be_in_viewport()
    expect(sample.locator(".dnb-sample-input")).to_contain_text("Which country is Paris the capital of?")
    expect(sample.locator(".dnb-sample-reference")).to_contain_text("France")
    answer = sample.locator(".dnb-sample-answer .dnb-md")
    expect(answer.locator("strong")).to_have_text("Spain")  # Markdown rendered
    expect(answer).to_contain_text("<img src=x onerror=window.__pwned=1>")  # the model's HTML as text
    expect(sample.locator('.dnb-sample-scores tr[data-scorer="judge"]')).to_contain_text(
        "The answer does not name France. <b>not bold</b>"
    )
    expect(sample.locator(".dnb-sample-measures")).to_contain_text("Tokens in / out")
    expect(sample.locator(".dnb-sample-measures")).to_contain_text("Cache hits")
    expect(matrix.locator(".dnb-batch-detail .deepnb-run")).to_be_visible(timeout=30_000)  # the run below

    # the other epoch, the other variant, next: by keyboard
    sample.locator('.dnb-sample-epochs [data-open-epoch="1"]').focus()
    page.keyboard.press("Enter")
    expect(title).to_have_text("Row 0 · hasty · epoch 1", timeout=30_000)
    sample.locator('.dnb-sample-variants [data-open-variant="careful"]').focus()
    page.keyboard.press("Enter")
    expect(title).to_have_text("Row 0 · careful · epoch 1", timeout=30_000)
    sample.locator(".dnb-sample-next").focus()
    page.keyboard.press("Enter")
    expect(title).to_have_text("Row 0 · hasty · epoch 0", timeout=30_000)  # row by row, variant, epoch
    sample.locator(".dnb-sample-prev").focus()
    page.keyboard.press("Enter")
    expect(title).to_have_text("Row 0 · careful · epoch 1", timeout=30_000)

    # a person's grade: Paris by hasty, epoch 0, the judge overruled by keyboard
    paris.locator('.dnb-experiment-epoch[data-epoch="0"]').focus()
    page.keyboard.press("Enter")
    expect(title).to_have_text("Row 0 · hasty · epoch 0", timeout=30_000)
    form = sample.locator(".dnb-sample-grade")
    form.locator(".dnb-sample-grade-scorer").select_option("judge")
    form.locator(".dnb-sample-grade-pass").focus()
    page.keyboard.press("Enter")
    expect(form.locator(".dnb-sample-grade-score")).to_have_value("1")
    form.locator(".dnb-sample-grade-comment").focus()
    page.keyboard.type("Spain is wrong, but the judge <script>missed</script> the joke.")
    form.locator(".dnb-sample-grade-save").focus()
    page.keyboard.press("Enter")
    expect(form.locator(".dnb-sample-grade-status")).to_contain_text(
        "Saved: judge = 1.00 (human)", timeout=30_000
    )
    judged = sample.locator('.dnb-sample-scores tr[data-scorer="judge"]')
    expect(judged).to_contain_text("human")
    expect(judged).to_contain_text("the judge <script>missed</script> the joke")
    expect(paris.locator(".dnb-experiment-epoch")).to_have_text(["✓ e0", "✗ e1"])
    expect(paris.locator(".dnb-experiment-score")).to_have_text("✓ judge 0.50 pass (human)")

    page.set_viewport_size({"width": 1100, "height": 3200})  # the whole view in its screenshot
    IMAGES.mkdir(parents=True, exist_ok=True)
    for theme, label in (("JupyterLab Light", "light"), ("JupyterLab Dark", "dark")):
        set_theme(page, theme)
        scroll_to(matrix)
        matrix.screenshot(path=str(IMAGES / f"experiment-review-{label}.png"))
        _apart(matrix.locator(".dnb-experiment-summary"))
    set_theme(page, "JupyterLab Light")
    page.set_viewport_size({"width": 1100, "height": 1400})

    # Escape closes it, the focus back on the cell it came from
    title.focus()
    page.keyboard.press("Escape")
    expect(sample).to_be_hidden(timeout=30_000)
    expect(matrix.locator(".dnb-batch-detail .deepnb-run")).to_have_count(0)
    expect(paris).to_be_focused()
    # and Close does too
    page.keyboard.press("Enter")
    expect(title).to_have_text(re.compile(r"^Row 0 · hasty · epoch \d$"), timeout=30_000)
    sample.locator(".dnb-sample-close").click()
    expect(sample).to_be_hidden(timeout=30_000)

    # reopened from its log (its cell run again, after the grade): the grade is there, as human
    loading = code_cell(page, "again = deepnb.load_experiment")
    expect(_cell(loading, 0, "hasty").locator(".dnb-experiment-score")).to_have_text("✗ judge 0.00 fail")
    select_cell(loading)
    menu(page, "Run", "Run Selected Cell and Do not Advance")
    again = loading.locator(".deepnb-experiment")
    reopened = _cell(again, 0, "hasty")
    expect(reopened.locator(".dnb-experiment-score")).to_have_text(
        "✓ judge 0.50 pass (human)", timeout=RUN_TIMEOUT
    )
    reopened.locator('.dnb-experiment-epoch[data-epoch="0"]').click()
    again_sample = again.locator(".dnb-experiment-sample")
    expect(again_sample.locator(".dnb-sample-title")).to_have_text("Row 0 · hasty · epoch 0", timeout=30_000)
    expect(again_sample.locator('.dnb-sample-scores tr[data-scorer="judge"]')).to_contain_text("human")
    expect(again_sample.locator('.dnb-sample-scores tr[data-scorer="judge"]')).to_contain_text(
        "the judge <script>missed</script> the joke"
    )
    no_pwned(page)
    assert not errors, errors
