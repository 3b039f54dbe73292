"""Raw interrupts over the kernel protocol: a graph's ``interrupt(value)`` shows as a card in the
run view, a reply sent the way the front end sends it (a comm message) answers it, and an
interrupt answered outside deepnb frees the thread."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.kernel_session import KernelSession, deepnb_kernel

pytestmark = pytest.mark.kernel

SETUP = """
import deepnb
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import Command, interrupt

def ask(state):
    form = interrupt({"question": "Which <city>?", "options": ["Lisbon", "Porto"]})
    return {"messages": [{"role": "ai", "content": f"Off to {form['city']} for {form['days']} days."}]}

builder = StateGraph(MessagesState)
builder.add_node("ask", ask)
builder.add_edge(START, "ask")
builder.add_edge("ask", END)
graph = builder.compile(checkpointer=InMemorySaver())
deepnb.attach(graph, name="trip")
"""
SQLITE = SETUP.replace(
    'deepnb.attach(graph, name="trip")',
    'deepnb.attach(builder.compile(), name="kept", checkpointer="sqlite:{db}")',
)


@pytest.fixture(scope="module")
def kernel(tmp_path_factory) -> Iterator[KernelSession]:
    with deepnb_kernel(str(tmp_path_factory.mktemp("interrupts"))) as session:
        setup = session.execute(SETUP)
        assert setup.ok, setup.text()
        yield session


def question(kernel: KernelSession, comm_id: str) -> dict:
    def ready():
        state = kernel.widgets[comm_id]
        asked = [p for p in state.get("pending", []) if p.get("kind") == "question"]
        return state["status"] == "interrupted" and asked

    (found,) = kernel.wait_for(ready, timeout=30)
    return found


def test_a_card_answers_a_raw_interrupt(kernel: KernelSession) -> None:
    before = len(kernel.run_views())
    execution = kernel.execute("%%deepagent -a trip --new -o trip_run\nPlan a trip")
    assert execution.ok, execution.text()
    comm_id, _ = kernel.newest_view(before)
    asked = question(kernel, comm_id)
    assert asked["value"] == {"question": "Which <city>?", "options": ["Lisbon", "Porto"]}
    assert "waiting for your answer" in execution.text()

    # An answer to an interrupt that is not pending: refused on the card, nothing resumed.
    kernel.click(comm_id, {"type": "answer", "interrupt_id": "not-pending", "value": "x"})
    kernel.wait_for(lambda: kernel.widgets[comm_id].get("card_errors"))
    assert "not-pending:answer" in kernel.widgets[comm_id]["card_errors"]

    kernel.click(
        comm_id, {"type": "answer", "interrupt_id": asked["id"], "value": {"city": "Porto", "days": 3}}
    )
    kernel.wait_for(lambda: kernel.widgets[comm_id]["status"] == "done", timeout=30)
    check = kernel.execute(
        "assert trip_run.result == 'Off to Porto for 3 days.', trip_run.result\n"
        "assert [d['type'] for d in trip_run.decisions] == ['answer']"
    )
    assert check.ok, check.text()


def test_answered_outside_deepnb_the_thread_is_free(kernel: KernelSession) -> None:
    started = kernel.execute("%%deepagent -a trip --new -o outside\nPlan a trip")
    assert started.ok, started.text()
    answered = kernel.execute(
        "graph.invoke(Command(resume={'city': 'Lisbon', 'days': 2}),"
        " {'configurable': {'thread_id': outside.thread_id}})\n"
        "assert outside.pending == [], outside.pending\n"
        "assert outside.status == 'done' and outside.result == 'Off to Lisbon for 2 days.', outside.result"
    )
    assert answered.ok, answered.text()
    again = kernel.execute("%%deepagent -a trip -o again\nAnother trip")
    assert again.ok and "waiting for your answer" in again.text(), again.text()
    assert kernel.execute("assert again.thread_id == outside.thread_id and again.status == 'interrupted'").ok


def test_a_raw_interrupt_comes_back_after_a_kernel_restart(kernel: KernelSession, tmp_path: Path) -> None:
    setup = SQLITE.replace("{db}", str(tmp_path / "threads.db"))
    assert kernel.execute(setup).ok
    first = kernel.execute("%%deepagent -a kept --new -o before\nPlan a trip")
    assert first.ok and "waiting for your answer" in first.text(), first.text()
    thread = kernel.execute("print(before.thread_id)").text().strip()

    kernel.restart()
    assert kernel.execute("%load_ext deepnb").ok
    assert kernel.execute(setup).ok
    before = len(kernel.run_views())
    shown = kernel.execute(f"r = %deepagent approvals -a kept -t {thread}\nr")
    assert shown.ok, shown.text()
    comm_id, _ = kernel.newest_view(before)
    asked = question(kernel, comm_id)
    assert asked["value"]["question"] == "Which <city>?"
    check = kernel.execute(
        "(q,) = r.pending\n"
        "assert q.value['options'] == ['Lisbon', 'Porto'], q\n"
        "q.resume({'city': 'Lisbon', 'days': 5})\n"
        "r.wait(30)\n"
        "assert r.result == 'Off to Lisbon for 5 days.', r.result"
    )
    assert check.ok, check.text()
    kernel.wait_for(lambda: kernel.widgets[comm_id]["status"] == "done", timeout=30)
