"""What a graph takes and gives: a prompt for graphs that speak ``messages``, a dict of its input
keys for any other graph (``StateGraph(TypedDict{topic, joke})``); and what a finished run's
``run.output`` holds."""

from __future__ import annotations

import json
import re
import typing
from collections.abc import Callable, Mapping
from typing import Any

import typing_extensions

from deepnb.core.errors import DeepnbError

INPUT_CHARS = 2000
"""Characters of a dict input kept as the run's prompt."""
VALUE_CHARS = 80
"""Characters of a refused input value a message quotes."""
MESSAGE_LIKES = (
    "a list of messages: strings, {'role': ..., 'content': ...} dicts, (role, content) pairs or "
    "LangChain messages"
)
_WRAPPERS = {typing_extensions.Annotated, typing_extensions.Required, typing_extensions.NotRequired}
_WRAPPERS |= {getattr(typing_extensions, "ReadOnly", typing_extensions.Required)}
_CHECKERS: dict[int, tuple[Any, Callable[[Any], bool] | None]] = {}
"""Each annotation's check, by its id (annotations may not be hashable), the annotation kept."""


def input_keys(graph: Any) -> list[str]:
    """The keys of the graph's input state (``[]`` when it does not say: a graph deepnb cannot
    read the schema of is taken to speak messages). A served graph says them as its server's
    schema does (``served_input_keys``)."""
    served = getattr(graph, "served_input_keys", None)
    if isinstance(served, tuple | list):
        return [str(key) for key in served]
    builder = getattr(graph, "builder", None)
    schemas = getattr(builder, "schemas", None)
    schema = getattr(builder, "input_schema", None)
    if not isinstance(schemas, Mapping) or schema not in schemas:
        return []
    return [str(key) for key in schemas[schema]]


def speaks_messages(graph: Any) -> bool:
    """Whether the graph takes a conversation (a ``messages`` input), as every agent does."""
    keys = input_keys(graph)
    return not keys or "messages" in keys


def input_for(graph: Any, value: str | Mapping[str, Any], *, agent: str) -> dict[str, Any]:
    """The graph's input for ``value``: a dict as it is; a prompt as the user's message, for a
    graph that speaks messages (else one line says which keys it takes)."""
    if isinstance(value, Mapping):
        check_input(graph, value, agent=agent)
        return dict(value)
    if not isinstance(value, str):
        kind = type(value).__name__
        raise DeepnbError(f"A run takes a prompt (a string) or a dict of input keys, not a {kind}.")
    if not speaks_messages(graph):
        keys = input_keys(graph)
        example = ", ".join(f"{key!r}: ..." for key in keys[:2])
        raise DeepnbError(
            f"Agent {agent!r} takes no prompt: its input keys are {', '.join(keys)}. Pass a dict, "
            f"e.g. run({{{example}}}), or %%deepagent --input VAR with VAR holding one."
        )
    return {"messages": [{"role": "user", "content": value}]}


def check_input(graph: Any, value: Mapping[str, Any], *, agent: str) -> None:
    """Refuse, in one line, a dict input the graph would fail on while it is already written to
    the thread (a reducer that cannot take it leaves a checkpoint no one can read again): each
    key's value against the graph's input schema where it says (a messages key must hold message
    likes), before anything runs."""
    for key, item in value.items():
        problem = _problem(graph, str(key), item)
        if problem is not None:
            raise DeepnbError(
                f"Agent {agent!r} cannot take this input: {key!r} must be {problem}, not "
                f"{_clipped_value(item)}. Nothing was run or written."
            )


def _problem(graph: Any, key: str, value: Any) -> str | None:
    """What ``value`` of input key ``key`` should be, where it is not (``None``: fine, or not known)."""
    annotation = _annotations(graph).get(key)
    if (key == "messages" and speaks_messages(graph)) or _holds_messages(annotation):
        return None if _message_likes(value) else MESSAGE_LIKES
    if annotation is None:
        return None
    check = _checker(annotation)
    if check is None or check(value):
        return None
    return f"of type {_type_name(annotation)}"


def _message_likes(value: Any) -> bool:
    """Whether the messages reducer can take ``value`` (a list of message likes, or one)."""
    from langchain_core.messages import convert_to_messages  # noqa: PLC0415  # lazy: heavy

    try:
        convert_to_messages(value if isinstance(value, list) else [value])
    except Exception:  # NotImplementedError, ValueError, TypeError, KeyError: all mean "not that"
        return False
    return True


def _annotations(graph: Any) -> dict[str, Any]:
    """The graph's input keys with their annotations (``{}`` where it does not say)."""
    schema = getattr(getattr(graph, "builder", None), "input_schema", None)
    if schema is None:
        return {}
    try:
        return dict(typing.get_type_hints(schema, include_extras=True))
    except Exception:  # a schema whose hints cannot be resolved checks nothing
        return {}


def _bare(annotation: Any) -> Any:
    """``annotation`` without ``Annotated``/``Required``/``NotRequired`` around it."""
    while typing_extensions.get_origin(annotation) in _WRAPPERS:
        annotation = typing_extensions.get_args(annotation)[0]
    return annotation


def _holds_messages(annotation: Any) -> bool:
    return annotation is not None and "langchain_core.messages" in repr(_bare(annotation))


def _type_name(annotation: Any) -> str:
    """``list[int]``, ``dict[str, FileData]``: the annotation without its modules."""
    bare = _bare(annotation)
    return bare.__name__ if isinstance(bare, type) else re.sub(r"\b(?:\w+\.)+(\w+)", r"\1", repr(bare))


def _checker(annotation: Any) -> Callable[[Any], bool] | None:
    """A check of values against ``annotation`` (pydantic, lax), or ``None`` where pydantic
    cannot read it (a ``typing.TypedDict`` on Python 3.11, say): then nothing is checked. Made
    once per annotation (a batch checks each of its inputs)."""
    kept = _CHECKERS.get(id(annotation))
    if kept is None or kept[0] is not annotation:
        kept = _CHECKERS[id(annotation)] = (annotation, _new_checker(annotation))
    return kept[1]


def _new_checker(annotation: Any) -> Callable[[Any], bool] | None:
    from pydantic import TypeAdapter, ValidationError  # noqa: PLC0415  # lazy: only dict inputs

    try:
        adapter: TypeAdapter[Any] = TypeAdapter(_bare(annotation))
    except Exception:  # pydantic cannot build a schema for it
        return None

    def check(value: Any) -> bool:
        try:
            adapter.validate_python(value)
        except ValidationError:
            return False
        return True

    return check


def _clipped_value(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= VALUE_CHARS else text[: VALUE_CHARS - 1] + "…"


def input_line(value: str | Mapping[str, Any]) -> str:
    """A run's input as its transcript shows it (a dict as one line of JSON)."""
    if isinstance(value, str):
        return value
    text = json.dumps(dict(value), ensure_ascii=False, default=str)
    return text if len(text) <= INPUT_CHARS else text[: INPUT_CHARS - 1] + "…"


def output_of(graph: Any, values: Mapping[str, Any]) -> Any:
    """``run.output``: the structured response where the agent has a ``response_format``, the
    final state values for a graph that does not speak messages, else ``None``."""
    if values.get("structured_response") is not None:
        return values["structured_response"]
    if not speaks_messages(graph):
        return dict(values)
    return None
