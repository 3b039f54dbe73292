"""Every section of a run's static snapshot is described once (a ``*_block`` function of
:mod:`deepnb.views.run` or :mod:`deepnb.views.listings`) and both its HTML and its text are drawn
from that one description: each section's HTML and text functions give what
:func:`deepnb.views.blocks.html` and :func:`~deepnb.views.blocks.text` make of its block, and the
two say the same words in the same order, but for what the description marks as HTML only (a
chart, a box's title) or as text only (a line's mark, a badge's brackets)."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
import re
from collections.abc import Callable
from typing import Any

import pytest

import deepnb
import deepnb.views.run
from deepnb.core.text.markup import markdown
from deepnb.engine.files.sources import Entry
from deepnb.engine.tree import SubagentNode
from deepnb.views import blocks, listings
from deepnb.views.blocks import Em, Fold, Group, Line, List, Pre, Raw
from deepnb.views.output import run_snapshot
from deepnb.views.run.given import given_block, given_html, given_lines
from deepnb.views.run.items import KINDS, item_block, item_html, item_text
from deepnb.views.run.output_table import output_block, output_html, output_lines
from deepnb.views.run.questions import question_block, question_html, question_text, value_block
from deepnb.views.run.subagent_tree import tree_block, tree_html, tree_text
from deepnb.views.run.timeline_view import timeline_block, timeline_html, timeline_lines
from deepnb.views.styles import inline
from tests.unit.conftest import unique
from tests.unit.test_blocks import HOSTILE, html_words, text_words


def _lines(text: str) -> list[str]:
    return text.splitlines()


def _tool(**more: Any) -> dict[str, Any]:
    return {"kind": "tool", "name": "write_todos", "args": HOSTILE, "status": "done", **more}


ITEMS: dict[str, list[dict[str, Any]]] = {
    "prompt": [{"kind": "prompt", "text": HOSTILE, "steered": True}],
    "text": [
        {"kind": "text", "text": f"Found {HOSTILE}", "html": markdown(f"Found {HOSTILE}"), "cut_off": True},
        {"kind": "text", "text": "plain", "agent": "main/researcher#1"},
    ],
    "thinking": [{"kind": "thinking", "text": f"Weigh\n{HOSTILE}", "agent": "main/critic"}],
    "tool": [
        _tool(
            result=HOSTILE,
            server="docs",
            edited=True,
            todo_changes=[{"change": "added", "content": HOSTILE}, {"change": "done", "content": "b"}],
        ),
        _tool(status="declined", decision={"type": "reject", "message": HOSTILE}),
        _tool(
            name="eval",
            eval={"code": "1 < 2\nx", "code_html": markdown("`1 < 2` x"), "stdout": HOSTILE, "result": "t"},
        ),
        _tool(name="eval", eval={"code": "", "error_type": "TypeError", "error": f"no {HOSTILE}\n at 1"}),
    ],
    "summary": [{"kind": "summary", "summary": HOSTILE, "messages": 2, "cutoff": 3, "tokens_before": 9}],
    "update": [{"kind": "update", "node": HOSTILE, "text": '{\n  "joke": 1\n}'}],
    "error": [{"kind": "error", "text": HOSTILE}],
    "notice": [{"kind": "notice", "text": HOSTILE}],
}

CHILD = SubagentNode(
    path="main/critic#1/reader#1",
    name="reader",
    status="error",
    description=f"Read {HOSTILE}",
    tool_calls=1,
    calls_failed=1,
)
ROOT = SubagentNode(
    path="main",
    name="main",
    status="done",
    children=(
        SubagentNode(
            path="main/critic#1",
            name="critic",
            status="done",
            description="Check it",
            result=HOSTILE,
            tool_calls=2,
            duration=1.5,
            tokens_in=10,
            tokens_out=2,
            children=(CHILD,),
        ),
    ),
)
TREE_ITEMS = [
    {"kind": "text", "text": "looking", "agent": "main/critic#1"},
    {**_tool(), "agent": "main/critic#1", "id": "tool-1"},
    {"kind": "text", "text": f"a note {HOSTILE}", "agent": CHILD.path},
]


def _record(n: int, kind: str, agent: str = "main") -> dict[str, Any]:
    return {
        "kind": kind,
        "agent": agent,
        "name": HOSTILE if kind == "tool" else "",
        "start": float(n),
        "end": n + 0.5,
        "latency": 0.5,
        "tokens_in": 10,
        "tokens_out": 2,
        "step": n if kind == "model" and agent == "main" else None,
        "calls": [],
    }


RECORDS = [
    _record(n, "model" if n % 2 == 0 else "tool", "main/critic#1" if n % 3 == 2 else "main")
    for n in range(90)
]
THREAD = f"t {HOSTILE}"

Section = tuple[Any, Callable[[], str], Callable[[], list[str]]]
"""A section's block, its HTML and its text lines, as the snapshot draws them."""


def _sections() -> dict[str, Section]:
    found: dict[str, Section] = {}
    for kind, samples in ITEMS.items():
        for n, item in enumerate(samples):
            found[f"item_block: {kind} {n}"] = (
                item_block(item),
                lambda item=item: item_html(item),
                lambda item=item: _lines(item_text(item)),
            )
    found["tree_block"] = (
        tree_block(ROOT, TREE_ITEMS),
        lambda: tree_html(ROOT, TREE_ITEMS),
        lambda: _lines(tree_text(ROOT, TREE_ITEMS)),
    )
    found["tree_block: none ran"] = (
        tree_block(SubagentNode(path="main", name=HOSTILE, status="done")),
        lambda: tree_html(SubagentNode(path="main", name=HOSTILE, status="done")),
        lambda: _lines(tree_text(SubagentNode(path="main", name=HOSTILE, status="done"))),
    )
    found["timeline_block"] = (
        timeline_block(RECORDS, thread=THREAD, waited=3.0),
        lambda: timeline_html(RECORDS, thread=THREAD, waited=3.0),
        lambda: timeline_lines(RECORDS, thread=THREAD, waited=3.0),
    )
    given = {"skills": [{"name": HOSTILE, "agent": "main", "description": "d"}], "tools": {"main": ["ls"]}}
    found["given_block"] = (given_block(given), lambda: given_html(given), lambda: given_lines(given))
    question = {"id": "q1", "agent": "main/critic", "value": {"pick": HOSTILE, "of": [1, 2]}, "answer": "a"}
    found["question_block"] = (
        question_block(question),
        lambda: question_html(question),
        lambda: _lines(question_text(question)),
    )
    found["value_block"] = (value_block(question), lambda: blocks.html(value_block(question)), lambda: [])
    rows = [("name", HOSTILE), ("age", "36")]
    found["output_block"] = (output_block(rows), lambda: output_html(rows), lambda: output_lines(rows))
    todos = [{"content": HOSTILE, "status": "completed"}, {"content": "Write", "status": "in_progress"}]
    found["todos_block"] = (
        listings.todos_block(todos, "Task 2 of 2", run_status="error"),
        lambda: listings.todos_html(todos, "Task 2 of 2", run_status="error"),
        lambda: ["Todos: Task 2 of 2", *listings.todo_lines(todos, run_status="error")],
    )
    tasks = [
        {
            "agent_name": HOSTILE,
            "status": "running",
            "task_id": "t1",
            "created_at": "c",
            "last_updated_at": "u",
        },
        {"task_id": "t2"},
    ]
    found["async_tasks_block"] = (
        listings.async_tasks_block(tasks),
        lambda: listings.async_tasks_html(tasks),
        lambda: listings.async_task_lines(tasks),
    )
    entries = [
        Entry(f"/notes/{HOSTILE}.md", size=12, modified_at="2026-12-04"),
        Entry("/d/", True, mount="/d/"),
    ]
    found["files_block"] = (
        listings.files_block(entries, 3, title=HOSTILE),
        lambda: listings.files_html(entries, 3, title=HOSTILE),
        lambda: blocks.text(listings.files_block(entries, 3, title=HOSTILE)),
    )
    table = listings.Table(("thread", "steps"), ((HOSTILE, 6), ("t2", 12)))
    found["Table.block"] = (table.block(), table._repr_html_, lambda: _lines(repr(table)))
    empty = listings.Table(("thread",), (), empty=HOSTILE)
    found["Table.block: empty"] = (empty.block(), empty._repr_html_, lambda: _lines(repr(empty)))
    return found


SECTIONS = _sections()
INLINED = {"files_block"}
"""Sections drawn on their own, their stylesheet's rules written onto their elements."""


def _described_sections() -> set[str]:
    """Every ``*_block`` function of the run view's modules and of the listings."""
    modules = [listings] + [
        importlib.import_module(f"deepnb.views.run.{info.name}")
        for info in pkgutil.iter_modules(deepnb.views.run.__path__)
    ]
    return {
        name
        for module in modules
        for name, value in vars(module).items()
        if name.endswith("_block")
        and not name.startswith("_")
        and inspect.isfunction(value)
        and value.__module__ == module.__name__
    }


def test_every_described_section_and_item_kind_is_checked_here() -> None:
    assert {name.split(":")[0] for name in SECTIONS} - {"Table.block"} == _described_sections()
    assert set(ITEMS) == set(KINDS)


def _said(block: Any) -> Any:
    """The block with what only one form says left out: a picture and a box's title (HTML), a
    line's mark and a badge's brackets (text)."""
    if isinstance(block, tuple):
        return tuple(_said(b) for b in block if not (isinstance(b, Raw) and not b.text))
    if isinstance(block, Em):
        return dataclasses.replace(block, badge=False)
    if isinstance(block, Raw | Line):
        return dataclasses.replace(
            block, mark="", **({"parts": _said(block.parts)} if isinstance(block, Line) else {})
        )
    if isinstance(block, Pre):
        return dataclasses.replace(block, mark="", title=None)
    if isinstance(block, Group):
        return dataclasses.replace(block, body=_said(block.body), head=_said(block.head))
    if isinstance(block, Fold):
        return dataclasses.replace(block, summary=_said(block.summary), body=_said(block.body))
    if isinstance(block, List):
        return dataclasses.replace(block, items=_said(block.items), head=_said(block.head))
    return block


@pytest.mark.parametrize("name", list(SECTIONS))
def test_a_sections_html_and_text_are_drawn_from_its_one_description(name: str) -> None:
    block, html, lines = SECTIONS[name]
    assert block is not None
    assert html() == (inline(blocks.html(block)) if name in INLINED else blocks.html(block))
    if name != "value_block":  # part of the question's text
        assert "\n".join(lines()) == "\n".join(blocks.text(block))
    said = _said(block)
    assert html_words(blocks.html(said)) == text_words(blocks.text(said))
    assert blocks.text(said) != [] or name == "value_block"
    assert "<img" not in html()  # every text escaped


def test_what_one_form_alone_says_is_marked_in_the_description() -> None:
    """The words left out of the comparison are few: the chart, the eval card's box titles."""
    timeline = SECTIONS["timeline_block"][0]
    assert isinstance(timeline.body[0], Raw) and "<svg" in timeline.body[0].html and not timeline.body[0].text
    assert not any(isinstance(b, Raw) and not b.text for b in timeline.body[1:])
    eval_card = item_block(ITEMS["tool"][2])
    assert "    > " + HOSTILE in blocks.text(eval_card) and ">console</div>" in blocks.html(eval_card)


def test_a_snapshots_text_says_the_answer_label_and_the_step_chips_its_html_shows() -> None:
    workbench = deepnb.agent(name=unique("sections"), model="demo:quickstart")
    run = workbench.start("Write a brief about tide pools").wait(30)
    snapshot = run_snapshot(run)
    html, text = snapshot["text/html"], snapshot["text/plain"]
    chips = re.findall(r'dnb-step-link"[^>]*>step (\d+)<', html)
    assert chips == re.findall(r"^  step (\d+)$", text, re.M) == [str(n) for n in range(1, 7)]
    assert '<span class="dnb-final-label"' in html and "\nAnswer\n## Life in a tide pool" in text
