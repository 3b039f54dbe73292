"""``%deepagent history`` shown live: a row per step, each opening the step state panel with what
the session says of that step (its state, and its diff against the step before), read only; a
step that is not a row is refused in one line; a long thread's rows and every reply stay within
one message; a history with nothing to open shows as the static table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import deepnb
from deepnb.engine.step_state import said
from deepnb.server.views import snapshot_output
from deepnb.session.protocol import History
from deepnb.views import history_live
from deepnb.views.bounds import MESSAGE_LIMIT
from deepnb.views.history_live import HistoryView, history_bundle
from deepnb.views.run.step_panel import step_answer
from tests.support.agents import scripted, unique
from tests.support.view_messages import message_size
from tests.support.waiting import WAIT
from tests.unit.test_step_state import _bench

WIDGET = "application/vnd.jupyter.widget-view+json"


@pytest.fixture
def views() -> Any:
    made: list[HistoryView] = []

    def make(history: Any) -> HistoryView:
        made.append(HistoryView(history))
        return made[-1]

    yield make
    for view in made:
        view.close()


def _researched(tmp_path: Path, kind: str = "memory") -> tuple[Any, Any]:
    bench = _bench(kind, tmp_path)  # memory, or an SQLite file in tmp_path
    run = bench.run("Research the launch")
    assert run.wait(WAIT).status == "done", run.error
    return bench, run


def _editable_flags(reply: Any) -> list[bool]:
    """Every editable flag of a reply: the todos', each file's, each message's, a file's own."""
    found = [reply.get("todos_editable", False), reply.get("editable", False)]
    page = reply.get("messages")
    rows = page["messages"] if isinstance(page, dict) else page or []
    return found + [row["editable"] for row in [*(reply.get("files") or []), *rows]]


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_each_step_opens_the_state_it_left_and_what_it_changed_read_only(
    views: Any, kind: str, tmp_path: Path
) -> None:
    bench, run = _researched(tmp_path, kind)
    view = views(bench.history(run.thread_id))
    assert [row["step"] for row in view.steps] == [1, 2, 3] and view.steps_total == 3
    assert view.thread_id == run.thread_id
    for step in (1, 2, 3):
        reply = view.answer({"type": "step_state", "step": step})
        state, diff = bench.state(run.thread_id, step), bench.diff(run.thread_id, step)
        assert reply["error"] == "" and reply["step"] == step and reply["steps"] == [1, 2, 3]
        assert [m["text"] for m in reply["messages"]["messages"]] == [said(m) for m in state.messages]
        assert [(f["path"], f["text"]) for f in reply["files"]] == list(state.files.items())
        assert (reply["diff"]["before"], reply["diff"]["after"]) == (diff.before, diff.after)
        assert [f["path"] for f in reply["diff"]["files"]] == [f.path for f in diff.files]
        assert not any(_editable_flags(reply)), "the history's panel only reads"
        assert not any(m["content"] for m in reply["messages"]["messages"])
    latest = view.answer({"type": "latest_step"})
    assert latest["type"] == "step_state" and latest["step"] == 3 and latest["error"] == ""
    whole = view.answer({"type": "step_file", "step": 1, "path": "/notes.md"})
    assert whole["error"] == "" and whole["whole"] is True and whole["editable"] is False
    earlier = view.answer({"type": "step_messages", "step": 3, "before": 1})
    assert earlier["error"] == "" and [m["index"] for m in earlier["messages"]] == [0]
    assert not any(_editable_flags(earlier))


@pytest.mark.parametrize("step", [7, "2", True, None, 2.0])
def test_a_step_that_is_not_a_row_is_refused_in_one_line(views: Any, step: Any, tmp_path: Path) -> None:
    bench, run = _researched(tmp_path)
    view = views(bench.history(run.thread_id))
    reply = view.answer({"type": "step_state", "step": step})
    assert reply == {
        "type": "step_state",
        "step": step,
        "error": f"Step {step} is not a step of this history: pick one of its rows.",
    }


def test_the_panel_message_comes_back_as_the_reply(
    views: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    bench, run = _researched(tmp_path)
    view = views(bench.history(run.thread_id))
    sent: list[Any] = []
    monkeypatch.setattr(view, "send", sent.append)
    view._handle_custom_msg({"type": "step_state", "step": 2}, [])
    view._handle_custom_msg({"type": "run_from", "step": 2, "edits": []}, [])  # not here: ignored
    view._handle_custom_msg("junk", [])
    assert [(m["type"], m["step"], m["error"]) for m in sent] == [("step_state", 2, "")]


@pytest.mark.volume
def test_a_long_threads_rows_are_its_newest_within_their_budget(
    views: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    budget = 4 * 1024  # the rows of 60 steps take more
    monkeypatch.setattr(history_live, "ROWS_BUDGET", budget)
    ls = [{"name": "ls", "args": {}}]
    turns: list[Any] = [{"text": f"Note {n}: " + "<b>x</b>" * 200, "tool_calls": ls} for n in range(60)]
    bench = deepnb.agent(unique("long"), scripted({"main": [*turns, "Noted."]}))
    run = bench.run("Note it all")
    assert run.wait(WAIT).status == "done", run.error
    history = bench.history(run.thread_id)
    view = views(history)
    steps = [step.step for step in history.steps]
    shown = [row["step"] for row in view.steps]
    assert view.steps_total == len(steps) > len(shown) > 1
    assert shown == steps[-len(shown) :]  # the newest
    assert message_size(view.steps) <= budget
    reply = view.answer({"type": "step_state", "step": shown[0]})
    assert reply["error"] == "" and message_size(reply) <= MESSAGE_LIMIT
    refused = view.answer({"type": "step_state", "step": steps[0]})  # a step the rows left out
    assert refused["error"].startswith(f"Step {steps[0]} is not a step of this history")


def test_the_history_shows_live_over_its_static_table_where_it_has_steps(tmp_path: Path) -> None:
    bench, run = _researched(tmp_path)
    history = bench.history(run.thread_id)
    bundle = history_bundle(history)
    assert WIDGET in bundle and "<table" in bundle["text/html"] and bundle["text/plain"] == repr(history)
    assert snapshot_output({"output_type": "display_data", "data": bundle}) == {
        "output_type": "display_data",
        "data": {mime: value for mime, value in bundle.items() if mime != WIDGET},
    }  # a save with no widget state keeps the table in its place
    assert "&lt;img" in bundle["text/html"] or "<img" not in bundle["text/html"]
    for static in (history.with_nodes(), bench.history("no-such-thread")):
        assert WIDGET not in history_bundle(static)  # every checkpoint, or nothing to open
    detached = History(list(history), thread=history.thread, agent=history.agent)
    assert WIDGET not in history_bundle(detached)  # not read from a session


NOTE = {"name": "write_file", "args": {"file_path": "/site/notes.md", "content": "June\n"}}
WRITE = {"main": [{"text": "Noting.", "tool_calls": [NOTE]}, "Noted."]}


def test_files_kept_outside_the_state_are_named_where_no_step_has_them(tmp_path: Path) -> None:
    from deepagents.backends import CompositeBackend, FilesystemBackend, StateBackend

    disk = FilesystemBackend(root_dir=str(tmp_path), virtual_mode=True)
    composite = CompositeBackend(default=StateBackend(), routes={"/site/": disk})
    cases = {
        "This agent keeps its files in a FilesystemBackend, not in its state: no step keeps them": disk,
        "Files under /site/ (FilesystemBackend) are kept outside the state: no step keeps them": composite,
        "": None,  # deepagents' default: the state keeps every file, each step as it left them
    }
    for said_first, backend in cases.items():
        bench = deepnb.agent(unique("where"), scripted(WRITE), **({"backend": backend} if backend else {}))
        run = bench.run("Note it")
        assert run.wait(WAIT).status == "done", run.error
        reply = step_answer(bench, run.thread_id, 1, [1, 2], "step_state", {})
        assert reply["files_note"].startswith(said_first), reply["files_note"]
        assert bool(reply["files_note"]) == (backend is not None)
        if backend is not None:
            assert "(bench.files(thread) shows them as they are now)" in reply["files_note"]
