"""A run that failed or was stopped left its in-progress todo unfinished: the static snapshot shows
it as interrupted, not as the active one."""

from __future__ import annotations

import pytest

from deepnb import events as ev
from deepnb.state import RunState
from deepnb.views.snapshot import snapshot_html, snapshot_text

M = "main"
TODOS = (
    {"content": "Gather data", "status": "completed"},
    {"content": "Analyse it", "status": "in_progress"},
)


def _run(end: ev.Event | None) -> RunState:
    state = RunState(agent="planner", thread_id="t1")
    for event in (ev.RunStarted(M, "t1", "plan"), ev.TodosChanged(M, TODOS), *([end] if end else [])):
        state.apply(event)
    return state


@pytest.mark.parametrize("end", [ev.RunCancelled(M), ev.RunFailed(M, "boom")], ids=["stopped", "failed"])
def test_a_broken_off_run_shows_its_in_progress_todo_as_interrupted(end: ev.Event) -> None:
    data = _run(end).to_json()
    assert data["todos"][1]["status"] == "in_progress"  # the thread's own todo list is unchanged
    lines = snapshot_text(data).splitlines()
    assert "  ⊘ Analyse it (interrupted)" in lines and "  ✓ Gather data" in lines
    html = snapshot_html(data)
    assert '<li data-status="interrupted">⊘ Analyse it' in html
    assert 'data-status="in_progress"' not in html


@pytest.mark.parametrize("end", [None, ev.RunFinished(M, "ok")], ids=["running", "done"])
def test_a_running_or_finished_run_shows_its_in_progress_todo_as_active(end: ev.Event | None) -> None:
    data = _run(end).to_json()
    assert "  ◐ Analyse it" in snapshot_text(data).splitlines()
    html = snapshot_html(data)
    assert '<li data-status="in_progress">◐ Analyse it' in html and "interrupted" not in html
