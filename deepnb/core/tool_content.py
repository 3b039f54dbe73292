"""A tool's result as its card shows it, block by block: an MCP server (through the adapters) answers
with a list of LangChain content blocks — texts, images, files and resource links — that a card
keeps apart by kind (:class:`deepnb.core.schema.ContentPart`), where one string would run the texts
together and drop the rest.

What reaches a card is safe to show: an image only as a ``data:`` URI of PNG, JPEG, GIF or WebP
(no SVG, which can carry script) with plain base64 and at most :data:`IMAGE_CHARS` characters, at
most :data:`IMAGES` a result; a link only to an ``http`` or ``https`` address; anything else is
named in a note. Views escape every text and address and bound an image's size on screen.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from deepnb.core.schema import ContentPart
from deepnb.core.text.safe_regex import compile_bounded

IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
"""The image types a card shows as images."""
IMAGE_CHARS = 2_000_000
"""Base64 characters of one image a card keeps (about 1.5 MB); a larger one is named, not shown."""
IMAGES = 4
"""Images of one result a card shows; the rest are named."""
PARTS = 32
"""Content blocks of one result a card keeps apart; the rest are counted in a note."""
LINK_SCHEMES = frozenset({"http", "https"})
"""The schemes a resource's address may have to be a link (a ``file:`` or ``javascript:`` one is text)."""
URL_CHARS = 2000
"""Characters of an address a card keeps."""
_BASE64 = compile_bounded(r"[A-Za-z0-9+/]*={0,2}")


def _size(chars: int) -> str:
    size = chars * 3 // 4
    if size >= 1_000_000:
        return f"{size / 1_000_000:.1f} MB"
    return f"{round(size / 1000)} KB" if size >= 1000 else f"{size} bytes"


def _image(block: Mapping[str, Any], shown: int) -> ContentPart:
    mime = str(block.get("mime_type") or block.get("mimeType") or "image").lower()
    data = block.get("base64") or block.get("data")
    if not isinstance(data, str):
        url = _url(block)
        return {"kind": "note", "text": f"image at {url[:URL_CHARS]} (not fetched)" if url else "image"}
    what = f"{mime}, {_size(len(data))}"
    if mime not in IMAGE_TYPES:
        return {"kind": "note", "text": f"image {what} not shown (a card shows PNG, JPEG, GIF and WebP)"}
    if len(data) > IMAGE_CHARS or shown >= IMAGES:
        return {"kind": "note", "text": f"image {what} not shown (too large, or too many images)"}
    if _BASE64.fullmatch(data) is None:
        return {"kind": "note", "text": f"image {mime} not shown (its data is not base64)"}
    return {"kind": "image", "text": what, "src": f"data:{mime};base64,{data}"}


def _url(block: Mapping[str, Any]) -> str:
    url = block.get("url") or block.get("uri")
    if isinstance(block.get("image_url"), Mapping):  # OpenAI's shape
        url = block["image_url"].get("url")
    return url if isinstance(url, str) else ""


def _link(block: Mapping[str, Any]) -> ContentPart:
    url = _url(block)[:URL_CHARS]
    mime = block.get("mime_type") or block.get("mimeType")
    if not url:
        data = block.get("base64") or block.get("data")
        size = f", {_size(len(data))}" if isinstance(data, str) else ""
        return {"kind": "note", "text": f"file {mime or ''}{size} not shown".replace("  ", " ")}
    try:
        scheme = urlsplit(url).scheme.lower()
    except ValueError:
        scheme = ""
    if scheme in LINK_SCHEMES and not any(c.isspace() or c in "<>\"'`" for c in url):
        return {"kind": "link", "text": url, "src": url}
    return {"kind": "note", "text": f"resource {url}"}


def content_parts(content: Any) -> list[ContentPart]:
    """A tool result's content blocks as parts, in order; ``[]`` for a result that is one text
    (a string, or a single text block), which the card shows as text already."""
    if isinstance(content, str) or not isinstance(content, Sequence):
        return []
    parts: list[ContentPart] = []
    images = 0
    for block in content[:PARTS]:
        if isinstance(block, str):
            parts.append({"kind": "text", "text": block})
            continue
        if not isinstance(block, Mapping):
            continue
        kind = block.get("type")
        if kind in (None, "text"):
            parts.append({"kind": "text", "text": str(block.get("text", ""))})
        elif kind in ("image", "image_url"):
            part = _image(block, images)
            images += part["kind"] == "image"
            parts.append(part)
        elif kind in ("file", "resource_link", "resource"):
            parts.append(_link(block))
        else:
            parts.append({"kind": "note", "text": f"a {str(kind)[:40]} block (not shown)"})
    if len(content) > PARTS:
        parts.append({"kind": "note", "text": f"{len(content) - PARTS} more blocks (not shown)"})
    if len(parts) == 1 and parts[0]["kind"] == "text":
        return []
    return parts


def part_text(part: ContentPart) -> str:
    """A part as plain text: a text as it is, anything else named in brackets."""
    if part["kind"] == "text":
        return part["text"]
    label = {"image": "image", "link": "resource", "note": ""}[part["kind"]]
    return f"[{label}: {part['text']}]" if label else f"[{part['text']}]"


def parts_text(parts: Sequence[ContentPart]) -> str:
    """Parts as one plain text, each block apart from the next by a blank line."""
    return "\n\n".join(part_text(part) for part in parts)
