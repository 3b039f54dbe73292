"""A thread's history says who wrote each step and what changed; a fork copies a thread's state at
a step (its next nodes too) into a new thread that goes on from there, the original untouched."""

from __future__ import annotations

import pytest

import deepnb
from deepnb.core.errors import DeepnbError
from deepnb.engine.history import changes
from deepnb.session.remote import RemoteWorkbench
from deepnb.session.remote.client import Server
from tests.support.waiting import WAIT
from tests.unit.conftest import unique


def _done(workbench, prompt: str):
    run = workbench.start(prompt).wait(WAIT)
    assert run.status == "done", run.error
    return run


def _answer(workbench, thread: str) -> str:
    messages = workbench.state_values(thread)["messages"]
    return [m for m in messages if m.type == "ai"][-1].content


def test_history_names_the_writer_and_what_changed() -> None:
    workbench = deepnb.agent(name=unique("hist"), model="demo:quickstart")
    run = _done(workbench, "Write a brief about tide pools")
    steps = workbench.history(run.thread_id)
    assert {s.agent for s in steps} == {workbench.name}
    assert steps[-1].node == "__input__" and (steps[-1].step, steps[-1].graph_step) == (0, -1)
    changed = [c for s in steps for c in s.changes]
    assert "prompt: Write a brief about tide pools" in changed
    assert "tool call: write_todos" in changed and "tool result: write_todos" in changed
    assert any(c.startswith("todos: ") for c in changed)
    assert any(c.startswith("file: /") for c in changed)
    by_node = {s.node for s in steps if any(c.startswith("tool call: ") for c in s.changes)}
    assert by_node == {"model"}  # tool calls come from the model's turns
    assert all(not s.changes for s in steps if s.node.endswith("after_agent"))


def test_changes_of_state_values() -> None:
    before = {"todos": [], "files": {"/a.md": "x", "/b.md": "y"}, "flag": 1}
    after = {"todos": [{"content": "t", "status": "completed"}], "files": {"/a.md": "z"}, "flag": 2}
    assert changes(before, after) == ("file: /a.md", "file deleted: /b.md", "flag changed", "todos: 1/1 done")
    assert changes(after, after) == ()


def test_checkpoint_after_names_where_the_run_ended_and_the_next_run_starts() -> None:
    workbench = deepnb.agent(name=unique("after"), model="demo:quickstart")
    first = _done(workbench, "Write a brief about tide pools")
    assert first.checkpoint_before is None
    assert first.checkpoint_after == workbench.history(first.thread_id)[0].checkpoint_id
    second = workbench.start("And another", thread=first.thread_id).wait(WAIT)
    assert second.checkpoint_before == first.checkpoint_after
    latest = workbench.history(first.thread_id)[0].checkpoint_id
    assert second.checkpoint_after == latest != first.checkpoint_after


def test_a_fork_mid_run_keeps_what_runs_next_and_a_run_there_goes_on() -> None:
    workbench = deepnb.agent(name=unique("fork"), model="demo:quickstart")
    run = _done(workbench, "Write a brief about tide pools")
    original = workbench.history(run.thread_id)
    middle = next(s for s in original if s.next == ("tools",))  # a tool call before its result
    forked = workbench.fork(run.thread_id, middle.checkpoint_id)
    assert forked != run.thread_id
    assert (
        workbench.state_values(forked)
        == workbench.graph.get_state(
            {"configurable": {"thread_id": run.thread_id, "checkpoint_id": middle.checkpoint_id}}
        ).values
    )
    assert workbench.history(forked)[0].next == ("tools",)
    going_on = workbench.resume(forked).wait(WAIT)  # continues from the fork's step: no new prompt
    assert going_on.status == "done", going_on.error
    assert _answer(workbench, forked) == _answer(workbench, run.thread_id)
    assert workbench.history(run.thread_id) == original  # the original thread is untouched


def test_a_fork_at_a_paused_step_waits_for_the_same_approval() -> None:
    workbench = deepnb.agent(unique("forkhitl"), "demo:approvals", interrupt_on={"write_file": True})
    run = workbench.run("Plan the launch")
    assert run.status == "interrupted"
    asked = {p.args["file_path"] for p in run.pending}
    forked = workbench.fork(run.thread_id, run.checkpoint_after)  # a checkpoint id works as well
    waiting = workbench.resume(forked).wait(WAIT)  # the approval step runs again and asks again
    assert waiting.status == "interrupted" and {p.args["file_path"] for p in waiting.pending} == asked
    assert run.status == "interrupted" and workbench.active_run(run.thread_id) is run
    workbench.stop(forked)
    workbench.stop(run.thread_id)


def test_a_fork_at_a_step_that_does_not_exist_names_the_range() -> None:
    workbench = deepnb.agent(name=unique("forkbad"), model="demo:quickstart")
    run = _done(workbench, "Write a brief about tide pools")
    last = workbench.history(run.thread_id)[0].step
    assert last == run.state.steps == 6
    for missing in (999, 0, -1):
        with pytest.raises(
            DeepnbError, match=rf"has no step {missing}: its steps run from 1 to 6 "
        ) as refused:
            workbench.fork(run.thread_id, missing)
        assert "\n" not in str(refused.value)
    with pytest.raises(DeepnbError, match="has no step or checkpoint 'nope'"):
        workbench.fork(run.thread_id, "nope")
    with pytest.raises(DeepnbError, match=rf"Agent '{workbench.name}' has no thread 'ghost'"):
        workbench.fork("ghost", 1)
    assert len(workbench.threads()) == 1  # nothing half-made


def test_every_step_of_two_runs_and_a_notebook_write_forks_exactly() -> None:
    workbench = deepnb.agent(name=unique("forkall"), model="demo:quickstart")
    first = _done(workbench, "Write a brief about tide pools")
    workbench.files(first.thread_id).write("/note.md", "hello")  # a step written from outside
    workbench.start("And another", thread=first.thread_id).wait(WAIT)
    config = {"configurable": {"thread_id": first.thread_id}}
    snapshots = list(workbench.graph.get_state_history(config))
    assert {s.metadata["source"] for s in snapshots} == {"input", "loop", "update"}
    for snapshot in snapshots:
        checkpoint = snapshot.config["configurable"]["checkpoint_id"]
        if snapshot.metadata["source"] == "input":  # the prompt is not in the state yet
            with pytest.raises(
                DeepnbError, match=rf"^Checkpoint {checkpoint} of thread '{first.thread_id}' holds "
            ):
                workbench.fork(first.thread_id, checkpoint)
            continue
        forked = workbench.graph.get_state(
            {"configurable": {"thread_id": workbench.fork(first.thread_id, checkpoint)}}
        )
        assert (forked.next, forked.values) == (snapshot.next, snapshot.values), checkpoint


def test_a_remote_fork_of_a_thread_that_is_no_server_thread_is_one_line() -> None:
    # forking a served thread is tested against a real server: tests/served/test_remote_fork.py
    server = Server("http://127.0.0.1:9")  # nothing here sends a request
    remote = RemoteWorkbench(unique("remote"), server, None, {"assistant_id": "a1", "graph_id": "deep"})
    with pytest.raises(DeepnbError, match="'t1' is not a thread of the Agent Protocol server") as refused:
        remote.fork("t1", 3)
    assert "\n" not in str(refused.value)


def test_run_at_a_step_goes_on_a_fork_with_the_new_prompt() -> None:
    workbench = deepnb.agent(name=unique("runat"), model="demo:quickstart")
    run = _done(workbench, "Write a brief about tide pools")
    original = workbench.history(run.thread_id)
    again = workbench.run("Now about kelp", thread=run.thread_id, at=2)
    assert again.status == "done", again.error
    assert again.thread_id not in (run.thread_id, "") and workbench.current_thread == again.thread_id
    humans = [m.content for m in workbench.state_values(again.thread_id)["messages"] if m.type == "human"]
    assert humans == ["Write a brief about tide pools", "Now about kelp"]
    assert workbench.history(run.thread_id) == original
    with pytest.raises(DeepnbError, match="not both"):
        workbench.start("x", new_thread=True, at=1)


@pytest.mark.parametrize("step", [3, 6])
def test_a_fork_forks_again_at_the_step_it_copies(step: int) -> None:
    """A fork's checkpoint has no task before it that says which node wrote it: forked again
    there, it is written as the node its own copy was written as."""
    workbench = deepnb.agent(name=unique("forkfork"), model="demo:quickstart")
    run = _done(workbench, "Write a brief about tide pools")
    first = workbench.fork(run.thread_id, step)
    second = workbench.fork(first, step)
    copied, again = workbench.read_state(first), workbench.read_state(second)
    assert (again.values, again.next) == (copied.values, copied.next)
    if step == 3:
        going_on = workbench.resume(second).wait(WAIT)
        assert going_on.status == "done", going_on.error
        assert _answer(workbench, second) == _answer(workbench, run.thread_id)
