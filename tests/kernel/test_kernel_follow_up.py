"""The run view's box over the kernel protocol: a follow-up sent the way the front end sends it (a
comm message) streams in the same view, its saved output holds both turns, a busy thread refuses
it in one line; a steering message sent while a slow run works lands in its transcript."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.kernel_session import KernelSession, deepnb_kernel
from tests.support.waiting import WAIT

pytestmark = pytest.mark.kernel

SCRIPT = """
agents:
  main:
    - match: Plan
      turns: ["Step one: pack."]
    - match: then
      turns: ["Step two: go."]
    - match: Look up
      turns: [{text: "Looking.", tool_calls: [{name: slow_lookup, args: {topic: otters}}]}]
    - match: seals
      turns: ["Focusing on seals."]
    - turns: ["Noted."]
"""
SETUP = """
import os
import time
import deepnb

def slow_lookup(topic: str) -> str:
    \"\"\"Look a topic up (slowly; while a file 'hold' exists, until it is gone).\"\"\"
    time.sleep(1.0)
    deadline = time.monotonic() + 60
    while os.path.exists("hold") and time.monotonic() < deadline:
        time.sleep(0.05)
    return f"notes on {topic}"

bench = deepnb.agent(name="talk", model="scripted:talk.yaml", tools=[slow_lookup])
"""


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KernelSession]:
    folder: Path = tmp_path_factory.mktemp("follow-up")
    (folder / "talk.yaml").write_text(textwrap.dedent(SCRIPT))
    with deepnb_kernel(str(folder)) as session:
        assert session.execute(SETUP).ok
        yield session


def replies(kernel: KernelSession, comm_id: str) -> list[dict[str, Any]]:
    return [c for cid, c in kernel.custom if cid == comm_id and c.get("type") == "composed"]


def texts(state: dict[str, Any], kind: str) -> list[str]:
    return [item["text"] for item in state.get("items", []) if item["kind"] == kind]


def test_a_follow_up_from_the_box_streams_in_the_same_view(kernel: KernelSession) -> None:
    before = len(kernel.run_views())
    first = kernel.execute("%%deepagent -a talk --new -o run\nPlan a trip")
    assert first.ok, first.text()
    comm_id, _ = kernel.newest_view(before)
    kernel.wait_for(lambda: kernel.widgets[comm_id]["status"] == "done")

    kernel.click(comm_id, {"type": "follow_up", "prompt": "And then?"})
    state = kernel.widgets[comm_id]
    kernel.wait_for(
        lambda: state.get("turns") and state["status"] == "done" and "Step two: go." in texts(state, "text")
    )
    assert replies(kernel, comm_id) == [{"type": "composed", "kind": "follow_up", "error": ""}]
    assert len(kernel.run_views()) == before + 1, "the follow-up opened no other view"
    assert texts(state, "prompt") == ["And then?"]
    (turn,) = state["turns"]
    assert turn["prompt"] == "Plan a trip" and "Step one: pack." in turn["answer_html"]
    assert state["follow_up_cell"].startswith("%%deepagent -a talk -t ")

    # the variable stays the first run; its follow-ups know the newest
    check = kernel.execute(
        "assert run.result == 'Step one: pack.', run.result\n"
        "assert [r.result for r in run.follow_ups] == ['Step two: go.']\n"
        "assert run.follow_ups[-1].thread_id == run.thread_id"
    )
    assert check.ok, check.text()

    # the cell's saved output (where widgets don't run) holds both turns
    def saved() -> str:
        shown = [
            m["content"]["data"].get("text/plain", "")
            for m in kernel.iopub
            if m["msg_type"] == "update_display_data"
        ]
        return next((text for text in reversed(shown) if "Follow-up 1" in text), "")

    text = kernel.wait_for(lambda: "Step two: go." in saved() and saved())
    assert text.index("Plan a trip") < text.index("Follow-up 1") < text.index("And then?")
    assert "Each follow-up as a cell: %%deepagent -a talk -t " in text

    # another run holds the thread: the box is refused in one line, the view stays as it is
    busy = kernel.execute("other = bench.start('Look up otters slowly', thread=run.thread_id)")
    assert busy.ok, busy.text()
    kernel.click(comm_id, {"type": "follow_up", "prompt": "Anything else?"})
    refused = kernel.wait_for(lambda: len(replies(kernel, comm_id)) == 2 and replies(kernel, comm_id)[-1])
    assert "is already running" in refused["error"] and "\n" not in refused["error"]
    assert len(state["turns"]) == 1
    assert kernel.execute("other.wait(60); assert len(run.follow_ups) == 1").ok


def test_a_steer_from_the_box_lands_in_the_transcript(kernel: KernelSession) -> None:
    before = len(kernel.run_views())
    # the tool holds until the steer is given: a busy machine must not let the run end first
    assert kernel.execute("open('hold', 'w').close()").ok
    started = kernel.execute("%%deepagent -a talk --new --bg -o slow\nLook up otters")
    assert started.ok, started.text()
    comm_id, _ = kernel.newest_view(before)
    state = kernel.widgets[comm_id]
    kernel.wait_for(lambda: any(item["kind"] == "tool" for item in state.get("items", [])), timeout=90)
    assert state["status"] == "running"
    kernel.click(comm_id, {"type": "steer", "message": "Focus on seals."})
    kernel.wait_for(lambda: replies(kernel, comm_id))  # the steer is queued
    assert kernel.execute("os.remove('hold')").ok
    kernel.wait_for(lambda: state["status"] != "running", timeout=WAIT)
    assert state["status"] == "done", (state["status"], state.get("error"), texts(state, "text"))
    assert replies(kernel, comm_id) == [{"type": "composed", "kind": "steer", "error": ""}]
    steered = [i["text"] for i in state["items"] if i["kind"] == "prompt" and i.get("steered")]
    assert steered == ["Focus on seals."]
    assert texts(state, "text")[-1] == "Focusing on seals."

    # the run has ended: steering it now is refused in one line
    kernel.click(comm_id, {"type": "steer", "message": "More"})
    refused = kernel.wait_for(lambda: len(replies(kernel, comm_id)) == 2 and replies(kernel, comm_id)[-1])
    assert "has ended (done)" in refused["error"]
