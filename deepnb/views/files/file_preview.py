"""A file's preview: its content as safe HTML for the notebook (Markdown rendered, code
highlighted, CSV as a table, images inline, binary files named but never decoded), for the file
browser, the run view's file panel and ``%deepagent files PATH``. Nothing in a file's content runs."""

from __future__ import annotations

import base64
import csv
import io
from dataclasses import dataclass

from deepnb.core.file_paths import HISTORY
from deepnb.core.text.markup import escape, highlight_file, markdown
from deepnb.core.text.safe_display import safe_display
from deepnb.core.text.secrets import redact
from deepnb.views.styles import file_style, inline

IMAGE_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
}
"""Raster images shown inline (SVG is shown as text: it can carry scripts)."""
TEXT_LIMIT = 200_000
TABLE_ROWS = 200


@dataclass(frozen=True)
class RenderedFile:
    """``kind`` is markdown, code, table, image or binary; ``html`` is safe to insert as is;
    ``text`` is the file's text (secrets redacted), empty for images and binary files."""

    path: str
    kind: str
    html: str
    text: str
    size: int


def _suffix(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return "." + name.rsplit(".", 1)[-1].lower() if "." in name else ""


def render_file(path: str, data: bytes) -> RenderedFile:
    """Turn a file's bytes into what a viewer shows."""
    suffix = _suffix(path)
    if suffix in IMAGE_TYPES:
        uri = f"data:{IMAGE_TYPES[suffix]};base64,{base64.b64encode(data).decode('ascii')}"
        html = f'<img class="dnb-file-image" alt="{escape(path)}" src="{uri}">'
        return RenderedFile(path, "image", html, "", len(data))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        note = f"{path} is a binary file ({len(data):,} bytes); it is not shown."
        return RenderedFile(path, "binary", f'<p class="dnb-muted">{escape(note)}</p>', "", len(data))
    text = redact(text)
    clipped = text if len(text) <= TEXT_LIMIT else text[:TEXT_LIMIT] + "\n… (clipped)"
    if suffix in (".md", ".markdown") and not path.startswith(HISTORY):  # a message log: shown as text
        return RenderedFile(path, "markdown", markdown(clipped), text, len(data))
    if suffix in (".csv", ".tsv"):
        return RenderedFile(
            path, "table", _table(clipped, "\t" if suffix == ".tsv" else ","), text, len(data)
        )
    return RenderedFile(path, "code", highlight_file(clipped, path), text, len(data))


def _table(text: str, delimiter: str) -> str:
    rows = list(csv.reader(io.StringIO(text), delimiter=delimiter))
    if not rows:
        return '<p class="dnb-muted">(empty)</p>'
    head, body = rows[0], rows[1 : TABLE_ROWS + 1]
    more = len(rows) - 1 - len(body)
    html = ['<table class="deepnb-table"><thead><tr>']
    html += [f"<th>{escape(cell)}</th>" for cell in head]
    html.append("</tr></thead><tbody>")
    html += ["<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>" for row in body]
    html.append("</tbody></table>")
    if more > 0:
        html.append(f'<p class="dnb-muted">… and {more:,} more rows.</p>')
    return "".join(html)


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
        return file_style() + inline(
            f'<div class="deepnb-snapshot deepnb-file">'
            f"<div><b>{escape(self.rendered.path)}</b></div>{self.rendered.html}</div>"
        )
