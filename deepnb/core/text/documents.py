"""YAML and JSON documents from a project's files, read within bounds.

A replay script is a file a cloned project ships. YAML's aliases let 600 bytes stand for billions
of values (the "billion laughs"): PyYAML shares them while loading, but anything that walks the
result (checking it, comparing it, writing it back) pays for every one. :func:`load_document`
refuses a file past :data:`MAX_BYTES`, and a YAML document whose aliases expand past
:data:`MAX_NODES` values or nest past :data:`MAX_DEPTH` levels, before anything is built from it,
each in one line.
"""

from __future__ import annotations

import json
from typing import Any

import yaml

MAX_BYTES = 32 << 20
"""Bytes a document may have (a long recorded run is a few megabytes)."""
MAX_NODES = 2_000_000
"""Values a YAML document may stand for once every alias is expanded."""
MAX_DEPTH = 200
"""Levels a document may nest."""


class DocumentError(ValueError):
    """A document past a bound, or not valid; the message says which."""


def _expanded(root: yaml.Node) -> None:
    """Refuse ``root`` if it stands for more than MAX_NODES values or nests past MAX_DEPTH.
    An alias is the node it names, so each node's expanded size is counted once (memoized)."""
    sizes: dict[int, int] = {}
    stack: list[tuple[yaml.Node, int, bool]] = [(root, 0, False)]
    while stack:
        node, depth, children_done = stack.pop()
        if depth > MAX_DEPTH:
            raise DocumentError(f"not read: it nests deeper than {MAX_DEPTH} levels")
        key = id(node)
        if key in sizes and not children_done:
            continue
        if isinstance(node, yaml.ScalarNode):
            sizes[key] = 1
            continue
        children: list[yaml.Node] = (
            [part for pair in node.value for part in pair]
            if isinstance(node, yaml.MappingNode)
            else list(node.value)
        )
        if not children_done:
            if key in sizes:
                continue
            sizes[key] = -1  # in progress: an alias back to it would be a cycle
            stack.append((node, depth, True))
            for child in children:
                if sizes.get(id(child)) == -1:
                    raise DocumentError("not read: an alias refers to a value that holds it")
                stack.append((child, depth + 1, False))
            continue
        total = 1 + sum(sizes[id(child)] for child in children)
        if total > MAX_NODES:
            raise DocumentError(
                f"not read: its aliases expand to more than {MAX_NODES:,} values (an alias bomb?); "
                "write the repeated parts out"
            )
        sizes[key] = total


def _checked_single_node(self: Any) -> Any:
    node = yaml.SafeLoader.get_single_node(self)
    if node is not None:
        _expanded(node)
    return node


_BoundedLoader: Any = type("_BoundedLoader", (yaml.SafeLoader,), {"get_single_node": _checked_single_node})
"""PyYAML's safe loader, checking the composed document before constructing it."""


def load_document(text: str, *, json_format: bool = False) -> Any:
    """``text`` parsed as YAML (PyYAML's safe types only) or, with ``json_format``, JSON, within
    the bounds above; otherwise :class:`DocumentError`, whose message reads after the file's
    name ("not valid YAML (…)", "not read: …")."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_BYTES:
        raise DocumentError(f"not read: it is {size:,} bytes, and at most {MAX_BYTES:,} are read")
    try:
        if json_format:
            return json.loads(text)
        return yaml.load(text, Loader=_BoundedLoader)  # a SafeLoader subclass
    except DocumentError:
        raise
    except RecursionError:
        raise DocumentError(f"not read: it nests deeper than {MAX_DEPTH} levels") from None
    except (ValueError, yaml.YAMLError) as exc:
        raise DocumentError(f"not valid {'JSON' if json_format else 'YAML'} ({exc})") from None


__all__ = ["MAX_BYTES", "MAX_DEPTH", "MAX_NODES", "DocumentError", "load_document"]
