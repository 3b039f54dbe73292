"""A static section described once and drawn two ways: as escaped HTML and as plain text, as rich
draws one list of segments to a terminal and to HTML.

A section is a tree of blocks. :func:`html` writes each block as its element, every text escaped;
:func:`text` writes each as lines, a block's body two spaces further in than its head. A view
describes a section with these and never writes its HTML and its text side by side.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from deepnb.core.text.markup import escape

__all__ = ["Block", "Em", "Fields", "Fold", "Group", "Inline", "Line", "List", "Pre", "html", "text"]

INDENT = "  "


@dataclass(frozen=True)
class Em:
    """Text set apart inside a line: bold, italic, struck out, code, or a ``span`` of a class
    (struck-out text reads ``~~so~~`` as text; the others read as they are)."""

    text: str
    tag: Literal["b", "i", "s", "code", "span"] = "b"
    cls: str = ""


Inline = str | Em
"""A piece of a line: plain text, or text set apart."""


@dataclass(frozen=True)
class Line:
    """One line: a ``<div>`` (``tag``) of its pieces, with a class and attributes if given."""

    parts: tuple[Inline, ...]
    cls: str = ""
    attrs: Mapping[str, str] = field(default_factory=dict)
    tag: str = "div"

    @classmethod
    def of(cls, *parts: Inline, css: str = "", tag: str = "div", **attrs: str) -> Line:
        """A line of ``parts`` (empty ones left out); ``data_status="x"`` is ``data-status="x"``."""
        named = {k.replace("_", "-"): v for k, v in attrs.items()}
        return cls(tuple(p for p in parts if p), css, named, tag)


@dataclass(frozen=True)
class Group:
    """Blocks together in one element (``tag``); as text, a ``head`` line (if any) and the
    blocks under it, further in."""

    body: tuple[Block, ...]
    cls: str = ""
    head: Line | None = None
    attrs: Mapping[str, str] = field(default_factory=dict)
    tag: str = "div"


@dataclass(frozen=True)
class Fold:
    """A collapsed section: ``<details>`` with its summary line and a body (``body_cls``); as
    text, the summary and the body under it."""

    summary: tuple[Inline, ...]
    body: tuple[Block, ...]
    cls: str = ""
    body_cls: str = ""


@dataclass(frozen=True)
class List:
    """A ``head`` line (if any), then a bulleted list of items (each a line or a group)."""

    items: tuple[Block, ...]
    head: Line | None = None
    cls: str = ""


@dataclass(frozen=True)
class Pre:
    """Preformatted text, its lines kept (as text, each at the block's depth)."""

    content: str
    cls: str = ""
    spans: tuple[tuple[str, str], ...] = ()
    """``(class, line)`` pairs drawn as one ``<span>`` each (a diff's added and removed lines);
    ``content`` is unused when given."""


@dataclass(frozen=True)
class Fields:
    """Named values, one row each: a ``<dl>`` (or a ``<table>`` with ``table``); as text,
    ``name: value`` lines. A value that is not text is shown as code."""

    rows: tuple[tuple[str, Inline], ...]
    cls: str = ""
    table: bool = False


Block = Line | Group | Fold | List | Pre | Fields
"""Anything a section is made of."""


# -- HTML --------------------------------------------------------------------------------------


def _attrs(cls: str, attrs: Mapping[str, str] = {}) -> str:  # read, never changed
    found = ([("class", cls)] if cls else []) + list(attrs.items())
    return "".join(f' {name}="{escape(value)}"' for name, value in found)


def _piece_html(piece: Inline) -> str:
    if isinstance(piece, str):
        return escape(piece)
    return f"<{piece.tag}{_attrs(piece.cls)}>{escape(piece.text)}</{piece.tag}>"


def _inline_html(parts: Iterable[Inline]) -> str:
    return "".join(_piece_html(p) for p in parts)


def _html(block: Block) -> str:
    if isinstance(block, Line):
        return f"<{block.tag}{_attrs(block.cls, block.attrs)}>{_inline_html(block.parts)}</{block.tag}>"
    if isinstance(block, Group):
        head = _html(block.head) if block.head is not None else ""
        inner = head + "".join(_html(b) for b in block.body)
        return f"<{block.tag}{_attrs(block.cls, block.attrs)}>{inner}</{block.tag}>"
    if isinstance(block, Fold):
        body = "".join(_html(b) for b in block.body)
        return (
            f"<details{_attrs(block.cls)}><summary>{_inline_html(block.summary)}</summary>"
            f"<div{_attrs(block.body_cls)}>{body}</div></details>"
        )
    if isinstance(block, List):
        head = _html(block.head) if block.head is not None else ""
        items = "".join(_item_html(item) for item in block.items)
        return f"{head}<ul{_attrs(block.cls)}>{items}</ul>"
    if isinstance(block, Pre):
        if block.spans:
            inner = "".join(f"<span{_attrs(cls)}>{escape(line)}\n</span>" for cls, line in block.spans)
        else:
            inner = escape(block.content)
        return f"<pre{_attrs(block.cls)}>{inner}</pre>"
    if block.table:
        rows = "".join(
            f'<tr><th scope="row">{escape(name)}</th><td>{_inline_html([value])}</td></tr>'
            for name, value in block.rows
        )
        return f"<table{_attrs(block.cls)}>{rows}</table>"
    rows = "".join(f"<dt>{escape(name)}</dt><dd>{_inline_html([value])}</dd>" for name, value in block.rows)
    return f"<dl{_attrs(block.cls)}>{rows}</dl>"


def _item_html(item: Block) -> str:
    """A list item: a line whose tag is ``li`` as it is (with its attributes), a plain line's
    pieces, or any other block, in an ``<li>``."""
    if isinstance(item, Line) and item.tag == "li":
        return _html(item)
    if isinstance(item, Line) and not item.cls and not item.attrs:
        return f"<li>{_inline_html(item.parts)}</li>"
    return f"<li>{_html(item)}</li>"


def _each(blocks: Block | Sequence[Block]) -> Sequence[Block]:
    return blocks if isinstance(blocks, Sequence) else [blocks]


def html(blocks: Block | Sequence[Block]) -> str:
    """The blocks as HTML, every text escaped."""
    return "".join(_html(b) for b in _each(blocks))


# -- text --------------------------------------------------------------------------------------


def _inline_text(parts: Iterable[Inline]) -> str:
    return "".join(p if isinstance(p, str) else f"~~{p.text}~~" if p.tag == "s" else p.text for p in parts)


def _lines(block: Block, depth: int) -> list[str]:
    pad = INDENT * depth
    if isinstance(block, Line):
        return [pad + line for line in _inline_text(block.parts).splitlines() or [""]]
    if isinstance(block, Group | List):
        head = _lines(block.head, depth) if block.head is not None else []
        under = depth + 1 if head else depth
        body = block.body if isinstance(block, Group) else block.items
        return head + [line for b in body for line in _lines(b, under)]
    if isinstance(block, Fold):
        return [pad + _inline_text(block.summary)] + [
            line for b in block.body for line in _lines(b, depth + 1)
        ]
    if isinstance(block, Pre):
        content = "\n".join(line for _, line in block.spans) if block.spans else block.content
        return [pad + line for line in content.splitlines()]
    return [pad + f"{name}: {_inline_text([value])}" for name, value in block.rows]


def text(blocks: Block | Sequence[Block], depth: int = 0) -> list[str]:
    """The blocks as lines of plain text, ``depth`` steps in."""
    return [
        line for b in ([blocks] if not isinstance(blocks, Sequence) else blocks) for line in _lines(b, depth)
    ]
