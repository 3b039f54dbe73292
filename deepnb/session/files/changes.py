"""What a run changed in a thread's files: a unified diff per path against the file before the run."""

from __future__ import annotations

import difflib
import sys
import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from deepnb.core.errors import DeepnbError
from deepnb.core.text.safe_display import safe_display
from deepnb.core.text.secrets import redact
from deepnb.session.files.files import Files


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


_told: weakref.WeakSet[Any] = weakref.WeakSet()
"""The agents already told that deepnb cannot see their files (it is said once per agent)."""


def changes_of(paths: Iterable[str], before: Files, after: Files, *, known: bool) -> list[FileChange]:
    """The changes at ``paths`` (what a run wrote, edited or deleted). Where deepnb does not know
    the agent's backend (an attached graph without a filesystem middleware it could find), a
    path it cannot read is left out — never reported as deleted — and one line says why, once."""
    found = []
    unseen = 0
    for path in paths:
        if not after.known and _text(after, path) is None:
            unseen += 1
            continue
        found.append(compare(path, before, after, known=known))
    workbench = after.workbench
    if unseen and workbench not in _told:
        _told.add(workbench)
        print(
            redact(
                f"deepnb: agent {workbench.name!r} keeps its files where deepnb cannot see them (no "
                f"filesystem middleware in its graph), so run.changes() leaves out {unseen} path(s): "
                "name its backend with deepnb.attach(graph, backend=...)."
            ),
            file=sys.stderr,
        )
    return found
