"""RunState folds events into view state; snapshots render it as safe HTML and plain text."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

from deepnb.core import events as ev
from deepnb.engine.state import RunState, short_args, todo_progress
from deepnb.views.run.snapshot import snapshot_bundle, snapshot_html, snapshot_text

M = "main"
SUB = "main/general-purpose"
TODOS = (
    {"content": "Gather data", "status": "completed"},
    {"content": "Analyse it", "status": "in_progress"},
    {"content": "Report", "status": "pending"},
)


def fold(*events: ev.Event, agent: str = "tester", thread_id: str = "t1") -> RunState:
    state = RunState(agent=agent, thread_id=thread_id)
    for event in events:
        state.apply(event)
    return state


def call(call_id: str, name: str, **args: object) -> dict:
    return {"id": call_id, "name": name, "args": args}


def a_run() -> list[ev.Event]:
    return [
        ev.RunStarted(M, "t1", "Analyse the data"),
        ev.TextDelta(M, "I'll "),
        ev.TextDelta(M, "plan."),
        ev.ModelTurn(M, "I'll plan.", (call("c1", "write_todos"), call("c2", "write_file")), 100, 20),
        ev.ToolCallStarted(M, "c1", "write_todos", {"todos": list(TODOS)}),
        ev.ToolCallStarted(M, "c2", "write_file", {"file_path": "/out.md", "content": "x" * 100}),
        ev.ToolCallFinished(M, "c1", "write_todos", "Updated todo list"),
        ev.TodosChanged(M, TODOS),
        ev.ToolCallFinished(M, "c2", "write_file", "Error: disk full", is_error=True),
        ev.FilesChanged(M, written=("/out.md",)),
        ev.TextDelta(M, "Done."),
        ev.ModelTurn(M, "Done.", (), 150, 5),
        ev.RunFinished(M, "Done."),
    ]


# -- folding -------------------------------------------------------------------------------------


def test_fold_a_whole_run() -> None:
    state = fold(*a_run())
    assert state.status == "done"
    assert state.result == "Done."
    assert [(i["kind"], i.get("text") or i.get("name")) for i in state.items] == [
        ("prompt", "Analyse the data"),
        ("text", "I'll plan."),
        ("tool", "write_todos"),
        ("tool", "write_file"),
        ("text", "Done."),
    ]
    tools = {i["name"]: i for i in state.items if i["kind"] == "tool"}
    assert tools["write_todos"]["status"] == "done"
    assert tools["write_todos"]["result"] == "Updated todo list"
    assert tools["write_file"]["status"] == "error"
    assert tools["write_file"]["args"].startswith("file_path='/out.md', content='xxx")
    assert len(tools["write_file"]["args"]) <= 80
    assert tools["write_file"]["args_full"] == "file_path: /out.md\ncontent: " + "x" * 100
    assert state.todos == [dict(t) for t in TODOS]
    assert state.files_changed == ["/out.md"]
    progress = state.progress()
    assert (progress["steps"], progress["tool_calls"]) == (2, 2)
    assert (progress["tokens_in"], progress["tokens_out"]) == (250, 25)
    assert progress["todo_progress"] == "Task 2 of 3"
    text = next(i for i in state.items if i["kind"] == "text")
    assert text["html"].strip() == "<p>I'll plan.</p>"
    assert state.finished_at is not None


def test_version_grows_only_on_known_events() -> None:
    state = fold(ev.RunStarted(M, "t1", "hi"))
    before = state.version
    state.apply(ev.Custom(M, {"anything": 1}))
    assert state.version == before
    state.apply(ev.TextDelta(M, "x"))
    assert state.version == before + 1


def test_tool_card_status_transitions() -> None:
    state = fold(ev.RunStarted(M, "t1", None))
    state.apply(ev.ToolCallStarted(M, "c1", "ls", {"path": "/"}))
    card = state.items[-1]
    assert card["status"] == "running"
    assert card["id"] == "tool-c1"
    state.apply(ev.ToolCallFinished(M, "c1", "ls", "a.md\nb.md"))
    assert card["status"] == "done"
    assert card["result"] == "a.md b.md"
    assert card["result_full"] == "a.md\nb.md"
    # A result for a call the state never saw start changes nothing.
    version = state.version
    items = [dict(i) for i in state.items]
    state.apply(ev.ToolCallFinished(M, "ghost", "ls", "boo"))
    assert [dict(i) for i in state.items] == items
    assert state.version == version + 1


def test_long_tool_results_are_clipped() -> None:
    state = fold(ev.ToolCallStarted(M, "c1", "read_file", {}))
    state.apply(ev.ToolCallFinished(M, "c1", "read_file", "word " * 5000))
    card = state.items[-1]
    assert len(card["result"]) <= 160
    assert card["result"].endswith("…")
    assert len(card["result_full"]) <= 4000


def test_no_prompt_means_no_prompt_item() -> None:
    assert fold(ev.RunStarted(M, "t1", None)).items == []


@pytest.mark.parametrize(
    ("statuses", "expected"),
    [
        ([], ""),
        (["completed", "in_progress", "pending"], "Task 2 of 3"),
        (["in_progress", "pending", "in_progress"], "Task 1 of 3"),
        (["completed", "completed", "pending", "pending"], "Task 3 of 4"),
        (["completed", "completed", "completed"], "All 3 done"),
    ],
)
def test_todo_progress(statuses: list[str], expected: str) -> None:
    todos = [{"content": f"t{i}", "status": s} for i, s in enumerate(statuses)]
    assert todo_progress(todos) == expected
    state = fold(ev.TodosChanged(M, tuple(todos)))
    assert state.progress()["todo_progress"] == expected


def test_subagent_todos_do_not_replace_the_main_list() -> None:
    state = fold(ev.TodosChanged(M, TODOS), ev.TodosChanged(SUB, ({"content": "sub", "status": "pending"},)))
    assert [t["content"] for t in state.todos] == ["Gather data", "Analyse it", "Report"]


def test_text_of_main_and_subagent_stays_apart() -> None:
    state = fold(
        ev.TextDelta(M, "main "),
        ev.TextDelta(SUB, "sub "),
        ev.TextDelta(M, "text"),
        ev.TextDelta(SUB, "text"),
    )
    assert [(i["agent"], i["text"]) for i in state.items] == [(M, "main text"), (SUB, "sub text")]


def test_subagent_started_marks_the_task_card() -> None:
    state = fold(
        ev.ToolCallStarted(M, "c7", "task", {"subagent_type": "general-purpose", "description": "d"}),
        ev.SubagentStarted(M, "T1", "c7", "general-purpose", "d", SUB),
    )
    assert state.items[-1]["subagent"] == SUB


def test_cancel_marks_running_tools_cancelled() -> None:
    state = fold(
        ev.RunStarted(M, "t1", "go"),
        ev.ToolCallStarted(M, "c1", "ls", {}),
        ev.ToolCallStarted(M, "c2", "grep", {"pattern": "x"}),
        ev.ToolCallFinished(M, "c1", "ls", "ok"),
        ev.TextDelta(M, "half a sent"),
        ev.RunCancelled(M),
    )
    assert state.status == "cancelled"
    cards = {i["name"]: i["status"] for i in state.items if i["kind"] == "tool"}
    assert cards == {"ls": "done", "grep": "cancelled"}
    assert state.items[-1]["kind"] == "notice"
    assert "stopped" in state.items[-1]["text"]
    # Text streamed before the stop stays, and later text starts a new block.
    state.apply(ev.TextDelta(M, "new"))
    assert [i["text"] for i in state.items if i["kind"] == "text"] == ["half a sent", "new"]


def test_run_failed_adds_an_error_item() -> None:
    state = fold(
        ev.RunStarted(M, "t1", "go"),
        ev.ToolCallStarted(M, "c1", "ls", {}),
        ev.RunFailed(M, "RuntimeError: model exploded"),
    )
    assert state.status == "error"
    assert state.error == "RuntimeError: model exploded"
    error = state.items[-1]
    assert (error["kind"], error["text"]) == ("error", "RuntimeError: model exploded")
    assert error["id"] not in {i["id"] for i in state.items[:-1]}
    assert next(i for i in state.items if i["kind"] == "tool")["status"] == "interrupted"
    assert state.to_json()["error"] == "RuntimeError: model exploded"


def test_paused_run_lists_pending_actions() -> None:
    value = {
        "action_requests": [{"name": "write_file", "args": {"file_path": "/a"}, "description": "ok?"}],
        "review_configs": [],
    }
    state = fold(
        ev.ToolCallStarted(M, "c1", "write_file", {"file_path": "/a"}),
        ev.RunPaused(M, (ev.InterruptRequest("int-1", value),)),
    )
    assert state.status == "interrupted"
    assert state.items[0]["status"] == "waiting"
    (request,) = state.pending
    assert (request["id"], request["agent"]) == ("int-1", "main")
    (action,) = request["actions"]
    assert action["name"] == "write_file" and action["args"] == "file_path='/a'"
    assert action["description"] == "ok?" and action["decision"] is None
    assert action["allowed"] == ["approve", "edit", "reject", "respond"]
    state.apply(ev.RunFinished(M, "fine"))
    assert state.pending == []


def test_ids_stay_unique_after_a_blank_text_block_is_removed() -> None:
    state = fold(
        ev.RunStarted(M, "t1", "go"),
        ev.TextDelta(M, "  \n"),  # a blank block opens...
        ev.TextDelta(SUB, "sub says"),  # ...a subagent's block follows it...
        ev.ModelTurn(M, "", ()),  # ...and the blank one is removed from between them
        ev.TextDelta(M, "After."),
        ev.ModelTurn(SUB, "sub says", ()),
        ev.ModelTurn(M, "After.", (call("c1", "ls"),)),
        ev.ToolCallStarted(M, "c1", "ls", {}),
        ev.TextDelta(M, " "),
        ev.ModelTurn(M, " ", ()),
        ev.RunFailed(M, "late failure"),
    )
    assert [(i["kind"], i.get("text")) for i in state.items] == [
        ("prompt", "go"),
        ("text", "sub says"),
        ("text", "After."),
        ("tool", None),
        ("error", "late failure"),
    ]
    ids = [i["id"] for i in state.items]
    assert len(set(ids)) == len(ids), ids


def test_model_turn_without_deltas_adds_its_text() -> None:
    state = fold(ev.ModelTurn(M, "Whole **answer**", ()))
    (item,) = state.items
    assert item["text"] == "Whole **answer**"
    assert "<strong>answer</strong>" in item["html"]


def test_to_json_is_json_ready_and_a_copy() -> None:
    value = {"action_requests": [{"name": "edit_file", "args": {"n": 1}}]}
    state = fold(*a_run()[:-1], ev.RunPaused(M, (ev.InterruptRequest("i", value),)))
    data = state.to_json()
    assert json.loads(json.dumps(data)) == data
    assert set(data) >= {"agent", "thread_id", "status", "items", "todos", "files_changed", "pending"}
    data["items"][0]["text"] = "changed"
    data["todos"].clear()
    assert state.items[0]["text"] == "Analyse the data"
    assert state.todos


def test_short_args_is_one_bounded_line() -> None:
    text = short_args({"content": "line one\nline   two " + "z" * 200, "n": 3, "flags": [1, 2]})
    assert "\n" not in text
    assert len(text) <= 80
    assert text.startswith("content='line one line two")
    assert "n=3" in text


# -- snapshots -----------------------------------------------------------------------------------

EVIL = "<img src=x onerror=alert(1)><script>alert(2)</script>"
ALLOWED_TAGS = {"style", "div", "span", "b", "p", "ul", "li", "s", "strong", "em", "code", "pre"}
ALLOWED_TAGS |= {"h1", "h2", "h3", "table", "thead", "tbody", "tr", "th", "td", "a"}


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))


def _tags(html: str) -> list[tuple[str, list[tuple[str, str | None]]]]:
    parser = _Tags()
    parser.feed(html)
    return parser.tags


def evil_state() -> RunState:
    value = {"action_requests": [{"name": f"rm{EVIL}", "args": {"path": EVIL}}]}
    return fold(
        ev.RunStarted(M, "t1", f"Prompt {EVIL}"),
        ev.TextDelta(M, f"Agent text {EVIL}"),
        ev.ModelTurn(M, f"Agent text {EVIL} and [a link](javascript:alert(3))", (call("c1", f"t{EVIL}"),)),
        ev.ToolCallStarted(M, "c1", f"tool{EVIL}", {"arg": EVIL}),
        ev.ToolCallFinished(M, "c1", f"tool{EVIL}", f"result {EVIL}"),
        ev.ToolCallStarted(SUB + EVIL, "c2", "ls", {"path": "/"}),
        ev.TextDelta(SUB + EVIL, f"unfinished {EVIL}"),
        ev.TodosChanged(
            M,
            (
                {"content": f"todo {EVIL}", "status": "pending"},
                {"content": f"done {EVIL}", "status": "completed"},
            ),
        ),
        ev.FilesChanged(M, written=(f"/{EVIL}.md",)),
        ev.RunFailed(M, f"Error text {EVIL}"),
        ev.RunPaused(M, (ev.InterruptRequest("i", value),)),
        agent=f"agent{EVIL}",
        thread_id=f"th{EVIL}",
    )


def test_snapshot_html_escapes_every_piece_of_agent_text() -> None:
    state = evil_state()
    assert state.pending and state.error and state.todos and state.files_changed
    html = snapshot_html(state.to_json())
    lowered = html.lower()
    assert "<img" not in lowered
    assert "<script" not in lowered
    assert lowered.count("<style") == 1
    for tag, attrs in _tags(html):
        assert tag in ALLOWED_TAGS, tag
        for name, attr_value in attrs:
            assert not name.startswith("on"), (tag, name)
            assert "javascript:" not in (attr_value or "").lower()
    escaped = "&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;alert(2)&lt;/script&gt;"
    for where in ("Prompt ", "Agent text ", "result ", "todo ", "done ", "Error text ", "unfinished "):
        assert where + escaped in html, where
    assert "tool" + escaped in html
    assert "[a link](javascript:alert(3))" in html


def test_snapshot_html_renders_markdown() -> None:
    text = "## Findings\n\n| Animal | Count |\n|---|---|\n| crab | 7 |\n\nSee [docs](https://example.org)."
    state = fold(ev.RunStarted(M, "t1", "go"), ev.ModelTurn(M, text, ()), ev.RunFinished(M, text))
    html = snapshot_html(state.to_json())
    tags = [tag for tag, _ in _tags(html)]
    assert "h2" in tags
    assert "table" in tags
    assert "<td>crab</td>" in html
    (link,) = [dict(attrs) for tag, attrs in _tags(html) if tag == "a"]
    assert link["href"] == "https://example.org"
    assert link["rel"] == "noopener noreferrer"


def test_snapshot_html_code_block_is_highlighted_and_escaped() -> None:
    text = "```python\nprint('<script>')\n```"
    html = snapshot_html(fold(ev.ModelTurn(M, text, ())).to_json())
    assert "<script" not in html.lower()
    assert "dnb-code" in html


def test_snapshot_text_has_todos_and_tool_lines() -> None:
    state = fold(*a_run())
    text = snapshot_text(state.to_json())
    lines = text.splitlines()
    assert lines[0].startswith("deepnb · agent tester · thread t1 · done · 2 steps · 2 tool calls")
    assert "Todos: Task 2 of 3" in lines
    assert "  ✓ Gather data" in lines
    assert "  ◐ Analyse it" in lines
    assert "  ○ Report" in lines
    assert "› Analyse the data" in lines
    assert any(
        line.startswith("  write_todos(3 added, 1 started, 1 done)")
        and line.endswith("[done] → Updated todo list")
        for line in lines
    )
    assert any(
        line.startswith("  write_file(file_path='/out.md'") and line.endswith("[error] → Error: disk full")
        for line in lines
    )
    assert lines[-1] == "Files changed: /out.md"


def test_snapshot_text_labels_subagents() -> None:
    state = fold(ev.ModelTurn(SUB, "from the helper", ()), ev.ToolCallStarted(SUB, "c1", "ls", {}))
    lines = snapshot_text(state.to_json()).splitlines()
    assert "[general-purpose] from the helper" in lines
    assert "  [general-purpose] ls() [running]" in lines


def test_snapshot_bundle_accepts_state_or_json() -> None:
    state = fold(*a_run())
    assert snapshot_bundle(state) == snapshot_bundle(state.to_json())
    assert set(snapshot_bundle(state)) == {"text/html", "text/plain"}


def test_a_non_zero_exit_is_marked_and_a_long_output_says_how_much_is_left(tmp_path: Path) -> None:
    """deepagents' execute tool (a real LocalShellBackend): a non-zero exit is a failed card, and
    an output longer than the card keeps says how many characters it left out."""
    from deepagents.backends import LocalShellBackend

    import deepnb
    from deepnb.session import agents
    from tests.support.agents import scripted, unique

    calls = [
        {"name": "execute", "args": {"command": "echo nope >&2; exit 3"}},
        {"name": "execute", "args": {"command": "printf 'x%.0s' $(seq 9000)"}},
    ]
    backend = LocalShellBackend(root_dir=str(tmp_path), virtual_mode=True, inherit_env=True)
    model = scripted({"main": [{"tool_calls": calls}, "Done."]})
    bench = deepnb.agent(unique("shell"), model, backend=backend)
    try:
        run = bench.run("run them")
        cards = [i for i in run.state.items if i["kind"] == "tool"]
        failed, long = cards
        assert failed["status"] == "error" and "exit code 3" in failed["result_full"]
        assert long["status"] == "done"
        assert long["result_full"].endswith("more characters: the thread's messages hold all of it)")
    finally:
        agents.forget_all()


def test_text_a_run_ended_in_the_middle_of_says_it_was_cut_off() -> None:
    from deepnb.core.schema import CUT_OFF_NOTE

    for end in (ev.RunFailed("main", "The model provider failed."), ev.RunCancelled("main")):
        state = RunState(agent="a", thread_id="t")
        for event in (ev.RunStarted("main", "t", "go"), ev.TextDelta("main", "Tide pools are **hard"), end):
            state.apply(event)
        (text,) = [i for i in state.items if i["kind"] == "text"]
        assert text["cut_off"] is True and text["html"] is not None
        assert f"({CUT_OFF_NOTE})" in snapshot_text(state.to_json())
        assert 'class="dnb-muted dnb-cut-off"' in snapshot_html(state.to_json())
    done = RunState(agent="a", thread_id="t")
    for event in (
        ev.RunStarted("main", "t", "go"),
        ev.TextDelta("main", "Done."),
        ev.ModelTurn("main", "Done."),
        ev.RunFinished("main", "Done."),
    ):
        done.apply(event)
    assert "cut_off" not in next(i for i in done.items if i["kind"] == "text")
