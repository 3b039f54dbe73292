"""Front-end messages are checked against the card they answer: for every message kind the run
view and the file view accept, forged variants of each field are refused, the refusal is
recorded, and nothing is decided, approved for always, stopped, read, written or sent."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

import deepnb
from deepnb.session.local import Workbench
from tests.support.agents import scripted, unique

GATES = {"write_file": True, "edit_file": {"allowed_decisions": ["approve", "reject"]}}
TURNS = [
    {
        "text": "Writing and editing.",
        "tool_calls": [
            {"name": "write_file", "args": {"file_path": "/a.md", "content": "alpha"}},
            {"name": "edit_file", "args": {"file_path": "/a.md", "old_string": "a", "new_string": "b"}},
        ],
    },
    "Done.",
]
IID = "<the pending interrupt>"  # replaced by the real id in each message


@pytest.fixture(scope="module")
def bench() -> Workbench:
    return deepnb.agent(unique("cards"), scripted({"main": TURNS}), interrupt_on=GATES)


@pytest.fixture
def view(bench: Workbench) -> Any:
    from deepnb.views.run.run_view import RunView

    run = bench.start("Write then edit", thread=uuid.uuid4().hex).wait(30)
    assert run.status == "interrupted" and [p.name for p in run.pending] == ["write_file", "edit_file"]
    widget = RunView(run)
    widget.sent = []
    widget.send = lambda message, buffers=None: widget.sent.append(message)
    yield widget
    run.stop()
    widget.close()


VALID: dict[str, dict[str, Any]] = {
    "stop": {"type": "stop"},
    "sync": {"type": "sync"},
    "expand": {"type": "expand"},
    "refresh_tasks": {"type": "refresh_tasks"},
    "open_file": {"type": "open_file", "path": "/a.md"},
    "threads": {"type": "threads"},
    "show_thread": {"type": "show_thread", "thread_id": "t"},
    "decide": {"type": "decide", "interrupt_id": IID, "index": 0, "decision": {"type": "approve"}},
    "always": {"type": "always", "interrupt_id": IID, "index": 0, "tool": "write_file"},
    "approve_all": {"type": "approve_all", "interrupt_id": IID},
    "decide_every": {"type": "decide_every", "act": "approve", "expected": 2},
    "pending_page": {"type": "pending_page", "page": 0},
    "answer": {"type": "answer", "interrupt_id": IID, "value": "yes"},
    "fork": {"type": "fork", "step": 2},
    "follow_up": {"type": "follow_up", "prompt": "And then?"},
    "steer": {"type": "steer", "message": "Focus"},
    "graph": {"type": "graph"},
    "latest_step": {"type": "latest_step"},
    "step_state": {"type": "step_state", "step": 1},
    "step_messages": {"type": "step_messages", "step": 1, "before": 1},
    "step_file": {"type": "step_file", "step": 1, "path": "/a.md"},
    "run_from": {"type": "run_from", "step": 1, "edits": [{"kind": "file", "path": "/a.md", "text": "x"}]},
}
"""One well-formed message of each kind the run view accepts (``answer`` answers a raw interrupt:
tests/security/test_answer_messages.py forges it against one)."""

FORGED: dict[str, list[tuple[str, Any]]] = {
    # field → forged values (``...`` drops the field)
    "interrupt_id": [("missing", ...), ("int", 7), ("unknown", "not-pending"), ("list", [IID])],
    "index": [
        ("missing", ...),
        ("text", "0"),
        ("float", 0.0),
        ("bool", False),
        ("none", None),
        ("out of range", 2),
        ("negative", -1),
    ],
    "tool": [("missing", ...), ("another tool", "delete"), ("the other action's", "edit_file"), ("int", 0)],
    "decision": [
        ("missing", ...),
        ("text", "approve"),
        ("empty", {}),
        ("unknown type", {"type": "maybe"}),
        ("extra field", {"type": "approve", "edited_action": {"name": "delete", "args": {}}}),
        ("args without edit", {"type": "approve", "args": {"content": "x"}}),
        ("message not text", {"type": "reject", "message": ["x"]}),
        ("args not an object", {"type": "edit", "args": ["x"]}),
    ],
    "act": [("missing", ...), ("unknown", "launch"), ("int", 1), ("object", {"type": "approve"})],
    "expected": [("missing", ...), ("text", "2"), ("float", 2.0), ("bool", True), ("another count", 1)],
    "page": [("missing", ...), ("text", "0"), ("float", 0.0), ("bool", False), ("negative", -1)],
    "path": [("int", 5), ("list", ["/a.md"]), ("object", {"path": "/a.md"})],
    "thread_id": [("missing", ...), ("int", 5), ("list", ["t"])],
    "value": [("missing", ...), ("set", {1}), ("nan", float("nan"))],
    "step": [
        ("missing", ...),
        ("text", "2"),
        ("float", 2.0),
        ("bool", True),
        ("not a step of this run", 999),
        ("list", [2]),
    ],
    "prompt": [
        ("missing", ...),
        ("int", 5),
        ("list", ["And then?"]),
        ("object", {"text": "x"}),
        ("none", None),
    ],
    "message": [("missing", ...), ("int", 5), ("list", ["Focus"]), ("bool", True)],
    "before": [("missing", ...), ("text", "1"), ("float", 1.0), ("bool", True)],
    "edits": [("missing", ...), ("text", "x"), ("object", {"kind": "file"}), ("none", None)],
}
EXTRA = ("extra field", "index_all")


def forged_messages() -> list[Any]:
    cases = []
    for kind, message in VALID.items():
        for field in message:
            for label, value in FORGED.get(field, []):
                forged = {k: v for k, v in message.items() if k != field}
                if value is not ...:
                    forged[field] = value
                cases.append(pytest.param(kind, forged, id=f"{kind}-{field}-{label}"))
        cases.append(pytest.param(kind, {**message, EXTRA[1]: 1}, id=f"{kind}-{EXTRA[0]}"))
    for label, message in [
        ("unknown kind", {"type": "eval", "code": "1"}),
        ("no kind", {"interrupt_id": IID, "index": 0}),
        ("kind not text", {"type": ["decide"]}),
    ]:
        cases.append(pytest.param("other", message, id=label))
    # an edit on an action that does not allow one, a reject on one that does
    cases.append(
        pytest.param(
            "decide",
            {"type": "decide", "interrupt_id": IID, "index": 1, "decision": {"type": "edit", "args": {}}},
            id="decide-decision-not allowed there",
        )
    )
    # an approval is decided with its buttons, never answered with a raw value
    cases.append(pytest.param("answer", VALID["answer"], id="answer-an approval takes no raw answer"))
    return cases


def _real(message: Any, interrupt_id: str) -> Any:
    if isinstance(message, dict):
        return {k: _real(v, interrupt_id) for k, v in message.items()}
    if isinstance(message, list):
        return [_real(v, interrupt_id) for v in message]
    return interrupt_id if message == IID else message


def test_every_kind_the_view_accepts_is_listed_here() -> None:
    from deepnb.views.messages import RUN_MESSAGES

    assert set(VALID) == set(RUN_MESSAGES)
    assert {f for m in VALID.values() for f in m if f != "type"} <= set(FORGED)


@pytest.mark.parametrize(("kind", "message"), forged_messages())
def test_a_forged_message_is_refused_and_nothing_is_done(view: Any, kind: str, message: Any) -> None:
    run = view.run
    (first,) = {p.interrupt_id for p in run.pending}
    view._handle_custom_msg(_real(message, first), [])
    assert run.status == "interrupted" and run.decisions == [], "a forged message decided something"
    assert run.workbench.always_approved(run.thread_id) == frozenset()
    assert view.sent == [], "a forged message got a reply or a state patch"
    assert view.card_errors, "the refusal was not recorded"
    assert all(isinstance(v, str) and v for v in view.card_errors.values())


@pytest.mark.parametrize("kind", ["decide", "always", "approve_all", "decide_every"])
def test_a_well_formed_card_message_still_decides(view: Any, kind: str) -> None:
    run = view.run
    (first,) = {p.interrupt_id for p in run.pending}
    view._handle_custom_msg(_real(VALID[kind], first), [])
    assert view.card_errors == {}
    assert run.decisions and run.decisions[0]["tool"] == "write_file"
    if kind == "always":
        assert run.workbench.always_approved(run.thread_id) == frozenset({"write_file"})


# -- the file view ---------------------------------------------------------------------------------

FILES_VALID: dict[str, dict[str, Any]] = {
    "ls": {"type": "ls", "path": "/", "offset": 0, "limit": 10, "seq": "s"},
    "open": {"type": "open", "path": "/a.md", "seq": "s"},
    "search": {"type": "search", "mode": "glob", "query": "*.md", "path": "/", "seq": "s"},
    "save": {"type": "save", "path": "/a.md", "text": "changed", "seq": "s"},
    "download": {"type": "download", "path": "/a.md", "seq": 1},
    "changes": {"type": "changes", "seq": "s"},
}
FILES_FORGED: dict[str, list[Any]] = {
    "path": [5, ["/a.md"], None],
    "text": [5, {"text": "x"}, None],
    "query": [5, None],
    "mode": [1],
    "offset": ["0", 1.5, True],
    "limit": ["10", None],
    "seq": [{"seq": 1}, [1]],
}


def files_forged() -> list[Any]:
    cases = []
    for kind, message in FILES_VALID.items():
        for field in message:
            for value in FILES_FORGED.get(field, []):
                cases.append(pytest.param({**message, field: value}, id=f"{kind}-{field}-{value!r}"))
        cases.append(pytest.param({**message, "recursive": True}, id=f"{kind}-extra field"))
    cases.append(pytest.param({"type": "delete", "path": "/a.md", "seq": "s"}, id="unknown kind"))
    return cases


@pytest.fixture(scope="module")
def files_view() -> Any:
    from deepnb.views.files.files_view import FilesView

    bench = deepnb.agent(unique("files"), scripted({"main": ["Nothing to do."]}))
    run = bench.run("Hello").wait(30)
    run.files.write("/a.md", "alpha")
    view = FilesView(run.files)
    yield view
    view.close()


def test_every_kind_the_file_view_accepts_is_listed_here() -> None:
    from deepnb.views.files.files_view import FilesView
    from deepnb.views.messages import FILES_MESSAGES

    assert set(FILES_VALID) == set(FILES_MESSAGES) == set(FilesView._HANDLERS)


@pytest.mark.parametrize("message", files_forged())
def test_a_forged_file_request_is_refused_and_nothing_is_done(files_view: Any, message: Any) -> None:
    reply = files_view.request(message)
    assert reply is not None and reply["error"].startswith("Refused a "), reply
    assert files_view.files["/a.md"] == "alpha"
    assert set(reply) == {"type", "error", "seq"}  # no listing, file, text or bytes


def test_well_formed_file_requests_still_work(files_view: Any) -> None:
    assert files_view.request(FILES_VALID["open"])["error"] == ""
    assert files_view.request(FILES_VALID["ls"])["error"] == ""


def test_a_follow_up_from_the_box_starts_nothing_while_the_run_waits(view: Any) -> None:
    run = view.run
    view._handle_custom_msg({"type": "follow_up", "prompt": "And then?"}, [])
    (reply,) = view.sent
    assert reply["type"] == "composed" and "waits for your decisions" in reply["error"]
    assert view.run is run and view.runs == [run] and run.follow_ups == []
    assert run.status == "interrupted" and run.decisions == []
