"""deepnb's static tables (listings, history, files, async tasks, an agent's anatomy, a batch, an
experiment's matrix, summary and comparisons) read as they should in JupyterLab's output area,
which right-aligns every cell: each cell carries its alignment, trusted or not (an untrusted
notebook keeps inline styles, not a ``<style>``): text to the left, numbers of a batch to the
right."""

from __future__ import annotations

import functools
import tempfile
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

import deepnb
from deepnb import scorers
from deepnb.engine.files.sources import Entry
from deepnb.many.experiment import Experiment
from deepnb.views.batch.batch_rows import batch_html
from deepnb.views.experiment.experiment_view import comparison_html, experiment_html, summary_html
from deepnb.views.history_view import history_table
from deepnb.views.listings import Table, async_tasks_html, files_html
from tests.unit.conftest import unique


class _Cells(HTMLParser):
    """The inline style and classes of every cell of every table."""

    def __init__(self) -> None:
        super().__init__()
        self.tables = 0
        self.cells: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "table":
            self.tables += 1
        if tag in ("td", "th") and self.tables:
            self.cells.append((found.get("style") or "", found.get("class") or ""))


def _anatomy() -> str:
    workbench = deepnb.agent(name=unique("tables"), model="demo:quickstart")
    return str(workbench.inspect()._repr_html_())


def _history() -> str:
    workbench = deepnb.agent(name=unique("tables"), model="demo:quickstart")
    run = workbench.start("Write a brief about tide pools").wait(30)
    return str(history_table(workbench.history(run.thread_id))._repr_html_())


def _batch() -> str:
    workbench = deepnb.agent(name=unique("tables"), model="demo:quickstart")
    batch = workbench.map(["Write a brief about tide pools", "Write a brief about kelp"]).wait(60)
    return batch_html(batch)


@functools.cache
def _experiment() -> Experiment:
    agent = unique("tables")
    deepnb.agent(name=agent, model="demo:quickstart")
    return deepnb.experiment(
        ["Write a brief about tide pools", "Write a brief about kelp"],
        agent=agent,
        variants={"plain": {}, "terse": {"system_prompt": "Be brief."}},
        scorers=[scorers.contains],
        log=Path(tempfile.mkdtemp()) / "log.jsonl",
    ).wait(120)


TABLES: dict[str, Any] = {
    "a listing (threads, agents)": lambda: Table(("thread", "steps"), (("t1", 6),))._repr_html_(),
    "history": _history,
    "files": lambda: files_html([Entry("/notes/a.md", size=12, modified_at="2026-12-04")], 1, title="Files"),
    "async tasks": lambda: async_tasks_html([{"task_id": "t1", "agent": "researcher", "status": "running"}]),
    "anatomy": _anatomy,
    "batch": _batch,
    "experiment matrix": lambda: experiment_html(_experiment()),
    "experiment summary": lambda: summary_html(_experiment().summary()),
    "comparison of variants": lambda: comparison_html(_experiment().compare("plain", "terse")),
}


@pytest.mark.parametrize("name", list(TABLES))
def test_every_cell_of_a_static_table_says_its_alignment(name: str) -> None:
    parser = _Cells()
    parser.feed(TABLES[name]())
    assert parser.tables and parser.cells, name
    for style, classes in parser.cells:
        side = "right" if "dnb-num" in classes.split() and name == "batch" else "left"
        assert f"text-align:{side}" in style.replace(" ", ""), (name, style, classes)
