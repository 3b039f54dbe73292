"""The run view's accessibility in a real browser (headless Chromium, no Jupyter server): the built
bundle renders a waiting run from a stand-in model, and Chromium's accessibility tree is read
through Playwright's role queries and ARIA snapshot: the parts have roles and names, Tab moves
through the view in reading order, and status changes and new approval cards reach the live region.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from textwrap import dedent
from typing import Any

import pytest

from tests.browser.conftest import ARTIFACTS, VIEWPORT

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

WIDGETS = Path(__file__).resolve().parents[2] / "deepnb" / "_widgets"
ORIGIN = "http://deepnb.test"  # served by the test itself (page routing): no server, no network


def _action(name: str, path: str) -> dict[str, Any]:
    args = {"file_path": path, "content": "# Notes\nline two"}
    return {
        "index": 0,
        "name": name,
        "args": f"file_path='{path}'",
        "args_json": json.dumps(args, indent=2),
        "description": "",
        "allowed": ["approve", "edit", "reject", "respond"],
        "preview": None,
        "decision": None,
    }


def _node(path: str) -> dict[str, Any]:
    return {
        "id": path,
        "parent": "main",
        "name": "general-purpose",
        "label": path.rsplit("/", 1)[-1],
        "description": "look it up",
        "source": "task",
        "call_id": "c1",
        "status": "waiting",
        "started_at": 1_700_000_000,
        "finished_at": None,
        "tool_calls": 1,
        "tokens_in": 0,
        "tokens_out": 0,
        "activity": "",
        "result": "",
        "result_full": "",
        "children": [],
        "calls_declined": 0,
        "calls_failed": 0,
    }


TRAITS = {
    "agent": "researcher",
    "thread_id": "t-a11y",
    "status": "running",
    "error": "",
    "todos": [],
    "items": [
        {"kind": "prompt", "id": "p", "agent": "main", "text": "Research otters"},
        {
            "kind": "tool",
            "id": "tool-c1",
            "agent": "main",
            "name": "task",
            "args": "description='look it up'",
            "args_full": "{}",
            "status": "running",
            "result": "",
            "result_full": "",
            "subagent": "main/general-purpose",
        },
        {
            "kind": "tool",
            "id": "tool-c2",
            "agent": "main",
            "name": "ls",
            "args": "path='/'",
            "args_full": "{}",
            "status": "done",
            "result": "[]",
            "result_full": "[]",
        },
    ],
    "progress": {
        "steps": 2,
        "tool_calls": 2,
        "tokens_in": 10,
        "tokens_out": 5,
        "started_at": 1_700_000_000,
        "elapsed": 12,
        "todo_progress": "",
    },
    "pending": [],
    "decisions": [],
    "card_errors": {},
    "files_changed": [],
    "files_not_written": [],
    "tree": [_node("main/general-purpose"), _node("main/general-purpose#2")],
    "async_tasks": [],
    "async_error": "",
    "live_controls": True,
    "stop_hint": "",
    "code_css": "",
    "revision": 0,
    "given": {"skills": [], "memory": [], "tools": {}},
}
PENDING = [
    {"id": "I1", "agent": "main/general-purpose", "actions": [_action("write_file", "/a.md")]},
    {"id": "I2", "agent": "main/general-purpose#2", "actions": [_action("write_file", "/b.md")]},
]

PAGE = """<!doctype html><html><head><meta charset="utf-8">
<link rel="stylesheet" href="/theme.css"><link rel="stylesheet" href="/run_view.css"></head>
<body><main id="root"></main><script type="module">
import view from "/run_view.js";
class Model {
  constructor(traits) { this.traits = traits; this.handlers = {}; this.sent = []; this.widget_manager = {}; }
  get(name) { return this.traits[name]; }
  set(name, value) { this.traits[name] = value; }
  save_changes() {}
  send(msg) { this.sent.push(msg); }
  on(event, fn) { (this.handlers[event] ||= new Set()).add(fn); }
  off(event, fn) { if (event && fn) this.handlers[event]?.delete(fn); }
  update(changes) {
    for (const [name, value] of Object.entries(changes)) {
      this.traits[name] = value;
      for (const fn of [...(this.handlers["change:" + name] || [])]) fn();
    }
  }
}
window.model = new Model(TRAITS);
view.render({ model: window.model, el: document.getElementById("root") });
window.rendered = true;
</script></body></html>"""


@contextlib.contextmanager
def bundle_page(browser: Any, traits: dict[str, Any], shot: str, *, full_page: bool = True) -> Iterator[Any]:
    """A page that renders the built run view over ``traits`` from a stand-in model (no Jupyter
    server, no network), served by routing: it fails on an uncaught error in the page, and leaves
    its screenshot as ``shot``.png in the artifacts."""
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(10_000)
    errors: list[str] = []

    def serve(route: Any) -> None:
        name = route.request.url.removeprefix(ORIGIN + "/")
        if name == "index.html":
            route.fulfill(content_type="text/html", body=PAGE.replace("TRAITS", json.dumps(traits)))
        elif name in ("run_view.js", "run_view.css", "theme.css"):
            kind = "text/javascript" if name.endswith(".js") else "text/css"
            route.fulfill(content_type=kind, body=(WIDGETS / name).read_text())
        else:
            route.fulfill(status=404, body="")

    context.route(f"{ORIGIN}/**", serve)
    page = context.new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{ORIGIN}/index.html")
    page.wait_for_function("window.rendered === true")
    try:
        yield page
        assert errors == [], errors
    finally:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{shot}.png"), full_page=full_page)
        context.close()


@pytest.fixture
def view_page(browser: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    with bundle_page(browser, TRAITS, request.node.name, full_page=False) as page:
        yield page


def test_roles_names_focus_order_and_announcements(view_page: Any, request: pytest.FixtureRequest) -> None:
    from playwright.sync_api import expect

    page = view_page
    view = page.get_by_role("region", name="deepnb run of agent researcher")
    expect(view).to_be_visible()
    expect(view.get_by_role("group", name="Run status")).to_be_visible()
    expect(view.get_by_role("log", name="Transcript")).to_be_visible()
    expect(view.get_by_role("searchbox", name="Search the transcript")).to_be_visible()
    expect(view.get_by_role("button", name="Hide bookkeeping")).to_have_attribute("aria-pressed", "false")
    expect(view.get_by_role("article", name="Tool call task")).to_be_visible()
    expect(view.get_by_role("button", name="Show subagent general-purpose")).to_be_visible()
    live = page.locator(".dnb-announce")
    expect(live).to_have_text("")

    # Two parallel subagents stop, each on its own interrupt: said once, in words.
    page.evaluate(f"window.model.update({{pending: {json.dumps(PENDING)}, status: 'interrupted'}})")
    expect(live).to_have_text(
        "The run is waiting for you. Approval needed: write_file, by subagent general-purpose. "
        "Approval needed: write_file, by subagent general-purpose #2. 2 requests pending."
    )
    approvals = view.get_by_role("region", name="Approvals")
    every = approvals.get_by_role("button", name="Approve all 2 pending actions of 2 interrupts")
    expect(every).to_be_visible()
    card = approvals.get_by_role("group", name="Approval: write_file, by subagent general-purpose #2")
    expect(card).to_match_aria_snapshot(
        dedent("""
        - 'group "Approval: write_file, by subagent general-purpose #2"':
          - text: "write_file subagent general-purpose #2"
          - term: file_path
          - definition: /b.md
          - term: content
          - definition: "# Notes line two"
          - button "Approve"
          - button "Edit"
          - button "Reject"
          - button "Respond"
          - button "Always approve write_file in this thread"
        """)
    )

    page.screenshot(path=str(ARTIFACTS / f"{request.node.name}-waiting.png"), full_page=True)

    # Tab walks the view top to bottom, left to right within a row.
    page.locator("body").focus()
    boxes: list[dict[str, float]] = []
    names: list[str] = []
    for _ in range(40):
        page.keyboard.press("Tab")
        focused = page.evaluate(
            "(() => { const n = document.activeElement; if (!n || !n.closest('.deepnb-run')) return null;"
            " const r = n.getBoundingClientRect();"
            " return {top: r.top + scrollY, bottom: r.bottom + scrollY, left: r.left,"
            " name: n.getAttribute('aria-label') || n.textContent.trim()}; })()"
        )
        if focused is None:
            break
        names.append(focused.pop("name"))
        boxes.append(focused)
    assert len(boxes) > 10, names
    assert all(names), names
    for before, after, name in zip(boxes, boxes[1:], names[1:], strict=False):
        same_row = after["top"] < before["bottom"] and before["top"] < after["bottom"]
        assert (after["left"] > before["left"]) if same_row else (after["top"] >= before["bottom"] - 1), (
            f"focus jumped back to {name!r}: {names}"
        )
    assert names.index("Search the transcript") < names.index("Approve all 2 pending actions of 2 interrupts")

    page.evaluate("window.model.update({pending: [], status: 'running'})")
    expect(live).to_have_text("The run goes on.")
    page.evaluate("window.model.update({status: 'done'})")
    expect(live).to_have_text("The run finished.")
