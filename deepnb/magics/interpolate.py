"""``{name}`` in a prompt becomes the value of that kernel variable."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from deepnb.core.errors import DeepnbError

_FIELD = re.compile(
    r"\{\{(?P<literal>[^{}]*)\}\}|\{\{|\{(?P<name>[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\}"
)


def interpolate(text: str, namespace: Mapping[str, Any]) -> str:
    """Replace ``{name}`` and ``{name.attr}`` with values from ``namespace``. ``{{`` is a literal
    brace (``{{name}}`` gives ``{name}``); anything else in braces (JSON, say) is left as it is."""

    def value(match: re.Match[str]) -> str:
        if match.group("name") is None:
            literal = match.group("literal")
            return "{" if literal is None else "{" + literal + "}"
        name = match.group("name")
        first, *attrs = name.split(".")
        if first not in namespace:
            raise DeepnbError(
                f"The prompt uses {{{name}}} but no variable {first!r} exists: define it, "
                f"write {{{{{name}}}}} for literal braces, or add --no-interpolate."
            )
        found = namespace[first]
        for attr in attrs:
            try:
                found = getattr(found, attr)
            except AttributeError:
                raise DeepnbError(f"The prompt uses {{{name}}} but {first} has no {attr!r}.") from None
        return str(found)

    return _FIELD.sub(value, text)
