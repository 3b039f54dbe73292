"""Awaiting a run or a batch from another event loop (a ``%%deepagent`` cell on the kernel's
loop): its end wakes the waiter at once, not its next poll; ``settled`` waits through approvals."""

from __future__ import annotations

import asyncio
import uuid

import deepnb
from tests.support.agents import scripted, unique

NEVER = 3600.0
"""A poll so long that only the run's end can wake the waiter within the test's timeout."""


def test_the_runs_end_wakes_the_waiting_loop_at_once() -> None:
    workbench = deepnb.agent(name=unique("wait"), model=scripted({"main": ["Done."]}, delay=0.05))

    async def cell() -> str:
        run = workbench.run("go", background=True)
        await asyncio.wait_for(run.wait_async(poll=NEVER), 30)
        return run.status

    assert asyncio.run(cell()) == "done"


def test_settled_waits_through_each_approval_and_leaves_no_callback_behind() -> None:
    workbench = deepnb.agent(
        f"wait-{uuid.uuid4().hex[:6]}", "demo:approvals", interrupt_on={"write_file": True}
    )

    run = workbench.run("Plan the launch", background=True)

    async def cell() -> tuple[str, int]:
        waiting = asyncio.ensure_future(run.wait_async(settled=True, poll=NEVER))
        approvals = 0
        while not waiting.done():
            await asyncio.wait_for(run.wait_async(poll=NEVER), 30)  # ended or paused
            if run.status == "interrupted":
                for request in run.pending:
                    request.approve()
                    approvals += 1
            await asyncio.sleep(0)
        await asyncio.wait_for(waiting, 30)
        return run.status, approvals

    status, approvals = asyncio.run(cell())
    assert status == "done"
    assert approvals >= 2
    assert run._ended == []  # each wait took its wake-up call back


def test_a_batch_settling_wakes_the_waiting_loop_at_once() -> None:
    workbench = deepnb.agent(name=unique("wait-map"), model=scripted({"main": ["Done."]}, delay=0.02))

    async def cell() -> list[str]:
        batch = workbench.map(["a", "b", "c"], concurrency=2)
        await asyncio.wait_for(batch.wait_async(poll=NEVER), 30)
        return [run.status for run in batch.runs if run is not None]

    assert asyncio.run(cell()) == ["done", "done", "done"]
