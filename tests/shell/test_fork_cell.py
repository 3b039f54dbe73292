"""``%%deepagent -t THREAD --at STEP`` forks the thread at that step and runs the cell there: the
new thread becomes current, the cell names it in one line, the original thread is untouched."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output


def _cell(ip, source: str):
    with capture_output() as captured:
        result = ip.run_cell(source)
    if result.error_in_exec is not None:
        raise result.error_in_exec
    return captured


def _first_run(ip):
    _cell(ip, "%%deepagent -m demo:quickstart --new -o ran\nWrite a brief about tide pools")
    run = ip.user_ns["ran"].wait(60)
    assert run.status == "done", run.error
    return run


def test_a_cell_at_a_step_runs_on_a_fork_and_leaves_the_original(ip):
    run = _first_run(ip)
    workbench = run.workbench
    history = workbench.history(run.thread_id)
    messages = workbench.state_values(run.thread_id)["messages"]
    middle = next(c for c in history if c.checkpoint_id == history.fork_at[2])

    said = _cell(ip, f"%%deepagent -t {run.thread_id} --at {middle.step} -o again\nNow about kelp")
    forked = ip.user_ns["again"].wait(60)
    assert forked.status == "done", forked.error
    assert forked.thread_id != run.thread_id
    assert said.stdout.strip().splitlines()[0] == (
        f"New thread {forked.thread_id} from thread {run.thread_id} at step {middle.step}."
    )
    assert workbench.current_thread == forked.thread_id
    assert workbench.history(run.thread_id) == history  # the original: same steps, same messages
    assert workbench.state_values(run.thread_id)["messages"] == messages
    new_messages = workbench.state_values(forked.thread_id)["messages"]
    humans = [m.content for m in new_messages if m.type == "human"]
    assert humans == ["Write a brief about tide pools", "Now about kelp"]
    at_step = workbench.graph.get_state(
        {"configurable": {"thread_id": run.thread_id, "checkpoint_id": middle.checkpoint_id}}
    ).values["messages"]
    assert new_messages[: len(at_step)] == at_step  # the fork starts from the step's messages


def test_at_without_a_thread_forks_the_current_one_by_checkpoint_id(ip):
    run = _first_run(ip)
    target = run.workbench.history(run.thread_id)[2]
    said = _cell(ip, f"%%deepagent --at {target.checkpoint_id} -o again\nOnce more")
    forked = ip.user_ns["again"].wait(60)
    assert forked.status == "done", forked.error
    assert f"from thread {run.thread_id} at checkpoint {target.checkpoint_id}." in said.stdout
    assert forked.thread_id != run.thread_id


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ("--new --at 2", "use either --at or --new, not both"),
        ("--at 500", "has no step 500: its steps run from 1 to 6 "),
    ],
)
def test_a_bad_at_is_one_line(ip, options, expected):
    run = _first_run(ip)
    before = run.workbench.history(run.thread_id)
    with pytest.raises(UsageError) as error:
        _cell(ip, f"%%deepagent {options}\nAgain")
    assert expected in str(error.value) and "\n" not in str(error.value)
    assert run.workbench.history(run.thread_id) == before
    assert run.workbench.current_thread == run.thread_id


def test_a_fork_at_a_tool_call_before_its_result_says_what_it_means(ip):
    run = _first_run(ip)
    history = run.workbench.history(run.thread_id)
    held = next(c for c in reversed(history) if c.waiting)  # the model asked, the tool has not run
    assert held.waiting == ("write_todos",) and held.checkpoint_id not in history.fork_at.values()
    forked = ip.run_line_magic("deepagent", f"fork -t {run.thread_id} --at {held.checkpoint_id}")
    assert repr(forked) == (
        f"New thread {forked} from thread {run.thread_id} at checkpoint {held.checkpoint_id}. It holds "
        f"write_todos before its result: %deepagent resume -t {forked} runs it and goes on; a prompt sent "
        "there instead cancels it."
    )
    going_on = run.workbench.resume(forked).wait(60)  # what the line says: the tool runs first
    assert going_on.status == "done", going_on.error
    messages = run.workbench.state_values(forked)["messages"]
    result = next(m for m in messages if m.type == "tool")
    assert result.name == "write_todos" and "cancelled" not in str(result.content)

    said = _cell(ip, f"%%deepagent -t {run.thread_id} --at {held.checkpoint_id} -o again\nShorter")
    assert "It held write_todos before its result: the prompt came first" in said.stdout.splitlines()[0]
