"""``deepnb.dataset``: a dataset as people have it, read into rows (what each run is given, and
the reference the scorers compare with), its field mapping said in its view, before any run.

Sources (:mod:`deepnb.many.dataset_readers` reads them): a list of strings or dicts, a pandas
``DataFrame``, a Hugging Face ``datasets.Dataset`` or a folder it was saved to, CSV/TSV, JSON,
JSONL, YAML and Parquet files, Inspect samples (a JSON/JSONL sample list or an ``.eval`` log),
promptfoo test suites and LangSmith examples (objects, dicts or a JSONL export).

The mapping, each part named with ``input=`` / ``reference=`` / ``id=`` (a field, or a dotted path
into nested fields) or else taken by these rules, and shown in the dataset's view:

- **reference**: a record's ``reference``, else ``expected``, ``target`` (Inspect) or ``answer``
  (Hugging Face); a LangSmith example's ``outputs``; a promptfoo test's first simple assert
  (``equals``, ``contains``, ``icontains``, ``regex``, ``starts-with``), kept with its type;
- **input** (what the agent is asked, without a template): the field ``input``, else a row's only
  field besides ``id`` and ``metadata``; a chat list (``{"role", "content"}`` dicts) is given as
  those messages. A row with neither is its graph's input (for graphs that do not take messages);
  an experiment refuses it for an agent, before any model call;
- **id**: the field ``id``; a LangSmith example's id; a promptfoo test's ``description``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from deepnb.core.batch_inputs import STRING_FIELD, template_fields
from deepnb.core.displayable import Displayable
from deepnb.core.errors import DeepnbError
from deepnb.core.graphs.inputs import input_line, speaks_messages
from deepnb.many.dataset_readers import FILE_KINDS, Source, read

__all__ = ["FILE_KINDS", "Dataset", "Row", "check_given", "dataset", "load"]

REFERENCE_FIELDS = ("reference", "expected", "target", "answer")
"""A plain record's fields that hold its reference, the first one present wins."""
NOT_INPUT = ("id", "metadata")
"""Fields never taken as a row's input by the rule of the only field."""
SIMPLE_ASSERTS = ("equals", "contains", "icontains", "regex", "starts-with")
"""promptfoo assert types whose value is read as the row's reference."""
MAX_DEPTH = 100
"""How deeply a row's values may nest (deeper: refused in one line, never a recursion error)."""
NAMED_FIELDS = 20
"""Field names a message lists at most."""
NAME_CHARS = 40
"""Characters of a field name a message quotes."""
CHAT_ROLES = ("system", "user", "assistant", "developer", "human", "ai", "tool")
_MISSING: Any = object()


@dataclass(frozen=True)
class Row:
    """One dataset row: its position, its fields, its reference (``None`` if it has none) and
    what each run of it is given (a prompt, ``{"messages": [...]}`` for a chat input, or a dict
    for a graph that does not take messages); its ``id``, the reference's ``reference_type`` (a
    promptfoo assert's type) and ``metadata`` where the source has them."""

    index: int
    fields: Mapping[str, Any]
    reference: Any
    given: str | Mapping[str, Any]
    id: Any = None
    reference_type: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)

    @property
    def prompt(self) -> str:
        """What the row is given, as text: its prompt, a chat input's messages as ``role:
        content`` lines, a graph's input as JSON (what views show of it)."""
        if isinstance(self.given, str):
            return self.given
        messages = chat_messages(self.given.get("messages"))
        if messages is not None:
            return "\n".join(f"{m['role']}: {m['content']}" for m in messages)
        return input_line(self.given)

    def logged_extras(self) -> dict[str, Any]:
        """What the log keeps of the row besides its fields, reference and given (where it has it)."""
        extras = {"id": self.id, "reference_type": self.reference_type, "metadata": dict(self.metadata)}
        return {key: value for key, value in extras.items() if value is not None and value != {}}


@dataclass(frozen=True)
class Entry:
    """A record mapped: its fields, its input (``_MISSING``: none) and where it came from, its
    reference and where it came from, its id and metadata."""

    fields: dict[str, Any]
    input: Any
    input_from: str | None
    reference: Any
    reference_from: str | None
    reference_type: str | None
    id: Any
    metadata: dict[str, Any]
    unread: tuple[str, ...] = ()
    """promptfoo assert types kept in ``metadata["assert"]``, not read as the reference."""
    id_from: str | None = None
    """The field the id comes from (``None``: the row has none)."""


class Dataset(Displayable):
    """A dataset read and mapped: ``rows(template)``, ``len()``, iteration over its rows (as
    given without a template), ``fields``, ``mapping`` (which field is the input, the reference,
    the id), ``to_records()``. Shown, it says its source, its mapping and its first rows."""

    def __init__(
        self,
        source: Source,
        entries: list[Entry],
        *,
        input: str | None = None,
        reference: str | None = None,
        id: str | None = None,
    ) -> None:
        self.source = source
        self.entries = entries
        self.options = {"input": input, "reference": reference, "id": id}
        self.fields: list[str] = list(dict.fromkeys(name for entry in entries for name in entry.fields))

    @property
    def format(self) -> str:
        """How the records were read and their layout, e.g. ``"csv"``, ``"eval (inspect)"``."""
        kind, layout = self.source.kind, self.source.layout
        return kind if layout == "records" else f"{kind} ({layout})"

    @property
    def mapping(self) -> dict[str, Any]:
        """Which field each row's input, reference and id come from (with the rows that use
        each, where they differ), as the log and the view say it."""
        return {
            "format": self.format,
            "source": self.source.where,
            "rows": len(self.entries),
            "input": _counted([e.input_from for e in self.entries]),
            "reference": _counted([e.reference_from for e in self.entries]),
            "reference_types": dict(Counter(e.reference_type for e in self.entries if e.reference_type)),
            "id": _counted([e.id_from for e in self.entries]),
            "unread_asserts": sorted({t for e in self.entries for t in e.unread}),
        }

    def rows(self, template: str | None = None) -> list[Row]:
        """Each row with what its run is given: ``template`` filled from its fields (``{input}``
        from its input), else its input, else its fields (a graph's input). One line names the
        first problem: a template field no row has, or the row that lacks one."""
        if template is not None and not isinstance(template, str):
            raise DeepnbError(
                f"template= is a string with {{field}} placeholders, not a {type(template).__name__}."
            )
        names = template_fields(template) if template is not None else []
        for name in names:
            if not any(
                name in e.fields or (name == STRING_FIELD and e.input is not _MISSING) for e in self.entries
            ):
                raise DeepnbError(
                    f"No row has a field {name!r}, which the template names as {{{name}}}: the rows' "
                    f"fields are {named(self.fields)}."
                )
        return [self._row(index, entry, template, names) for index, entry in enumerate(self.entries)]

    def _row(self, index: int, entry: Entry, template: str | None, names: list[str]) -> Row:
        given: str | Mapping[str, Any]
        if template is not None:
            values = dict(entry.fields)
            if entry.input is not _MISSING:
                values.setdefault(STRING_FIELD, entry.input)
                if self.options["input"]:
                    values[STRING_FIELD] = entry.input
            for name in names:
                if name not in values:
                    raise DeepnbError(
                        f"Row {index} has no field {name!r}, which the template names as {{{name}}} "
                        f"(its fields: {named(entry.fields)})."
                    )
            try:
                given = template.format_map({name: _text(values[name]) for name in names})
            except (KeyError, ValueError, IndexError, TypeError) as exc:
                raise DeepnbError(f"Row {index} does not fit the template: {exc}.") from None
        elif entry.input is not _MISSING:
            given = _given(entry.input)
        else:
            given = dict(entry.fields)
        return Row(
            index, entry.fields, entry.reference, given, entry.id, entry.reference_type, entry.metadata
        )

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self) -> Iterator[Row]:
        return iter(self.rows())

    def __getitem__(self, index: int) -> Row:
        entry = self.entries[index]
        return self._row(index if index >= 0 else len(self.entries) + index, entry, None, [])

    def to_records(self) -> list[dict[str, Any]]:
        """A dict per row: ``id``, its fields, ``reference`` (and ``reference_type``)."""
        out = []
        for entry in self.entries:
            record: dict[str, Any] = {"id": entry.id, **entry.fields, "reference": entry.reference}
            if entry.reference_type:
                record["reference_type"] = entry.reference_type
            out.append(record)
        return out


def dataset(
    source: Any,
    *,
    input: str | None = None,
    reference: str | None = None,
    id: str | None = None,
    format: str | None = None,
) -> Dataset:
    """Read ``source`` into a :class:`Dataset`: a list of rows, a DataFrame, a Hugging Face
    dataset, LangSmith examples, or a file path (``.csv``, ``.tsv``, ``.json``, ``.jsonl``,
    ``.yaml``, ``.parquet``, an Inspect ``.eval``, a folder saved with ``save_to_disk``).
    ``input``, ``reference``, ``id``: the field (or dotted path) each row's input, reference and
    id come from, instead of the rules (see the module); ``format``: how to read a file whose
    suffix does not say, or the layout of its records (``inspect``, ``promptfoo``,
    ``langsmith``). A mistake is one line; nothing is guessed silently: the view says the mapping."""
    for option, value in (("input", input), ("reference", reference), ("id", id)):
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise DeepnbError(
                f"{option}= names a field of the rows (a string such as 'question'), not {value!r}."
            )
    if isinstance(source, Dataset):
        if input is reference is id is format is None:
            return source
        read_source = source.source if format is None else read(source.source.records, format)
        input, reference, id = (  # options given now win, the others stay as they were
            input or source.options["input"],
            reference or source.options["reference"],
            id or source.options["id"],
        )
    else:
        read_source = read(source, format)
    if not read_source.records:
        raise DeepnbError("The dataset is empty: give at least one row (a string or a dict).")
    entries = [
        _entry(index, record, read_source, input=input, reference=reference, id=id)
        for index, record in enumerate(read_source.records)
    ]
    for option, name in (("input", input), ("reference", reference), ("id", id)):
        if name is not None:
            _check_named(option, name, entries, read_source.records)
    return Dataset(read_source, entries, input=input, reference=reference, id=id)


def load(
    source: Any, *, template: str | None = None, input: str | None = None, reference: str | None = None
) -> list[Row]:
    """The dataset's rows, checked: one line for the first problem, nothing started.

    With ``template`` each row's fields fill it (a string row fills ``{input}``); without one a
    row is given its input (see the module), else its fields as the graph's input."""
    return dataset(source, input=input, reference=reference).rows(template)


def check_given(rows: Sequence[Row], graphs: Mapping[str, Any]) -> None:
    """Refuse, before any model call, a row an agent would run with no prompt: its given is a
    dict with no ``messages`` (no template, no input field) and the variant's graph (``graphs``:
    label -> graph) takes messages. One line names the row's fields and how to choose."""
    talkers = [label for label, graph in graphs.items() if speaks_messages(graph)]
    if not talkers:
        return
    for row in rows:
        if isinstance(row.given, Mapping) and "messages" not in row.given:
            raise DeepnbError(
                f"Row {row.index} has no input to give the agent ({talkers[0]!r}): no template and no "
                f"field 'input' among its fields ({named(row.fields)}). Name the field it "
                "is asked with input='FIELD', or fill a template='... {FIELD} ...'."
            )


# -- mapping one record ------------------------------------------------------------------------


def _entry(
    index: int, record: Any, source: Source, *, input: str | None, reference: str | None, id: str | None
) -> Entry:
    layout = source.layout
    if layout == "langsmith":
        return _langsmith(index, record, input=input, reference=reference, id=id)
    if layout == "promptfoo":
        return _promptfoo(index, record, source.suite or {}, input=input, reference=reference, id=id)
    if isinstance(record, str):
        record = {STRING_FIELD: record}
    if not isinstance(record, Mapping):
        raise DeepnbError(f"Row {index} is a {type(record).__name__}: a dataset's rows are strings or dicts.")
    fields = {str(k): v for k, v in record.items()}
    _check_depth(index, fields)
    ref, ref_from = _MISSING, None
    if reference is not None:
        ref, ref_from = _lookup([fields], reference), reference
        fields.pop(reference, None)
    else:
        for name in REFERENCE_FIELDS:
            if name in fields:
                ref, ref_from = fields.pop(name), name
                break
    if not fields:
        raise DeepnbError(f"Row {index} has only a reference: give it the fields the agent is asked about.")
    value, value_from = _input_of(fields, [fields], input)
    return Entry(
        fields,
        value,
        value_from,
        None if ref is _MISSING else ref,
        ref_from if ref is not _MISSING else None,
        None,
        _id_of([fields], id, fields.get("id")),
        {},
        id_from=_id_from(id, "id", fields.get("id")),
    )


def _langsmith(index: int, record: Any, *, input: str | None, reference: str | None, id: str | None) -> Entry:
    """A LangSmith example (an object or a dict): ``inputs`` are its fields, ``outputs`` its
    reference (a record's own ``reference`` wins), its ``id`` and ``metadata`` kept."""
    if not isinstance(record, Mapping):
        record = {
            "inputs": getattr(record, "inputs", None),
            "outputs": getattr(record, "outputs", None),
            "id": getattr(record, "id", None),
            "metadata": getattr(record, "metadata", None),
        }
    inputs = record.get("inputs")
    if not isinstance(inputs, Mapping):
        raise DeepnbError(f"Row {index} has no inputs: a LangSmith example's inputs are a dict of fields.")
    fields = {str(k): v for k, v in inputs.items()}
    _check_depth(index, record)
    outputs = record.get("outputs")
    whole = dict(record)
    ref_from: str | None
    if reference is not None:
        ref, ref_from = (
            _lookup([outputs if isinstance(outputs, Mapping) else {}, whole], reference),
            reference,
        )
    elif "reference" in record:
        ref, ref_from = record["reference"], "reference"
    else:
        ref, ref_from = outputs, "outputs" if outputs is not None else None
    value, value_from = _input_of(fields, [fields, whole], input)
    raw_id = record.get("id")
    metadata = record.get("metadata")
    return Entry(
        fields,
        value,
        value_from,
        None if ref is _MISSING else ref,
        ref_from if ref is not _MISSING else None,
        None,
        _id_of([fields, whole], id, None if raw_id is None else str(raw_id)),
        dict(metadata) if isinstance(metadata, Mapping) else {},
        id_from=_id_from(id, "id", raw_id),
    )


def _promptfoo(
    index: int,
    test: Any,
    suite: Mapping[str, Any],
    *,
    input: str | None,
    reference: str | None,
    id: str | None,
) -> Entry:
    """A promptfoo test: its ``vars`` (over the suite's ``defaultTest`` vars) are the fields, its
    first simple assert the reference with its type; other asserts kept in ``metadata`` and
    named, never guessed; its ``description`` is the id."""
    if not isinstance(test, Mapping):
        raise DeepnbError(f"Test {index} is a {type(test).__name__}: a promptfoo test is a dict with vars:.")
    default: Mapping[str, Any] = suite["defaultTest"] if isinstance(suite.get("defaultTest"), Mapping) else {}
    if not isinstance(test.get("vars") or {}, Mapping) or not isinstance(default.get("vars") or {}, Mapping):
        raise DeepnbError(f"Test {index}'s vars: is not a dict of name -> value.")
    variables = {**(default.get("vars") or {}), **(test.get("vars") or {})}
    fields = {str(k): v for k, v in variables.items()}
    _check_depth(index, test)
    asserts = [
        a for a in [*(test.get("assert") or []), *(default.get("assert") or [])] if isinstance(a, Mapping)
    ]
    whole = dict(test)
    ref: Any = _MISSING
    ref_from: str | None = None
    ref_type: str | None = None
    if reference is not None:
        ref, ref_from = _lookup([fields, whole], reference), reference
        fields.pop(reference, None)
    else:
        simple = next((a for a in asserts if a.get("type") in SIMPLE_ASSERTS and "value" in a), None)
        if simple is not None:
            ref, ref_from, ref_type = simple["value"], "assert", str(simple["type"])
    chosen = ref_type is not None
    unread = tuple(str(a.get("type")) for a in asserts if not (chosen and a is _first_simple(asserts)))
    metadata: dict[str, Any] = {}
    if isinstance(test.get("metadata"), Mapping):
        metadata.update(test["metadata"])
    if test.get("description") is not None:
        metadata["description"] = test["description"]
    if unread:
        metadata["assert"] = [dict(a) for a in asserts if not (chosen and a is _first_simple(asserts))]
    value, value_from = _input_of(fields, [fields, whole], input) if fields else (_MISSING, None)
    if not fields and value is _MISSING:
        raise DeepnbError(f"Test {index} has no vars: give it the vars: its prompt is filled with.")
    return Entry(
        fields,
        value,
        value_from,
        None if ref is _MISSING else ref,
        ref_from if ref is not _MISSING else None,
        ref_type,
        _id_of([fields, whole], id, test.get("description")),
        metadata,
        unread,
        id_from=_id_from(id, "description", test.get("description")),
    )


def _first_simple(asserts: list[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    return next((a for a in asserts if a.get("type") in SIMPLE_ASSERTS and "value" in a), None)


def _input_of(
    fields: Mapping[str, Any], scopes: list[Mapping[str, Any]], named: str | None
) -> tuple[Any, str | None]:
    """A row's input and the field it comes from (``_MISSING``: it has none)."""
    if named is not None:
        value = _lookup(scopes, named)
        return value, named if value is not _MISSING else None
    if STRING_FIELD in fields:
        return fields[STRING_FIELD], STRING_FIELD
    candidates = [name for name in fields if name not in NOT_INPUT]
    if len(candidates) == 1:
        return fields[candidates[0]], candidates[0]
    return _MISSING, None


def _id_from(named: str | None, default_field: str, default: Any) -> str | None:
    """The field a row's id is said to come from: the one named, else the layout's own where the
    row has it."""
    return named if named is not None else default_field if default is not None else None


def _id_of(scopes: list[Mapping[str, Any]], named: str | None, default: Any) -> Any:
    if named is None:
        return default
    value = _lookup(scopes, named)
    return None if value is _MISSING else value


def _lookup(scopes: list[Mapping[str, Any]], name: str) -> Any:
    """``name`` in the first scope that has it: a key, else a dotted path through dicts (and
    list positions)."""
    for scope in scopes:
        if name in scope:
            return scope[name]
        if "." not in name:
            continue
        value: Any = scope
        for part in name.split("."):
            if isinstance(value, Mapping) and part in value:
                value = value[part]
            elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
                value = value[int(part)]
            else:
                value = _MISSING
                break
        if value is not _MISSING:
            return value
    return _MISSING


def _check_named(option: str, name: str, entries: list[Entry], records: list[Any]) -> None:
    """A field named by ``input=``/``reference=``/``id=`` that a row lacks: one line (naming the
    rows' fields where no row has it)."""
    attribute = {"input": "input_from", "reference": "reference_from", "id": "id"}[
        option
    ]  # a named id: its value
    lacking = [i for i, e in enumerate(entries) if getattr(e, attribute) is None]
    if not lacking:
        return
    fields = list(dict.fromkeys(n for e in entries for n in e.fields))
    if option == "reference":
        fields += [n for n in REFERENCE_FIELDS if n not in fields]
    if len(lacking) == len(entries):
        raise DeepnbError(
            f"No row has a field {name!r}, which {option}= names: the rows' fields are {named(fields)}."
        )
    first = lacking[0]
    raise DeepnbError(
        f"Row {first} has no field {name!r} ({option}={name!r}); its fields: {named(entries[first].fields)}."
    )


def _check_depth(index: int, fields: Mapping[Any, Any]) -> None:
    """Refuse a value nested deeper than :data:`MAX_DEPTH` (walked without recursion)."""
    for name, value in fields.items():
        stack: list[tuple[Any, int]] = [(value, 0)]
        while stack:
            item, depth = stack.pop()
            if depth > MAX_DEPTH:
                raise DeepnbError(
                    f"Row {index}'s field {name!r} is nested more than {MAX_DEPTH} levels deep: "
                    "flatten it, or leave it out of the dataset."
                )
            if isinstance(item, Mapping):
                stack += [(v, depth + 1) for v in item.values()]
            elif isinstance(item, list | tuple):
                stack += [(v, depth + 1) for v in item]


# -- what a run is given -----------------------------------------------------------------------


def chat_messages(value: Any) -> list[dict[str, Any]] | None:
    """``value`` as chat messages (``{"role", "content"}`` each, content as text), where it is a
    non-empty list of such dicts (an Inspect chat input, a LangSmith ``messages`` input)."""
    if not isinstance(value, list) or not value:
        return None
    messages = []
    for item in value:
        if not isinstance(item, Mapping) or item.get("role") not in CHAT_ROLES or "content" not in item:
            return None
        message: dict[str, Any] = {"role": item["role"], "content": _content_text(item["content"])}
        if item.get("tool_call_id"):
            message["tool_call_id"] = item["tool_call_id"]
        messages.append(message)
    return messages


def _content_text(content: Any) -> str:
    """A message's content as text: a string, or the text of its parts (Inspect's ``ContentText``,
    OpenAI's ``{"type": "text", "text": ...}``)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(part.get("text", "")) if isinstance(part, Mapping) else str(part)
            for part in content
            if not isinstance(part, Mapping) or part.get("type", "text") == "text"
        )
    return "" if content is None else str(content)


def _given(value: Any) -> str | Mapping[str, Any]:
    messages = chat_messages(value)
    if messages is not None:
        return {"messages": messages}
    if isinstance(value, Mapping):
        return {str(k): v for k, v in value.items()}
    return "" if value is None else str(value)


def _text(value: Any) -> Any:
    """A template value: a chat list as ``role: content`` lines, anything else as it is."""
    messages = chat_messages(value)
    if messages is None:
        return value
    return "\n".join(f"{m['role']}: {m['content']}" for m in messages)


def named(fields: Iterable[str]) -> str:
    """Field names for a message: the first :data:`NAMED_FIELDS`, each clipped, and how many more."""
    names = list(fields)
    shown = [
        name if len(name) <= NAME_CHARS else name[: NAME_CHARS - 1] + "…" for name in names[:NAMED_FIELDS]
    ]
    more = len(names) - len(shown)
    return (", ".join(shown) or "none") + (f" (+{more} more)" if more > 0 else "")


def _counted(sources: list[str | None]) -> str | None:
    """``'question'``, or ``'input' (3 rows), none (1 row)`` where rows differ."""
    counts = Counter(sources)
    if len(counts) == 1:
        return next(iter(counts))
    return ", ".join(
        f"{name if name is not None else 'none'} ({n} row{'s' if n != 1 else ''})"
        for name, n in counts.most_common()
    )
