"""The graphs that two Agent Server replicas serve in the scale-out test and benchmark.

Deep agents on deepnb's scripted model, so they run offline:

- ``worker`` works through ``STEPS`` calls of ``step``, a tool that takes ``WORKER_STEP_SECONDS``, so
  a run is still going when the test stops it or kills its replica. A prompt that mentions
  "publish" takes two steps, then calls ``publish``, which waits for approval (``interrupt_on``).
- ``quick`` takes ``QUICK_STEPS`` steps of ``QUICK_STEP_SECONDS`` each: the benchmark's unit of work.

Every step's tool message says which step it was, so a test can check that none is missing or
repeated in the thread. The numbers and answers live in scaleout_script.py, which the tests
import too.
"""

from __future__ import annotations

import asyncio
from typing import Any

from deepagents import create_deep_agent
from langchain_core.tools import StructuredTool
from scaleout_script import (
    PUBLISHED,
    QUICK_DONE,
    QUICK_STEP_SECONDS,
    QUICK_STEPS,
    STEPS,
    WORKER_DONE,
    WORKER_STEP_SECONDS,
)

from deepnb.models.scripted import ScriptedChatModel, parse_script


def _step_tool(seconds: float) -> StructuredTool:
    async def step(n: int) -> str:
        """Do step number n of the job (takes a moment)."""
        await asyncio.sleep(seconds)
        return f"step {n} done"

    return StructuredTool.from_function(coroutine=step, name="step")


async def publish(title: str) -> str:
    """Publish the report under a title (needs approval)."""
    return f"published {title!r}"


def _steps(count: int) -> list[dict[str, Any]]:
    call = [{"name": "step", "args": {"n": n}} for n in range(1, count + 1)]
    return [{"text": f"Step {n}.", "tool_calls": [c]} for n, c in enumerate(call, start=1)]


WORKER_SCRIPT = {
    "agents": {
        "worker": [
            {
                "match": "publish",
                "turns": [
                    *_steps(2),
                    {"text": "Publishing.", "tool_calls": [{"name": "publish", "args": {"title": "report"}}]},
                    {"text": PUBLISHED},
                ],
            },
            {"turns": [*_steps(STEPS), {"text": WORKER_DONE}]},
        ]
    }
}
QUICK_SCRIPT = {"agents": {"quick": [{"turns": [*_steps(QUICK_STEPS), {"text": QUICK_DONE}]}]}}

worker = create_deep_agent(
    model=ScriptedChatModel(script=parse_script(WORKER_SCRIPT, source="scaleout_graph.py")),
    tools=[_step_tool(WORKER_STEP_SECONDS), StructuredTool.from_function(coroutine=publish, name="publish")],
    interrupt_on={"publish": True},
    name="worker",
)
quick = create_deep_agent(
    model=ScriptedChatModel(script=parse_script(QUICK_SCRIPT, source="scaleout_graph.py")),
    tools=[_step_tool(QUICK_STEP_SECONDS)],
    name="quick",
)
