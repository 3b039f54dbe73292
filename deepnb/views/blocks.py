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

__all__ = [
    "Block",
    "Em",
    "Fields",
    "Fold",
    "Grid",
    "Group",
    "Inline",
    "Line",
    "List",
    "Pre",
    "Raw",
    "html",
    "text",
]

INDENT = "  "


@dataclass(frozen=True)
class Em:
    """Text set apart inside a line: bold, italic, struck out, code, or a ``span`` of a class
    (struck-out text reads ``~~so~~`` as text, a ``badge`` ``[so]``; the others read as they are).
    A ``title`` is the HTML's tooltip."""

    text: str
    tag: Literal["b", "i", "s", "code", "span"] = "b"
    cls: str = ""
    title: str = ""
    badge: bool = False


@dataclass(frozen=True)
class Raw:
    """HTML rendered already by :mod:`deepnb.core.text.markup` (which escapes what it is given)
    or by this module, taken as is, and the ``text`` it says: a piece of a line or a block of its
    own. With no ``text`` it is a picture (a chart), drawn in HTML only. ``mark``: as text, each
    line after it."""

    html: str
    text: str
    mark: str = ""


Inline = str | Em | Raw
"""A piece of a line: plain text, text set apart, or HTML rendered already."""


@dataclass(frozen=True)
class Line:
    """One line: a ``<div>`` (``tag``; ``""``: no element of its own, its pieces go straight into
    the one around it) of its pieces, with a class and attributes if given; ``mark``: as text,
    before each of its lines."""

    parts: tuple[Inline, ...]
    cls: str = ""
    attrs: Mapping[str, str] = field(default_factory=dict)
    tag: str = "div"
    mark: str = ""

    @classmethod
    def of(cls, *parts: Inline, css: str = "", tag: str = "div", mark: str = "", **attrs: str) -> Line:
        """A line of ``parts`` (empty ones left out); ``data_status="x"`` is ``data-status="x"``."""
        named = {k.replace("_", "-"): v for k, v in attrs.items()}
        return cls(tuple(p for p in parts if _said(p)), css, named, tag, mark)


def _said(piece: Inline) -> bool:
    if isinstance(piece, str):
        return bool(piece)
    return bool(piece.text or (isinstance(piece, Raw) and piece.html))


@dataclass(frozen=True)
class Group:
    """Blocks together in one element (``tag``; ``""``: none of its own); as text, a ``head``
    block (if any) and the blocks under it, ``indent`` steps further in (one under a head, none
    without, unless given)."""

    body: tuple[Block, ...]
    cls: str = ""
    head: Block | None = None
    attrs: Mapping[str, str] = field(default_factory=dict)
    tag: str = "div"
    indent: int | None = None


@dataclass(frozen=True)
class Fold:
    """A collapsed section: ``<details>`` with its summary line (``summary_cls``) and a body (in a
    ``<div>`` of ``body_cls`` when given); as text, the summary and the body ``indent`` steps
    under it."""

    summary: tuple[Inline, ...]
    body: tuple[Block, ...]
    cls: str = ""
    body_cls: str = ""
    summary_cls: str = ""
    indent: int = 1


@dataclass(frozen=True)
class List:
    """A ``head`` line (if any), then a bulleted list (``tag="ol"``: numbered) of items (each a
    line or a group; one whose tag is ``li`` is the item itself)."""

    items: tuple[Block, ...]
    head: Line | None = None
    cls: str = ""
    tag: str = "ul"


@dataclass(frozen=True)
class Pre:
    """Preformatted text, its lines kept (as text, each at the block's depth, after ``mark``);
    in HTML a ``title`` line above it (as text, the mark stands for it)."""

    content: str
    cls: str = ""
    spans: tuple[tuple[str, str], ...] = ()
    """``(class, line)`` pairs drawn as one ``<span>`` each (a diff's added and removed lines);
    ``content`` is unused when given."""
    mark: str = ""
    title: Line | None = None


@dataclass(frozen=True)
class Fields:
    """Named values, one row each: a ``<dl>`` (or a ``<table>`` with ``table``); as text,
    ``name: value`` lines. A value that is not text is set apart as code."""

    rows: tuple[tuple[str, Inline], ...]
    cls: str = ""
    table: bool = False


@dataclass(frozen=True)
class Grid:
    """A small table of columns: a ``<table>`` with a header row of ``columns``, each cell escaped
    and carrying its alignment inline (``align``, one per column, ``"left"`` when not given:
    JupyterLab right-aligns every cell of an output's table, and an untrusted notebook keeps only
    inline styles); as text, the header and each row in columns padded to their widest cell."""

    columns: tuple[str, ...]
    rows: tuple[tuple[Inline | tuple[Inline, ...], ...], ...]
    """Each row's cells: a piece of a line, or a few."""
    cls: str = "deepnb-table"
    align: tuple[Literal["left", "right"], ...] = ()

    def side(self, column: int) -> str:
        """How cells of ``column`` align."""
        return self.align[column] if column < len(self.align) else "left"


Block = Line | Group | Fold | List | Pre | Fields | Grid | Raw
"""Anything a section is made of."""


# -- HTML --------------------------------------------------------------------------------------


def _attrs(cls: str, attrs: Mapping[str, str] = {}) -> str:  # read, never changed
    found = ([("class", cls)] if cls else []) + list(attrs.items())
    return "".join(f' {name}="{escape(value)}"' for name, value in found)


def _piece_html(piece: Inline) -> str:
    if isinstance(piece, str):
        return escape(piece)
    if isinstance(piece, Raw):
        return piece.html
    title = {"title": piece.title} if piece.title else {}
    return f"<{piece.tag}{_attrs(piece.cls, title)}>{escape(piece.text)}</{piece.tag}>"


def _inline_html(parts: Iterable[Inline]) -> str:
    return "".join(_piece_html(p) for p in parts)


def _element(tag: str, cls: str, attrs: Mapping[str, str], inner: str) -> str:
    return f"<{tag}{_attrs(cls, attrs)}>{inner}</{tag}>" if tag else inner


def _html(block: Block) -> str:
    if isinstance(block, Line):
        return _element(block.tag, block.cls, block.attrs, _inline_html(block.parts))
    if isinstance(block, Raw):
        return block.html
    if isinstance(block, Group):
        head = _html(block.head) if block.head is not None else ""
        inner = head + "".join(_html(b) for b in block.body)
        return _element(block.tag, block.cls, block.attrs, inner)
    if isinstance(block, Fold):
        body = "".join(_html(b) for b in block.body)
        return (
            f"<details{_attrs(block.cls)}><summary{_attrs(block.summary_cls)}>"
            f"{_inline_html(block.summary)}</summary>"
            f"{_element('div', block.body_cls, {}, body) if block.body_cls else body}</details>"
        )
    if isinstance(block, List):
        head = _html(block.head) if block.head is not None else ""
        items = "".join(_item_html(item) for item in block.items)
        return f"{head}<{block.tag}{_attrs(block.cls)}>{items}</{block.tag}>"
    if isinstance(block, Grid):
        return _grid_html(block)
    if isinstance(block, Pre):
        if block.spans:
            inner = "".join(f"<span{_attrs(cls)}>{escape(line)}\n</span>" for cls, line in block.spans)
        else:
            inner = escape(block.content)
        title = _html(block.title) if block.title is not None else ""
        return f"{title}<pre{_attrs(block.cls)}>{inner}</pre>"
    if block.table:
        rows = "".join(
            f'<tr><th scope="row">{escape(name)}</th><td>{_inline_html([value])}</td></tr>'
            for name, value in block.rows
        )
        return f"<table{_attrs(block.cls)}>{rows}</table>"
    rows = "".join(f"<dt>{escape(name)}</dt><dd>{_inline_html([value])}</dd>" for name, value in block.rows)
    return f"<dl{_attrs(block.cls)}>{rows}</dl>"


def _pieces(cell: Inline | tuple[Inline, ...]) -> tuple[Inline, ...]:
    return cell if isinstance(cell, tuple) else (cell,)


def _cell_html(tag: str, grid: Grid, column: int, cell: Inline | tuple[Inline, ...]) -> str:
    style = f"text-align:{grid.side(column)};vertical-align:top"
    return f'<{tag} style="{style}">{_inline_html(_pieces(cell))}</{tag}>'


def _grid_html(grid: Grid) -> str:
    head = "".join(_cell_html("th", grid, n, name) for n, name in enumerate(grid.columns))
    body = "".join(
        "<tr>" + "".join(_cell_html("td", grid, n, cell) for n, cell in enumerate(row)) + "</tr>"
        for row in grid.rows
    )
    return f"<table{_attrs(grid.cls)}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _item_html(item: Block) -> str:
    """A list item: a line or group whose tag is ``li`` as it is (with its attributes), a plain
    line's pieces, or any other block, in an ``<li>``."""
    if isinstance(item, Line | Group) and item.tag == "li":
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


def _piece_text(piece: Inline) -> str:
    if isinstance(piece, str):
        return piece
    if isinstance(piece, Raw):
        return piece.text
    return f"~~{piece.text}~~" if piece.tag == "s" else f"[{piece.text}]" if piece.badge else piece.text


def _inline_text(parts: Iterable[Inline]) -> str:
    return "".join(_piece_text(p) for p in parts)


def _marked(content: str, pad: str, mark: str, *, blank: bool = True) -> list[str]:
    """Each line of ``content`` after ``pad`` and ``mark`` (one blank line for none, if ``blank``)."""
    return [pad + mark + line for line in content.splitlines() or ([""] if blank else [])]


def _lines(block: Block, depth: int) -> list[str]:
    pad = INDENT * depth
    if isinstance(block, Line):
        return _marked(_inline_text(block.parts), pad, block.mark)
    if isinstance(block, Raw):
        return _marked(block.text, pad, block.mark) if block.text else []
    if isinstance(block, Group | List):
        head = _lines(block.head, depth) if block.head is not None else []
        indent = block.indent if isinstance(block, Group) and block.indent is not None else int(bool(head))
        body = block.body if isinstance(block, Group) else block.items
        return head + [line for b in body for line in _lines(b, depth + indent)]
    if isinstance(block, Fold):
        return [pad + _inline_text(block.summary)] + [
            line for b in block.body for line in _lines(b, depth + block.indent)
        ]
    if isinstance(block, Grid):
        return [pad + line for line in _grid_lines(block)]
    if isinstance(block, Pre):
        content = "\n".join(line for _, line in block.spans) if block.spans else block.content
        return _marked(content, pad, block.mark, blank=False)
    return [pad + f"{name}: {_inline_text([value])}" for name, value in block.rows]


def _grid_lines(grid: Grid) -> list[str]:
    """The header and each row, in columns two spaces apart, each as wide as its widest cell."""
    cells = [list(grid.columns), *[[_inline_text(_pieces(c)) for c in row] for row in grid.rows]]
    widths = [max(len(row[n]) for row in cells) for n in range(len(grid.columns))]
    return [
        "  ".join(
            cell.rjust(width) if grid.side(n) == "right" else cell.ljust(width)
            for n, (cell, width) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in cells
    ]


def text(blocks: Block | Sequence[Block], depth: int = 0) -> list[str]:
    """The blocks as lines of plain text, ``depth`` steps in."""
    return [line for b in _each(blocks) for line in _lines(b, depth)]
