"""What an experiment compared, as its log's header records it, and the check that a resumed
experiment is still that one: each variant's definition (its model, system prompt and options
with their values), the versions that ran it, the template, the epochs and the dataset's rows
(a hash of their fields and references)."""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import platform
import re
from collections.abc import Mapping, Sequence
from typing import Any

from deepnb.core.errors import DeepnbError
from deepnb.core.text.secrets import REDACTED, looks_secret
from deepnb.engine.spec import model_label
from deepnb.many import log as logs
from deepnb.many.datasets import Row
from deepnb.session.protocol import Session

PACKAGES = ("deepnb", "deepagents", "langgraph", "langchain-core")
"""The packages whose versions the header records (with Python's)."""
MAX_DEPTH = 8
"""How deep an option's value is written out; deeper, it is its repr."""
MAX_TEXT = 2000
"""The longest repr kept of a value JSON cannot hold."""
_ADDRESS = re.compile(r" at 0x[0-9A-Fa-f]+")
FIELDS = ("kind", "agent", "model", "system_prompt", "options", "served_by")
"""What a variant's definition says, in the order a difference is looked for."""


def definition(session: Session, what: str) -> dict[str, Any]:
    """What the variant ``session`` was: ``kind`` (how it was given: ``agent``, ``model``,
    ``system prompt``, ``options``, ``built``), ``agent`` (the agent it is or copies), ``model``
    (its provider:model or name), ``system_prompt`` (the text), ``options`` (every other option
    of its spec with its value) and ``served_by`` (a server's URL, ``None`` in this kernel)."""
    spec = getattr(session, "declared_spec", None)
    options = dict(getattr(spec, "options", None) or {})
    prompt = options.pop("system_prompt", None)
    return {
        "kind": "system prompt" if what == "system prompt" else what.split(" ", 1)[0],
        "agent": session.name,
        "model": getattr(spec, "model_label", None),
        "system_prompt": described(prompt),
        "options": {name: described(value, name) for name, value in sorted(options.items())},
        "served_by": session.served_by,
    }


def described(value: Any, name: str = "", depth: int = 0) -> Any:
    """``value`` as the log can hold it and the next kernel would write it again: JSON's own
    types as they are, containers item by item, a function or class by its qualified name, a
    tool by its name, a chat model by its label, anything else by its repr (without memory
    addresses, bounded); a value under a name that looks secret is ``[redacted]``."""
    if name and looks_secret(name) and value is not None:
        return REDACTED
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if depth >= MAX_DEPTH:
        return _repr(value)
    if isinstance(value, Mapping):
        return {str(k): described(v, str(k), depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [described(v, "", depth + 1) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((described(v, "", depth + 1) for v in value), key=repr)
    if isinstance(value, type) or (callable(value) and hasattr(value, "__qualname__")):
        kind = "class" if isinstance(value, type) else "function"
        return f"<{kind} {getattr(value, '__module__', '?')}.{value.__qualname__}>"
    if hasattr(value, "invoke") and hasattr(value, "bind_tools"):  # a chat model
        return model_label(value)
    tool_name = getattr(value, "name", None)
    if isinstance(tool_name, str) and tool_name:
        return f"<{type(value).__name__} {tool_name!r}>"
    return _repr(value)


def _repr(value: Any) -> str:
    try:
        shown = repr(value)
    except Exception:  # a repr that fails is the object's kind
        shown = f"<{type(value).__name__}>"
    shown = _ADDRESS.sub("", shown)
    return shown if len(shown) <= MAX_TEXT else shown[: MAX_TEXT - 3] + "..."


def versions() -> dict[str, str | None]:
    """The versions in this kernel of the packages that ran the experiment, and Python's."""
    found: dict[str, str | None] = {}
    for package in PACKAGES:
        try:
            found[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            found[package] = None
    found["python"] = platform.python_version()
    return found


def row_line(row: Row) -> dict[str, Any]:
    """A row's ``row`` line (its fields as the log keeps them)."""
    return {"row": row.index, "inputs": dict(row.fields), "reference": row.reference, "given": row.given}


def dataset_hash(rows: Sequence[Row]) -> str:
    """The SHA-256 of the rows' fields and references as their ``row`` lines hold them (see
    :mod:`deepnb.many.log` for how to compute it without deepnb)."""
    pairs = []
    for row in rows:
        kept = logs.logged({"inputs": dict(row.fields), "reference": row.reference})
        pairs.append([kept["inputs"], kept["reference"]])
    text = json.dumps(pairs, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def header(
    *,
    name: str,
    created: str,
    variants: Mapping[str, str],
    definitions: Mapping[str, Mapping[str, Any]],
    scorers: Sequence[str],
    epochs: int,
    baseline: str | None,
    template: str | None,
    rows: Sequence[Row],
    **more: Any,
) -> dict[str, Any]:
    """A new log's ``experiment`` line (``type`` aside); ``more``: other settings to record as
    they are (JSON-able)."""
    return {
        "format": logs.FORMAT,
        "name": name,
        "created": created,
        "variants": dict(variants),
        "definitions": {label: dict(d) for label, d in definitions.items()},
        "versions": versions(),
        "scorers": list(scorers),
        "epochs": epochs,
        "baseline": baseline,
        "template": template,
        "rows": len(rows),
        "dataset": {"rows": len(rows), "sha256": dataset_hash(rows)},
        **more,
    }


def check_resumable(
    contents: logs.LogContents,
    *,
    variants: Mapping[str, str],
    definitions: Mapping[str, Mapping[str, Any]],
    epochs: int,
    template: str | None,
    rows: Sequence[Row],
) -> None:
    """Refuse, in one line saying what changed, to resume a log written with another template,
    other variants, other epochs, or other fields or references for its rows (rows it has not
    got yet may be added)."""
    found = changes(contents, variants=variants, definitions=definitions, epochs=epochs, template=template)
    found += _row_changes(contents, rows)
    if found:
        said = "; ".join(found[:3]) + (f"; and {len(found) - 3} more" if len(found) > 3 else "")
        raise DeepnbError(
            f"Cannot resume the experiment log {str(contents.path)!r}, written with other settings: "
            f"{said}. Give another log= path to start a new log (this one stays as it is)."
        )


def changes(
    contents: logs.LogContents,
    *,
    variants: Mapping[str, str],
    definitions: Mapping[str, Mapping[str, Any]],
    epochs: int,
    template: str | None,
) -> list[str]:
    """What differs between the log's header and these settings, each in a few words."""
    head = contents.header
    found = []
    if head.get("template") != _kept(template):
        found.append(f"the template is {_short(head.get('template'))} there, {_short(template)} here")
    if int(head.get("epochs") or 1) != epochs:
        found.append(f"epochs are {head.get('epochs') or 1} there, {epochs} here")
    logged_variants: dict[str, Any] = dict(head.get("variants") or {})
    gone = [label for label in logged_variants if label not in variants]
    added = [label for label in variants if label not in logged_variants]
    if gone or added:
        parts = [f"{', '.join(map(repr, added))} added"] if added else []
        parts += [f"{', '.join(map(repr, gone))} missing"] if gone else []
        found.append("the variants differ (" + ", ".join(parts) + ")")
    logged_definitions = head.get("definitions")
    for label in variants:
        if label not in logged_variants:
            continue
        if isinstance(logged_definitions, Mapping):  # format 2: what each variant was
            what = _first_difference(logged_definitions.get(label), _kept(definitions.get(label)))
        else:  # format 1: its few words
            what = "" if logged_variants[label] == _kept(variants[label]) else "what it is"
        if what:
            found.append(f"variant {label!r} differs in its {what}")
    return found


def _row_changes(contents: logs.LogContents, rows: Sequence[Row]) -> list[str]:
    found = []
    for row in rows:
        logged_row = contents.rows.get(row.index)
        if logged_row is None:
            continue
        here = logs.logged({"inputs": dict(row.fields), "reference": row.reference})
        if logged_row.get("inputs") != here["inputs"]:
            found.append(f"row {row.index}'s fields differ (another dataset?)")
        elif logged_row.get("reference") != here["reference"]:
            found.append(f"row {row.index}'s reference differs")
    return found


def _first_difference(there: Any, here: Any) -> str:
    """The first field of two definitions that differs (``options.NAME`` for an option)."""
    if not isinstance(there, Mapping) or not isinstance(here, Mapping):
        return "" if there == here else "definition"
    for name in FIELDS:
        a, b = there.get(name), here.get(name)
        if a == b:
            continue
        if name == "options" and isinstance(a, Mapping) and isinstance(b, Mapping):
            differing = sorted(k for k in {*a, *b} if a.get(k) != b.get(k))
            return "options (" + ", ".join(differing) + ")"
        return name.replace("_", " ")
    return ""


def _kept(value: Any) -> Any:
    """``value`` as the log keeps it (JSON-able, redacted), so it compares with what was read."""
    return logs.logged({"value": value})["value"]


def _short(value: Any, limit: int = 40) -> str:
    shown = repr(value)
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."
