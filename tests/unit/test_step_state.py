"""A thread's state at a step, what changed between two steps, and a fork edited before it runs
on: on an agent in memory and one saved in SQLite, and on a plain LangGraph graph; hostile
updates refused in one line, model text escaped, a large state drawn within bounds."""

from __future__ import annotations

import difflib
import operator
from pathlib import Path
from typing import Annotated, Any

import pytest
from deepagents import create_deep_agent
from langchain_core.messages import AIMessage
from langgraph.graph import END, START, StateGraph
from pydantic import BaseModel
from typing_extensions import TypedDict

import deepnb
from deepnb.core.errors import DeepnbError
from deepnb.engine.step_state import DIFF_LINES, StateDiff, StepState, line_diff
from tests.support.agents import scripted, tool_messages, unique
from tests.support.waiting import WAIT

WRONG = "The launch is in June.\n"
RIGHT = "The launch is in May.\n"
READ = {"name": "read_file", "args": {"file_path": "/notes.md"}}
SCRIPT = {
    "main": [
        {
            "match": "^Check",
            "turns": [{"text": "Reading the notes.", "tool_calls": [READ]}, {"text": "Checked."}],
        },
        {
            "turns": [
                {
                    "text": "Noting <img src=x onerror=alert(1)>.",
                    "tool_calls": [
                        {"name": "write_file", "args": {"file_path": "/notes.md", "content": WRONG}}
                    ],
                },
                {"text": "Reading the notes.", "tool_calls": [READ]},
                {"text": "Done: <b>June</b>."},
            ]
        },
    ]
}


def _bench(kind: str, tmp_path: Path) -> Any:
    checkpointer = f"sqlite:{tmp_path / 'threads.db'}" if kind == "sqlite" else "memory"
    return deepnb.agent(name=unique(f"state-{kind}"), model=scripted(SCRIPT), checkpointer=checkpointer)


def _done(bench: Any, prompt: str, **options: Any) -> Any:
    run = bench.run(prompt, **options)
    assert run.wait(WAIT).status == "done", run.error
    return run


def _reads(bench: Any, thread: str) -> list[str]:
    return [content for name, content in tool_messages(bench, thread) if name == "read_file"]


@pytest.fixture(params=["memory", "sqlite"])
def researched(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Any, str]:
    bench = _bench(request.param, tmp_path)
    return bench, _done(bench, "Research the launch").thread_id


def test_the_state_at_a_step_is_the_checkpoint_that_step_forks_at(researched: tuple[Any, str]) -> None:
    bench, thread = researched
    history = bench.history(thread)
    assert list(history.fork_at) == [1, 2, 3]
    for step, checkpoint_id in history.fork_at.items():
        state = bench.state(thread, step)
        saved = bench.graph.get_state({"configurable": {"thread_id": thread, "checkpoint_id": checkpoint_id}})
        assert isinstance(state, StepState) and state.checkpoint_id == checkpoint_id
        assert (state.step, state.values, state.next) == (step, saved.values, tuple(saved.next))
        assert sum(1 for m in state.messages if m.type == "ai") == step
        assert state.files == {"/notes.md": WRONG}  # the state's file dicts, read as text
        assert bench.state(thread, checkpoint_id).values == saved.values  # a checkpoint id works too
    now = bench.state(thread)
    assert now.values == bench.state_values(thread) and now.step == 3 and now.next == ()
    plain = now.to_dict()
    assert plain["files"] == {"/notes.md": WRONG}
    assert [m["role"] for m in plain["messages"]] == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "assistant",
    ]
    assert plain["messages"][1]["tool_calls"][0]["name"] == "write_file"
    with pytest.raises(DeepnbError, match=r"has no step 9: its steps run from 1 to 3 "):
        bench.state(thread, 9)


def test_a_steps_diff_is_against_the_step_before_and_says_each_change(researched: tuple[Any, str]) -> None:
    bench, thread = researched
    first = bench.diff(thread, 1)
    assert isinstance(first, StateDiff) and (first.before, first.after) == ("the start", "step 1")
    assert [(m.kind, m.role) for m in first.messages] == [
        ("added", "user"),
        ("added", "assistant"),
        ("added", "tool write_file"),
    ]
    assert first.messages[0].text == "Research the launch"
    assert "→ write_file(file_path='/notes.md'" in first.messages[1].text
    (notes,) = first.files
    expected = list(difflib.unified_diff([], WRONG.splitlines(), "/dev/null", "b/notes.md", lineterm=""))
    assert (notes.path, notes.kind, list(notes.lines), notes.more) == ("/notes.md", "added", expected, 0)
    second = bench.diff(thread, 2)
    assert second.to_dict() == bench.diff(thread, 1, 2).to_dict()
    assert [(m.kind, m.role) for m in second.messages] == [
        ("added", "assistant"),
        ("added", "tool read_file"),
    ]
    assert not second.files and not second.todos
    whole = bench.diff(thread, 0, 3)
    ids = {m.id for m in bench.state(thread, 3).messages}
    assert {m.id for m in whole.messages} == ids and all(m.kind == "added" for m in whole.messages)
    assert not bench.diff(thread, 3, 3)  # nothing changed


def test_a_fork_with_an_edited_file_runs_on_from_the_edit(researched: tuple[Any, str]) -> None:
    bench, thread = researched
    original = bench.history(thread)
    forked = bench.fork(thread, 1, update={"files": {"/notes.md": RIGHT}})
    assert bench.state(forked).files == {"/notes.md": RIGHT} and bench.state(forked).next == ("model",)
    stored = bench.state_values(forked)["files"]["/notes.md"]
    assert stored["content"] == RIGHT and stored["encoding"] == "utf-8"  # deepagents' own file dict
    going_on = bench.resume(forked).wait(WAIT)  # the model's next turn reads the file
    assert going_on.status == "done", going_on.error
    assert len(_reads(bench, forked)) == 1 and "May" in _reads(bench, forked)[0]
    assert "June" in _reads(bench, thread)[0]
    assert bench.history(thread) == original  # the original thread is untouched
    ids = [c.checkpoint_id for c in bench.history(forked) if c.step == 1]
    edit = bench.diff(forked, ids[-1], ids[0])  # the fork's copy, then its edit
    assert [(f.path, f.kind) for f in edit.files] == [("/notes.md", "modified")]
    assert (
        "-The launch is in June." in edit.files[0].lines and "+The launch is in May." in edit.files[0].lines
    )


def test_a_new_prompt_on_an_edited_fork_reads_the_edit(researched: tuple[Any, str]) -> None:
    bench, thread = researched
    forked = bench.fork(thread, 3, update={"files": {"/notes.md": RIGHT}})
    _done(bench, "Check the notes", thread=forked)
    assert "May" in _reads(bench, forked)[-1] and "June" in _reads(bench, thread)[-1]


def test_a_saved_thread_is_read_and_forked_edited_by_another_agent_on_its_file(tmp_path: Path) -> None:
    bench = _bench("sqlite", tmp_path)
    thread = _done(bench, "Research the launch").thread_id
    again = deepnb.agent(
        name=unique("again"), model=scripted(SCRIPT), checkpointer=f"sqlite:{tmp_path / 'threads.db'}"
    )
    assert again.state(thread, 2).values == bench.state(thread, 2).values
    assert again.diff(thread, 1).to_dict() == bench.diff(thread, 1).to_dict()
    forked = again.fork(thread, 1, update={"files": {"/notes.md": RIGHT}})
    assert again.resume(forked).wait(WAIT).status == "done"
    assert "May" in _reads(bench, forked)[0]  # the fork is saved in the file, read by the first agent too


def test_an_edited_message_replaces_the_one_with_its_id(researched: tuple[Any, str]) -> None:
    bench, thread = researched
    last = bench.state(thread, 3).messages[-1]
    forked = bench.fork(thread, 3, update={"messages": [AIMessage(content="Done: May.", id=last.id)]})
    messages = bench.state_values(forked)["messages"]
    assert len(messages) == len(bench.state(thread, 3).messages) and messages[-1].content == "Done: May."
    ids = [c.checkpoint_id for c in bench.history(forked)]
    (changed,) = bench.diff(forked, ids[-1], ids[0]).messages
    assert (changed.kind, changed.role, changed.text) == ("changed", "assistant", "Done: May.")


@pytest.mark.parametrize(
    ("update", "said"),
    [
        ({"notes": "x"}, r"has no state key 'notes': its keys are files, jump_to, messages, "),
        ({"todos": "x"}, r"The update's 'todos' must be of type list\[Todo\], not 'x'"),
        ({"messages": 5}, r"The update's 'messages' must be a list of messages"),
        ({"files": ["x"]}, r"The update's 'files' must be a dict of path → text"),
        (["files"], r"An update is a dict of state keys to values, not a list"),
    ],
)
def test_an_update_the_state_cannot_take_is_one_line_and_forks_nothing(update: Any, said: str) -> None:
    bench = deepnb.agent(name=unique("hostile"), model=scripted(SCRIPT))
    thread = _done(bench, "Research the launch").thread_id
    with pytest.raises(DeepnbError, match=said) as refused:
        bench.fork(thread, 1, update=update)
    assert "\n" not in str(refused.value)
    assert [t.thread_id for t in bench.threads()] == [thread]


class Forecast(BaseModel):
    city: str
    degrees: int


def test_the_structured_response_is_read_and_given_as_plain_data() -> None:
    call = {"name": "Forecast", "args": {"city": "Oslo", "degrees": 4}}
    model = scripted({"main": [{"tool_calls": [call]}]})
    bench = deepnb.attach(create_deep_agent(model=model, response_format=Forecast), unique("forecast"))
    run = bench.run("Weather in Oslo?")
    assert run.wait(WAIT).status == "done", run.error
    state = bench.state(run.thread_id)
    assert state.structured_response == Forecast(city="Oslo", degrees=4)
    assert state.to_dict()["structured_response"] == {"city": "Oslo", "degrees": 4}
    assert "Structured response" in repr(state) and "Oslo" in repr(state)
    (change,) = (c for c in bench.diff(run.thread_id, 0, 1).other if c[0] == "structured_response")
    assert change[1] == "—" and "Oslo" in change[2]


class Counter(TypedDict):
    n: int
    seen: Annotated[list[int], operator.add]


def counter_graph() -> Any:
    builder = StateGraph(Counter)
    builder.add_node("add", lambda s: {"n": s["n"] + 1, "seen": [s["n"]]})
    builder.add_node("double", lambda s: {"n": s["n"] * 2, "seen": [s["n"]]})
    builder.add_edge(START, "add")
    builder.add_edge("add", "double")
    builder.add_edge("double", END)
    return builder.compile()


def test_a_plain_graph_has_its_own_keys_at_each_step_and_forks_edited() -> None:
    bench = deepnb.attach(counter_graph(), unique("counter"))
    run = bench.run({"n": 1, "seen": []})
    assert run.wait(WAIT).status == "done", run.error
    thread = run.thread_id
    assert bench.state(thread, 1).values == {"n": 2, "seen": [1]}
    assert bench.state(thread, 2).values == {"n": 4, "seen": [1, 2]} and bench.state(thread, 1).next == (
        "double",
    )
    step = bench.diff(thread, 2)
    assert step.other == (("n", "2", "4"), ("seen", "[1]", "[1, 2]")) and not step.messages
    assert bench.state(thread, 1).to_dict() == {"n": 2, "seen": [1]}

    forked = bench.fork(thread, 1, update={"n": 10, "seen": [7]})  # as "add" would have written it
    assert bench.state_values(forked) == {"n": 10, "seen": [1, 7]}  # through the list's reducer
    going_on = bench.resume(forked).wait(WAIT)
    assert going_on.status == "done", going_on.error
    assert bench.state_values(forked) == {"n": 20, "seen": [1, 7, 10]}
    assert bench.state_values(thread) == {"n": 4, "seen": [1, 2]}

    with pytest.raises(DeepnbError, match=r"has no state key 'total': its keys are n, seen\. Nothing"):
        bench.fork(thread, 1, update={"total": 1})
    with pytest.raises(DeepnbError, match=r"The update's 'n' must be of type int, not 'ten'"):
        bench.fork(thread, 1, update={"n": "ten"})
    with pytest.raises(DeepnbError) as refused:  # a reducer that refuses: which key, and why
        bench.fork(thread, 1, update={"n": 3, "seen": "x"})
    message = str(refused.value)
    assert message.startswith(f"Agent {bench.name!r}'s state cannot take the update's 'seen': its reducer")
    assert "TypeError" in message and "\n" not in message
    assert len(bench.threads()) == 2  # the thread and the one good fork


def test_model_text_in_a_state_and_a_diff_is_escaped_and_secrets_redacted(
    researched: tuple[Any, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    bench, thread = researched
    secret = "sk-state-0123456789abcdef0123"
    monkeypatch.setenv("ACME_API_KEY", secret)
    forked = bench.fork(thread, 3, update={"files": {"/x<script>.md": f"<script>alert(1)</script> {secret}"}})
    for shown in (bench.state(forked), bench.diff(forked, 0, 3)):
        assert secret not in repr(shown) + shown._repr_html_()
    for shown in (bench.state(forked), bench.diff(thread, 0, 3), bench.diff(forked, 0, 3)):
        html = shown._repr_html_()
        assert "<img" not in html and "<script" not in html and "<b>June" not in html
    assert "Noting &lt;img src=x onerror=alert(1)&gt;." in bench.diff(thread, 1)._repr_html_()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in bench.diff(forked, 0, 3)._repr_html_()
    assert "Done: <b>June</b>." in repr(bench.state(thread))  # text stays text


def test_a_large_state_draws_within_bounds() -> None:
    bench = deepnb.agent(name=unique("large"), model=scripted(SCRIPT))
    thread = _done(bench, "Research the launch").thread_id
    big = "".join(f"line {n} of a long log {'x' * 40}\n" for n in range(120_000))  # about 6 MB
    changed = big.replace("long log", "longer log")
    first = bench.fork(thread, 3, update={"files": {"/log.txt": big, "/other.txt": big}})
    second = bench.fork(first, 3, update={"files": {"/log.txt": changed, "/other.txt": None}})
    diff = bench.diff(second, 0, 3)
    log = next(f for f in diff.files if f.path == "/log.txt")
    assert log.kind == "added" and len(log.lines) == DIFF_LINES and log.more == 120_000 + 3 - DIFF_LINES
    html, text = diff._repr_html_(), repr(diff)
    assert len(html) < 64_000 and len(text) < 64_000 and "more lines" in text
    assert len(bench.state(second)._repr_html_()) < 64_000


def test_a_line_diff_of_a_huge_change_is_listed_not_matched() -> None:
    old = "".join(f"{n}\n" for n in range(50_000))
    new = "".join(f"{n}!\n" for n in range(50_000))
    lines, more = line_diff(old, new, "/a.txt")
    assert lines[:3] == ("--- a/a.txt", "+++ b/a.txt", "@@ -1,50000 +1,50000 @@")
    assert lines[3] == "-0" and len(lines) == DIFF_LINES and more == 100_003 - DIFF_LINES
    small, none = line_diff("a\nb\nc\nd\ne\nf\ng\nh\n", "a\nb\nc\nd\nE\nf\ng\nh\n", "/s.txt")
    expected = difflib.unified_diff(list("abcdefgh"), list("abcdEfgh"), "a/s.txt", "b/s.txt", lineterm="")
    assert (list(small), none) == (list(expected), 0)
