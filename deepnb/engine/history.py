"""A thread's history as steps: which agent and node wrote each checkpoint, what changed since
the one before (a message, a tool call, todos, files), and finding the step a fork starts from.
Read from LangGraph ``StateSnapshot``s, the newest first (as ``aget_state_history`` gives them)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from deepnb.core.call_args import call_name
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
    the first node that wrote it; for a fork's checkpoint, the node it was written as (its
    metadata says: no task before it did); for a step written from outside (a file the notebook
    wrote), the node that wrote the step before."""
    while True:
        written_as = (snapshots[index].metadata or {}).get(FORK_NODE)
        if isinstance(written_as, str) and written_as:
            return written_as
        if index + 1 >= len(snapshots) or snapshots[index + 1].tasks:
            return writer(snapshots[index + 1] if index + 1 < len(snapshots) else None).split(", ")[0]
        index += 1


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
        calls = [f"tool call: {call_name(c)}" for c in getattr(message, "tool_calls", None) or []]
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


def _kind(message: Any) -> str:
    """A message's type, whether it is a message object or a server's dict."""
    return str(message.get("type", "") if isinstance(message, Mapping) else getattr(message, "type", ""))


def _messages(values: Mapping[str, Any] | None) -> list[Any] | None:
    messages = (values or {}).get("messages")
    return messages if isinstance(messages, list) else None


def thread_step(values: Mapping[str, Any] | None) -> int:
    """The thread's step in ``values`` (its state): how many model calls of the main agent it
    holds (its AI messages). Step ``N`` is the thread's ``N``-th model call with the tool calls
    it asked for: the number the run view, the timeline and ``--at`` use."""
    return sum(1 for m in _messages(values) or () if _kind(m) == "ai")


def graph_step(snapshot: Any) -> int:
    """LangGraph's own step of a checkpoint (a counter of every node's write, from ``-1``)."""
    return int((snapshot.metadata or {}).get("step", 0))


def speaks_messages(snapshots: Sequence[Any]) -> bool:
    """Whether the thread's state holds messages (else its steps are the graph's own)."""
    return any(_messages(s.values) is not None for s in snapshots)


FORKED_AT = "deepnb_step"
"""The checkpoint metadata a fork is written with: the step it copies, which a graph without
messages cannot tell from its values."""
FORK_NODE = "deepnb_node"
"""The checkpoint metadata naming the node a fork's checkpoint was written as: a fork of that
fork is written as the same node, so the same nodes run next."""


def node_steps(snapshots: Sequence[Any]) -> list[int]:
    """For a graph that does not speak messages, the thread's step at each of ``snapshots``
    (newest first): how many node updates the thread holds by then, as its run views count them
    (each node's update is a step; a run's input and the start node that reads it are none; a
    fork starts at the step it copies). Unlike LangGraph's own counter, it does not count each
    run's input and start."""
    counts: list[int] = []
    done = 0
    for snapshot, older in reversed(list(pairs(snapshots))):  # the oldest first
        metadata = snapshot.metadata or {}
        if isinstance(metadata.get(FORKED_AT), int) and metadata.get("source") != "loop":
            done = metadata[FORKED_AT]
        elif older is not None and metadata.get("source") == "loop":
            done += sum(1 for name in writer(older).split(", ") if name not in (INPUT, START))
        counts.append(done)
    return counts[::-1]


def steps_of(snapshots: Sequence[Any]) -> list[int]:
    """The step each of ``snapshots`` (newest first) belongs to: :func:`thread_step`, or for a
    graph that does not speak messages :func:`node_steps`."""
    if speaks_messages(snapshots):
        return [thread_step(s.values) for s in snapshots]
    return node_steps(snapshots)


def open_calls(values: Mapping[str, Any] | None) -> tuple[str, ...]:
    """The tool calls ``values`` holds before their results, by name: a run going on from there
    runs them first."""
    messages = _messages(values) or []
    answered = {
        str(m.get("tool_call_id") if isinstance(m, Mapping) else getattr(m, "tool_call_id", ""))
        for m in messages
        if _kind(m) == "tool"
    }
    names: list[str] = []
    for message in messages:
        if _kind(message) != "ai":
            continue
        calls = (
            message.get("tool_calls")
            if isinstance(message, Mapping)
            else getattr(message, "tool_calls", None)
        )
        names += [
            call_name(c)
            for c in calls or ()
            if isinstance(c, Mapping) and str(c.get("id") or "") not in answered
        ]
    return tuple(names)


def _humans(values: Mapping[str, Any] | None) -> int:
    return sum(1 for m in _messages(values) or () if _kind(m) == "human")


def fork_points(snapshots: Sequence[Any]) -> dict[int, int]:
    """Step ``N`` → where in ``snapshots`` (newest first) ``--at N`` forks: the thread as step
    ``N`` left it, its tool calls answered — the last checkpoint of the step before the next
    prompt came (never a later run's input). A graph without messages: each of its own steps."""
    if not speaks_messages(snapshots):  # each node update is a step; parallel ones share one checkpoint
        points: dict[int, int] = {}
        counts = node_steps(snapshots)
        for index in reversed(range(len(snapshots))):
            metadata = snapshots[index].metadata or {}
            if metadata.get("source") == "loop":
                before = counts[index + 1] if index + 1 < len(snapshots) else 0
                points.update({step: index for step in range(before + 1, counts[index] + 1)})
            elif FORKED_AT in metadata and counts[index] > 0:  # a fork: the step it copies
                points[counts[index]] = index
        return points
    points = {}
    prompts: dict[int, int] = {}
    closed: set[int] = set()
    for index in reversed(range(len(snapshots))):  # the oldest first
        snapshot = snapshots[index]
        step, humans = thread_step(snapshot.values), _humans(snapshot.values)
        if step not in prompts:
            if step > 0:
                points[step], prompts[step] = index, humans
            continue
        if step in closed or humans != prompts[step] or (snapshot.metadata or {}).get("source") == "input":
            closed.add(step)  # a new prompt came: what follows belongs to the next step
        else:
            points[step] = index
    return points


def steps_range(points: Mapping[int, int]) -> str:
    """``"from 1 to 6"``, ``"1"``: the steps a thread has, for a message."""
    low, high = min(points), max(points)
    return f"{low}" if low == high else f"from {low} to {high}"


def pick(snapshots: Sequence[Any], at: int | str, *, thread: str, agent: str, reading: bool = False) -> int:
    """Where in ``snapshots`` a fork starts: step ``at`` (a number, or its digits: see
    :func:`fork_points`) or the checkpoint with id ``at``; one line naming the valid steps where
    there is none, or (unless only ``reading`` it) where the checkpoint holds a run's input the
    agent has not read yet."""
    if not snapshots:
        raise DeepnbError(f"Agent {agent!r} has no thread {thread!r}: %deepagent threads lists its threads.")
    wanted = str(at).strip()
    points = fork_points(snapshots)
    if wanted.lstrip("-").isdigit():
        if int(wanted) in points:
            return points[int(wanted)]
        where = f"its steps run {steps_range(points)}" if points else "it has no steps yet"
        raise DeepnbError(
            f"Thread {thread!r} has no step {int(wanted)}: {where} (%deepagent history -t {thread} lists "
            "them; a checkpoint id from --all works too)."
        )
    for index, snapshot in enumerate(snapshots):
        checkpoint_id = str((snapshot.config or {}).get("configurable", {}).get("checkpoint_id", ""))
        if wanted == checkpoint_id:
            if (snapshot.metadata or {}).get("source") == "input" and not reading:
                raise DeepnbError(
                    f"Checkpoint {wanted} of thread {thread!r} holds a prompt the agent has not read yet: "
                    "fork at the checkpoint after it (with it) or before it "
                    "(%deepagent history --all lists them)."
                )
            return index
    where = f"its steps run {steps_range(points)}" if points else "it has no steps yet"
    raise DeepnbError(
        f"Thread {thread!r} has no step or checkpoint {wanted!r}: {where} (%deepagent history -t {thread} "
        "lists them)."
    )


def step_before(snapshots: Sequence[Any], at: int | str, index: int) -> int | None:
    """Where in ``snapshots`` the state before ``at`` (found at ``index`` by :func:`pick`) is:
    for a step, the step before it (``None``: it is the thread's first, which began from an
    empty state); for a checkpoint id, the checkpoint before it."""
    wanted = str(at).strip()
    if wanted.lstrip("-").isdigit():
        earlier = [step for step in fork_points(snapshots) if step < int(wanted)]
        return fork_points(snapshots)[max(earlier)] if earlier else None
    return index + 1 if index + 1 < len(snapshots) else None


def in_words(changes: Sequence[str], waiting: Sequence[str] = ()) -> str:
    """What a step did, from the :func:`changes` of its checkpoints (the oldest first): its
    prompt, what the model said, the tools it called, the files and todos they changed; and the
    tool calls ``waiting`` for their result there (a run going on from the step runs them)."""
    prompts, said, called, wrote, deleted, other = [], [], [], [], [], []
    todos = ""
    for change in changes:
        kind, _, what = change.partition(": ")
        if kind == "prompt":
            prompts.append(f"prompt “{what}”")
        elif kind == "message":
            said.append(f"said “{what}”")
        elif kind == "tool call":
            called.append(what)
        elif kind == "file":
            wrote.append(what)
        elif kind == "file deleted":
            deleted.append(what)
        elif kind == "todos":
            todos = f"todos {what}"
        elif kind not in ("tool result", "human"):
            other.append(change)
    parts = prompts + said
    parts += [f"called {', '.join(dict.fromkeys(called))}"] if called else []
    parts += [f"wrote {', '.join(dict.fromkeys(wrote))}"] if wrote else []
    parts += [f"deleted {', '.join(dict.fromkeys(deleted))}"] if deleted else []
    parts += [todos] if todos else []
    parts += other
    if waiting:
        parts.append(f"{', '.join(dict.fromkeys(waiting))} not run yet: a run from here runs it first")
    return " · ".join(parts) or "—"
