"""Paths in an agent's filesystem: one validation for everything the notebook reads or writes."""

from __future__ import annotations

import posixpath
import re

from deepnb.core.errors import DeepnbError

_UNSAFE_CHARACTERS = re.compile(r"[\x00-\x1f\\]")
"""Control characters (NUL included) and backslashes."""


HISTORY = "/conversation_history/"
"""Where summarization offloads older messages (under a backend's artifacts root)."""


def is_history(path: str) -> bool:
    """Whether ``path`` is a summarization history file: deepagents' bookkeeping, kept out of
    "Files changed", the Changes tab and search (the file view still browses it)."""
    return HISTORY in path


class UnsafePathError(DeepnbError, ValueError):
    """A path that climbs out of the agent's filesystem, or is not a path at all."""


def clean_path(path: str, *, directory: bool = False) -> str:
    """``path`` as an absolute, normalised virtual path (``/notes/a.md``), or an error.

    Refused: relative paths, ``..`` anywhere, ``~``, backslashes, NUL and control characters,
    and Windows drive letters — whatever could name something outside the agent's filesystem.
    """
    if not isinstance(path, str) or not path:
        raise UnsafePathError(f"{path!r} is not a path: use an absolute path like '/notes/plan.md'.")
    if not path.startswith("/"):
        raise UnsafePathError(f"{path!r} is relative: paths in the agent's filesystem start with '/'.")
    if _UNSAFE_CHARACTERS.search(path) or path.startswith("//"):
        raise UnsafePathError(f"{path!r} has characters a path in the agent's filesystem cannot have.")
    parts = path.split("/")
    if ".." in parts or any(part.startswith("~") for part in parts):
        raise UnsafePathError(f"{path!r} climbs out of the agent's filesystem ('..' and '~' are refused).")
    if len(parts) > 1 and len(parts[1]) == 2 and parts[1][1] == ":":
        raise UnsafePathError(f"{path!r} looks like a host path: use the agent's own paths, e.g. '/notes/'.")
    cleaned = posixpath.normpath(path)
    if directory and cleaned != "/":
        cleaned += "/"
    return cleaned


def parent(path: str) -> str:
    """The folder holding ``path``, with a trailing slash (``/`` for a top-level entry)."""
    head = posixpath.dirname(path.rstrip("/"))
    return head if head.endswith("/") else head + "/"


def is_under(path: str, folder: str) -> bool:
    """Whether ``path`` is ``folder`` itself or inside it."""
    folder = folder if folder.endswith("/") else folder + "/"
    return path == folder.rstrip("/") or path.startswith(folder) or folder == "/"
