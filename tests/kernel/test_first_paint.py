"""A ``%%deepagent`` cell answers at once: its output says "starting…" under its task, the live
view takes that same output over before the agent stack has loaded, and streams the run once it
starts; a cell whose run cannot start leaves the output empty beside its one-line error.
``%load_ext deepnb`` imports none of the stack; once its cell has ended, the idle kernel imports
it, and still answers other cells."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.kernel_session import Execution, KernelSession

pytestmark = pytest.mark.kernel

WIDGET = "application/vnd.jupyter.widget-view+json"
STACK = ("deepagents", "langchain", "langgraph", "anywidget")


@pytest.fixture
def kernel(tmp_path: Path) -> Iterator[KernelSession]:
    session = KernelSession(cwd=str(tmp_path))
    try:
        yield session
    finally:
        session.close()


def _outputs(execution: Execution) -> list[tuple[str, str | None, dict[str, Any]]]:
    """(message type, display id, data) of each display message of the cell, in order."""
    return [
        (m["msg_type"], m["content"].get("transient", {}).get("display_id"), m["content"].get("data", {}))
        for m in execution.outputs
        if m["msg_type"] in ("display_data", "update_display_data")
    ]


def test_the_cell_says_starting_at_once_and_the_view_takes_its_output_over(kernel: KernelSession) -> None:
    loaded = kernel.execute(
        f"%load_ext deepnb\nimport sys\nprint([m for m in {STACK!r} if m in sys.modules])"
    )
    assert loaded.text().strip() == "[]", loaded.text()  # %load_ext imports none of the stack
    cell = kernel.execute("%%deepagent -m demo:quickstart -o run\nWrite a brief on <b>tide pools</b>")
    assert cell.ok, cell.text()
    shown = _outputs(cell)
    kind, display_id, first = shown[0]
    assert kind == "display_data" and display_id
    assert first["text/plain"] == "Write a brief on <b>tide pools</b> — starting…"
    assert "<b>Write a brief on &lt;b&gt;tide pools&lt;/b&gt;</b> — starting…" in first["text/html"]
    assert WIDGET not in first
    later = [data for kind, shown_id, data in shown[1:] if shown_id == display_id]
    assert later and all(kind == "update_display_data" for kind, _, _ in shown[1:])
    assert WIDGET in later[0] and "Life in a tide pool" in later[-1]["text/html"]  # the final snapshot
    assert [kind for kind, _, _ in shown].count("display_data") == 1  # one output, taken over


MARK_THE_STACK = """
import sys
from IPython.display import display

class _MarkTheStack:
    def find_spec(self, name, path=None, target=None):
        if name == "langchain_core":
            sys.meta_path.remove(self)
            display({"text/plain": "the agent stack starts loading"}, raw=True)
        return None

sys.meta_path.insert(0, _MarkTheStack())
"""
"""Shows a line in the cell's output the moment the first module of the agent stack is imported."""
RUN_VIEW = "deepnb.views.run.run_view.RunView"


def test_the_run_view_opens_before_the_agent_stack_loads(tmp_path: Path) -> None:
    session = KernelSession(cwd=str(tmp_path), env={"DEEPNB_PRELOAD": "0"})  # the cell loads it
    try:
        assert session.execute("%load_ext deepnb\n" + MARK_THE_STACK).ok
        start = len(session.iopub)
        cell = session.execute("%%deepagent -m demo:quickstart\nWrite a brief on <b>tide pools</b>")
        assert cell.ok, cell.text()
        messages = session.iopub[start:]
        opened = [
            (index, m["content"])
            for index, m in enumerate(messages)
            if m["msg_type"] == "comm_open" and m["content"]["data"]["state"].get("_anywidget_id") == RUN_VIEW
        ]
        marked = [
            index
            for index, m in enumerate(messages)
            if m["msg_type"] == "display_data"
            and m["content"]["data"].get("text/plain", "").startswith("the agent")
        ]
        assert len(opened) == 1 and len(marked) == 1, (opened, marked)
        ((at, content),) = opened
        assert at < marked[0]  # the view, before LangChain
        first = content["data"]["state"]
        assert first["status"] == "running" and first["agent"] == "default" and first["thread_id"] == ""
        assert [item["text"] for item in first["items"]] == ["Write a brief on <b>tide pools</b>"]
        final = session.widgets[content["comm_id"]]  # the same view streamed the run, to its end
        assert final["status"] == "done" and final["thread_id"], final["status"]
        assert any("Life in a tide pool" in str(item.get("text", "")) for item in final["items"])
    finally:
        session.close()


def test_a_run_that_cannot_start_leaves_the_output_empty_beside_its_error(kernel: KernelSession) -> None:
    assert kernel.execute("%load_ext deepnb").ok
    cell = kernel.execute("%%deepagent -m nosuchprovider:model\nWrite a brief")
    assert not cell.ok
    shown = _outputs(cell)
    assert shown[0][2]["text/plain"] == "Write a brief — starting…"
    assert shown[-1][0] == "update_display_data" and shown[-1][2] == {"text/plain": ""}
    assert "UsageError" in cell.text()
    closed = {m["content"]["comm_id"] for m in kernel.iopub if m["msg_type"] == "comm_close"}
    assert {comm_id for comm_id, _ in kernel.run_views()} <= closed  # no view left open behind it


HOOKS = (
    "%load_ext deepnb\n"
    "print([getattr(f, '__qualname__', '') for f in get_ipython().events.callbacks['post_run_cell']])"
)


def test_the_idle_kernel_imports_the_agent_stack_after_load_ext(kernel: KernelSession) -> None:
    loaded = kernel.execute(HOOKS)
    assert "schedule.<locals>.after_the_cell" in loaded.text(), loaded.text()  # due when the cell ends
    deadline = time.monotonic() + 120
    while True:
        answered = kernel.execute(f"import sys\nprint(1 + 1, [m for m in {STACK!r} if m not in sys.modules])")
        assert answered.ok, answered.text()
        two, left = answered.text().split(" ", 1)
        assert two == "2"
        if left.strip() == "[]":
            break
        assert time.monotonic() < deadline, f"still not imported: {left}"
        time.sleep(0.2)


def test_the_preload_can_be_turned_off(tmp_path: Path) -> None:
    session = KernelSession(cwd=str(tmp_path), env={"DEEPNB_PRELOAD": "0"})
    try:
        listed = session.execute(HOOKS)
        assert listed.ok and "after_the_cell" not in listed.text(), listed.text()
    finally:
        session.close()
