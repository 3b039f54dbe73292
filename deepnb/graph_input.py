"""What a graph takes and gives: a prompt for graphs that speak ``messages``, a dict of its input
keys for any other graph (``StateGraph(TypedDict{topic, joke})``); and what a finished run's
``run.output`` holds."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from deepnb.errors import DeepnbError

SHOWN_INPUT = 2000
"""Characters of a dict input shown as the run's prompt."""


def input_keys(graph: Any) -> list[str]:
    """The keys of the graph's input state (``[]`` when it does not say: a graph deepnb cannot
    read the schema of is taken to speak messages)."""
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


def shown_input(value: str | Mapping[str, Any]) -> str:
    """A run's input as its transcript shows it (a dict as one line of JSON)."""
    if isinstance(value, str):
        return value
    text = json.dumps(dict(value), ensure_ascii=False, default=str)
    return text if len(text) <= SHOWN_INPUT else text[: SHOWN_INPUT - 1] + "…"


def output_of(graph: Any, values: Mapping[str, Any]) -> Any:
    """``run.output``: the structured response where the agent has a ``response_format``, the
    final state values for a graph that does not speak messages, else ``None``."""
    if values.get("structured_response") is not None:
        return values["structured_response"]
    if not speaks_messages(graph):
        return dict(values)
    return None
