"""Reading a message that may be a LangChain object or a dict (as a server or a checkpoint gives it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["field", "text_of"]


def field(message: Any, name: str) -> Any:
    """``message``'s ``name``, whether it is an object (an attribute) or a dict (a key)."""
    return message.get(name) if isinstance(message, Mapping) else getattr(message, name, None)


def text_of(content: Any) -> str:
    """A message's text: a string, or the text blocks of a list of content blocks, a line each."""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        parts = [b.get("text", "") if isinstance(b, Mapping) else str(b) for b in content]
        return "\n".join(p for p in parts if isinstance(p, str) and p)
    return "" if content is None else str(content)
