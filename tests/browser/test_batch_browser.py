"""The batch grid in a real browser (JupyterLab 4): ``%%deepagent map --bg`` shows a row per
input that fills in as the runs go, a click on a row opens that run's live view below the grid
(Escape closes it), "Stop all" stops every run and drops the queued inputs, and the rows sort by
a header's column and filter by text."""

from __future__ import annotations

import re
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
    wait_for_notebook_run,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

SETUP = """import deepnb
from deepnb.models.scripted import ScriptedChatModel, parse_script
words = " ".join(f"w{i}" for i in range(40))
answer = "<img src=x onerror=window.__pwned=1> " + words
script = {"delay": 0.2, "agents": {"main": [{"turns": [{"text": answer}]}]}}
deepnb.agent(name="grid", model=ScriptedChatModel(script=parse_script(script)))
topics = ["tides", "kelp", "crabs", "gulls", "otters"]"""
MAP = "%%deepagent map topics -c 2 -a grid --bg -o batch\nWrite about {input}"


def test_the_grid_shows_rows_opens_a_run_and_stops_them_all(page: Any, jupyter_server: Any) -> None:
    errors = collect_page_errors(page)
    jupyter_server.put_notebook("batch.ipynb", ["%load_ext deepnb", SETUP, MAP])
    open_notebook(page, jupyter_server, "batch.ipynb")
    run_all(page)
    wait_for_notebook_run(page)
    grid = code_cell(page, "%%deepagent map").locator(".deepnb-batch")
    expect(grid).to_be_visible(timeout=RUN_TIMEOUT)
    rows = grid.locator(".dnb-batch-row")
    expect(rows).to_have_count(5)
    expect(rows.nth(0)).to_contain_text("Write about tides")
    expect(rows.nth(0)).to_have_attribute("data-status", "running", timeout=30_000)
    expect(rows.nth(4)).to_have_attribute("data-status", "queued")

    rows.nth(0).click()
    run_view = grid.locator(".dnb-batch-detail .deepnb-run")
    expect(run_view).to_be_visible(timeout=30_000)
    expect(rows.nth(0)).to_have_attribute("aria-selected", "true")
    expect(run_view).to_contain_text("Write about tides")
    rows.nth(0).press("Escape")
    expect(run_view).to_have_count(0, timeout=30_000)
    expect(rows.nth(0)).not_to_have_attribute("aria-selected", "true")

    grid.locator(".dnb-batch-stop").click()
    for index in range(5):
        expect(rows.nth(index)).to_have_attribute(
            "data-status", re.compile("^(cancelled|done)$"), timeout=30_000
        )
    expect(rows.nth(4)).to_have_attribute("data-status", "cancelled")
    expect(grid.locator(".dnb-batch-counts")).to_contain_text("5 of 5 runs ended", timeout=30_000)
    expect(grid.locator(".dnb-batch-stop")).to_be_disabled()

    inputs = grid.locator(".dnb-batch-row td:nth-child(2)")
    grid.locator("th", has_text="Input").click()
    expect(inputs).to_have_text(
        [f"Write about {t}" for t in sorted(["tides", "kelp", "crabs", "gulls", "otters"])]
    )
    grid.locator("th", has_text="Input").click()
    expect(grid.locator("th", has_text="Input")).to_have_attribute("aria-sort", "descending")
    expect(inputs.first).to_have_text("Write about tides")
    grid.locator(".dnb-batch-filter").fill("OTTERS")
    expect(grid.locator(".dnb-batch-row:visible")).to_have_count(1)
    expect(grid.locator(".dnb-batch-row:visible")).to_contain_text("Write about otters")
    grid.locator(".dnb-batch-filter").fill("")
    expect(grid.locator(".dnb-batch-row:visible")).to_have_count(5)
    no_pwned(page)
    assert not errors, errors
