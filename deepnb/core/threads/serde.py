"""What a checkpoint may bring back: every saver deepnb creates or opens reads its checkpoints
with LangGraph's own serializer in strict mode (``JsonPlusSerializer`` with an explicit
``allowed_msgpack_modules``, what ``LANGGRAPH_STRICT_MSGPACK=true`` turns on), so a database a
project ships is data, never code.

LangGraph's default imports and calls any ``module.name`` a checkpoint's msgpack names. Strict,
it rebuilds only the types in LangGraph's ``SAFE_MSGPACK_TYPES`` (messages, documents, its own
types, datetimes, UUIDs, paths, …), the types an agent's own state schema declares (collected by
LangGraph's own walk over the schemas and channels, as its strict compile does), and the classes
the user gave an agent as ``response_format``; anything else comes back as its plain fields,
never imported. No pickle, and JSON checkpoints revive only LangChain's core objects.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Iterable
from typing import Any

TypeKey = tuple[str, ...]

EXTRA_TYPES: frozenset[TypeKey] = frozenset()
"""Types beyond LangGraph's safe set that deepnb's own runs store. Deep Agents' state (files,
todos, summarization events, interrupts' requests) is plain dicts and LangGraph's safe types:
none is needed today; the strict-serializer tests fail if a run stores one."""

_log = logging.getLogger(__name__)
_made: weakref.WeakSet[Any] = weakref.WeakSet()
"""The savers deepnb made, reading strictly; a saver the user built is not in it."""


def strict_serializer(extra: Iterable[TypeKey] = ()) -> Any:
    """LangGraph's ``JsonPlusSerializer`` in strict mode, allowing ``EXTRA_TYPES`` and ``extra``."""
    # lazy: langgraph is heavy, and only a saver needs it
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer  # noqa: PLC0415

    return JsonPlusSerializer(
        pickle_fallback=False,
        allowed_json_modules=None,
        allowed_msgpack_modules=tuple(sorted(EXTRA_TYPES | set(extra))),
    )


def made_strict(saver: Any) -> Any:
    """``saver`` (built with :func:`strict_serializer`), recorded as one deepnb made."""
    _made.add(saver)
    return saver


def is_strict(saver: Any) -> bool:
    """Whether deepnb made ``saver`` (so it reads strictly)."""
    return saver in _made


def graph_types(graph: Any, response_format: Any = None) -> set[TypeKey]:
    """The (module, name) of the classes ``graph``'s state schemas and channels declare, and of
    a ``response_format`` (a class, or LangChain's strategy holding one), found by LangGraph's
    own walk (the one its strict compile does)."""
    try:
        # LangGraph's walk over a graph's schemas; its module is private, so a change is survived
        from langgraph._internal._serde import collect_allowlist_from_schemas  # noqa: PLC0415
    except ImportError:  # pragma: no cover - a LangGraph without it: only the safe set is read back
        return set()
    builder = getattr(graph, "builder", None)
    if response_format is None:
        response_format = _response_format_of(graph)
    # a class, or LangChain's ToolStrategy / ProviderStrategy / AutoStrategy holding one
    schema = (
        response_format if isinstance(response_format, type) else getattr(response_format, "schema", None)
    )
    schemas = [
        s
        for s in (getattr(builder, "state_schema", None), getattr(builder, "input_schema", None), schema)
        if isinstance(s, type)
    ]
    channels = getattr(graph, "channels", None)
    try:
        return collect_allowlist_from_schemas(
            schemas=schemas, channels=channels if isinstance(channels, dict) else None
        )
    except Exception:  # a schema LangGraph's walk cannot read: its types come back as fields
        _log.debug("could not collect the state types of %r", graph, exc_info=True)
        return set()


def _response_format_of(graph: Any) -> Any:
    """The ``response_format`` a graph LangChain's ``create_agent`` compiled was given (an
    attached graph's, which deepnb did not build), where its model node still shows it; else
    ``None`` (its structured output then comes back as fields)."""
    node = getattr(getattr(graph, "builder", None), "nodes", {}).get("model")
    func = getattr(getattr(node, "runnable", None), "func", None)
    code, cells = getattr(func, "__code__", None), getattr(func, "__closure__", None) or ()
    for name, cell in zip(getattr(code, "co_freevars", ()), cells, strict=False):
        if name == "initial_response_format":
            try:
                return cell.cell_contents
            except ValueError:  # an empty cell
                return None
    return None


def allow(saver: Any, types: Iterable[TypeKey]) -> None:
    """Let ``saver`` (one deepnb made, reading strictly) rebuild ``types`` too: the user's own
    classes (an agent's state schema, a ``response_format``). A saver the user built is left as
    it is."""
    wanted = set(types)
    if not wanted or not is_strict(saver):
        return
    serde = saver.serde.with_msgpack_allowlist(wanted)  # LangGraph's own merge: a new serializer
    if serde is not saver.serde:
        saver.serde = serde
