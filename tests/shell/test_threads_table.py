"""``%deepagent threads`` counts steps as the run view does (the model's turns) and says how the
thread's last run in this kernel ended."""

from __future__ import annotations

from types import SimpleNamespace

from IPython.utils.capture import capture_output

from deepnb.magics.commands.threads import _run_label


def _cell(ip, source: str):
    with capture_output():
        result = ip.run_cell(source)
    assert result.error_in_exec is None, result.error_in_exec
    return result


def test_the_threads_table_counts_the_steps_the_view_shows_and_fills_the_run_column(ip):
    _cell(ip, "%%deepagent -m demo:quickstart -o first\nA brief")
    first = ip.user_ns["first"].wait(60)
    assert first.status == "done", first.error
    view_steps = first.state.progress()["steps"]
    assert view_steps > 1
    table = _cell(ip, "%deepagent threads").result
    assert table.columns[3:] == ("steps", "last run here")
    rows = {row[1]: row for row in table.rows}
    assert rows[first.thread_id][3:] == (view_steps, "done")


def test_the_run_column_says_how_a_run_ended_or_that_none_ran_here():
    assert _run_label(None) == "—"
    assert [_run_label(SimpleNamespace(status=s)) for s in ("interrupted", "cancelled", "error", "done")] == [
        "waiting for approval",
        "stopped",
        "failed",
        "done",
    ]
