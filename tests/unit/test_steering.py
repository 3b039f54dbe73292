"""``run.steer``: a message given while the agent works reaches its next model call, is kept in
the thread, shows where it was delivered, and is said when no model call took it."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

import deepnb
from deepnb.core.errors import DeepnbError
from deepnb.core.events import STEERED
from deepnb.engine import steering
from deepnb.views.run.snapshot import snapshot_bundle
from tests.support.agents import scripted, unique


def slow_lookup(topic: str) -> str:
    """Look a topic up (slowly)."""
    time.sleep(0.6)
    return f"notes on {topic}"


def until(check: Callable[[], Any], timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_a_steer_reaches_the_next_model_call_and_stays_in_the_thread() -> None:
    model = scripted(
        {
            "main": [
                {
                    "match": "Plan",
                    "turns": [
                        {
                            "text": "Looking.",
                            "tool_calls": [{"name": "slow_lookup", "args": {"topic": "trips"}}],
                        }
                    ],
                },
                {"match": "otters", "turns": ["Focusing on otters."]},
            ]
        }
    )
    bench = deepnb.agent(unique("steered"), model, tools=[slow_lookup])
    run = bench.start("Plan a trip")
    until(lambda: any(item["kind"] == "tool" for item in run.state.items))
    run.steer("Focus on otters, please.")
    run.wait(30)
    assert run.status == "done", run.error
    assert run.result == "Focusing on otters."
    kinds = [(item["kind"], item.get("steered", False)) for item in run.state.items]
    assert kinds == [("prompt", False), ("text", False), ("tool", False), ("prompt", True), ("text", False)]
    messages = bench.state_values(run.thread_id)["messages"]
    assert [m.type for m in messages] == ["human", "ai", "tool", "human", "ai"]
    assert messages[3].content == "Focus on otters, please." and messages[3].additional_kwargs[STEERED]
    assert "› Focus on otters, please. [given while it worked]" in snapshot_bundle(run.state)["text/plain"]
    assert steering.take(run.thread_id) == []


def test_a_steer_no_model_call_took_is_said_and_the_thread_goes_on() -> None:
    model = scripted(
        {
            "main": [
                {"match": "Answer", "turns": ["Answering slowly, word by word, now."]},
                {"turns": ["Ok."]},
            ]
        },
        delay=0.15,
    )
    bench = deepnb.agent(unique("steer-late"), model)
    run = bench.start("Answer me")
    until(lambda: any(item["kind"] == "text" for item in run.state.items))
    run.steer("Also mention seals.")
    run.wait(30)
    assert run.status == "done", run.error
    notice = run.state.items[-1]
    assert notice["kind"] == "notice" and notice["level"] == "steer"
    assert "did not reach the agent (the run ended first): Also mention seals." in notice["text"]
    assert "run.follow_up" in notice["text"]
    assert steering.take(run.thread_id) == []
    assert [m.type for m in bench.state_values(run.thread_id)["messages"]] == ["human", "ai"]


def test_steering_is_refused_in_one_line_where_it_cannot_reach() -> None:
    bench = deepnb.agent(unique("steer-ended"), scripted({"main": ["Done."]}))
    run = bench.run("Go")
    with pytest.raises(DeepnbError, match=r"has ended \(done\): send it with run.follow_up"):
        run.steer("More")
    with pytest.raises(DeepnbError, match="a non-empty string"):
        run.steer("  ")

    from langgraph.graph import END, START, StateGraph
    from typing_extensions import TypedDict

    class State(TypedDict):
        n: int

    def wait(state: State) -> State:
        time.sleep(0.5)
        return {"n": state["n"] + 1}

    graph = StateGraph(State)
    graph.add_node("wait", wait)
    graph.add_edge(START, "wait")
    graph.add_edge("wait", END)
    attached = deepnb.attach(graph.compile(), name=unique("steer-attached"))
    running = attached.start({"n": 1})
    try:
        with pytest.raises(DeepnbError, match="cannot be steered: deepnb steers the agents it builds"):
            running.steer("Faster")
    finally:
        running.wait(30)
