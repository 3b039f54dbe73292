"""A model's tool-call arguments are data: any JSON it sends (wrong types, unknown values, missing
keys, huge or deeply nested values) goes through every place deepnb reads a call's arguments (the
events, the run's state and its cards, todos, file previews, subagent tasks, approvals and their
edits, the interpreter's card, the timeline, the tree, a recording, an experiment's record and its
``tool_called`` scorer, the exported conversation, the thread preview) without an exception, and
comes out bounded and escaped. ``deepnb.core.call_args`` is the one reader they share."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, ToolMessage
from langgraph.types import Interrupt

from deepnb.core import events as ev
from deepnb.core.call_args import MAX_DEPTH, bounded, json_text, whole_json
from deepnb.engine.approvals import preview
from deepnb.engine.history import changes
from deepnb.engine.recording import _turn
from deepnb.engine.state import ARGS_PREVIEW, FULL_LIMIT, RunState
from deepnb.engine.timeline import Timeline
from deepnb.engine.tree import tree_from_messages
from deepnb.many.record import RunRecord
from deepnb.many.scorers import tool_called
from deepnb.session.run import _previews
from deepnb.ship.exporting import _conversation
from deepnb.views.run.snapshot import snapshot_html, snapshot_text
from deepnb.views.run.thread_preview import message_html

TOOLS = ("write_todos", "write_file", "edit_file", "read_file", "delete", "task", "eval", "execute", "ls")
"""The tools whose arguments deepnb reads by name, and two it only shows."""
KEYS = ("todos", "content", "status", "file_path", "path", "old_string", "new_string", "replace_all")
KEYS += ("subagent_type", "description", "code", "command", "offset", "limit")
MARK = "<x-hostile onload=alert(1)>"
"""A tag that must never reach HTML unescaped (every call carries it, as a name and a value)."""
HTML_BOUND = 400_000
"""Characters the whole static view of the run may take (a handful of calls, each clipped)."""

scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=40)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=30,
)
todo = st.fixed_dictionaries(
    {},
    optional={
        "content": json_values,
        "status": st.sampled_from(("pending", "done", "in_progress")) | json_values,
    },
)


def _nested(depth: int) -> Any:
    value: Any = "bottom"
    for level in range(depth):
        value = [value] if level % 2 else {"d": value}
    return value


HOSTILE_VALUES = st.sampled_from(
    ("x" * 300_000, "\n" * 50_000, _nested(400), _nested(MAX_DEPTH + 3), 10**400)
)
arguments = st.dictionaries(
    st.sampled_from(KEYS) | st.text(max_size=12),
    json_values | HOSTILE_VALUES | st.lists(todo, max_size=4),
    max_size=6,
)
calls = st.lists(st.tuples(st.sampled_from(TOOLS) | st.text(max_size=10), arguments), min_size=1, max_size=4)


def _ai(calls: list[tuple[str, dict[str, Any]]], prefix: str) -> AIMessage:
    return AIMessage(
        content="",
        id=f"{prefix}-ai",
        tool_calls=[
            {"name": name, "args": {**args, MARK: MARK}, "id": f"{prefix}-{i}", "type": "tool_call"}
            for i, (name, args) in enumerate(calls)
        ],
    )


def _run(main: list[tuple[str, dict[str, Any]]], sub: list[tuple[str, dict[str, Any]]]) -> RunState:
    """The events a run with these calls streams, folded as a run folds them."""
    translator = ev.EventTranslator()
    state = RunState(agent="hostile", thread_id="t")
    timeline = Timeline()
    ai, sub_ai = _ai(main, "m"), _ai(sub, "s")
    tasks = [{"id": c["id"], "name": c["name"], "args": c["args"]} for c in ai.tool_calls]
    chunks: list[tuple[Any, str, Any]] = [
        ((), "updates", {"model": {"messages": [ai]}}),
        ((), "tasks", {"id": "task-1", "name": "tools", "input": tasks}),
        (("tools:task-1",), "updates", {"model": {"messages": [sub_ai]}}),
        (("tools:task-1",), "updates", {"tools": {"messages": _results(sub_ai)}}),
        ((), "updates", {"tools": {"messages": _results(ai)}, "todos": [c["args"] for c in ai.tool_calls]}),
    ]
    events: list[ev.Event] = [ev.RunStarted("main", "t", "go")]
    for chunk in chunks:
        events += translator.translate(chunk)
    actions = [{"name": c["name"], "args": c["args"], "description": MARK} for c in ai.tool_calls]
    value = {
        "action_requests": actions,
        "review_configs": [{"action_name": n, "allowed_decisions": []} for n in TOOLS],
    }
    events += translator.translate(((), "updates", {"__interrupt__": (Interrupt(value=value, id="i1"),)}))
    requests = tuple(e for x in events if isinstance(x, ev.Interrupted) for e in x.interrupts)
    files = {"/a": {"content": ["one", "two"]}}
    events.append(ev.RunPaused("main", requests, _previews(requests, {"files": files})))
    for index, call in enumerate(ai.tool_calls):
        edited = {"type": "edit", "edited_action": {"name": call["name"], "args": call["args"]}}
        events.append(ev.DecisionMade("main", "i1", index, call["name"], edited))
    events.append(ev.RunFinished("main", "done"))
    for event in events:
        state.apply(event)
        timeline.note(event, 0.0)
    for event in events:
        if isinstance(event, ev.ModelTurn):
            _turn(event)  # what a recording writes of the turn
    return state


def _results(ai: AIMessage) -> list[ToolMessage]:
    return [ToolMessage(content=MARK, tool_call_id=c["id"], name=c["name"]) for c in ai.tool_calls]


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(main=calls, sub=calls)
def test_any_arguments_pass_every_reader_bounded_and_escaped(main: list[Any], sub: list[Any]) -> None:
    state = _run(main, sub)
    shown = state.to_json()
    html = snapshot_html(shown)
    assert len(html) <= HTML_BOUND and MARK not in html
    assert len(snapshot_text(shown)) <= HTML_BOUND
    cards = [item for item in shown["items"] if item["kind"] == "tool"]
    assert len(cards) == len(main) + len(sub)
    for card in cards:
        assert len(card["args"]) <= ARGS_PREVIEW and len(card["args_full"]) <= FULL_LIMIT
    for request in shown["pending"]:
        for action in request["actions"]:
            assert len(action["args_json"]) <= 2 << 20
    for entry in shown["decisions"]:
        assert len(entry.get("diff", "")) <= FULL_LIMIT
    ai = _ai(main, "m")
    tree_from_messages([ai, *_results(ai)], root_name="hostile")
    changes({"messages": []}, {"messages": [ai], "todos": []})
    assert MARK not in message_html(ai)
    for call in ai.tool_calls:
        preview(call["name"], call["args"], {"/a": {"content": "one"}})
    record = RunRecord(
        row=0,
        variant="v",
        epoch=1,
        inputs={},
        reference=None,
        status="done",
        messages=[
            {"role": "assistant", "tool_calls": [{"name": n, "args": a} for n, a in main] + [None, "x"]}
        ],
    )
    tool_called("write_file", args={"file_path": "/a"})(None, None, record)
    assert len(_conversation([ai], "the thread")) <= HTML_BOUND


CORPUS = json.loads(
    (Path(__file__).parents[1] / "data" / "hostile" / "tool_args.json").read_text(encoding="utf-8")
)


def _built(value: Any) -> Any:
    """A corpus value: ``{"$repeat": [text, n]}``, ``{"$nest": n}`` and ``{"$keys": n}`` built."""
    if isinstance(value, dict) and "$repeat" in value:
        text, times = value["$repeat"]
        return text * times
    if isinstance(value, dict) and "$nest" in value:
        return _nested(value["$nest"])
    if isinstance(value, dict) and "$keys" in value:
        return {f"k{n}": n for n in range(value["$keys"])}
    if isinstance(value, dict):
        return {k: _built(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_built(v) for v in value]
    return value


@pytest.mark.parametrize("case", CORPUS["cases"], ids=[c["name"] for c in CORPUS["cases"]])
def test_each_hostile_call_of_the_corpus_passes_every_reader(case: dict[str, Any]) -> None:
    test_any_arguments_pass_every_reader_bounded_and_escaped.hypothesis.inner_test(  # type: ignore[attr-defined]
        main=[(case["tool"], _built(case["args"]))], sub=[]
    )


@settings(max_examples=200, deadline=None)
@given(value=json_values | HOSTILE_VALUES, limit=st.integers(0, 5000))
def test_the_reader_never_raises_and_keeps_its_bound(value: Any, limit: int) -> None:
    text = json_text(value, limit)
    assert len(text) <= max(limit, 1)
    json.dumps(bounded(value, limit))  # a JSON-ready copy
    whole, complete = whole_json(value, limit)
    assert len(whole) <= max(limit, 1)
    if complete:
        assert json.loads(whole) == json.loads(json.dumps(value))


def test_a_secret_across_a_clip_is_redacted_before_the_cut(monkeypatch: Any) -> None:
    secret = "hunter2-0123456789-abcdefghij"
    monkeypatch.setenv("DEPLOY_TOKEN", secret)
    state = RunState(agent="hostile", thread_id="t")
    line = {"c": " " * 60 + secret}  # the secret crosses the one-line form's cut (after its blanks go)
    full = {"c": "x" * (FULL_LIMIT - 13) + secret}  # and the full form's
    for n, args in enumerate((line, full)):
        state.apply(ev.ToolCallStarted("main", f"c{n}", "write_file", args))
    for card in state.to_json()["items"]:
        assert secret[:7] not in card["args"] and secret[:7] not in card["args_full"]
