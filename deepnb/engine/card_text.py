"""What a card says about a change, in words a person reads: a tool call's arguments as values (a
file's content as text with its line breaks), a ``write_todos`` call's changes to the todo list,
an edit's diff from the proposed arguments to the approved ones (a diff of the text), and an
approval's own description (the middleware's generated one left out)."""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import Any

from deepnb.core.call_args import SHOWN, call_args, json_text
from deepnb.core.schema import TODO_CHANGE_LABEL, Todo, TodoChange, TodoChangeKind, TodoStatus
from deepnb.core.text.secrets import redact

DEFAULT_DESCRIPTION_PREFIX = "Tool execution requires approval"
"""The human-in-the-loop middleware's own description, which it follows with the tool and a repr
of its arguments: the card shows both already, so only a description someone wrote is kept."""


def readable_args(args: Mapping[str, Any], limit: int = SHOWN) -> str:
    """A tool call's arguments, one ``name: value`` each: a text as it reads (one with line breaks
    indented under its name, line by line), any other value as JSON; about ``limit`` characters
    at most (a model may send megabytes, or JSON nested hundreds deep: what fits is shown)."""
    lines: list[str] = []
    left = limit
    for name, value in call_args(args).items():
        if left <= 0:
            lines.append("…")
            break
        text = value[: left + 1] if isinstance(value, str) else json_text(value, left + 1, indent=2)
        left -= len(name) + len(text) + 2
        if "\n" in text:
            lines.append(f"{name}:")
            lines.extend(f"  {line}" if line else "" for line in text.split("\n"))
        else:
            lines.append(f"{name}: {text}")
    return "\n".join(lines)


def todo_changes(before: Sequence[Todo], after: Sequence[Todo]) -> list[TodoChange]:
    """What a ``write_todos`` call changed, in the new list's order, then what it removed: todos
    added, started, ticked, reopened; a todo is the same todo when its text is."""
    old = {todo["content"]: todo["status"] for todo in before}  # read by state._todo: known statuses
    moved: dict[TodoStatus, TodoChangeKind] = {
        "completed": "completed",
        "in_progress": "started",
        "pending": "reopened",
    }
    changes: list[TodoChange] = []
    for todo in after:
        was, now, content = old.get(todo["content"]), todo["status"], redact(todo["content"])
        if was is None:
            changes.append(TodoChange(change="added", content=content))
        if was != now and (was is not None or now != "pending"):
            changes.append(TodoChange(change=moved[now], content=content))
    kept = {todo["content"] for todo in after}
    gone = [todo["content"] for todo in before if todo["content"] not in kept]
    return changes + [TodoChange(change="removed", content=redact(content)) for content in gone]


def changes_summary(changes: Sequence[TodoChange], *, unread: int = 0) -> str:
    """``"3 added, 1 done"``, counted by kind in a fixed order; ``"no change"`` for none.
    ``unread``: todos the call sent that are not todos (a status no todo has, a text that is not
    text), which the tool refuses: ``"1 not a todo"`` ends the line."""
    counts: dict[str, int] = {}
    for change in changes:
        counts[change["change"]] = counts.get(change["change"], 0) + 1
    parts = [f"{counts[kind]} {label}" for kind, label in TODO_CHANGE_LABEL.items() if kind in counts]
    if unread:
        parts.append(f"{unread} not a todo")
    return ", ".join(parts) or "no change"


def own_description(text: str, tool: str) -> str:
    """An action's description as its card shows it: one the interrupt config gave, whole; the
    middleware's generated one ("Tool execution requires approval / Tool: … / Args: {…}") not at
    all, since the card shows the tool and its arguments itself (a custom prefix is kept)."""
    at = text.find(f"\n\nTool: {tool}\nArgs: ")
    if at < 0:
        return text
    prefix = text[:at].strip()
    return "" if prefix == DEFAULT_DESCRIPTION_PREFIX else prefix


DIFF_LIMIT = 4000
"""Characters of an edit's diff the decision log keeps."""
DIFF_SOURCE = 200_000
"""Characters of the proposed and of the edited arguments an edit's diff compares."""


def args_diff(proposed: str, edited: str) -> str:
    """A unified diff, line by line, from the proposed arguments to the edited ones (each as
    :func:`readable_args` gives them, so an edited text diffs line by line)."""
    lines = difflib.unified_diff(
        proposed.splitlines(), edited.splitlines(), "proposed", "approved", n=2, lineterm=""
    )
    diff = "\n".join(lines)
    return diff if len(diff) <= DIFF_LIMIT else diff[: DIFF_LIMIT - 1] + "…"
