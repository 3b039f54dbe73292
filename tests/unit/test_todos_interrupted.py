"""A run that failed or was stopped left its in-progress todo unfinished: the static snapshot shows
it as interrupted, not as the active one."""

from __future__ import annotations

import pytest

from deepnb.core import events as ev
from deepnb.engine.state import RunState
from deepnb.views.run.snapshot import snapshot_html, snapshot_text

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


class _Run:
    def __init__(self, status: str) -> None:
        self.status = status


class _Session:
    """What ``%deepagent todos`` reads of a session: the todos and the thread's latest run."""

    name = "planner"
    current_thread = "t1"

    def __init__(self, status: str | None) -> None:
        self.status = status

    def todos(self, thread_id: str | None = None) -> list[dict[str, str]]:
        return [dict(t) for t in TODOS]

    def active_run(self, thread_id: str | None = None) -> None:
        return None

    def latest_run(self, thread_id: str | None = None) -> _Run | None:
        return _Run(self.status) if self.status else None


@pytest.mark.parametrize(
    ("status", "line"),
    [
        ("cancelled", "  ⊘ Analyse it (interrupted)"),
        ("error", "  ⊘ Analyse it (interrupted)"),
        ("done", "  ◐ Analyse it"),
        (None, "  ◐ Analyse it"),
    ],
)
def test_the_todos_magic_says_what_the_view_says(
    monkeypatch: pytest.MonkeyPatch, status: str | None, line: str
) -> None:
    from argparse import Namespace

    from deepnb.magics.commands import threads

    monkeypatch.setattr(threads.building, "get", lambda *_a, **_k: _Session(status))
    shown = threads.todos(Namespace(agent=None, thread=None), {})
    assert line in repr(shown).splitlines()
    interrupted = '<li data-status="interrupted">⊘ Analyse it' in shown._repr_html_()
    assert interrupted == (status in ("cancelled", "error"))
