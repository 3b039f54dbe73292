""" "Approve all" when parallel subagents each wait on their own interrupt: the view's one button
sends each interrupt its own approval, and both subagents go on."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

import deepnb
from deepnb.engine.approvals import check_card


@pytest.fixture
def view() -> Any:
    from deepnb.views.run.run_view import RunView

    bench = deepnb.agent(
        f"every-{uuid.uuid4().hex[:6]}",
        "demo:approvals",
        interrupt_on={"write_file": True, "edit_file": True},
    )
    run = bench.run("Plan the launch")
    run.pending[0].approve()  # the main agent's plan; then two subagents stop in parallel
    run.wait()
    widget = RunView(run)
    widget.send = lambda message, buffers=None: None
    yield widget
    run.stop()
    widget.close()


def test_approve_all_answers_every_parallel_interrupt(view: Any) -> None:
    run = view.run
    assert run.status == "interrupted"
    interrupts = {p["id"]: p["agent"] for p in run.state.pending}
    assert len(interrupts) == 2 and set(interrupts.values()) == {
        "main/general-purpose",
        "main/general-purpose#2",
    }
    for interrupt_id in interrupts:  # what the front-end's one button sends: one message per interrupt
        view._handle_custom_msg({"type": "approve_all", "interrupt_id": interrupt_id}, [])
    run.wait()
    assert view.card_errors == {}
    assert sorted((d["interrupt_id"], d["type"]) for d in run.decisions[1:]) == sorted(
        (iid, "approve") for iid in interrupts
    )
    assert [p.name for p in run.pending] == ["edit_file"]  # both subagents went on; the main agent edits


def test_approve_all_leaves_actions_that_do_not_allow_approval() -> None:
    pending = [
        {
            "id": "i1",
            "actions": [
                {"index": 0, "name": "write_file", "allowed": ["approve", "reject"], "decision": None},
                {"index": 1, "name": "execute", "allowed": ["reject", "respond"], "decision": None},
                {"index": 2, "name": "edit_file", "allowed": ["approve"], "decision": {"type": "approve"}},
            ],
        }
    ]
    assert check_card("approve_all", {"interrupt_id": "i1"}, pending) == [0]


def test_approve_all_reads_the_threads_state_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Approving all N cards of one interrupt reads the thread's state once (a remote agent's
    state is an HTTP request), not once per card. The interrupt's last action does not allow an
    approval, so the run waits on and nothing else reads the state meanwhile."""
    from deepnb.models.scripted import ScriptedChatModel, parse_script
    from deepnb.session import run as run_module
    from deepnb.views.run.run_view import RunView

    count = 5
    writes = [
        {"name": "write_file", "args": {"file_path": f"/n{n}.md", "content": "x"}} for n in range(count)
    ]
    edit = {"name": "edit_file", "args": {"file_path": "/n0.md", "old_string": "x", "new_string": "y"}}
    model = ScriptedChatModel(
        script=parse_script({"agents": {"main": [{"tool_calls": [*writes, edit]}, "Done."]}})
    )
    bench = deepnb.agent(
        f"once-{uuid.uuid4().hex[:6]}",
        model,
        interrupt_on={"write_file": True, "edit_file": {"allowed_decisions": ["reject"]}},
    )
    run = bench.start("Write them.").wait(60)
    assert run.status == "interrupted"
    (request,) = run.state.pending
    assert len(request["actions"]) == count + 1
    view = RunView(run)
    view.send = lambda message, buffers=None: None
    reads: list[str] = []
    real = run_module.read_state

    def counted(*args: Any, **kwargs: Any) -> Any:
        reads.append(str(kwargs.get("agent")))
        return real(*args, **kwargs)

    monkeypatch.setattr(run_module, "read_state", counted)
    try:
        view._on_front_end_message(view, {"type": "approve_all", "interrupt_id": request["id"]}, [])
        assert view.card_errors == {}
        assert len(reads) == 1
        assert sorted(d["index"] for d in run.decisions) == list(range(count))
        assert run.status == "interrupted"  # the edit waits for its own decision
    finally:
        run.stop()
        view.close()
