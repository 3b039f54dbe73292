"""A thread's history as steps: which agent and node wrote each checkpoint, what changed since
the one before (a message, a tool call, todos, files), and finding the step a fork starts from.
Read from LangGraph ``StateSnapshot``s, the newest first (as ``aget_state_history`` gives them)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from deepnb.core.errors import DeepnbError
from deepnb.core.events import message_text

INPUT = "__input__"
"""The node a thread's first checkpoint (the run's input) counts as written by."""
START = "__start__"
"""The node that reads a run's input into the state (it writes only the input keys)."""


def pairs(snapshots: Sequence[Any]) -> Iterator[tuple[Any, Any | None]]:
    """Each snapshot (newest first) with the one before it in time (``None`` for the oldest)."""
    for index, snapshot in enumerate(snapshots):
        yield snapshot, snapshots[index + 1] if index + 1 < len(snapshots) else None


def as_node(snapshots: Sequence[Any], index: int) -> str:
    """The node a copy of ``snapshots[index]`` is written as, so that the same nodes run next:
    the first node that wrote it, or, for a step written from outside (a file the notebook
    wrote), the node that wrote the step before."""
    while index + 1 < len(snapshots) and not snapshots[index + 1].tasks:
        index += 1
    return writer(snapshots[index + 1] if index + 1 < len(snapshots) else None).split(", ")[0]


def writer(older: Any | None) -> str:
    """The node(s) whose writes made the checkpoint after ``older``: the tasks ``older`` had to
    run (``__input__`` for a thread's first checkpoint)."""
    if older is None:
        return INPUT
    names = (task.get("name") if isinstance(task, Mapping) else task.name for task in older.tasks or ())
    return ", ".join(dict.fromkeys(str(name) for name in names)) or INPUT  # a server gives dicts


def described(snapshot: Any, older: Any | None) -> tuple[str, str, tuple[str, ...]]:
    """The agent and node(s) that wrote ``snapshot``, and what changed since ``older``."""
    agent = str((snapshot.metadata or {}).get("lc_agent_name") or "")
    before = older.values if older is not None else {}
    return agent, writer(older), changes(before or {}, snapshot.values or {})


def _short(text: str, limit: int = 60) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _message_change(message: Any) -> list[str]:
    kind = getattr(message, "type", "")
    text = _short(message_text(getattr(message, "content", "")))
    if kind == "human":
        return [f"prompt: {text}"]
    if kind == "tool":
        return [f"tool result: {getattr(message, 'name', '') or '?'}"]
    if kind == "ai":
        calls = [f"tool call: {c.get('name', '?')}" for c in getattr(message, "tool_calls", None) or []]
        return ([f"message: {text}"] if text else []) + calls
    return [f"{kind or 'message'}: {text}"]


def changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> tuple[str, ...]:
    """What changed from ``before`` to ``after`` (two state values): new messages and tool
    calls, the todo list, files written or deleted, and for other keys their names."""
    found: list[str] = []
    seen = {getattr(m, "id", None) for m in before.get("messages") or []} - {None}
    for message in after.get("messages") or []:
        if getattr(message, "id", None) not in seen:
            found += _message_change(message)
    for key in sorted(set(before) | set(after)):
        if key == "messages" or before.get(key) == after.get(key):
            continue
        if key == "todos":
            todos = after.get("todos") or []
            done = sum(1 for t in todos if isinstance(t, Mapping) and t.get("status") == "completed")
            found.append(f"todos: {done}/{len(todos)} done")
        elif key == "files":
            old, new = before.get("files") or {}, after.get("files") or {}
            found += [f"file: {p}" for p in sorted(new) if old.get(p) != new.get(p)]
            found += [f"file deleted: {p}" for p in sorted(old) if p not in new]
        else:
            found.append(f"{key} changed")
    return tuple(found)


def pick(snapshots: Sequence[Any], at: int | str, *, thread: str, agent: str) -> int:
    """Where in ``snapshots`` a fork starts — step ``at`` (a number, or its digits) or the
    checkpoint with id ``at`` —; one line naming the range where there is none, or where the step
    holds a run's input the agent has not read yet (there is nothing of it in the state to copy)."""
    if not snapshots:
        raise DeepnbError(f"Agent {agent!r} has no thread {thread!r}: %deepagent threads lists its threads.")
    steps = [int((s.metadata or {}).get("step", 0)) for s in snapshots]
    wanted = str(at).strip()
    for index, (snapshot, step) in enumerate(zip(snapshots, steps, strict=True)):
        checkpoint_id = str((snapshot.config or {}).get("configurable", {}).get("checkpoint_id", ""))
        if wanted == checkpoint_id or (wanted.lstrip("-").isdigit() and int(wanted) == step):
            if (snapshot.metadata or {}).get("source") == "input":
                raise DeepnbError(
                    f"Step {step} of thread {thread!r} holds a prompt the agent has not read yet: fork at "
                    f"step {step + 1} (with it) or {step - 1} (before it)."
                    if step >= 0
                    else f"Step {step} of thread {thread!r} holds only its first prompt: fork at step 0."
                )
            return index
    raise DeepnbError(
        f"Thread {thread!r} has no step or checkpoint {wanted!r}: its steps run from {min(steps)} to "
        f"{max(steps)} (%deepagent history -t {thread} lists them)."
    )
