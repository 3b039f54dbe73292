"""What the engine builds is what deepnb.core.schema says: every field of a folded run's state (items
of each kind, nodes, pending requests, decisions, todos, async tasks), checked against the
TypedDicts at run time, and the status tables that views show."""

from __future__ import annotations

import types
import typing
from typing import Any, Literal, get_args, get_origin, get_type_hints, is_typeddict

import pytest

from deepnb.core import events as ev
from deepnb.core import schema
from deepnb.engine.state import RunState

M = "main"
SUB = "main/general-purpose"


def conforms(value: Any, tp: Any, where: str = "state") -> list[str]:
    """Every place where ``value`` is not of the schema type ``tp``."""
    origin = get_origin(tp)
    if tp is Any:
        return []
    if is_typeddict(tp):
        if not isinstance(value, dict):
            return [f"{where}: {type(value).__name__}, not {tp.__name__}"]
        hints = get_type_hints(tp)
        problems = [f"{where}: no {k!r}" for k in tp.__required_keys__ if k not in value]
        problems += [f"{where}: unknown {k!r}" for k in value if k not in hints]
        for key, item in value.items():
            if key in hints:
                problems += conforms(item, hints[key], f"{where}.{key}")
        return problems
    if origin in (typing.Union, types.UnionType):
        members = get_args(tp)
        tagged = [m for m in members if is_typeddict(m) and "kind" in m.__annotations__]
        if tagged and isinstance(value, dict):  # a tagged union: the kind picks the member
            match = [m for m in tagged if value.get("kind") in get_args(m.__annotations__["kind"])]
            return (
                conforms(value, match[0], where)
                if match
                else [f"{where}: unknown kind {value.get('kind')!r}"]
            )
        if any(not conforms(value, m, where) for m in members):
            return []
        return [f"{where}: {value!r} is none of {tp}"]
    if origin is Literal:
        return [] if value in get_args(tp) else [f"{where}: {value!r} not in {get_args(tp)}"]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{where}: {type(value).__name__}, not a dict"]
        key_type, value_type = get_args(tp)
        return [
            p
            for k, v in value.items()
            for p in (*conforms(k, key_type, f"{where} key"), *conforms(v, value_type, f"{where}[{k!r}]"))
        ]
    if origin is list:
        if not isinstance(value, list):
            return [f"{where}: {type(value).__name__}, not a list"]
        return [p for i, v in enumerate(value) for p in conforms(v, get_args(tp)[0], f"{where}[{i}]")]
    if tp is float:
        return (
            [] if isinstance(value, int | float) and not isinstance(value, bool) else [f"{where}: {value!r}"]
        )
    if tp is type(None):
        return [] if value is None else [f"{where}: {value!r} is not None"]
    if tp is int and isinstance(value, bool):
        return [f"{where}: {value!r} is a bool"]
    return [] if isinstance(value, tp) else [f"{where}: {value!r} is not {tp.__name__}"]


def call(call_id: str, name: str, **args: object) -> dict[str, Any]:
    return {"id": call_id, "name": name, "args": args}


def every_kind() -> list[ev.Event]:
    """A run that makes every kind of item but an error (thinking too), a subagent, an eval card,
    a summary, an approval with a decision and a preview, todos and an async task."""
    hitl = ev.InterruptRequest(
        "int-1",
        {
            "action_requests": [{"name": "write_file", "args": {"file_path": "/a.md", "content": "hi"}}],
            "review_configs": [{"action_name": "write_file", "allowed_decisions": ["approve", "reject"]}],
        },
    )
    raw = ev.InterruptRequest("int-2", "Which colour?")  # a raw interrupt(value): no actions
    return [
        ev.RunStarted(M, "t1", "Plan a trip"),
        ev.ToolsListed(M, {"main": ("ls", "task"), "general-purpose": ("ls",)}),
        ev.PromptLoaded(M, skills=(("travel", "Plan trips."),), memory=("/AGENTS.md",)),
        ev.ThinkingDelta(M, "Delegate the search."),
        ev.TextDelta(M, "Thinking"),
        ev.ModelTurn(
            M, "Thinking", (call("c1", "task"),), 10, 2, thinking="Delegate the search.", reasoning_tokens=1
        ),
        ev.ToolCallStarted(M, "c1", "task", {"subagent_type": "general-purpose", "description": "look"}),
        ev.SubagentStarted(M, "task-1", "c1", "general-purpose", "look", SUB),
        ev.ToolCallStarted(SUB, "c2", "eval", {"code": "1 + 1"}),
        ev.ToolCallFinished(SUB, "c2", "eval", "<result>2</result>"),
        ev.ModelTurn(SUB, "Found it", (), 5, 1, usage_reported=False),
        ev.ToolCallFinished(M, "c1", "task", "Found it"),
        ev.SubagentFinished(SUB, "task-1", SUB),
        ev.TodosChanged(
            M, ({"content": "Book", "status": "in_progress"}, {"content": "Go", "status": "pending"})
        ),
        ev.Summarized(M, 4, "Earlier: the plan.", "/conversation_history/1.md", 3, 900, 300),
        ev.AsyncTasksChanged(M, {"t-9": {"agent_name": "remote", "status": "running", "created_at": "1"}}),
        ev.ToolCallStarted(M, "c3", "write_file", {"file_path": "/a.md", "content": "hi"}),
        ev.Interrupted(M, (hitl, raw)),
        ev.RunPaused(M, (hitl, raw), {("int-1", 0): schema.FilePreview(kind="content", text="hi")}),
        ev.DecisionMade(M, "int-1", 0, "write_file", {"type": "reject", "message": "not now"}),
        ev.RunResumed(M, ("int-1", "int-2")),
        ev.TextDelta(M, "Still going"),
        ev.NodeUpdated(M, "plan", {"stops": 2}),  # a graph that does not speak messages
        ev.RunCancelled(M),
    ]


def test_a_folded_run_is_what_the_schema_says() -> None:
    state = RunState(agent="tester", thread_id="t1")
    seen = []
    for event in every_kind():
        state.apply(event)
        seen.append(state.to_json())
    kinds = {item["kind"] for snapshot in seen for item in snapshot["items"]}
    assert kinds == set(get_args(schema.ItemKind)) - {"error"}  # a failed run's: see below
    paused = next(s for s in seen if s["pending"])
    assert [len(p["actions"]) for p in paused["pending"]] == [1, 0]
    assert paused["pending"][0]["actions"][0]["preview"] == {"kind": "content", "text": "hi"}
    for number, snapshot in enumerate(seen):
        assert conforms(snapshot, schema.RunStateJSON, f"after event {number}") == []
    final = seen[-1]
    assert final["tree"] and final["decisions"] and final["async_tasks"] and final["todos"]
    assert final["given"]["skills"] and final["given"]["memory"] and final["given"]["tools"]
    assert any("eval" in item for item in final["items"] if item["kind"] == "tool")


def test_a_failed_run_is_what_the_schema_says() -> None:
    state = RunState(agent="tester", thread_id="t1")
    for event in (
        ev.RunStarted(M, "t1", "go"),
        ev.ToolCallStarted(M, "c1", "ls", {}),
        ev.RunFailed(M, "ValueError: boom", ("c1",)),
    ):
        state.apply(event)
    assert conforms(state.to_json(), schema.RunStateJSON) == []
    assert state.to_json()["items"][-1]["kind"] == "error"


def test_the_checker_finds_what_breaks_the_contract() -> None:
    state = RunState(agent="tester", thread_id="t1")
    for event in every_kind():
        state.apply(event)
    broken = state.to_json()
    broken["items"][0]["text"] = 3  # type: ignore[typeddict-item]
    broken["tree"][0]["status"] = "sleeping"  # type: ignore[typeddict-item]
    problems = conforms(broken, schema.RunStateJSON)
    assert any(p.startswith("state.items[0].text") for p in problems)
    assert any(p.startswith("state.tree[0].status") for p in problems)


@pytest.mark.parametrize(
    ("table", "status_set"),
    [
        (schema.RUN_STATUS_LABEL, schema.RunStatus),
        (schema.NODE_STATUS_MARK, schema.NodeStatus),
        (schema.NODE_STATUS_LABEL, schema.NodeStatus),
        (schema.TODO_STATUS_MARK, schema.TodoStatus),
        (schema.DECISION_LABEL, schema.DecisionMade),
        (schema.FILE_KIND_LABEL, schema.FileKind),
        (schema.CHANGE_KIND_MARK, schema.ChangeKind),
    ],
)
def test_every_status_has_its_label(table: Any, status_set: Any) -> None:
    assert list(table) == [s for s in get_args(status_set) if s in table]
    assert set(table) == set(get_args(status_set))
