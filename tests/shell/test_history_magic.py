"""``%deepagent history`` is a table of a thread's steps; ``%deepagent fork`` makes a thread from
one of them and gives back its id; a bad step or thread is one line."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output

from deepnb.views.history_view import history_table


def _cell(ip, source: str):
    with capture_output():
        result = ip.run_cell(source)
    assert result.error_in_exec is None, result.error_in_exec
    return result


def test_history_and_fork_magics(ip):
    _cell(ip, "%%deepagent -m demo:quickstart --new -o ran\nA brief <script>alert(1)</script>")
    run = ip.user_ns["ran"].wait(60)
    assert run.status == "done", run.error
    shown = _cell(ip, f"%deepagent history -t {run.thread_id}").result
    table = history_table(shown)
    assert table.columns == ("step", "what it did", "saved (UTC)", "checkpoint")
    assert [row[0] for row in table.rows] == [1, 2, 3, 4, 5, 6] == list(shown.fork_at)  # one row per step
    assert "called write_todos" in table.rows[0][1] and "after_model" not in repr(shown)
    html = shown._repr_html_()
    assert "prompt “A brief &lt;script&gt;alert(1)&lt;/script&gt;”" in html and "<script" not in html

    every = _cell(ip, f"%deepagent history -t {run.thread_id} --all").result
    nodes = history_table(every)
    assert nodes.columns[:4] == ("step", "--at", "agent", "node")
    assert len(nodes.rows) == len(every) > 6 and "TodoListMiddleware.after_model" in repr(every)
    assert [row[1] for row in nodes.rows if row[1] != ""] == [1, 2, 3, 4, 5, 6]  # where --at N forks

    forked = _cell(ip, f"forked = %deepagent fork -t {run.thread_id} --at 3").result
    assert forked is None and isinstance(ip.user_ns["forked"], str)  # the id, as a plain string
    new = ip.user_ns["forked"]
    assert repr(ip.user_ns["forked"]) == f"New thread {new} from thread {run.thread_id} at step 3."
    history = run.workbench.history(run.thread_id)
    at_three = next(c for c in history if c.checkpoint_id == history.fork_at[3])
    assert run.workbench.history(new)[0].next == at_three.next
    assert (
        run.workbench.state_values(new)["messages"]
        == run.workbench.graph.get_state(
            {"configurable": {"thread_id": run.thread_id, "checkpoint_id": at_three.checkpoint_id}}
        ).values["messages"]
    )
    assert new in {t.thread_id for t in run.workbench.threads()}


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("history -t ghost", "has no thread 'ghost': %deepagent threads lists its threads."),
        ("fork -t ghost --at 1", "has no thread 'ghost': %deepagent threads lists its threads."),
    ],
)
def test_an_unknown_thread_is_one_line(ip, line, expected):
    _cell(ip, "%%deepagent -m demo:quickstart --new -o ran\nA brief")
    ip.user_ns["ran"].wait(60)
    with pytest.raises(UsageError) as error:
        ip.run_line_magic("deepagent", line)
    assert str(error.value).endswith(expected) and "\n" not in str(error.value)


def test_a_fork_at_a_missing_step_names_the_range(ip):
    _cell(ip, "%%deepagent -m demo:quickstart --new -o ran\nA brief")
    run = ip.user_ns["ran"].wait(60)
    last = run.workbench.history(run.thread_id)[0].step
    with pytest.raises(UsageError, match=rf"has no step 500: its steps run from 1 to {last} "):
        ip.run_line_magic("deepagent", f"fork -t {run.thread_id} --at 500")
