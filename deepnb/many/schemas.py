"""JSON Schemas as data: what ``scorers.json_schema`` checks an answer with, within bounds.

A schema is read once, when the scorer is made, and refused there in one line when it could do
more than check an answer: a ``$ref`` to anything outside the schema (a URL, a file: nothing is
fetched or read while scoring), a ``$ref`` that comes back to where it started without reading
any of the answer (every check would loop), a ``pattern`` RE2 cannot run, more than
:data:`MAX_NODES` values or :data:`MAX_DEPTH` levels. Checking an answer then reads nothing but
the answer: patterns are matched by RE2 in linear time (``deepnb.core.text.safe_regex``), unique
items are compared by hashing rather than pairwise, and an answer nested too deep to check is
that check's one error, not a ``RecursionError``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any
from urllib.parse import urldefrag, urljoin

import jsonschema  # type: ignore[import-untyped]
from jsonschema_specifications import REGISTRY as SPECIFICATIONS  # type: ignore[import-untyped]
from referencing import Registry
from referencing.exceptions import NoSuchResource, Unresolvable

from deepnb.core.errors import DeepnbError
from deepnb.core.text.safe_regex import BoundedPattern, RegexError, compile_bounded

MAX_NODES = 100_000
"""Values (objects, lists, strings, numbers) a schema may hold."""
MAX_DEPTH = 100
"""Levels a schema may nest."""
ERRORS_SHOWN = 3
COMMENT = 500
"""Characters of a failed check's comment."""
IN_PLACE = ("allOf", "anyOf", "oneOf", "not", "if", "then", "else")
"""Keywords whose schemas check the same value again (a ``$ref`` cycle through them reads no
more of the answer at each turn)."""
DATA = frozenset({"const", "enum", "default", "examples"})
"""Keywords whose values are data, not schemas (a ``pattern`` there is a value)."""
NAMED = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
"""Keywords whose values name schemas (a property may be called ``default``)."""
REFS = ("$ref", "$dynamicRef", "$recursiveRef")

Checker = Callable[[Any], "str | None"]


def _refuse(uri: str) -> Any:
    """The registry's retrieve: nothing outside the schema is ever read (belt and braces: the
    scorer refused such a ``$ref`` when it was made)."""
    raise NoSuchResource(ref=uri)  # type: ignore[call-arg]  # an attrs class mypy reads without its fields


def _walk(schema: Any) -> Iterator[tuple[Any, str, str]]:
    """Every value of ``schema`` with its JSON pointer and base URI (``$id`` applied), without
    recursion; :class:`DeepnbError` past :data:`MAX_NODES` or :data:`MAX_DEPTH`."""
    stack: list[tuple[Any, str, str, int, bool, bool]] = [(schema, "", "", 0, False, False)]
    seen = 0
    while stack:
        node, pointer, base, depth, named, data = stack.pop()
        seen += 1
        if seen > MAX_NODES:
            raise DeepnbError(
                f"json_schema(): the schema holds more than {MAX_NODES:,} values: write a smaller one."
            )
        if depth > MAX_DEPTH:
            raise DeepnbError(
                f"json_schema(): the schema nests deeper than {MAX_DEPTH} levels: flatten it with $defs."
            )
        schema_node = not named and not data  # a value under "enum" is counted, not read as a schema
        if isinstance(node, Mapping):
            if schema_node and isinstance(node.get("$id"), str):
                base = urljoin(base, node["$id"])
            if schema_node:
                yield node, pointer, base
            for key, value in node.items():
                inner = (schema_node and key in NAMED, data or (schema_node and key in DATA))
                stack.append((value, f"{pointer}/{_escaped(str(key))}", base, depth + 1, *inner))
        elif isinstance(node, list):
            for index, value in enumerate(node):
                stack.append((value, f"{pointer}/{index}", base, depth + 1, False, data))


def _escaped(part: str) -> str:
    return part.replace("~", "~0").replace("/", "~1")


def _pointed(schema: Any, fragment: str) -> Any:
    """The value at JSON pointer ``fragment`` (``""`` or ``"/$defs/a"``), or ``None``."""
    node = schema
    for part in fragment.split("/")[1:] if fragment else ():
        key = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and key in node:
            node = node[key]
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            return None
    return node


def _checked_refs(schema: Mapping[str, Any]) -> None:
    """Refuse a ``$ref`` outside the schema, and one that loops without reading the answer."""
    nodes = list(_walk(schema))
    ids = {urldefrag(base)[0] for _, _, base in nodes}
    inside: dict[int, list[Any]] = {}
    for node, pointer, base in nodes:
        targets: list[Any] = []
        for keyword in REFS:
            ref = node.get(keyword)
            if not isinstance(ref, str):
                continue
            uri, fragment = urldefrag(urljoin(base, ref))
            if uri and uri not in ids:
                if uri in SPECIFICATIONS:
                    continue
                raise DeepnbError(
                    f"json_schema(): the schema refers to {ref!r} (at {pointer or '/'}), outside itself; "
                    "nothing is fetched or read from disk while scoring: copy that schema into $defs "
                    "and refer to it as '#/$defs/NAME'."
                )
            root = schema if not uri or uri == urldefrag(urljoin("", str(schema.get("$id", ""))))[0] else None
            if root is not None and (fragment == "" or fragment.startswith("/")):
                target = _pointed(root, fragment)
                if target is None:
                    raise DeepnbError(
                        f"json_schema(): the schema's {keyword} {ref!r} (at {pointer or '/'}) points at "
                        "nothing in it: fix the path."
                    )
                targets.append(target)
        for keyword in IN_PLACE:
            value = node.get(keyword)
            targets += value if isinstance(value, list) else [value] if isinstance(value, Mapping) else []
        inside[id(node)] = [t for t in targets if isinstance(t, Mapping)]
    _no_loop(inside, {id(node): pointer for node, pointer, _ in nodes})


def _no_loop(inside: Mapping[int, list[Any]], pointers: Mapping[int, str]) -> None:
    """Refuse a cycle of schemas that check the same value over again (``{"$ref": "#"}``)."""
    state: dict[int, int] = {}  # 1: on the path, 2: done
    for start in inside:
        if state.get(start):
            continue
        stack: list[tuple[int, Iterator[Any]]] = [(start, iter(inside[start]))]
        state[start] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                stack.pop()
                continue
            key = id(child)
            if state.get(key) == 1:
                where = pointers.get(key, "")
                raise DeepnbError(
                    f"json_schema(): the schema refers back to {'#' + where!r} without reading any more "
                    "of the answer, so a check would never end: make the reference go through "
                    "properties or items."
                )
            if not state.get(key):
                state[key] = 1
                stack.append((key, iter(inside.get(key, ()))))


def _patterns(schema: Mapping[str, Any]) -> dict[str, BoundedPattern]:
    """Every pattern of the schema (``pattern``, ``patternProperties``' names), compiled for RE2;
    :class:`DeepnbError` for one RE2 cannot run."""
    found: dict[str, BoundedPattern] = {}
    for node, pointer, _ in _walk(schema):
        texts = [node["pattern"]] if isinstance(node.get("pattern"), str) else []
        if isinstance(node.get("patternProperties"), Mapping):
            texts += [p for p in node["patternProperties"] if isinstance(p, str)]
        for text in texts:
            if text in found:
                continue
            try:
                found[text] = compile_bounded(text)
            except RegexError as exc:
                raise DeepnbError(
                    f"json_schema(): the pattern {text!r} (at {pointer or '/'}) cannot be used: {exc}."
                ) from None
        if "unevaluatedProperties" in node and found:
            raise DeepnbError(
                "json_schema(): a schema with both patterns and unevaluatedProperties is not checked here: "
                "use additionalProperties."
            )
    return found


def _linear_keywords(patterns: Mapping[str, BoundedPattern]) -> dict[str, Callable[..., Any]]:
    """``pattern``, ``patternProperties``, ``additionalProperties`` and ``uniqueItems`` as
    jsonschema checks them, with RE2's patterns and hashing instead of backtracking and pairs."""
    error = jsonschema.ValidationError

    def matcher(text: str) -> BoundedPattern:
        return patterns.get(text) or compile_bounded(text)

    def pattern(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[Any]:
        if validator.is_type(instance, "string") and matcher(value).search(instance) is None:
            yield error(f"{_short(instance)} does not match {value!r}")

    def pattern_properties(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[Any]:
        if not validator.is_type(instance, "object"):
            return
        for text, subschema in value.items():
            for key, item in instance.items():
                if matcher(text).search(key) is not None:
                    yield from validator.descend(item, subschema, path=key, schema_path=text)

    def additional_properties(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[Any]:
        if not validator.is_type(instance, "object"):
            return
        known = schema.get("properties", {})
        regexes = [matcher(text) for text in schema.get("patternProperties", {})]
        extras = sorted(
            (k for k in instance if k not in known and not any(r.search(k) is not None for r in regexes)),
            key=str,
        )
        if validator.is_type(value, "object"):
            for extra in extras:
                yield from validator.descend(instance[extra], value, path=extra)
        elif not value and extras:
            shown = ", ".join(repr(extra) for extra in extras[:10]) + (", …" if len(extras) > 10 else "")
            yield error(f"Additional properties are not allowed ({shown} unexpected)")

    def unique_items(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[Any]:
        if value and validator.is_type(instance, "array"):
            seen: set[Any] = set()
            for item in instance:
                key = _hashable(item)
                if key in seen:
                    yield error(f"{_short(instance)} has non-unique elements")
                    return
                seen.add(key)

    return {
        "pattern": pattern,
        "patternProperties": pattern_properties,
        "additionalProperties": additional_properties,
        "uniqueItems": unique_items,
    }


def _hashable(value: Any) -> Any:
    """``value`` as a key equal for JSON Schema's equal values (``1 == 1.0``, ``true != 1``)."""
    if isinstance(value, bool) or value is None:
        return ("b", value)
    if isinstance(value, int | float):
        return ("n", value)
    if isinstance(value, str):
        return ("s", value)
    if isinstance(value, Mapping):
        return ("o", frozenset((k, _hashable(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return ("a", tuple(_hashable(v) for v in value))
    return ("?", repr(value))


def _short(instance: Any, limit: int = 80) -> str:
    text = repr(instance)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def schema_checker(schema: Mapping[str, Any]) -> Checker:
    """A check of answers against ``schema`` (``None``: valid; else what is wrong, one line),
    or :class:`DeepnbError` saying why the schema is refused."""
    validator_class = jsonschema.validators.validator_for(schema)
    try:
        validator_class.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise DeepnbError(f"json_schema(): the schema is not valid JSON Schema: {exc.message}.") from None
    except RecursionError:
        raise DeepnbError(
            f"json_schema(): the schema nests deeper than {MAX_DEPTH} levels: flatten it with $defs."
        ) from None
    _checked_refs(schema)
    patterns = _patterns(schema)
    bounded = jsonschema.validators.extend(validator_class, _linear_keywords(patterns))
    checker = bounded(schema, registry=Registry(retrieve=_refuse))  # type: ignore[call-arg]  # attrs, as above

    def check(value: Any) -> str | None:
        try:
            errors = sorted(checker.iter_errors(value), key=lambda e: [str(p) for p in e.path])
        except RecursionError:
            return f"the answer nests too deep to check against the schema (over {MAX_DEPTH} levels)"
        except Unresolvable as exc:  # refused: outside the schema
            raise ValueError(
                f"json_schema: the schema refers outside itself ({exc}); nothing was fetched"
            ) from None
        return "; ".join(e.message for e in errors[:ERRORS_SHOWN])[:COMMENT] if errors else None

    return check


__all__ = ["MAX_DEPTH", "MAX_NODES", "schema_checker"]
