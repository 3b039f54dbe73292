"""A write answered at an approval (reject, respond) was never made: the view and its static
snapshot list it apart from the files changed, struck through."""

from __future__ import annotations

from deepnb.core import events as ev
from deepnb.engine.state import RunState
from deepnb.views.run.snapshot import snapshot_html, snapshot_text

M = "main"


def _write(call_id: str, path: str) -> ev.ToolCallStarted:
    return ev.ToolCallStarted(M, call_id, "write_file", {"file_path": path, "content": "x"})


def _run(*, rejected_executed: bool = False) -> RunState:
    state = RunState(agent="writer", thread_id="t1")
    for event in (
        ev.RunStarted(M, "t1", "write two files"),
        _write("c1", "/kept.md"),
        _write("c2", "/refused.md"),
        ev.ToolCallFinished(M, "c1", "write_file", "Updated file /kept.md"),
        ev.ToolCallFinished(M, "c2", "write_file", "The user rejected it.", executed=rejected_executed),
        ev.RunFinished(M, "done"),
    ):
        state.apply(event)
    return state


def test_a_write_that_never_ran_is_not_a_changed_file_but_is_listed_apart() -> None:
    data = _run().to_json()
    assert data["files_changed"] == ["/kept.md"]
    assert data["files_not_written"] == ["/refused.md"]


def test_the_static_snapshot_strikes_through_what_was_not_written() -> None:
    data = _run().to_json()
    text = snapshot_text(data)
    assert "Files changed: /kept.md" in text.splitlines()
    assert "Not written: ~~/refused.md~~" in text.splitlines()
    html = snapshot_html(data)
    files_line = next(line for line in html.splitlines() if "Files changed:" in line)
    assert "/refused.md" not in files_line
    assert "<s>/refused.md</s>" in html


def test_a_path_written_by_another_call_is_not_listed_as_not_written() -> None:
    state = _run()
    state.apply(_write("c3", "/refused.md"))
    state.apply(ev.ToolCallFinished(M, "c3", "write_file", "Updated file /refused.md"))
    data = state.to_json()
    assert data["files_changed"] == ["/kept.md", "/refused.md"]
    assert data["files_not_written"] == []
    assert "Not written" not in snapshot_text(data)


def test_a_snapshot_saved_before_the_field_existed_still_renders() -> None:
    data = dict(_run().to_json())
    del data["files_not_written"]
    assert "Not written" not in snapshot_text(data) and "Not written" not in snapshot_html(data)
