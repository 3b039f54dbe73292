"""A real kernel driven over the Jupyter protocol: widget state read from comm messages, Stop
clicked by sending the comm message a front-end sends, the kernel interrupted like the ■ button."""

from __future__ import annotations

import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.kernel_session import (
    CONTROLS_MID_CELL,
    KernelSession,
    deepnb_kernel,
    needs_controls_mid_cell,
)

pytestmark = pytest.mark.kernel

SLOW = """
delay: 0.04
agents:
  main:
    - text: "{long}"
      tool_calls: [{{name: write_todos, args: {{todos: [{{content: Count slowly, status: in_progress}}]}}}}]
    - text: "{long}"
      tool_calls: [{{name: ls, args: {{path: /}}}}]
    - text: "Counted."
""".format(long=" ".join(f"word{i}" for i in range(60)))

HELD = """
delay: 0.04
agents:
  main:
    - text: "{short}"
      tool_calls: [{{name: write_todos, args: {{todos: [{{content: Count slowly, status: in_progress}}]}}}}]
    - text: "{long}"
    - text: "Counted."
""".format(short=" ".join(f"word{i}" for i in range(60)), long=" ".join(f"word{i}" for i in range(3000)))
"""SLOW whose second turn streams for two minutes: a run the test stops or interrupts is still
going when the stop arrives, however long a busy machine takes to deliver it."""

FAST = """
delay: 0
agents:
  main:
    - text: "{long}"
      tool_calls: [{{name: ls, args: {{path: /}}}}]
    - text: "{long}"
      tool_calls: [{{name: ls, args: {{path: /}}}}]
    - text: "Done."
""".format(long=" ".join(f"token{i}" for i in range(2000)))


@pytest.fixture(scope="module")
def scripts(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("scripts")
    (folder / "slow.yaml").write_text(textwrap.dedent(SLOW))
    (folder / "held.yaml").write_text(textwrap.dedent(HELD))
    (folder / "fast.yaml").write_text(textwrap.dedent(FAST))
    return folder


@pytest.fixture(scope="module")
def kernel(scripts: Path) -> Iterator[KernelSession]:
    with deepnb_kernel(str(scripts)) as session:
        yield session


def test_demo_run_streams_into_the_view_and_leaves_a_snapshot(kernel: KernelSession) -> None:
    before = len(kernel.run_views())
    execution = kernel.execute("%%deepagent -m demo:quickstart -o run\nWrite a brief on tide pools")
    assert execution.ok, execution.text()
    comm_id, state = kernel.newest_view(before)

    assert state["status"] == "done"  # the final state is sent before the cell goes idle
    assert state["live_controls"] is CONTROLS_MID_CELL  # else Stop says to use the kernel's ■
    assert [t["status"] for t in state["todos"]] == ["completed"] * 3
    tools = [i for i in state["items"] if i["kind"] == "tool"]
    assert [t["name"] for t in tools][:2] == ["write_todos", "write_file"]
    assert {t["status"] for t in tools} == {"done"}
    final_text = [i for i in state["items"] if i["kind"] == "text"][-1]
    assert "<table>" in final_text["html"]
    assert state["progress"]["steps"] == 6 and state["progress"]["tokens_out"] > 0

    # Several updates streamed in before the end, with the todo list filling in as it went.
    updates = [s for t, cid, s in kernel.comm_updates if cid == comm_id]
    assert len(updates) > 5
    # (which of them a busy machine flushes together varies: one shows the list not yet done)
    assert any(s.get("todos") and {t["status"] for t in s["todos"]} != {"completed"} for s in updates)

    kinds = [o["msg_type"] for o in execution.outputs]
    assert kinds[0] == "display_data" and "update_display_data" in kinds
    final = [o for o in execution.outputs if o["msg_type"] == "update_display_data"][-1]["content"]
    assert "application/vnd.jupyter.widget-view+json" in final["data"]
    assert 'data-status="done"' in final["data"]["text/html"]
    assert kernel.execute("assert run.status == 'done' and len(run.todos) == 3").ok


def test_front_end_messages_are_coalesced_to_20_per_second(kernel: KernelSession) -> None:
    before = len(kernel.run_views())
    execution = kernel.execute("%%deepagent -m scripted:fast.yaml --new -o fast\ncount fast")
    assert execution.ok, execution.text()
    comm_id, state = kernel.newest_view(before)
    assert state["status"] == "done"
    times = [t for t, cid, _ in kernel.comm_updates if cid == comm_id]
    peak = max(sum(1 for u in times if t <= u < t + 1.0) for t in times)
    assert peak <= 20
    tokens = 4000
    assert len(times) < tokens / 10


@needs_controls_mid_cell
def test_stop_button_cancels_a_foreground_run_mid_cell(kernel: KernelSession) -> None:
    before = len(kernel.run_views())
    execution = kernel.submit("%%deepagent -m scripted:held.yaml --new -o slow\ncount slowly")
    comm_id, _ = kernel.wait_for(
        lambda: (
            len(kernel.run_views()) > before
            and any(i["kind"] == "text" for i in kernel.run_views()[-1][1]["items"])
            and kernel.run_views()[-1]
        )
    )
    assert not execution.done.is_set()  # the cell is still busy…
    clicked = time.monotonic()
    kernel.click(comm_id, {"type": "stop"})  # …and still handles the click
    assert execution.done.wait(10)
    assert time.monotonic() - clicked < 5
    assert execution.ok
    assert kernel.widgets[comm_id]["status"] == "cancelled"
    assert kernel.execute("assert slow.status == 'cancelled', slow.status").ok

    # The thread stays usable: the next cell runs on it again.
    again = kernel.execute("%%deepagent -m demo:quickstart -o after\nA brief")
    assert again.ok
    assert kernel.execute("assert after.status == 'done' and after.thread_id == slow.thread_id").ok


def test_kernel_interrupt_stops_the_run_and_keeps_the_thread(kernel: KernelSession) -> None:
    before = len(kernel.run_views())
    execution = kernel.submit("%%deepagent -m scripted:held.yaml --new -o interrupted\ncount slowly")
    comm_id, _ = kernel.wait_for(
        lambda: (
            len(kernel.run_views()) > before and kernel.run_views()[-1][1]["todos"] and kernel.run_views()[-1]
        )
    )
    kernel.interrupt()
    assert execution.done.wait(10)
    assert not execution.ok  # an interrupt stops Run All, as it does for any cell
    kernel.wait_for(lambda: kernel.widgets[comm_id]["status"] == "cancelled")
    check = kernel.execute(
        "assert interrupted.status == 'cancelled'\n"
        "from deepnb.session import building\n"
        "assert building.get().todos(interrupted.thread_id)[0]['content'] == 'Count slowly'"
    )
    assert check.ok, check.text()


def test_background_run_returns_at_once_and_keeps_updating(kernel: KernelSession) -> None:
    before = len(kernel.run_views())
    execution = kernel.execute("%%deepagent -m scripted:slow.yaml --new --bg -o bg\ncount slowly")
    assert execution.ok
    comm_id, state = kernel.newest_view(before)
    assert state["status"] == "running"  # the cell ended before the run did

    refused = kernel.execute("%%deepagent -m scripted:slow.yaml -o twice\ncount again")
    assert "already running" in refused.text()

    kernel.wait_for(lambda: kernel.widgets[comm_id]["status"] == "done", timeout=30)
    assert kernel.widgets[comm_id]["todos"][0]["content"] == "Count slowly"
    check = kernel.execute("assert (bg.status, bg.result) == ('done', 'Counted.'), (bg.status, bg.result)")
    assert check.ok, check.text()
