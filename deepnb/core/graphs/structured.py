"""Structured output: what ``response_format`` takes (a Pydantic model, a dataclass, a
``TypedDict`` or a JSON schema dict, as ``create_deep_agent`` takes it) and the fields of a
parsed ``run.output``, as views and tables show them."""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Mapping
from typing import Any

from deepnb.core.errors import DeepnbError
from deepnb.core.text.secrets import redact

SCHEMA_KINDS = "a Pydantic model, a dataclass, a TypedDict or a JSON schema dict"
VALUE_CHARS = 200
"""Characters of one field's value a view shows."""
FIELDS_KEPT = 40
"""Fields of one output a view shows (a graph's final state may hold many)."""


_NAMED: set[tuple[str, str]] = set()
"""The classes agents were given as ``response_format``: (module, name)."""
_UNREGISTERED = "Deserializing unregistered type"


class _NamedStructures(logging.Filter):
    """Drops LangGraph's warning that a checkpoint holds a type outside its allowlist when the type
    is one the user gave an agent as its ``response_format``: the run's output is read back as
    that class by design. Every other type is still warned about."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args if isinstance(record.args, tuple) else ()
        return not (str(record.msg).startswith(_UNREGISTERED) and tuple(args[:2]) in _NAMED)


def expect_in_checkpoints(schema: Any) -> None:
    """Say that instances of ``schema`` (an agent's ``response_format``) come back from the
    checkpoint: LangGraph then does not warn, once per class, in the notebook's output."""
    if not isinstance(schema, type):  # a JSON schema or TypedDict output is a plain dict
        return
    if not _NAMED:
        logging.getLogger("langgraph.checkpoint.serde.jsonplus").addFilter(_NamedStructures())
    _NAMED.add((schema.__module__, schema.__name__))


def check_schema(value: Any, *, variable: str) -> Any:
    """``value`` if it is a ``response_format`` (``variable`` names where it came from), else
    one ``DeepnbError`` saying what it holds and what would do."""
    if isinstance(value, Mapping) and not ({"properties", "type", "anyOf", "oneOf"} & set(value)):
        raise DeepnbError(
            f"{variable} holds a dict that is no JSON schema (no 'type' or 'properties'): "
            f"--schema takes {SCHEMA_KINDS}."
        )
    # lazy: langchain is heavy to import, and only a cell with --schema needs it
    from langchain.agents.structured_output import ToolStrategy  # noqa: PLC0415

    try:
        ToolStrategy(schema=value)  # what create_agent does with it: the same refusals, now
    except Exception as exc:  # pydantic's and langchain's own errors: said in one line
        kind = type(value).__name__ if not isinstance(value, type) else f"the class {value.__name__}"
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DeepnbError(
            f"{variable} holds {kind}, which --schema cannot use ({first}): it takes {SCHEMA_KINDS}."
        ) from None
    return value


def output_fields(output: Any) -> dict[str, Any] | None:
    """The fields of a structured output (a Pydantic model's, a dataclass's, a dict's), or
    ``None`` when ``output`` has none (``None``, a string, a number)."""
    if output is None:
        return None
    dump = getattr(output, "model_dump", None)
    if callable(dump) and not isinstance(output, type):
        fields = dump()
        return dict(fields) if isinstance(fields, Mapping) else None
    if dataclasses.is_dataclass(output) and not isinstance(output, type):
        return dataclasses.asdict(output)
    if isinstance(output, Mapping):
        return {str(key): value for key, value in output.items()}
    return None


def value_line(value: Any, *, limit: int = VALUE_CHARS) -> str:
    """One field's value as a line of text: strings as they are, the rest as JSON."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def output_rows(output: Any) -> list[tuple[str, str]]:
    """``(field, value)`` rows of a structured output, each value shortened and secrets
    redacted, at most :data:`FIELDS_KEPT` (then a row saying how many more); ``[]`` for none."""
    fields = output_fields(output)
    if fields is None:
        return []
    rows = [(redact(str(key)), redact(value_line(value))) for key, value in fields.items()]
    if len(rows) > FIELDS_KEPT:
        more = f"{len(rows) - FIELDS_KEPT} more fields (run.output has them all)"
        rows = [*rows[:FIELDS_KEPT], ("…", more)]
    return rows
