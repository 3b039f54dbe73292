"""deepnb's small static tables (listings, history, files, async tasks, an agent's anatomy) read
left-aligned in JupyterLab's output area, which right-aligns every cell: each cell carries its
alignment, trusted or not (an untrusted notebook keeps inline styles, not a ``<style>``)."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

import pytest

import deepnb
from deepnb.engine.files.sources import Entry
from deepnb.views.history_view import history_table
from deepnb.views.listings import Table, async_tasks_html, files_html
from tests.unit.conftest import unique


class _Cells(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tables = 0
        self.cells: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "table" and "deepnb-table" in (found.get("class") or ""):
            self.tables += 1
        if tag in ("td", "th") and self.tables:
            self.cells.append(found.get("style") or "")


def _anatomy() -> str:
    workbench = deepnb.agent(name=unique("tables"), model="demo:quickstart")
    return str(workbench.inspect()._repr_html_())


def _history() -> str:
    workbench = deepnb.agent(name=unique("tables"), model="demo:quickstart")
    run = workbench.start("Write a brief about tide pools").wait(30)
    return str(history_table(workbench.history(run.thread_id))._repr_html_())


TABLES: dict[str, Any] = {
    "a listing (threads, agents)": lambda: Table(("thread", "steps"), (("t1", 6),))._repr_html_(),
    "history": _history,
    "files": lambda: files_html([Entry("/notes/a.md", size=12, modified_at="2026-12-04")], 1, title="Files"),
    "async tasks": lambda: async_tasks_html([{"task_id": "t1", "agent": "researcher", "status": "running"}]),
    "anatomy": _anatomy,
}


@pytest.mark.parametrize("name", list(TABLES))
def test_every_cell_of_a_small_table_is_left_aligned(name: str) -> None:
    parser = _Cells()
    parser.feed(TABLES[name]())
    assert parser.tables and parser.cells, name
    assert all("text-align:left" in style for style in parser.cells), parser.cells
