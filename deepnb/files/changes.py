"""What a run changed in a thread's files: a unified diff per path against the file before the run."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from deepnb.errors import DeepnbError
from deepnb.files.files import Files
from deepnb.safe_display import safe_display


@safe_display
@dataclass(frozen=True)
class FileChange:
    """``kind`` is ``added``, ``modified``, ``deleted`` or ``written`` (changed, but the backend
    keeps no earlier version to compare with); ``diff`` is a unified diff (empty for binary files
    and for ``written``)."""

    path: str
    kind: str
    diff: str = ""

    def __repr__(self) -> str:
        return f"<FileChange {self.kind} {self.path}>"


def _text(files: Files, path: str) -> str | None:
    try:
        return files[path]
    except KeyError:
        return None
    except DeepnbError:  # binary
        return ""


def compare(path: str, before: Files, after: Files, *, known: bool) -> FileChange:
    """The change at ``path`` between two views of a thread's files."""
    new = _text(after, path)
    if not after.has_history(path):
        return FileChange(path, "deleted" if new is None else "written")
    old = _text(before, path) if known else None
    if old is None and new is None:
        return FileChange(path, "deleted")
    kind = "added" if old is None else "deleted" if new is None else "modified"
    diff = difflib.unified_diff(
        (old or "").splitlines(keepends=True),
        (new or "").splitlines(keepends=True),
        fromfile="/dev/null" if old is None else f"a{path}",
        tofile="/dev/null" if new is None else f"b{path}",
    )
    return FileChange(path, kind, "".join(diff))
