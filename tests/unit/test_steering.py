"""``run.steer``: a message given while the agent works reaches its next model call, is kept in
the thread, shows where it was delivered, and is said when no model call took it."""

from __future__ import annotations

import pytest

import deepnb
from deepnb.core.errors import DeepnbError
from deepnb.core.events import STEERED
from deepnb.engine import steering
from deepnb.views.run.snapshot import snapshot_bundle
from tests.support.agents import scripted, unique
from tests.support.waiting import WAIT, Gate, wait_until


def test_a_steer_reaches_the_next_model_call_and_stays_in_the_thread() -> None:
    gate = Gate()

    def slow_lookup(topic: str) -> str:
        """Look a topic up (slowly)."""
        gate.hold()  # until the steer is given
        return f"notes on {topic}"

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
    gate.wait_reached()  # the tool runs: the next model call is after it
    run.steer("Focus on otters, please.")
    gate.open()
    run.wait(WAIT)
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
    wait_until(lambda: any(item["kind"] == "text" for item in run.state.items), "the answer's first words")
    run.steer("Also mention seals.")
    run.wait(WAIT)
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

    gate = Gate()

    def wait(state: State) -> State:
        gate.hold()  # running until the refusal is checked
        return {"n": state["n"] + 1}

    graph = StateGraph(State)
    graph.add_node("wait", wait)
    graph.add_edge(START, "wait")
    graph.add_edge("wait", END)
    attached = deepnb.attach(graph.compile(), name=unique("steer-attached"))
    running = attached.start({"n": 1})
    try:
        gate.wait_reached()
        with pytest.raises(DeepnbError, match="cannot be steered: deepnb steers the agents it builds"):
            running.steer("Faster")
    finally:
        gate.open()
        running.wait(WAIT)
