"""What deepnb reads from an Agent Protocol server, and the JSON type each field must have.

A server is not trusted to send what the protocol says: a broken or hostile one may answer
``"messages": 5``, a list where an object belongs, an HTML page or a redirect. Every answer
deepnb reads is checked here first against the tables below (only the fields deepnb reads; a
field that is absent or ``null`` is fine unless required), so a wrong one ends in one line naming
the field (:class:`Unreadable`, which :func:`deepnb.session.remote.client.explain` words) and never in a
``TypeError`` somewhere downstream.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

Check = Callable[[Any, str], None]


class Unreadable(Exception):
    """The server answered something an Agent Protocol server does not; ``detail`` says what
    (a phrase: ``values.todos as a string, not a list``)."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


def kind(value: Any) -> str:
    """``value``'s JSON type, as a phrase (``a string``, ``an object``…)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, list | tuple):
        return "a list"
    return type(value).__name__


def _type(expected: str, *types: type) -> Check:
    def check(value: Any, where: str) -> None:
        if value is not None and not isinstance(value, types):
            raise Unreadable(f"{where} as {kind(value)}, not {expected}")

    return check


TEXT = _type("a string", str)
OBJECT = _type("an object", Mapping)
_LIST = _type("a list", list, tuple)


def list_of(item: Check) -> Check:
    """A list (or ``null``) whose every item passes ``item``."""

    def check(value: Any, where: str) -> None:
        _LIST(value, where)
        for index, each in enumerate(value or ()):
            if each is None:
                raise Unreadable(f"{where}[{index}] as null")
            item(each, f"{where}[{index}]")

    return check


def object_of(item: Check) -> Check:
    """An object (or ``null``) whose every value passes ``item`` (``null`` values too: a deletion)."""

    def check(value: Any, where: str) -> None:
        OBJECT(value, where)
        for key, each in (value or {}).items():
            item(each, f"{where}[{key!r}]")

    return check


def fields(table: Mapping[str, Check], *, required: tuple[str, ...] = ()) -> Check:
    """An object (or ``null``) whose fields named in ``table`` pass their checks (``required``
    ones present)."""

    def check(value: Any, where: str) -> None:
        if value is None:
            return
        if not isinstance(value, Mapping):
            raise Unreadable(f"{where} as {kind(value)}, not an object")
        for name in required:
            if value.get(name) is None:
                raise Unreadable(f"{where} without its {name}")
        for name, field_check in table.items():
            field_check(value.get(name), f"{where}.{name}" if where else name)

    return check


def _message(value: Any, where: str) -> None:
    fields({"type": TEXT, "id": TEXT}, required=("type",))(value, where)


def _messages(value: Any, where: str) -> None:
    """A list of messages, or one message (a node may return one)."""
    (_message if isinstance(value, Mapping) else list_of(_message))(value, where)


STATE_VALUES: dict[str, Check] = {
    "messages": _messages,
    "todos": list_of(fields({"content": TEXT, "status": TEXT})),
    "files": object_of(OBJECT),
    "async_tasks": object_of(OBJECT),
    "_summarization_event": fields({"summary_message": OBJECT, "cutoff_index": _type("a number", int)}),
}
"""The fields of a thread's values (and of one node's update) that deepnb reads."""


_INTERRUPT = fields({"id": TEXT})
THREAD_STATE: dict[str, Check] = {
    "values": fields(STATE_VALUES),
    "next": list_of(TEXT),
    "tasks": list_of(fields({"interrupts": list_of(_INTERRUPT)})),
    "interrupts": list_of(_INTERRUPT),
    "checkpoint": OBJECT,
    "metadata": OBJECT,
    "created_at": TEXT,
}
"""The fields of a thread's state (``GET /threads/{id}/state``, each entry of its history)."""

THREAD: dict[str, Check] = {"thread_id": TEXT, "updated_at": TEXT, "values": fields(STATE_VALUES)}
RUN: dict[str, Check] = {"run_id": TEXT, "status": TEXT, "kwargs": OBJECT}
ASSISTANT: dict[str, Check] = {"assistant_id": TEXT, "graph_id": TEXT, "name": TEXT}

_STATE = fields(THREAD_STATE)
_UPDATE = fields(STATE_VALUES)
ANSWERS: dict[str, Check] = {
    "state": _STATE,
    "history": list_of(_STATE),
    "threads": list_of(fields(THREAD, required=("thread_id",))),
    "runs": list_of(fields(RUN, required=("run_id",))),
    "run": fields(RUN, required=("run_id",)),
    "assistants": list_of(fields(ASSISTANT, required=("assistant_id",))),
}
"""Each answer deepnb reads, by name: what :func:`checked` checks it against."""


def checked(answer: str, value: Any) -> Any:
    """``value`` (the server's answer ``answer``, a name of :data:`ANSWERS`) if it has the
    types deepnb reads, else :class:`Unreadable`."""
    if value is None:
        raise Unreadable(f"nothing (an empty body) for its {answer}")
    ANSWERS[answer](value, "" if answer == "state" else answer)
    return value


def update(value: Any, where: str) -> None:
    """Check one node's streamed state update (a list of them for a node that ran more than once)."""
    for each in value if isinstance(value, list) else [value]:
        _UPDATE(each, where)


def stream_part(event: str, data: Any) -> None:
    """Check one part of a run's stream (its event name without the namespace)."""
    if event == "updates":
        OBJECT(data, "an update")
        for node, each in (data or {}).items():
            if node != "__interrupt__":
                update(each, f"the update of {node}")
            else:
                list_of(OBJECT)(each, "an update's __interrupt__")
    elif event == "messages-tuple":
        if not (isinstance(data, list | tuple) and len(data) == 2 and isinstance(data[0], Mapping)):
            raise Unreadable(f"a streamed message as {kind(data)}, not [message, metadata]")
        _message(data[0], "a streamed message")
    elif event == "metadata":
        fields({"run_id": TEXT})(data, "the run's metadata")
