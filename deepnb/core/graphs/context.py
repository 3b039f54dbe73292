"""Runtime context: what a run is given beside its input (user ids, roles, connections,
short-lived credentials), passed at each invoke and never shown to the model.

A graph with a ``context_schema`` (a dataclass, a Pydantic model or a ``TypedDict``) gets its
context checked here, with one message that names the keys, before a run starts; LangGraph then
builds the schema from the dict. Only the keys are ever shown, never the values.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from typing import Any

from deepnb.core.errors import DeepnbError
from deepnb.core.text.secrets import redact


def schema_of(graph: Any) -> type | None:
    """The graph's ``context_schema``, or ``None`` (a graph without one takes any dict)."""
    schema = getattr(graph, "context_schema", None)
    return schema if isinstance(schema, type) else None


def _fields(schema: type) -> tuple[list[str], list[str]]:
    """The schema's keys, and those it requires (no default)."""
    if dataclasses.is_dataclass(schema):
        fields = [f for f in dataclasses.fields(schema) if f.init]
        required = [
            f.name
            for f in fields
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        ]
        return [f.name for f in fields], required
    model_fields = getattr(schema, "model_fields", None)
    if isinstance(model_fields, Mapping):  # a Pydantic model
        return list(model_fields), [name for name, f in model_fields.items() if f.is_required()]
    if typing.is_typeddict(schema):
        return list(typing.get_type_hints(schema)), sorted(getattr(schema, "__required_keys__", ()))
    return [], []


def _refuse(agent: str, schema: type, problem: str) -> DeepnbError:
    keys, required = _fields(schema)
    takes = ", ".join(f"{k}{'' if k in required else ' (optional)'}" for k in keys) or "nothing"
    return DeepnbError(
        f"Agent {agent!r}'s runtime context {problem}: its context_schema {schema.__name__} takes {takes}. "
        "Pass context={...} (%%deepagent --context VAR, or a context table in deepnb.toml)."
    )


def context_for(graph: Any, context: Mapping[str, Any] | None, *, agent: str) -> dict[str, Any] | None:
    """The context a run of ``graph`` is given: ``context`` checked against the graph's
    ``context_schema``; with none given, ``{}`` where the schema's defaults make one (LangGraph
    builds it), else one message that names what is required."""
    if context is not None and not isinstance(context, Mapping):
        raise DeepnbError(f"Runtime context is a dict of keys, not a {type(context).__name__}.")
    schema = schema_of(graph)
    given = dict(context or {})
    if schema is None:
        return given or None
    keys, required = _fields(schema)
    if keys:
        unknown = sorted(set(given) - set(keys))
        if unknown:
            raise _refuse(agent, schema, f"has keys it does not take ({', '.join(map(redact, unknown))})")
        missing = [k for k in required if k not in given]
        if missing:
            raise _refuse(agent, schema, f"lacks {', '.join(missing)}")
    if dataclasses.is_dataclass(schema) or hasattr(schema, "model_validate"):
        try:
            schema(**given)
        except Exception as exc:  # a value the schema refuses (a Pydantic validation error, ...)
            first = str(exc).strip().splitlines()
            raise _refuse(
                agent, schema, f"does not fit ({redact(first[0]) if first else type(exc).__name__})"
            ) from None
    return given


def context_keys(context: Mapping[str, Any] | None) -> tuple[str, ...]:
    """What a view says of a context: its keys (redacted), never its values."""
    return tuple(redact(str(k)) for k in (context or {}))
