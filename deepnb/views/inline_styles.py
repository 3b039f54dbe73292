"""Static HTML that reads without its stylesheet: a stylesheet's rules written onto the elements
they select, as ``style`` attributes.

JupyterLab shows an untrusted notebook's HTML through its sanitizer, which drops ``<style>``
elements and ``data-*`` attributes but keeps a ``style`` attribute's declarations whose value
it knows (plain colours, lengths, borders; never ``var()``). :class:`InlineSheet` compiles a
stylesheet once: each declaration whose value names a JupyterLab theme variable takes a plain
colour instead that reads on light and dark backgrounds alike (a mid grey, with some
transparency for lines, or a mid-tone status colour), and only properties the sanitizer keeps
are written (nor the rules for every cell of a table: JupyterLab's own table styles, kept,
draw those). The same stylesheet goes into the ``<style>`` beside the HTML with each
declaration of a theme variable ``!important`` (:func:`winning`), so where it is kept its theme
colours win over the inline ones.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import unescape

__all__ = ["NEUTRAL", "InlineSheet", "winning"]

NEUTRAL: dict[str, str] = {
    "--jp-border-color1": "#8889",
    "--jp-border-color2": "#8886",
    "--jp-layout-color2": "#8883",
    "--jp-ui-font-color1": "#888",
    "--jp-ui-font-color2": "#888",
    "--jp-brand-color1": "#3b82f6",
    "--jp-error-color1": "#e0483e",
    "--jp-warn-color1": "#e08a1e",
    "--jp-success-color1": "#2ea043",
    "--jp-code-font-family": "monospace",
}
"""The plain value each theme variable takes inline: readable on a light and a dark background."""

KEPT_PROPERTIES = frozenset(
    [
        "background",
        "background-color",
        "border",
        "border-bottom",
        "border-collapse",
        "border-color",
        "border-left",
        "border-left-color",
        "border-radius",
        "border-right",
        "border-top",
        "color",
        "display",
        "font-family",
        "font-size",
        "font-style",
        "font-weight",
        "height",
        "left",
        "list-style",
        "list-style-type",
        "margin",
        "margin-bottom",
        "margin-left",
        "margin-right",
        "margin-top",
        "max-width",
        "min-width",
        "opacity",
        "overflow",
        "padding",
        "padding-bottom",
        "padding-left",
        "padding-right",
        "padding-top",
        "position",
        "text-align",
        "text-decoration",
        "text-overflow",
        "top",
        "bottom",
        "vertical-align",
        "white-space",
        "width",
        "cursor",
    ]
)
"""Properties JupyterLab's sanitizer keeps (``@jupyterlab/apputils`` ``Sanitizer``'s
``allowedStyles``) that deepnb's stylesheets use; a declaration of any other is not inlined."""

_RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")
_VAR = re.compile(r"var\(\s*(--[\w-]+)\s*(?:,[^()]*)?\)")
_COMPOUND = re.compile(r"([a-z][a-z0-9]*)?((?:\.[\w-]+)*)((?:\[[\w-]+=[\w-]+\])*)$", re.I)
_TAG = re.compile(
    r"<(/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[^\s=/>]+(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s>]+))?)*)\s*(/?)>"
)
_ATTR = re.compile(r"([^\s=/>]+)(?:\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s>]+))?")
_STYLE_ATTR = re.compile(r"(\sstyle\s*=\s*)(\"[^\"]*\"|'[^']*')", re.I)
_CELLS = frozenset(("td", "th"))
_VOID = frozenset(
    ["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"]
)


@dataclass(frozen=True)
class _Compound:
    tag: str | None
    classes: frozenset[str]
    attrs: tuple[tuple[str, str], ...]

    def matches(self, element: _Element) -> bool:
        return (
            (self.tag is None or self.tag == element.tag)
            and self.classes <= element.classes
            and all(element.attrs.get(name) == value for name, value in self.attrs)
        )


@dataclass(frozen=True)
class _Element:
    tag: str
    classes: frozenset[str]
    attrs: dict[str, str]


@dataclass(frozen=True)
class _Rule:
    parts: tuple[tuple[str, _Compound], ...]
    """Compounds from the outermost to the element itself, each with the combinator before it."""
    style: str

    def matches(self, path: list[_Element]) -> bool:
        return self._match(len(self.parts) - 1, len(path) - 1, path)

    def _match(self, part: int, at: int, path: list[_Element]) -> bool:
        combinator, compound = self.parts[part]
        if at < 0 or not compound.matches(path[at]):
            return False
        if part == 0:
            return True
        if combinator == ">":
            return self._match(part - 1, at - 1, path)
        return any(self._match(part - 1, above, path) for above in range(at - 1, -1, -1))


def _compound(text: str) -> _Compound | None:
    found = _COMPOUND.match(text)
    if found is None or not text:
        return None
    tag, classes, attrs = found.groups()
    return _Compound(
        tag.lower() if tag else None,
        frozenset(c for c in classes.split(".") if c),
        tuple((name, value) for name, value in re.findall(r"\[([\w-]+)=([\w-]+)\]", attrs)),
    )


def _selector(text: str) -> tuple[tuple[str, _Compound], ...] | None:
    """A selector of compounds (tag, classes, ``[attr=value]``) joined by descendant or child
    combinators; ``None`` for anything else (pseudo-elements, ``:hover``...)."""
    tokens = re.sub(r"\s*>\s*", " > ", text.strip()).split()
    parts: list[tuple[str, _Compound]] = []
    combinator = " "
    for token in tokens:
        if token == ">":
            combinator = ">"
            continue
        compound = _compound(token)
        if compound is None:
            return None
        parts.append((combinator, compound))
        combinator = " "
    return tuple(parts) or None


def _every_cell(target: _Compound) -> bool:
    """Whether a rule is for every cell of a table: unless asked for, those are left to
    JupyterLab's own table styles, which an untrusted notebook keeps (written on each cell of a
    200-row table, they would double its size)."""
    return target.tag in _CELLS and not target.classes and not target.attrs


def _inline_value(value: str) -> str | None:
    """A declaration's value with its theme variables made plain; ``None`` if one has no plain value."""
    missing = False

    def plain(found: re.Match[str]) -> str:
        nonlocal missing
        if found.group(1) not in NEUTRAL:
            missing = True
        return NEUTRAL.get(found.group(1), "")

    value = _VAR.sub(plain, value).strip()
    if missing or "var(" in value:
        return None
    return re.sub(r"(?<![\d.])\.(\d)", r"0.\1", value)  # the sanitizer wants 0.75, not .75


def _declarations(body: str) -> str:
    kept = []
    for declaration in body.split(";"):
        name, colon, value = declaration.partition(":")
        name = name.strip().lower()
        plain = _inline_value(value) if colon else None
        if name in KEPT_PROPERTIES and plain:
            kept.append(f"{name}:{plain}")
    return ";".join(kept)


class InlineSheet:
    """A stylesheet compiled for writing onto elements (see the module's docstring)."""

    def __init__(self, css: str, *, cells: bool = False) -> None:
        """``cells``: also write the rules for every cell of a table (a small table's)."""
        self._rules: list[_Rule] = []
        for selectors, body in _RULE.findall(css):
            style = _declarations(body)
            if not style:
                continue
            for text in selectors.split(","):
                parts = _selector(text)
                if parts is not None and (cells or not _every_cell(parts[-1][1])):
                    self._rules.append(_Rule(parts, style))
        self._keys = {  # the classes (or the tag) an element needs for a rule to be worth trying
            id(rule): rule.parts[-1][1] for rule in self._rules
        }

    def style_of(self, path: list[_Element]) -> str:
        """The declarations the rules that select ``path[-1]`` give it, in the sheet's order."""
        element = path[-1]
        return ";".join(
            rule.style for rule in self._rules if self._keys[id(rule)].matches(element) and rule.matches(path)
        )

    def apply(self, html: str) -> str:
        """``html`` (markup deepnb wrote, every text escaped) with each element's rules as its
        ``style``, before any ``style`` it had (which so still decides); idempotent."""
        path: list[_Element] = []
        out: list[str] = []
        last = 0
        for found in _TAG.finditer(html):
            closing, tag, attributes, self_closing = found.groups()
            tag = tag.lower()
            if closing:
                for depth in range(len(path) - 1, -1, -1):
                    if path[depth].tag == tag:
                        del path[depth:]
                        break
                continue
            attrs = {
                name.lower(): unescape(value.strip("\"'")) if value else ""
                for name, value in _ATTR.findall(attributes)
            }
            path.append(_Element(tag, frozenset(attrs.get("class", "").split()), attrs))
            style = self.style_of(path)
            if self_closing or tag in _VOID:
                path.pop()
            if not style:
                continue
            out.append(html[last : found.start()])
            out.append(_with_style(found.group(0), style))
            last = found.end()
        out.append(html[last:])
        return "".join(out)


def _with_style(tag: str, style: str) -> str:
    existing = _STYLE_ATTR.search(tag)
    if existing is None:
        end = -2 if tag.endswith("/>") else -1
        return f'{tag[:end].rstrip()} style="{style}"{tag[end:]}'
    quote, value = existing.group(2)[0], existing.group(2)[1:-1]
    if value.startswith(style):
        return tag
    merged = f"{style};{value}" if value else style
    return tag[: existing.start(2)] + f"{quote}{merged}{quote}" + tag[existing.end(2) :]


def winning(css: str) -> str:
    """``css`` with each declaration that names a theme variable ``!important``: where the
    stylesheet is kept, its theme colours win over the plain ones :class:`InlineSheet` wrote
    (the other declarations are written inline as they are)."""

    def important(found: re.Match[str]) -> str:
        declarations = [d.strip() for d in found.group(2).split(";") if d.strip()]
        marked = [
            f"{d}!important" if "var(" in d and not d.endswith("!important") else d for d in declarations
        ]
        return f"{found.group(1)}{{{';'.join(marked)}}}"

    return _RULE.sub(important, css)
