"""Every kind of deepnb snapshot reads in an untrusted notebook: JupyterLab's sanitizer drops its
``<style>`` and its ``data-*`` attributes, but the styling written onto its elements stays whole
(plain colours, borders, spacing; no ``var()``), and the stylesheet, where it is kept, still wins."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

import deepnb
from deepnb.engine.anatomy import Anatomy
from deepnb.engine.graph_shape import GraphDrawing
from deepnb.engine.interpreter import Interpreter
from deepnb.engine.state import RunState
from deepnb.engine.step_state import StateDiff, StepState
from deepnb.engine.tree import SubagentNode
from deepnb.extensions.report import Listing
from deepnb.many.across import ExperimentComparison
from deepnb.many.batch import Batch
from deepnb.many.comparing import Comparison, ComparisonTable
from deepnb.many.datasets import Dataset
from deepnb.many.experiment import Experiment, Summary, VariantComparison
from deepnb.many.history import Experiments
from deepnb.many.record import RunRecord
from deepnb.session.files.files import Files
from deepnb.session.protocol import History
from deepnb.session.run import Run
from deepnb.views.batch.batch_rows import batch_html
from deepnb.views.compare_view import comparison_static
from deepnb.views.experiment.experiment_view import (
    comparison_html,
    experiment_html,
    record_html,
    summary_html,
)
from deepnb.views.files.file_preview import FileDisplay, render_file
from deepnb.views.inline_styles import InlineSheet, winning
from deepnb.views.listings import FolderListing, TodoList
from deepnb.views.output import run_snapshot
from deepnb.views.renderers import RENDERERS
from deepnb.views.styles import STATIC_CSS, inline
from tests.support.agents import unique
from tests.support.lab_sanitizer import kept_style, sanitize
from tests.support.waiting import WAIT

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


class _Elements(HTMLParser):
    """Each element's tag, classes and style, in document order."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, set[str], str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        self.found.append((tag, set((named.get("class") or "").split()), named.get("style") or ""))


def elements(html: str) -> list[tuple[str, set[str], str]]:
    parser = _Elements()
    parser.feed(html)
    return parser.found


def style_of(html: str, cls: str) -> str:
    """The style of the first element with class ``cls``."""
    return next(style for _tag, classes, style in elements(html) if cls in classes)


@pytest.fixture(scope="module")
def kinds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The ``text/html`` of every kind of snapshot deepnb writes, from offline demo runs."""
    research = deepnb.agent(name=unique("research"), model="demo:research")
    run = research.run("Write a report on tide pools.").wait(WAIT)
    gated = deepnb.agent(name=unique("gated"), model="demo:approvals", interrupt_on={"write_file": True})
    waiting = gated.run("Plan a small garden.").wait(WAIT)
    batch = deepnb.agent(name=unique("many"), model="demo:quickstart").map(["a", "b"]).wait(WAIT)
    comparison = deepnb.compare(
        "Write me a short brief on life in tide pools.", models=["demo:quickstart", "demo:terse"]
    )
    comparison.wait(WAIT)
    deepnb.agent(name=unique("quiz"), model="demo:quiz-quick")
    experiment = deepnb.experiment(
        [{"question": "Capital of France?", "reference": "Paris"}],
        variants={"quick": "demo:quiz-quick", "checked": "demo:quiz-checked"},
        template="{question}",
        scorers=[deepnb.scorers.contains],
        baseline="quick",
        log=tmp_path_factory.mktemp("exp") / "e.jsonl",
    ).wait(WAIT)
    record = next(iter(experiment.records.values()))
    files = run.files
    first = next(iter(files))
    makers: dict[str, Callable[[], Any]] = {
        "run": lambda: run_snapshot(run)["text/html"],
        "run waiting for approval": lambda: run_snapshot(waiting)["text/html"],
        "batch": lambda: batch_html(batch),
        "comparison": lambda: comparison_static(comparison)["text/html"],
        "experiment matrix": lambda: experiment_html(experiment),
        "experiment summary": lambda: summary_html(experiment.summary()),
        "experiment comparison": lambda: comparison_html(experiment.compare("quick", "checked")),
        "comparison of experiments": lambda: deepnb.compare_experiments(
            experiment, experiment.path
        )._repr_html_(),
        "experiment record": lambda: record_html(record),
        "thread files": lambda: files._repr_html_(),
        "folder listing": lambda: FolderListing("/", tuple(files.ls("/")))._repr_html_(),
        "file": lambda: FileDisplay(render_file(first, files.read_bytes(first)))._repr_html_(),
        "subagent tree": lambda: run.tree._repr_html_(),
        "todos": lambda: TodoList(run.todos, "Todos")._repr_html_(),
        "anatomy": lambda: research.inspect()._repr_html_(),
        "step state": lambda: research.state(run.thread_id, 2)._repr_html_(),
        "state diff": lambda: research.diff(run.thread_id, 0, 3)._repr_html_(),
    }
    return {name: make() for name, make in makers.items()}


KINDS = (
    "run",
    "run waiting for approval",
    "batch",
    "comparison",
    "experiment matrix",
    "experiment summary",
    "experiment comparison",
    "comparison of experiments",
    "experiment record",
    "thread files",
    "folder listing",
    "file",
    "subagent tree",
    "todos",
    "anatomy",
    "step state",
    "state diff",
)


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_keeps_its_inline_styles_through_the_sanitizer(kinds: dict[str, str], kind: str) -> None:
    html = kinds[kind]
    styled = [(tag, classes, style) for tag, classes, style in elements(html) if style]
    assert styled, f"{kind}: nothing styled inline"
    for tag, classes, style in styled:
        assert "var(" not in style
        assert kept_style(style) == style.rstrip(";"), (
            f"{kind}: <{tag} class={classes}> loses part of {style}"
        )
    untrusted = sanitize(html)
    assert "<style" not in untrusted and "data-status" not in untrusted
    if kind == "subagent tree":  # shown alone, a tree is indented lists, boxed inside a run's snapshot
        assert "padding-left:4px" in next(s for t, _c, s in elements(untrusted) if t == "ul")
    else:
        assert "border" in style_of(untrusted, "deepnb-snapshot"), f"{kind}: its box has no border untrusted"


def test_a_run_reads_untrusted_as_trusted(kinds: dict[str, str]) -> None:
    untrusted = sanitize(kinds["run"])
    assert "border-left:3px solid" in style_of(untrusted, "dnb-tool")
    assert "border-left:3px solid #2ea043" in style_of(untrusted, "dnb-final-answer")
    assert "color:#2ea043" in style_of(untrusted, "dnb-final-label")
    assert "color:#888" in style_of(untrusted, "dnb-muted")
    assert "list-style:none" in style_of(untrusted, "dnb-todos")
    done = [s for t, c, s in elements(untrusted) if t == "li" and "color:#888" in s]
    assert done, "the done todos are not set apart"
    tree = [s for t, c, s in elements(untrusted) if t == "ul" and "padding-left:16px" in s]
    assert tree, "the subagent tree's lists are not indented as the stylesheet has them"


def test_a_waiting_run_and_a_failed_batch_row_keep_their_status_colours() -> None:
    sheet = InlineSheet(
        STATIC_CSS + ".x tr[data-status=error] td.dnb-st{color:var(--jp-error-color1,#d32f2f)}"
    )
    html = sheet.apply(
        '<div class="deepnb-snapshot"><div class="dnb-tool" data-status="error">x</div>'
        '<table class="x"><tr data-status="error"><td class="dnb-st">failed</td></tr>'
        '<tr data-status="done"><td class="dnb-st">done</td></tr></table></div>'
    )
    untrusted = sanitize(html)
    assert "border-color:#e0483e" in style_of(untrusted, "dnb-tool")
    cells = [s for t, c, s in elements(untrusted) if "dnb-st" in c]
    assert cells == ["color:#e0483e", ""]


def test_the_stylesheet_wins_where_it_is_kept_and_the_inline_styles_say_the_same_properties() -> None:
    css = winning(STATIC_CSS)
    declarations = re.findall(r"[{;]\s*([\w-]+):([^;{}]*)", css)
    themed = [value for _, value in declarations if "var(" in value]
    assert themed and all(value.endswith("!important") for value in themed)
    assert all(not value.endswith("!important") for _, value in declarations if "var(" not in value)
    sheet = InlineSheet(STATIC_CSS)
    html = sheet.apply('<div class="deepnb-snapshot"><div class="dnb-final-answer">a</div></div>')
    final = style_of(html, "dnb-final-answer")
    rule = re.search(r"\.dnb-final-answer\{([^}]*)\}", STATIC_CSS.replace("\n", ""))
    assert rule is not None
    inline_names = {d.split(":")[0] for d in final.split(";")}
    sheet_names = {d.split(":")[0].strip() for d in rule.group(1).split(";") if d.strip()}
    assert inline_names == sheet_names


def test_inlining_is_idempotent_keeps_an_elements_own_style_and_leaves_text_alone() -> None:
    html = (
        '<div class="deepnb-snapshot"><span class=dnb-muted style="color:#4c78a8">'
        "&lt;div class=&quot;dnb-muted&quot;&gt;</span><br/></div>"
    )
    once = inline(html)
    assert inline(once) == once
    assert 'style="color:#888;color:#4c78a8"' in once  # its own colour comes last, so it decides
    assert "&lt;div class=&quot;dnb-muted&quot;&gt;" in once


def test_every_kind_deepnb_registers_a_display_for_is_checked_here() -> None:
    """A new displayable type fails this until it is among the kinds above (or says why its HTML
    needs no styling of its own)."""

    checked = {
        Run: "run",
        RunState: "run waiting for approval",
        Batch: "batch",
        Comparison: "comparison",
        Experiment: "experiment matrix",
        Summary: "experiment summary",
        VariantComparison: "experiment comparison",
        ExperimentComparison: "comparison of experiments",
        RunRecord: "experiment record",
        Files: "thread files",
        SubagentNode: "subagent tree",
        Anatomy: "anatomy",
        StepState: "step state",
        StateDiff: "state diff",
    }
    # JupyterLab's table styles draw them
    plain_tables = {Interpreter, Listing, ComparisonTable, History, Dataset, Experiments}
    svg_only = {GraphDrawing}  # an image/svg+xml output, drawn with its own attributes: no HTML
    assert set(RENDERERS) == set(checked) | plain_tables | svg_only
    assert set(checked.values()) <= set(KINDS)


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda path: path.stem)
def test_the_demo_notebooks_snapshots_read_untrusted(notebook: Path) -> None:
    """The saved snapshots of the demo notebooks (what a fresh clone shows) carry their styles."""
    cells = json.loads(notebook.read_text())["cells"]
    shown = [
        "".join(html) if isinstance(html, list) else html
        for cell in cells
        for output in cell.get("outputs", [])
        if (html := output.get("data", {}).get("text/html"))
    ]
    snapshots = [html for html in shown if "deepnb-snapshot" in html]
    assert snapshots, f"{notebook.name} has no deepnb snapshot"
    for html in snapshots:
        untrusted = sanitize(html)
        assert "border" in style_of(untrusted, "deepnb-snapshot")
        for tag, classes, style in elements(html):
            assert kept_style(style) == style.rstrip(";"), f"<{tag} {classes}> loses part of {style}"
