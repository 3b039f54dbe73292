"""A raw interrupt's card sends ``answer`` messages: forged ones (unknown interrupt, an approval's
id, a value that is not JSON data, extra fields, a second answer) are refused, recorded on the
card, and resume nothing; a well-formed one answers exactly its interrupt."""

from __future__ import annotations

import operator
import uuid
from typing import Annotated, Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.types import interrupt

import deepnb
from tests.support.agents import unique


class Two(MessagesState):
    said: Annotated[list[str], operator.add]


def _graph() -> Any:
    def first(state: Two) -> dict[str, Any]:
        return {"said": [str(interrupt("first?"))]}

    def second(state: Two) -> dict[str, Any]:
        return {"said": [str(interrupt({"ask": "second?"}))]}

    graph = StateGraph(Two)
    graph.add_node("first", first)
    graph.add_node("second", second)
    graph.add_edge(START, "first")
    graph.add_edge(START, "second")
    return graph.compile(checkpointer=InMemorySaver())


@pytest.fixture(scope="module")
def bench() -> Any:
    return deepnb.attach(_graph(), name=unique("answers"))


@pytest.fixture
def view(bench: Any) -> Any:
    from deepnb.views.run.run_view import RunView

    run = bench.start("go", thread=uuid.uuid4().hex).wait(30)
    assert run.status == "interrupted" and len(run.pending) == 2
    widget = RunView(run)
    widget.sent = []
    widget.send = lambda message, buffers=None: widget.sent.append(message)
    yield widget
    run.stop()
    widget.close()


FIRST = "<the first interrupt>"


def forged() -> list[Any]:
    valid = {"type": "answer", "interrupt_id": FIRST, "value": "yes"}
    cases = [
        ("no id", {"type": "answer", "value": "yes"}),
        ("id not text", {**valid, "interrupt_id": 7}),
        ("unknown id", {**valid, "interrupt_id": "not-pending"}),
        ("no value", {"type": "answer", "interrupt_id": FIRST}),
        ("value a set", {**valid, "value": {1, 2}}),
        ("value a tuple", {**valid, "value": (1, 2)}),
        ("value nan", {**valid, "value": float("inf")}),
        ("value with int keys", {**valid, "value": {1: "a"}}),
        ("value nested too deep", {**valid, "value": _deep(40)}),
        ("value an object", {**valid, "value": object()}),
        ("extra field", {**valid, "index": 0}),
        (
            "decision on a question",
            {"type": "decide", "interrupt_id": FIRST, "index": 0, "decision": {"type": "approve"}},
        ),
        ("approve_all on a question", {"type": "approve_all", "interrupt_id": FIRST}),
    ]
    return [pytest.param(message, id=label) for label, message in cases]


def _deep(levels: int) -> Any:
    value: Any = "x"
    for _ in range(levels):
        value = [value]
    return value


def _real(message: dict[str, Any], interrupt_id: str) -> dict[str, Any]:
    return {k: interrupt_id if v == FIRST else v for k, v in message.items()}


def _first(run: Any) -> str:
    return next(p.interrupt_id for p in run.pending if p.value == "first?")


@pytest.mark.parametrize("message", forged())
def test_a_forged_answer_is_refused_and_nothing_resumes(view: Any, message: dict[str, Any]) -> None:
    run = view.run
    view._handle_custom_msg(_real(message, _first(run)), [])
    assert run.status == "interrupted" and run.decisions == [], "a forged answer resumed something"
    assert len(run.pending) == 2
    assert view.sent == []
    assert view.card_errors and all(isinstance(v, str) and v for v in view.card_errors.values())


def test_an_answer_is_sent_once_and_answers_only_its_interrupt(view: Any) -> None:
    run = view.run
    first = _first(run)
    view._handle_custom_msg({"type": "answer", "interrupt_id": first, "value": {"ok": [1, True, None]}}, [])
    assert view.card_errors == {}
    run.wait(30)
    assert [p.value for p in run.pending] == [{"ask": "second?"}]
    assert run.workbench.state_values(run.thread_id)["said"] == ["{'ok': [1, True, None]}"]
    view._handle_custom_msg({"type": "answer", "interrupt_id": first, "value": "again"}, [])
    assert first + ":answer" in view.card_errors
    assert [d["message"] for d in run.decisions] == ['{"ok": [1, true, null]}']
