"""A thread's state at one step (:class:`StepState`) and what changed between two steps
(:class:`StateDiff`): messages, todos, files, the structured response and any other key of the
graph's state, read from LangGraph state values.

Both are bounded wherever a thread's state is not: a diff keeps at most :data:`DIFF_LINES` lines of
each file's unified diff (and says how many more), reprs of other keys are cut at
:data:`VALUE_CHARS`, and a very large file is diffed by its changed middle only, so a state of
tens of megabytes never makes one huge object or output. The full values stay in
``StepState.values``.
"""

from __future__ import annotations

import base64
import dataclasses
import difflib
import reprlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from deepnb.core.call_args import call_name
from deepnb.core.displayable import Displayable
from deepnb.core.events import message_text

__all__ = ["FileDiff", "MessageChange", "StateDiff", "StepState", "TodoChange", "diff_values"]

KNOWN = ("messages", "todos", "files", "structured_response")
"""The keys :class:`StepState` reads as what they are; every other key is the graph's own."""
DIFF_LINES = 100
"""Lines of one file's unified diff a :class:`StateDiff` keeps (it counts the rest)."""
LINE_CHARS = 200
"""Characters of one diff line kept."""
MATCHED_LINES = 4000
"""Changed lines (old and new, after the common start and end) up to which a file is diffed
line by line; beyond, its old lines are listed removed and its new ones added."""
CONTEXT = 3
"""Unchanged lines shown around each change (as ``diff -u``)."""
TEXT_CHARS = 2000
"""Characters of one message's text a :class:`StateDiff` keeps."""
VALUE_CHARS = 200
"""Characters of a value's repr (another key's old and new value)."""
ROLES = {"human": "user", "ai": "assistant", "tool": "tool", "system": "system"}


def _bounded_repr() -> reprlib.Repr:
    shown = reprlib.Repr()
    shown.maxlevel, shown.maxdict, shown.maxlist, shown.maxtuple, shown.maxset = 3, 8, 8, 8, 8
    shown.maxstring, shown.maxother, shown.maxlong = 120, 120, 40
    return shown


_REPR = _bounded_repr()


def short_repr(value: Any, limit: int = VALUE_CHARS) -> str:
    """``repr(value)`` within ``limit`` characters, in bounded work whatever its size."""
    text = _REPR.repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# -- reading values ---------------------------------------------------------------------------


def _field(message: Any, name: str) -> Any:
    return message.get(name) if isinstance(message, Mapping) else getattr(message, name, None)


def message_kind(message: Any) -> str:
    """``human``, ``ai``, ``tool``, ``system`` (a message object or a server's dict)."""
    return str(_field(message, "type") or "")


def role_of(message: Any) -> str:
    """How a message's author is said: ``user``, ``assistant``, ``tool read_file``, …"""
    kind = message_kind(message)
    role = ROLES.get(kind, kind or "message")
    name = _field(message, "name")
    return f"{role} {name}" if kind == "tool" and isinstance(name, str) and name else role


def said(message: Any) -> str:
    """A message's text, with the tool calls it asks for (``→ read_file(file_path='/a.md')``)."""
    text = message_text(_field(message, "content") or "")
    calls = [
        f"→ {call_name(c)}({_arguments(c.get('args'))})"
        for c in _field(message, "tool_calls") or ()
        if isinstance(c, Mapping)
    ]
    return "\n".join(part for part in (text, *calls) if part)


def _arguments(args: Any) -> str:
    if not isinstance(args, Mapping):
        return ""
    return ", ".join(f"{key}={short_repr(value, 60)}" for key, value in list(args.items())[:6])


def file_text(data: Any) -> str | bytes:
    """A file of deepagents' state (``{"content", "encoding", ...}``, or older line lists) as its
    text, or its bytes where it is not UTF-8 text."""
    if isinstance(data, str | bytes):
        return data
    if not isinstance(data, Mapping):
        return ""
    content = data.get("content", "")
    if isinstance(content, list):  # the older line-list format
        content = "\n".join(str(line) for line in content)
    if data.get("encoding") == "base64":
        raw = base64.b64decode(str(content))
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            return raw
    return str(content)


def plain(value: Any, depth: int = 0) -> Any:
    """``value`` as plain data: messages as dicts (``role``, ``content``, tool calls …), Pydantic
    models and dataclasses as dicts, containers walked (a few levels deep)."""
    if depth > 12:
        return value
    if hasattr(value, "additional_kwargs") and hasattr(value, "content"):  # a LangChain message
        return plain_message(value)
    if hasattr(value, "model_dump") and callable(value.model_dump):
        return plain(value.model_dump(), depth + 1)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return plain(dataclasses.asdict(value), depth + 1)
    if isinstance(value, Mapping):
        return {str(k): plain(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v, depth + 1) for v in value]
    return value


def plain_message(message: Any) -> dict[str, Any]:
    """A message as a dict: its ``role``, ``content``, and where it has them its ``id``, ``name``,
    ``tool_calls`` and ``tool_call_id``."""
    found: dict[str, Any] = {"role": role_of(message).split(" ")[0], "content": _field(message, "content")}
    for name in ("id", "name", "tool_calls", "tool_call_id"):
        value = _field(message, name)
        if value:
            found[name] = plain(value)
    return found


# -- one step ---------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False, repr=False)
class StepState(Displayable):
    """A thread's state values as they were at one step (or checkpoint): ``values`` holds them
    as the graph keeps them; :attr:`messages`, :attr:`todos`, :attr:`files` (path → text),
    :attr:`structured_response` and :attr:`other` (the graph's other keys) read them, and
    :meth:`to_dict` gives them as plain data. ``step`` is the thread's step there (what ``--at``
    takes), ``next`` the nodes a run from there runs first."""

    thread: str
    agent: str
    step: int
    checkpoint_id: str
    created_at: str
    next: tuple[str, ...]
    values: Mapping[str, Any]
    at: int | str | None = None
    """What was asked for: a step number, a checkpoint id, or ``None`` for the thread's latest."""

    @property
    def messages(self) -> list[Any]:
        found = self.values.get("messages")
        return list(found) if isinstance(found, list) else []

    @property
    def todos(self) -> list[dict[str, Any]]:
        return [dict(t) for t in self.values.get("todos") or () if isinstance(t, Mapping)]

    @property
    def files(self) -> dict[str, str | bytes]:
        """The files the state holds (deepagents' default backend keeps them there), path → text
        (bytes where a file is not UTF-8 text)."""
        found = self.values.get("files")
        if not isinstance(found, Mapping):
            return {}
        return {str(path): file_text(data) for path, data in found.items() if data is not None}

    @property
    def structured_response(self) -> Any:
        return self.values.get("structured_response")

    @property
    def other(self) -> dict[str, Any]:
        """The state's keys besides messages, todos, files and the structured response."""
        return {key: value for key, value in self.values.items() if key not in KNOWN}

    @property
    def where(self) -> str:
        """``step 3``, ``checkpoint 1f0…``, or ``the latest checkpoint``: what was asked for."""
        if self.at is None:
            return f"step {self.step} (its latest checkpoint)"
        return f"step {self.at}" if isinstance(self.at, int) else f"checkpoint {self.at}"

    def to_dict(self) -> dict[str, Any]:
        """The values as plain data: messages as dicts, files as path → text, models as dicts."""
        found = {key: plain(value) for key, value in self.values.items() if key != "files"}
        if "files" in self.values:
            found["files"] = self.files
        return found


# -- what changed -----------------------------------------------------------------------------


@dataclass(frozen=True)
class MessageChange:
    """A message added, removed or changed (the same id, another text): who said it and what."""

    kind: str
    role: str
    text: str
    id: str = ""


@dataclass(frozen=True)
class TodoChange:
    """A todo ``added``, ``removed`` or whose status changed (``before`` → ``status``)."""

    kind: str
    content: str
    status: str = ""
    before: str = ""


@dataclass(frozen=True)
class FileDiff:
    """A file ``added``, ``modified`` or ``deleted``: its unified diff's first lines (``lines``)
    and how many more it has (``more``)."""

    path: str
    kind: str
    lines: tuple[str, ...] = ()
    more: int = 0


@dataclass(frozen=True, eq=False, repr=False)
class StateDiff(Displayable):
    """What changed in a thread's state from one step (``before``) to another (``after``):
    messages added, removed or changed, todos changed, files written or deleted (a bounded line
    diff each) and the other keys that changed (old → new, each repr bounded)."""

    thread: str
    agent: str
    before: str
    after: str
    messages: tuple[MessageChange, ...] = ()
    todos: tuple[TodoChange, ...] = ()
    files: tuple[FileDiff, ...] = ()
    other: tuple[tuple[str, str, str], ...] = ()
    """``(key, old, new)``, each value's repr bounded (``—``: the key was not there)."""

    def __bool__(self) -> bool:
        return bool(self.messages or self.todos or self.files or self.other)

    def to_dict(self) -> dict[str, Any]:
        """The changes as plain data."""
        return {
            "before": self.before,
            "after": self.after,
            "messages": [dataclasses.asdict(m) for m in self.messages],
            "todos": [dataclasses.asdict(t) for t in self.todos],
            "files": [{**dataclasses.asdict(f), "lines": list(f.lines)} for f in self.files],
            "other": [{"key": k, "old": old, "new": new} for k, old, new in self.other],
        }


def _message_changes(before: Sequence[Any], after: Sequence[Any]) -> list[MessageChange]:
    old = {str(_field(m, "id")): m for m in before if _field(m, "id")}
    new_ids = {str(_field(m, "id")) for m in after if _field(m, "id")}
    found = []
    for index, message in enumerate(after):
        key = str(_field(message, "id") or "")
        if (not key and index >= len(before)) or (key and key not in old):
            found.append(MessageChange("added", role_of(message), clip(said(message), TEXT_CHARS), key))
        elif key and said(old[key]) != said(message):
            found.append(MessageChange("changed", role_of(message), clip(said(message), TEXT_CHARS), key))
    found += [
        MessageChange("removed", role_of(m), clip(said(m), TEXT_CHARS), key)
        for key, m in old.items()
        if key not in new_ids
    ]
    return found


def _todo_changes(before: Sequence[Any], after: Sequence[Any]) -> list[TodoChange]:
    def statuses(todos: Sequence[Any]) -> dict[str, str]:
        return {str(t.get("content")): str(t.get("status", "")) for t in todos if isinstance(t, Mapping)}

    old, new = statuses(before), statuses(after)
    found = [TodoChange("added", content, status) for content, status in new.items() if content not in old]
    found += [
        TodoChange("status", content, status, old[content])
        for content, status in new.items()
        if content in old and old[content] != status
    ]
    found += [TodoChange("removed", content, status) for content, status in old.items() if content not in new]
    return found


def _line(prefix: str, text: str) -> str:
    return clip(prefix + text.rstrip("\n"), LINE_CHARS)


def line_diff(old: str, new: str, path: str) -> tuple[tuple[str, ...], int]:
    """The unified diff of ``old`` to ``new`` (a file at ``path``): its first
    :data:`DIFF_LINES` lines and how many more it has. The common first and last lines are
    set aside before matching, and a changed middle over :data:`MATCHED_LINES` lines is
    listed as removed then added, so a large file costs one pass."""
    a, b = old.splitlines(), new.splitlines()
    start = 0
    while start < len(a) and start < len(b) and a[start] == b[start]:
        start += 1
    end = 0
    while end < len(a) - start and end < len(b) - start and a[-1 - end] == b[-1 - end]:
        end += 1
    start, end = max(0, start - CONTEXT), max(0, end - CONTEXT)  # the hunk's context lines kept
    a_mid, b_mid = a[start : len(a) - end], b[start : len(b) - end]
    head = ["--- /dev/null" if not old else f"--- a{path}", "+++ /dev/null" if not new else f"+++ b{path}"]
    if len(a_mid) + len(b_mid) <= MATCHED_LINES:
        body = [
            line
            for line in difflib.unified_diff(a_mid, b_mid, lineterm="", n=CONTEXT)
            if not line.startswith(("---", "+++"))
        ]
        body = [_renumbered(line, start) if line.startswith("@@") else line for line in body]
        total = len(head) + len(body)
    else:  # too many to match: the old middle removed, the new one added (only the first kept)
        body = [f"@@ -{start + 1},{len(a_mid)} +{start + 1},{len(b_mid)} @@"]
        body += [f"-{line}" for line in a_mid[:DIFF_LINES]] + [f"+{line}" for line in b_mid[:DIFF_LINES]]
        total = len(head) + 1 + len(a_mid) + len(b_mid)
    kept = tuple(_line("", line) for line in (head + body)[:DIFF_LINES])
    return kept, total - len(kept)


def _renumbered(hunk: str, offset: int) -> str:
    """A hunk header of the middle's diff, its line numbers counted from the file's start."""
    parts = hunk.split(" ")
    for index in (1, 2):
        sign, numbers = parts[index][0], parts[index][1:]
        first, comma, count = numbers.partition(",")
        parts[index] = f"{sign}{int(first) + offset}{comma}{count}"
    return " ".join(parts)


def _file_diffs(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[FileDiff]:
    found = []
    for path in sorted(set(before) | set(after)):
        old = file_text(before[path]) if before.get(path) is not None else None
        new = file_text(after[path]) if after.get(path) is not None else None
        if old == new:
            continue
        kind = "added" if old is None else "deleted" if new is None else "modified"
        if isinstance(old, bytes) or isinstance(new, bytes):
            size = len(new or b"") if new is not None else 0
            found.append(FileDiff(path, kind, (f"(binary: {size:,} bytes)",) if new is not None else ()))
            continue
        lines, more = line_diff(old or "", new or "", path)
        found.append(FileDiff(path, kind, lines, more))
    return found


def diff_values(
    before: Mapping[str, Any], after: Mapping[str, Any], *, thread: str, agent: str, labels: tuple[str, str]
) -> StateDiff:
    """What changed from ``before`` to ``after`` (two state values)."""
    other = []
    for key in sorted(set(before) | set(after)):
        if key in ("messages", "todos", "files") or before.get(key) == after.get(key):
            continue
        old = short_repr(before[key]) if key in before else "—"
        new = short_repr(after[key]) if key in after else "—"
        other.append((key, old, new))
    files_before, files_after = before.get("files"), after.get("files")
    return StateDiff(
        thread=thread,
        agent=agent,
        before=labels[0],
        after=labels[1],
        messages=tuple(_message_changes(_list(before.get("messages")), _list(after.get("messages")))),
        todos=tuple(_todo_changes(_list(before.get("todos")), _list(after.get("todos")))),
        files=tuple(
            _file_diffs(
                files_before if isinstance(files_before, Mapping) else {},
                files_after if isinstance(files_after, Mapping) else {},
            )
        ),
        other=tuple(other),
    )


def _list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) else []
