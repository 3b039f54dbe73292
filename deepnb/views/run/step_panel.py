"""The run view's step state panel: a step's state (``bench.state``) and what it changed
(``bench.diff`` against the step before), as one bounded message the front end draws; a file of
that step in full on request; and the panel's edits (todos, a file, the last message's text, a
tool result) made into the update ``bench.fork(thread, step, update=...)`` takes.

Every message is within :data:`~deepnb.views.bounds.MESSAGE_LIMIT` whatever the state's size:
the latest :data:`MESSAGES_SENT` messages (earlier pages on request), each text cut at
:data:`TEXT_SENT` characters, files' beginnings within :data:`FILES_BUDGET` bytes (one file in
full, up to the limit, on request), the diff's lines within :data:`DIFF_SENT`. Secrets are
redacted; a text that held one is shown but cannot be edited here, so no edit writes the
redaction mark over it. The front end sets every text with ``textContent``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from deepnb.core.errors import DeepnbError
from deepnb.core.text.secrets import redact
from deepnb.engine.step_state import (
    StateDiff,
    StepState,
    clip,
    message_kind,
    role_of,
    said,
    short_repr,
)
from deepnb.views.bounds import MESSAGE_LIMIT, size

if TYPE_CHECKING:
    from deepnb.session.protocol import Session

__all__ = ["file_message", "messages_page", "state_message", "step_answer", "update_of"]

MESSAGES_SENT = 20
"""Messages of a step's state one message carries (the latest; earlier ones page in)."""
TEXT_SENT = 4000
"""Characters of one message's text sent."""
FILES_SENT = 60
FILE_HEAD = 4000
"""Characters of each file's beginning the state message carries."""
FILES_BUDGET = 24 * 1024
DIFF_SENT = 300
"""Lines of the diff's files sent over all of them."""
KEYS_SENT = 30
TODOS_SENT = 100
ROOM = 4096
"""Bytes of a reply kept for its envelope."""
STATUSES = ("pending", "in_progress", "completed")


def _secret_free(text: str) -> tuple[str, bool]:
    """``text`` redacted, and whether it was the same before (so it can be edited)."""
    shown = redact(text)
    return shown, shown == text


def _message(index: int, message: Any, last: int) -> dict[str, Any]:
    kind = message_kind(message)
    text, clean = _secret_free(said(message))
    content = _field(message, "content")
    # the last message's text, or a tool's result: plain text, whole, secret-free
    editable = (
        bool(_field(message, "id"))
        and clean
        and isinstance(content, str)
        and len(content) <= TEXT_SENT
        and (kind == "tool" or index == last)
    )
    return {
        "index": index,
        "id": str(_field(message, "id") or ""),
        "kind": kind,
        "role": redact(role_of(message)),
        "text": clip(text, TEXT_SENT),
        "content": content if editable else "",
        "editable": editable,
    }


def _field(message: Any, name: str) -> Any:
    return message.get(name) if isinstance(message, Mapping) else getattr(message, name, None)


def messages_page(state: StepState, before: int | None = None) -> dict[str, Any]:
    """``{"start", "total", "messages"}``: the :data:`MESSAGES_SENT` messages before index
    ``before`` (``None``: the latest)."""
    messages = state.messages
    end = len(messages) if before is None else max(0, min(before, len(messages)))
    start = max(0, end - MESSAGES_SENT)
    last = len(messages) - 1
    page = [_message(i, messages[i], last) for i in range(start, end)]
    while size(page) > MESSAGE_LIMIT // 2 and len(page) > 1:  # long texts: fewer messages
        page.pop(0)
        start += 1
    return {"start": start, "total": len(messages), "messages": page}


def _files(state: StepState) -> list[dict[str, Any]]:
    found, spent = [], 0
    for path, content in list(state.files.items())[:FILES_SENT]:
        binary = isinstance(content, bytes)
        text, clean = ("", False) if binary else _secret_free(str(content))
        head = "" if spent > FILES_BUDGET else text[:FILE_HEAD]
        spent += len(head.encode("utf-8"))
        found.append(
            {
                "path": redact(path),
                "size": len(content) if binary else len(str(content).encode("utf-8")),
                "binary": binary,
                "text": head,
                "whole": len(head) == len(text) and not binary,
                "editable": clean and not binary,
            }
        )
    return found


def _diff(diff: StateDiff) -> dict[str, Any]:
    budget = DIFF_SENT
    files = []
    for change in diff.files[:20]:
        lines = [redact(line) for line in change.lines[: max(0, budget)]]
        budget -= len(lines)
        files.append(
            {
                "path": redact(change.path),
                "kind": change.kind,
                "lines": lines,
                "more": change.more + len(change.lines) - len(lines),
            }
        )
    return {
        "before": diff.before,
        "after": diff.after,
        "messages": [
            {"kind": m.kind, "role": redact(m.role), "text": redact(clip(m.text, 600))}
            for m in diff.messages[:30]
        ],
        "todos": [
            {"kind": t.kind, "content": redact(t.content), "status": t.status, "before": t.before}
            for t in diff.todos[:TODOS_SENT]
        ],
        "files": files,
        "files_more": max(0, len(diff.files) - 20),
        "other": [{"key": k, "old": redact(o), "new": redact(n)} for k, o, n in diff.other[:KEYS_SENT]],
    }


def state_message(
    state: StepState, diff: StateDiff | None, steps: Sequence[int], files_note: str = ""
) -> dict[str, Any]:
    """The panel's reply for one step: its state and its diff against the step before, bounded;
    ``files_note`` says where files the state does not keep live (:func:`files_outside`)."""
    todos = [
        {"content": redact(str(t.get("content", "")))[:2000], "status": str(t.get("status", ""))}
        for t in state.todos[:TODOS_SENT]
    ]
    reply: dict[str, Any] = {
        "type": "step_state",
        "step": state.step,
        "steps": list(steps),
        "thread": state.thread,
        "next": list(state.next),
        "error": "",
        "keys": sorted(state.values),
        "messages": messages_page(state) if "messages" in state.values else None,
        "todos": todos if "todos" in state.values else None,
        "todos_editable": "todos" in state.values and len(state.todos) <= TODOS_SENT,
        "files": _files(state) if "files" in state.values else None,
        "files_total": len(state.files),
        "files_note": files_note,
        "other": [[key, redact(short_repr(value))] for key, value in list(state.other.items())[:KEYS_SENT]],
        "diff": _diff(diff) if diff is not None else None,
    }
    while size(reply) > MESSAGE_LIMIT - ROOM:  # what is left is cut further, files first
        if reply["files"] and any(f["text"] for f in reply["files"]):
            for entry in reply["files"]:
                entry["text"], entry["whole"] = "", False
        elif reply["diff"] and reply["diff"]["files"]:
            reply["diff"]["files"] = []
        elif reply["messages"] and len(reply["messages"]["messages"]) > 1:
            reply["messages"]["messages"] = reply["messages"]["messages"][1:]
            reply["messages"]["start"] += 1
        else:
            reply["other"], reply["todos"], reply["todos_editable"] = [], [], False
            break
    return reply


def file_message(state: StepState, path: str) -> dict[str, Any]:
    """One file of a step in full (``{"type": "step_file", ...}``), up to what one message takes:
    ``whole`` says whether all of it is there (only then can the panel edit it)."""
    files = state.files
    reply: dict[str, Any] = {"type": "step_file", "step": state.step, "path": path, "text": "", "error": ""}
    if path not in files:
        reply["error"] = f"{path} is not in step {state.step}'s files."
        return reply
    content = files[path]
    if isinstance(content, bytes):
        reply["error"] = f"{path} is binary: bench.state(thread, {state.step}).files has its bytes."
        return reply
    text, clean = _secret_free(content)
    room = MESSAGE_LIMIT - ROOM - size(reply)
    shown = text
    while size(shown) > room:
        shown = shown[: max(0, len(shown) * 3 // 4)]
    reply.update(
        text=shown, whole=shown == text, editable=clean and shown == text, size=len(content.encode())
    )
    return reply


def step_answer(
    session: Session,
    thread: str,
    step: int,
    steps: Sequence[int],
    kind: str,
    content: Mapping[str, Any],
    *,
    editable: bool = True,
) -> dict[str, Any]:
    """The reply to a panel's ``step_state``, ``step_messages`` or ``step_file`` message for
    ``step`` of ``thread`` (one of ``steps``, checked already). Not ``editable``: the same, with
    nothing offered for editing (a panel with no Run from here)."""
    state = session.state(thread, step)
    if kind == "step_messages":
        reply = {"type": kind, "step": step, "error": "", **messages_page(state, content.get("before"))}
    elif kind == "step_file":
        reply = file_message(state, str(content.get("path", "")))
    else:
        reply = state_message(state, session.diff(thread, step), steps, files_outside(session, thread))
    return reply if editable else _read_only(reply)


def files_outside(session: Session, thread: str) -> str:
    """What the panel says of the files the thread's state does not keep, so no step has them as
    it left them: the agent's backend, or each mount, that is a folder on disk or a store; ``""``
    when the state keeps every file."""
    try:
        files = session.files(thread)
        backend, mounts, default_in_state = files.backend, files.mounts, files.has_history("/")
    except DeepnbError:  # a backend deepnb cannot browse
        return "This agent keeps its files where deepnb cannot read them: no step shows them."
    now = "bench.files(thread) shows them as they are now"
    if backend == "state":
        return ""
    if backend != "composite":
        return f"This agent keeps its files in a {backend}, not in its state: no step keeps them ({now})."
    outside = [f"{prefix} ({label})" for prefix, label in mounts.items() if label != "state"]
    if not default_in_state:
        outside.append("every other path")
    if not outside:
        return ""
    return f"Files under {', '.join(outside)} are kept outside the state: no step keeps them ({now})."


def _read_only(reply: dict[str, Any]) -> dict[str, Any]:
    """``reply`` with every editable flag of it off: the todos', a file's, each message's."""
    if "todos_editable" in reply:
        reply["todos_editable"] = False
    if "editable" in reply:  # one file in full
        reply["editable"] = False
    page = reply.get("messages")  # a step's page of messages, or the rows of an earlier page
    rows = [*(reply.get("files") or []), *(page["messages"] if isinstance(page, dict) else page or [])]
    for row in rows:
        row["editable"] = False
        if "content" in row:
            row["content"] = ""
    return reply


# -- edits ---------------------------------------------------------------------------------------


def _edited_message(message: Any, text: str) -> Any:
    """``message`` with ``text`` as its content (its id, tool calls and the rest kept), so the
    state's reducer puts it in the old one's place."""
    if isinstance(message, Mapping):
        return {**message, "content": text}
    return message.model_copy(update={"content": text})


def update_of(state: StepState, edits: Sequence[Any]) -> dict[str, Any]:
    """The update the panel's ``edits`` make of ``state`` (each ``{"kind": "todos" | "file" |
    "message", ...}``), refused in one line where one does not fit the step it edits."""
    if not edits:
        raise DeepnbError("Nothing was edited: change a todo, a file or a message first.")
    update: dict[str, Any] = {}
    messages = {str(_field(m, "id")): m for m in state.messages if _field(m, "id")}
    edited: dict[str, Any] = {}
    for edit in edits:
        if not isinstance(edit, Mapping):
            raise DeepnbError("Refused an edit that is not an object.")
        kind = edit.get("kind")
        if kind == "todos":
            update["todos"] = _todos(edit.get("todos"))
        elif kind == "file":
            path, text = edit.get("path"), edit.get("text")
            if not isinstance(path, str) or not path.startswith("/") or not isinstance(text, str):
                raise DeepnbError("A file edit names a path starting with / and gives its text.")
            update.setdefault("files", {})[path] = text
        elif kind == "message":
            key, text = str(edit.get("id") or ""), edit.get("text")
            if key not in messages or not isinstance(text, str):
                raise DeepnbError(f"Step {state.step} has no message {key!r} to edit.")
            message = messages[key]
            is_last = state.messages and _field(state.messages[-1], "id") == _field(message, "id")
            if message_kind(message) != "tool" and not is_last:
                raise DeepnbError("Only the last message's text and a tool's result can be edited here.")
            edited[key] = _edited_message(message, text)
        else:
            raise DeepnbError(f"Refused an edit of kind {kind!r}: todos, file or message.")
    if edited:
        update["messages"] = list(edited.values())
    return update


def _todos(todos: Any) -> list[dict[str, str]]:
    if not isinstance(todos, list):
        raise DeepnbError("The todos edit is a list of {content, status}.")
    found = []
    for todo in todos:
        content = todo.get("content") if isinstance(todo, Mapping) else None
        status = todo.get("status") if isinstance(todo, Mapping) else None
        if not isinstance(content, str) or not content.strip():
            raise DeepnbError("Each todo needs its text: remove an empty one or write it.")
        if status not in STATUSES:
            raise DeepnbError(f"A todo's status is one of {', '.join(STATUSES)}, not {status!r}.")
        found.append({"content": content, "status": status})
    return found
