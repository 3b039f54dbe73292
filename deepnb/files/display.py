"""What ``%deepagent files [PATH]`` shows: the file browser at a folder, or a file rendered.

:class:`FolderListing` is the browser's static fallback (``text/plain`` and bounded ``text/html``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from deepnb.files.files import REPR_LIMIT, Files
from deepnb.files.render import RenderedFile, render_file
from deepnb.files.sources import Entry
from deepnb.markup import code_css, escape
from deepnb.safe_display import safe_display

if TYPE_CHECKING:
    from deepnb.run import Run
    from deepnb.views.files_view import FilesView


@safe_display
@dataclass(frozen=True)
class FolderListing:
    """A folder of a thread's filesystem; ``entries`` holds the data."""

    path: str
    entries: tuple[Entry, ...]

    def __repr__(self) -> str:
        from deepnb.views.snapshot import _size

        if not self.entries:
            return f"{self.path}: empty."
        lines = [f"{self.path} ({len(self.entries)} entries):"]
        for entry in self.entries[:REPR_LIMIT]:
            mount = f"  [{entry.mount} is mounted]" if entry.mount else ""
            lines.append(f"  {entry.name}  {_size(entry.size)}{mount}")
        if len(self.entries) > REPR_LIMIT:
            lines.append(f"  … and {len(self.entries) - REPR_LIMIT} more")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        from deepnb.views.snapshot import files_html

        return files_html(self.entries[:REPR_LIMIT], len(self.entries), title=self.path)


@safe_display
@dataclass(frozen=True)
class FileDisplay:
    """One file, rendered: Markdown, highlighted code, a CSV table, an image, or a binary named."""

    rendered: RenderedFile

    def __repr__(self) -> str:
        if self.rendered.kind in ("image", "binary"):
            return f"{self.rendered.path}: {self.rendered.kind} file, {self.rendered.size:,} bytes."
        return self.rendered.text

    def _repr_html_(self) -> str:
        return (
            f'<div class="deepnb-snapshot deepnb-file"><style>{code_css(".deepnb-file")}</style>'
            f"<div><b>{escape(self.rendered.path)}</b></div>{self.rendered.html}</div>"
        )


def show(files: Files, path: str = "/", *, run: Run | None = None) -> FilesView | FileDisplay:
    """A file rendered, or the file browser opened at a folder, whichever ``path`` names. The
    browser follows ``run`` (by default the thread's latest run) for its "Changed in this run" tab
    and its live refreshes."""
    from deepnb.files.paths import clean_path
    from deepnb.views.files_view import FilesView

    cleaned = clean_path(path)
    if cleaned != "/" and not path.endswith("/") and cleaned in files:
        return FileDisplay(render_file(cleaned, files.read_bytes(cleaned)))
    if cleaned != "/" and not files.ls(cleaned) and cleaned not in files:
        from deepnb.errors import DeepnbError

        raise DeepnbError(f"Nothing at {cleaned} in this thread's files: %deepagent files / lists them.")
    return FilesView(files, path=cleaned, run=run)
