"""Approval cards over the kernel protocol: each decision pressed the way the front-end sends it
(a comm message), a double click, a bad edit, ``--wait``, and a kernel restart with SQLite."""

from __future__ import annotations

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

DEMO = "%%deepagent -m demo:approvals --interrupt-on write_file,edit_file --new"


@pytest.fixture(scope="module")
def kernel(tmp_path_factory) -> Iterator[KernelSession]:
    with deepnb_kernel(str(tmp_path_factory.mktemp("approvals"))) as session:
        yield session


_SEEN: set[str] = set()


def waiting(kernel: KernelSession, comm_id: str, count: int) -> list[dict]:
    """Wait until the view shows ``count`` undecided actions of interrupts not seen before;
    return those pending interrupts."""

    def ready():
        state = kernel.widgets[comm_id]
        fresh = [p for p in state.get("pending", []) if p["id"] not in _SEEN]
        undecided = [a for p in fresh for a in p["actions"] if not a["decision"]]
        return state["status"] == "interrupted" and len(undecided) == count and fresh

    pending = kernel.wait_for(ready, timeout=30)
    _SEEN.update(p["id"] for p in pending)
    return pending


def decide(kernel: KernelSession, comm_id: str, interrupt_id: str, decision: dict, index: int = 0) -> None:
    kernel.click(
        comm_id, {"type": "decide", "interrupt_id": interrupt_id, "index": index, "decision": decision}
    )


def test_cards_decide_main_and_parallel_subagent_approvals(kernel: KernelSession) -> None:
    before = len(kernel.run_views())
    execution = kernel.execute(f"{DEMO} -o run\nPlan the launch")
    assert execution.ok
    comm_id, _ = kernel.newest_view(before)
    (plan,) = waiting(kernel, comm_id, 1)
    assert plan["agent"] == "main" and plan["actions"][0]["preview"]["kind"] == "content"

    # A bad edit is refused on the card and nothing is sent.
    decide(kernel, comm_id, plan["id"], {"type": "edit", "args": '{"file_path": '})
    kernel.wait_for(lambda: kernel.widgets[comm_id].get("card_errors"))
    assert "not valid JSON" in kernel.widgets[comm_id]["card_errors"][f"{plan['id']}:0"]
    assert kernel.widgets[comm_id]["status"] == "interrupted"

    decide(
        kernel,
        comm_id,
        plan["id"],
        {"type": "edit", "args": {"file_path": "/plan.md", "content": "# Plan\n"}},
    )
    subagents = waiting(kernel, comm_id, 2)
    assert {p["agent"] for p in subagents} == {"main/general-purpose", "main/general-purpose#2"}
    assert kernel.widgets[comm_id]["card_errors"] == {}
    for request, decision in zip(
        subagents,
        [{"type": "reject", "message": "Not now"}, {"type": "respond", "message": "Done by hand."}],
        strict=True,
    ):
        decide(kernel, comm_id, request["id"], decision)
    (link,) = waiting(kernel, comm_id, 1)
    assert link["actions"][0]["name"] == "edit_file" and link["actions"][0]["preview"]["kind"] == "diff"

    # A double click: two messages for the same card; one decision, one resume.
    decide(kernel, comm_id, link["id"], {"type": "approve"})
    decide(kernel, comm_id, link["id"], {"type": "approve"})
    kernel.wait_for(lambda: kernel.widgets[comm_id]["status"] == "done", timeout=30)
    log = kernel.widgets[comm_id]["decisions"]
    assert log[0]["type"] == "edit" and len(log) == 4
    assert {d["type"] for d in log[1:3]} == {"reject", "respond"} and log[3]["type"] == "approve"
    check = kernel.execute(
        "assert run.status == 'done', run.status\n"
        "assert run.files['/plan.md'].startswith('# Plan'), run.files['/plan.md']\n"
        "assert len(run.decisions) == 4"
    )
    assert check.ok, check.text()


@pytest.mark.skipif(CONTROLS_MID_CELL, reason="ipykernel 6 only: 7 waits (the test below)")
def test_wait_says_what_it_needs_on_ipykernel_6(kernel: KernelSession) -> None:
    execution = kernel.execute(f"{DEMO} --wait -o waited\nPlan the launch")
    assert not execution.ok
    assert "--wait needs a kernel that handles widget events while a cell runs" in execution.text()


@needs_controls_mid_cell
def test_wait_keeps_the_cell_busy_until_every_action_is_decided(kernel: KernelSession) -> None:
    before = len(kernel.run_views())
    execution = kernel.submit(f"{DEMO} --wait -o waited\nPlan the launch")
    comm_id, _ = kernel.newest_view(before)
    for expected in (1, 2, 1):
        pending = waiting(kernel, comm_id, expected)
        assert not execution.done.is_set()  # the cell is still busy at the cards
        for request in pending:
            for action in request["actions"]:
                if not action["decision"]:
                    decide(kernel, comm_id, request["id"], {"type": "approve"}, action["index"])
    assert execution.done.wait(30) and execution.ok
    assert kernel.execute("assert waited.status == 'done'").ok


def test_always_approve_from_a_card_covers_the_thread(kernel: KernelSession) -> None:
    before = len(kernel.run_views())
    kernel.execute(f"{DEMO} -o always\nPlan the launch")
    comm_id, _ = kernel.newest_view(before)
    (plan,) = waiting(kernel, comm_id, 1)
    kernel.click(comm_id, {"type": "always", "interrupt_id": plan["id"], "index": 0, "tool": "write_file"})
    (link,) = waiting(kernel, comm_id, 1)  # both subagents' write_file calls went through
    assert link["actions"][0]["name"] == "edit_file"
    autos = [d["auto"] for d in kernel.widgets[comm_id]["decisions"]]
    assert autos == [False, True, True]


def test_approvals_come_back_after_a_kernel_restart(kernel: KernelSession, tmp_path: Path) -> None:
    db = tmp_path / "threads.db"
    setup = (
        "%deepagent define planner -m demo:approvals --interrupt-on write_file,edit_file "
        f"--checkpointer sqlite:{db}"
    )
    assert kernel.execute(setup).ok
    first = kernel.execute("%%deepagent -a planner -o before\nPlan the launch")
    assert first.ok
    thread = kernel.execute("print(before.thread_id)").text().strip()

    kernel.restart()
    assert kernel.execute("%load_ext deepnb").ok
    assert kernel.execute(setup).ok
    before = len(kernel.run_views())
    shown = kernel.execute(f"%deepagent approvals -a planner -t {thread}")
    assert shown.ok, shown.text()
    comm_id, _ = kernel.newest_view(before)
    (plan,) = waiting(kernel, comm_id, 1)
    assert plan["actions"][0]["args"].startswith("file_path='/plan.md'")
    decide(kernel, comm_id, plan["id"], {"type": "approve"})
    for request in waiting(kernel, comm_id, 2):
        decide(kernel, comm_id, request["id"], {"type": "approve"})
    (link,) = waiting(kernel, comm_id, 1)
    decide(kernel, comm_id, link["id"], {"type": "approve"})
    kernel.wait_for(lambda: kernel.widgets[comm_id]["status"] == "done", timeout=30)
    check = kernel.execute(f"r = %deepagent resume -a planner -t {thread}\n")
    assert "nothing to resume" in check.text()
