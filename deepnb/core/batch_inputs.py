"""A batch's inputs checked and turned into what each run is given, before any run starts.

Each input is a string or a dict (a record). With a ``template`` (a string with ``{field}``
placeholders) every record becomes the prompt the template makes of its fields; a string input
fills the field ``{input}``. Without a template a string is the prompt itself and a dict is passed
as the graph's input, as ``workbench.run(dict)`` takes it (for graphs whose input isn't messages).
Bad input raises one :class:`~deepnb.core.errors.DeepnbError` line that names the record.
"""

from __future__ import annotations

import string
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from deepnb.core.errors import DeepnbError

STRING_FIELD = "input"
"""The field a string input fills in a template, and its column in ``to_records()``."""


@dataclass(frozen=True)
class BatchInput:
    """One input of a batch: its position, its fields (the record, or ``{"input": text}``), and
    what its run is given (a prompt, or a dict for the graph)."""

    index: int
    fields: Mapping[str, Any]
    given: str | Mapping[str, Any]


def template_fields(template: str) -> list[str]:
    """The field names ``template`` uses, in order, each once; a placeholder that is not a plain
    name (``{a.b}``, ``{0}``, ``{}``) is refused (records are data, not objects to walk)."""
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise DeepnbError(
            f"The template is not a valid format string ({exc}): write {{{{ for a literal {{."
        ) from None
    names: list[str] = []
    for _text, name, _spec, _conversion in parsed:
        if name is None:
            continue
        if not name.isidentifier():
            raise DeepnbError(
                f"The template's placeholder {{{name}}} is not a field name: use {{field}} with a key of "
                "each record (write {{ and }} for literal braces)."
            )
        if name not in names:
            names.append(name)
    return names


def prepare(inputs: Iterable[Any], *, template: str | None = None) -> list[BatchInput]:
    """The batch's inputs checked: a non-empty list of strings or dicts, every field the template
    names present in every record. Raises one line for the first problem; nothing is started."""
    if isinstance(inputs, str | bytes | Mapping):
        raise DeepnbError(
            "A batch takes a list of inputs (strings or dicts), not a single one: wrap it in [...]."
        )
    try:
        records = list(inputs)
    except TypeError:
        kind = type(inputs).__name__
        raise DeepnbError(f"A batch takes a list of inputs (strings or dicts), not a {kind}.") from None
    if not records:
        raise DeepnbError("The batch is empty: give at least one input (a string or a dict).")
    if template is not None and not isinstance(template, str):
        raise DeepnbError(
            f"template= is a string with {{field}} placeholders, not a {type(template).__name__}."
        )
    names = template_fields(template) if template is not None else []
    prepared: list[BatchInput] = []
    for index, record in enumerate(records):
        if isinstance(record, str):
            fields: Mapping[str, Any] = {STRING_FIELD: record}
        elif isinstance(record, Mapping):
            fields = {str(key): value for key, value in record.items()}
        else:
            raise DeepnbError(
                f"Input {index} is a {type(record).__name__}: a batch's inputs are strings or dicts."
            )
        if template is None:
            prepared.append(BatchInput(index, fields, record if isinstance(record, str) else dict(fields)))
            continue
        for name in names:
            if name not in fields:
                has = ", ".join(sorted(fields)) or "none"
                raise DeepnbError(
                    f"Input {index} has no field {name!r}, which the template names as {{{name}}} "
                    f"(its fields: {has})."
                )
        try:
            prompt = template.format_map({name: fields[name] for name in names})
        except (KeyError, ValueError, IndexError, TypeError) as exc:
            raise DeepnbError(f"Input {index} does not fit the template: {exc}.") from None
        prepared.append(BatchInput(index, fields, prompt))
    return prepared


def check_concurrency(concurrency: Any) -> int:
    """``concurrency`` as a whole number of at least 1 (else one line)."""
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise DeepnbError(
            f"concurrency must be a whole number of at least 1 (runs at once), not {concurrency!r}."
        )
    return concurrency
