"""The run view's box: a follow-up sent from it continues in the same view (the turns before it
stay above, the new run streams below, the static snapshot holds every turn); a message sent
while the run runs steers it; forged or untimely messages are refused in one line."""

from __future__ import annotations

from typing import Any

import pytest
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

import deepnb
from deepnb.views.messages import RUN_MESSAGES, MessageRefused, check
from deepnb.views.output import view_snapshot
from deepnb.views.run.run_view import RunView
from deepnb.views.run.turns import bounded_turns, cell_line
from tests.support.agents import scripted, unique
from tests.support.waiting import Gate


def conversation(delay: float = 0.0) -> Any:
    return scripted(
        {
            "main": [
                {"match": "Plan", "turns": ["Step one: **pack**."]},
                {"match": "then", "turns": ["Step two: go."]},
                {"turns": ["Noted."]},
            ]
        },
        delay=delay,
    )


class Sent:
    """A view whose replies to its front end are kept."""

    def __init__(self, view: RunView) -> None:
        self.view = view
        self.messages: list[dict[str, Any]] = []
        view.send = lambda content, buffers=None: self.messages.append(content)  # type: ignore[method-assign]

    def click(self, content: Any) -> dict[str, Any] | None:
        before = len(self.messages)
        self.view._on_front_end_message(self.view, content, [])
        replies = [m for m in self.messages[before:] if m.get("type") == "composed"]
        return replies[-1] if replies else None


def test_the_box_messages_are_checked_like_every_other() -> None:
    assert check({"type": "follow_up", "prompt": "And then?"}, RUN_MESSAGES) == "follow_up"
    assert check({"type": "steer", "message": "Focus"}, RUN_MESSAGES) == "steer"
    forged = [
        ({"type": "follow_up"}, "needs prompt"),
        ({"type": "follow_up", "prompt": 7}, "prompt must be str, not int"),
        ({"type": "follow_up", "prompt": "x", "thread": "other"}, "has no field 'thread'"),
        ({"type": "steer", "message": ["x"]}, "message must be str, not list"),
        ({"type": "steer"}, "needs message"),
    ]
    for content, said in forged:
        with pytest.raises(MessageRefused, match=said):
            check(content, RUN_MESSAGES)


def test_a_follow_up_from_the_box_continues_in_the_same_view() -> None:
    bench = deepnb.agent(unique("view-follow-up"), conversation())
    first = bench.run("Plan a trip")
    view = RunView(first, live_controls=False)  # shown by a cell that held the kernel
    box = Sent(view)
    revision = view.revision
    assert box.click({"type": "follow_up", "prompt": "And then?"}) == {
        "type": "composed",
        "kind": "follow_up",
        "error": "",
    }
    later = view.run
    assert later is not first and first.follow_ups == [later] and view.runs == [first, later]
    later.wait(30)
    view.sync()
    assert later.status == "done" and later.result == "Step two: go."
    assert view.status == "done" and view.revision > revision
    assert view.live_controls and view.stop_hint == "", "no cell runs a follow-up from the box"
    assert [item["text"] for item in view.items if item["kind"] == "prompt"] == ["And then?"]
    (turn,) = view.turns
    assert turn["run_id"] == first.id and turn["prompt"] == "Plan a trip" and turn["status"] == "done"
    assert "<strong>pack</strong>" in turn["answer_html"] and "1 step" in turn["head"]
    assert view.follow_up_cell == cell_line(bench.name, first.thread_id)
    assert view.follow_up_cell == f"%%deepagent -a {bench.name} -t {first.thread_id}"

    # the static snapshot holds both turns, then the line that runs a follow-up as a cell
    text = view_snapshot(view)["text/plain"]
    assert text.index("Plan a trip") < text.index("Step one") < text.index("Follow-up 1")
    assert text.index("Follow-up 1") < text.index("And then?") < text.index("Step two: go.")
    assert text.rstrip().endswith(f"{view.follow_up_cell}, its prompt as the cell's body.")
    assert view_snapshot(view)["text/html"].count("<style>") == 1

    # a second follow-up goes on from the newest turn; the first run lists both
    assert box.click({"type": "follow_up", "prompt": "Anything else?"})["error"] == ""  # type: ignore[index]
    view.run.wait(30)
    assert first.follow_ups == [later, view.run] and [t["run_id"] for t in view.turns] == [first.id, later.id]
    assert view_snapshot(view)["text/plain"].count("── Follow-up") == 2


def test_a_follow_up_is_refused_in_one_line_while_the_thread_is_busy() -> None:
    bench = deepnb.agent(unique("view-busy"), conversation(delay=0.2))
    run = bench.start("Plan a long trip")
    view = RunView(run)
    box = Sent(view)
    try:
        reply = box.click({"type": "follow_up", "prompt": "And then?"})
        assert reply is not None and "still runs on thread" in reply["error"] and "\n" not in reply["error"]
        assert view.run is run and run.follow_ups == [] and view.turns == []
    finally:
        run.stop()
        run.wait(30)

    # another cell's run holds the thread now: the view's run has ended, the thread has not
    other = bench.start("Plan another long trip", thread=run.thread_id)
    try:
        reply = box.click({"type": "follow_up", "prompt": "And then?"})
        assert reply is not None and "is already running" in reply["error"] and "\n" not in reply["error"], (
            reply
        )
        assert view.run is run and view.runs == [run]
    finally:
        other.stop()
        other.wait(30)
    assert box.click({"type": "follow_up", "prompt": " \n "})["error"] == (  # type: ignore[index]
        "Type the follow-up first: the box is empty."
    )


def test_forged_box_messages_start_nothing() -> None:
    bench = deepnb.agent(unique("view-forged"), conversation())
    run = bench.run("Plan a trip")
    view = RunView(run)
    box = Sent(view)
    for content in (
        {"type": "follow_up", "prompt": 5},
        {"type": "follow_up", "prompt": "x", "auto_approve": True},
        {"type": "steer", "message": None},
    ):
        assert box.click(content) is None
        assert view.card_errors["message"].startswith("Refused a"), content
    assert view.runs == [run] and run.follow_ups == []


def test_a_steer_from_the_box_lands_in_the_transcript() -> None:
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
                        {"text": "Looking.", "tool_calls": [{"name": "slow_lookup", "args": {"topic": "t"}}]}
                    ],
                },
                {"match": "otters", "turns": ["Focusing on otters."]},
            ]
        }
    )
    bench = deepnb.agent(unique("view-steer"), model, tools=[slow_lookup])
    run = bench.start("Plan a trip")
    view = RunView(run)
    box = Sent(view)
    gate.wait_reached()  # the tool runs: the next model call is after it
    assert box.click({"type": "steer", "message": "Focus on otters, please."}) == {
        "type": "composed",
        "kind": "steer",
        "error": "",
    }
    gate.open()
    run.wait(30)
    view.sync()
    assert run.result == "Focusing on otters."
    steered = [item for item in view.items if item["kind"] == "prompt" and item.get("steered")]
    assert [item["text"] for item in steered] == ["Focus on otters, please."]
    reply = box.click({"type": "steer", "message": "More"})
    assert reply is not None and "has ended (done): send it with run.follow_up" in reply["error"]


def test_hostile_prompts_are_escaped_and_secrets_redacted_in_every_turn() -> None:
    bench = deepnb.agent(unique("view-hostile"), conversation())
    run = bench.run("Plan <img src=x onerror=alert(1)> with sk-ant-api03-" + "A" * 40)
    view = RunView(run)
    Sent(view).click({"type": "follow_up", "prompt": "and then <script>alert(2)</script>"})
    view.run.wait(30)
    html = view_snapshot(view)["text/html"]
    assert "<img src=x" not in html and "<script>alert(2)" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html and "&lt;script&gt;alert(2)" in html
    assert "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" not in html + view.turns[0]["prompt"]


def test_earlier_turns_keep_within_their_budget() -> None:
    turn = {
        "run_id": "r",
        "prompt": "p",
        "status": "done",
        "head": "h",
        "answer_html": "x" * 3000,
        "error": "",
    }
    shown = bounded_turns([dict(turn, run_id=f"r{n}") for n in range(8)], budget=8_000)  # type: ignore[misc]
    assert shown[-1]["answer_html"] and not shown[0]["answer_html"]
    assert [t["run_id"] for t in shown] == [f"r{n}" for n in range(8)]
    assert len(bounded_turns([dict(turn, prompt="p" * 2000) for _ in range(20)], budget=8_000)) < 20  # type: ignore[misc]


def test_a_long_answer_is_shortened_in_its_turn_and_whole_on_its_run() -> None:
    long = "Otters. " * 4000
    bench = deepnb.agent(unique("view-long"), scripted({"main": [long.strip(), "Short."]}))
    run = bench.run("Tell me everything")
    view = RunView(run)
    Sent(view).click({"type": "follow_up", "prompt": "Now briefly"})
    view.run.wait(30)
    (turn,) = view.turns
    assert "more characters not shown here" in turn["answer_html"] and len(turn["answer_html"]) < 12_000
    assert run.result == long.strip()


class Count(TypedDict):
    n: int


def test_steering_an_attached_graph_from_the_box_is_refused_in_one_line() -> None:
    gate = Gate()

    def wait(state: Count) -> Count:
        gate.hold()  # running until the refusal is checked
        return {"n": state["n"] + 1}

    graph = StateGraph(Count)
    graph.add_node("wait", wait)
    graph.add_edge(START, "wait")
    graph.add_edge("wait", END)
    attached = deepnb.attach(graph.compile(), name=unique("view-attached"))
    running = attached.start({"n": 1})
    view = RunView(running)
    try:
        gate.wait_reached()
        reply = Sent(view).click({"type": "steer", "message": "Faster"})
        assert reply is not None and "cannot be steered: deepnb steers the agents it builds" in reply["error"]
        assert "\n" not in reply["error"]
    finally:
        gate.open()
        running.wait(30)
