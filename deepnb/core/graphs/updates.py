"""What a graph's state takes as an update (``update_state``): its keys, and each value checked
against the key's type where the key has no reducer of its own, before anything is written.

LangGraph itself writes an unknown key without a word and keeps a value of the wrong type in a
key without a reducer; a fork with such an update would go on from a state the graph never
makes. Keys with a reducer are left to it (it takes updates of its own shape: one message, a
``{path: None}`` deletion), and a reducer that refuses is said in one line where it is called.
"""

from __future__ import annotations

import typing
from collections.abc import Mapping
from typing import Any

from deepnb.core.errors import DeepnbError
from deepnb.core.graphs.inputs import (
    MESSAGE_LIKES,
    _bare,
    _checker,
    _clipped_value,
    _message_likes,
    _type_name,
)

PLAIN = ("LastValue", "AnyValue")
"""Channel kinds that keep the last value written, with no reducer."""
FILES = "files"


def state_keys(graph: Any) -> list[str] | None:
    """The keys of the graph's state (every schema it was built with: its state, input and
    output ones, and each middleware's), or ``None`` where the graph does not say."""
    schemas = getattr(getattr(graph, "builder", None), "schemas", None)
    if isinstance(schemas, Mapping) and schemas:
        return sorted({str(key) for channels in schemas.values() for key in channels})
    channels = getattr(graph, "channels", None)
    if isinstance(channels, Mapping):
        return sorted(str(k) for k in channels if not str(k).startswith(("__", "branch:", "start:")))
    return None


def _annotations(graph: Any) -> dict[str, Any]:
    """Each state key's annotation, from every schema of the graph (the first that names it)."""
    schemas = getattr(getattr(graph, "builder", None), "schemas", None)
    found: dict[str, Any] = {}
    for schema in schemas or ():
        try:
            hints = typing.get_type_hints(schema, include_extras=True)
        except Exception:  # a schema whose hints cannot be resolved says nothing
            continue
        for key, hint in hints.items():
            found.setdefault(key, hint)
    return found


def _reduced(graph: Any, key: str) -> bool:
    """Whether ``key``'s channel has a reducer (``None``: deepnb cannot tell, so it has one)."""
    channel = (getattr(graph, "channels", None) or {}).get(key)
    return channel is None or type(channel).__name__ not in PLAIN


def holds_file_data(graph: Any, current: Any) -> bool:
    """Whether the state's ``files`` are deepagents' file dicts (``{"content", "encoding",
    ...}``): its annotation says so, or, where the graph says nothing (a served one), the files
    it holds now are such dicts (or there are none yet)."""
    annotation = _annotations(graph).get(FILES)
    if annotation is not None:
        return "FileData" in _type_name(annotation)
    if not isinstance(current, Mapping):
        return current is None
    return all(isinstance(data, Mapping) for data in current.values())


def check_update(graph: Any, update: Any, *, keys: list[str] | None, agent: str) -> None:
    """Refuse, in one line, an update that is not a dict of the state's keys, or whose value for
    a key without a reducer is not of that key's type (or whose messages are not messages)."""
    if not isinstance(update, Mapping) or not all(isinstance(key, str) for key in update):
        raise DeepnbError(
            f"An update is a dict of state keys to values, not a {type(update).__name__}: "
            "e.g. update={'files': {'/notes.md': 'text'}}."
        )
    if keys is not None:
        unknown = [key for key in update if key not in keys]
        if unknown:
            named = sorted(keys, key=lambda key: (key.startswith("_"), key))  # private ones last
            raise DeepnbError(
                f"Agent {agent!r} has no state key {', '.join(repr(k) for k in unknown)}: its keys are "
                f"{', '.join(named)}. Nothing was forked."
            )
    annotations = _annotations(graph)
    for key, value in update.items():
        problem = _problem(graph, key, value, annotations.get(key))
        if problem is not None:
            raise DeepnbError(
                f"The update's {key!r} must be {problem}, not {_clipped_value(value)}. Nothing was forked."
            )


def _problem(graph: Any, key: str, value: Any, annotation: Any) -> str | None:
    if key == "messages" or (annotation is not None and "langchain_core.messages" in repr(_bare(annotation))):
        return None if _message_likes(value) else MESSAGE_LIKES
    if key == FILES and (annotation is None or "FileData" in _type_name(annotation)):
        if not isinstance(value, Mapping) or not all(
            isinstance(data, str | bytes | Mapping) or data is None for data in value.values()
        ):
            return "a dict of path → text (or bytes, a file dict, or None to delete it)"
        return None
    if annotation is None or _reduced(graph, key):
        return None
    check = _checker(annotation)
    if check is None or check(value):
        return None
    return f"of type {_type_name(annotation)}"
