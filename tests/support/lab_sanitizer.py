"""JupyterLab's HTML sanitizer, in Python, for tests: what an untrusted notebook's ``text/html``
keeps (``@jupyterlab/apputils``' ``Sanitizer`` over sanitize-html, the 4.x rules).

Tags outside the allow-list are dropped (``<style>`` and ``<script>`` with their content, the rest
keeping their text); attributes outside the allow-list go (``data-*``, ``aria-*``, ``role``);
a ``style`` attribute keeps only the declarations whose value matches the property's rule, and
goes when none is left. The property rules ported are those of the properties deepnb's snapshots
write; any other property is dropped, which is stricter than JupyterLab, never looser.
"""

from __future__ import annotations

import re
from html import escape
from html.parser import HTMLParser


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


ALLOWED_TAGS = _words(
    "a abbr acronym address area article aside audio b bdi bdo big blockquote br button canvas "
    "caption center cite code col colgroup colspan command data datalist dd del details dfn dir div "
    "dl dt em fieldset figcaption figure font footer form h1 h2 h3 h4 h5 h6 header hgroup hr i img "
    "input ins kbd label legend li map mark menu meter nav nobr ol optgroup option output p pre "
    "progress q rowspan s samp section select small source span strike strong sub summary sup table "
    "tbody td textarea tfoot th thead time tr track tt u ul var video wbr"
)
DROPPED_WITH_CONTENT = _words("script style textarea option noscript")
GLOBAL_ATTRIBUTES = _words(
    "class dir draggable hidden id inert itemprop itemref itemscope lang spellcheck style title translate"
)
_CELL_ATTRIBUTES = _words(
    "abbr align axis bgcolor char charoff colspan headers height nowrap rowspan scope valign width"
)
TAG_ATTRIBUTES: dict[str, frozenset[str]] = {
    "a": _words("accesskey coords href hreflang name rel shape tabindex target type"),
    "details": _words("open"),
    "img": _words("align alt border height hspace ismap name src usemap vspace width"),
    "td": _CELL_ATTRIBUTES,
    "th": _CELL_ATTRIBUTES,
    "table": _words("align bgcolor border cellpadding cellspacing frame rules summary width"),
    "li": _words("type value"),
    "ol": _words("compact reversed start type"),
    "del": _words("cite datetime"),
    "ins": _words("cite datetime"),
}
VOID = _words("area br col hr img input source track wbr")

# sanitizer.ts, CssProp: numbers, lengths, colours
_NUMBER = r"[+-]?([0-9]*[.])?[0-9]+(e-?[0-9]*)?"
_NUMBER_POS = r"[+]?([0-9]*[.])?[0-9]+(e-?[0-9]*)?"
_ZERO_FF = r"([0-9]|[1-9][0-9]|1[0-9][0-9]|2[0-4][0-9]|25[0-5])"
_ZERO_ONE = r"[+]?(1([.][0]+)?|0([.][0-9]+)?)"
_ZERO_HUNDRED = r"[+]?(([0-9]|[1-9][0-9])([.][0-9]+)?|100)"
_UNITS = "(px|em|rem|ex|in|cm|mm|pt|pc)"
_LEN_OR_PERC = rf"(0|{_NUMBER}(px|em|rem|ex|in|cm|mm|pt|pc|%))"
_LENGTH = rf"({_NUMBER}{_UNITS}|0)"
_LENGTH_POS = rf"({_NUMBER_POS}{_UNITS}|0)"
_PERCENTAGE = rf"{_NUMBER}%"
_PERCENTAGE_POS = rf"{_NUMBER_POS}%"
_COLOR_NAMES = (
    "black|blue|gray|green|grey|orange|red|white|transparent|silver|darkgray|dimgray|lightgray|"
    "lightgrey|darkgreen|darkred|crimson|firebrick|forestgreen|goldenrod|navy|teal|purple|yellow"
)
_COLOR = (
    r"\#(0x)?[0-9a-f]+"
    r"|rgb\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)"
    rf"|rgba\(\s*(\d{{1,3}})\s*,\s*(\d{{1,3}})\s*,\s*(\d{{1,3}})\s*,\s*({_ZERO_FF}|{_ZERO_ONE}|{_ZERO_HUNDRED}%)\s*\)"
    rf"|{_COLOR_NAMES}"
)
_BORDER_STYLE = "none|hidden|dotted|dashed|solid|double|groove|ridge|inset|outset"
_BORDER_WIDTH = rf"thin|medium|thick|{_LENGTH}"
_BORDER = rf"(({_BORDER_WIDTH}|{_BORDER_STYLE}|{_COLOR})\s*){{1,3}}"
_MARGIN_WIDTH = rf"{_LEN_OR_PERC}|auto"
_PADDING_WIDTH = rf"{_LENGTH_POS}|{_PERCENTAGE_POS}"
_IDENT = r"-?([_a-z]|[\xA0-\xFF])([_a-z0-9-]|[\xA0-\xFF])*"
_FAMILY = rf"(\"[^\"]*\"|'[^']*'|({_IDENT}\s*)+|serif|sans-serif|cursive|fantasy|monospace)"
_LIST_STYLE_TYPE = (
    "disc|circle|square|decimal|decimal-leading-zero|lower-roman|upper-roman|lower-greek|"
    "lower-latin|upper-latin|armenian|georgian|lower-alpha|upper-alpha|none"
)

STYLE_RULES: dict[str, str] = {
    "background": rf"(({_COLOR})\s*)+",
    "background-color": _COLOR,
    "border": _BORDER,
    "border-bottom": _BORDER,
    "border-left": _BORDER,
    "border-right": _BORDER,
    "border-top": _BORDER,
    "border-collapse": "collapse|separate",
    "border-spacing": rf"{_LENGTH}\s*({_LENGTH})?",
    "table-layout": "auto|fixed",
    "border-color": rf"(({_COLOR})\s*){{1,4}}",
    "border-left-color": _COLOR,
    "border-radius": rf"(({_LEN_OR_PERC})\s*){{1,4}}(\/\s*(({_LEN_OR_PERC})\s*){{1,4}})?",
    "bottom": rf"{_LEN_OR_PERC}|auto",
    "color": _COLOR,
    "cursor": "auto|crosshair|default|pointer|move|text|wait|help|progress|not-allowed",
    "display": "inline|block|list-item|inline-block|table|inline-table|table-cell|table-row|flex|grid|none",
    "font-family": rf"{_FAMILY}(,\s*{_FAMILY})*",
    "font-size": rf"xx-small|x-small|small|medium|large|x-large|xx-large|{_LENGTH_POS}|{_PERCENTAGE_POS}",
    "font-style": "normal|italic|oblique",
    "font-weight": "normal|bold|bolder|lighter|100|200|300|400|500|600|700|800|900",
    "height": rf"{_LENGTH}|{_PERCENTAGE}|auto",
    "left": rf"{_LEN_OR_PERC}|auto",
    "list-style": rf"(({_LIST_STYLE_TYPE}|inside|outside|none}})\s*){{1,3}}",
    "list-style-type": _LIST_STYLE_TYPE,
    "margin": rf"(({_MARGIN_WIDTH})\s*){{1,4}}",
    "margin-bottom": _MARGIN_WIDTH,
    "margin-left": _MARGIN_WIDTH,
    "margin-right": _MARGIN_WIDTH,
    "margin-top": _MARGIN_WIDTH,
    "max-width": rf"{_LENGTH_POS}|{_PERCENTAGE_POS}|none|auto",
    "min-width": rf"{_LENGTH_POS}|{_PERCENTAGE_POS}|auto",
    "opacity": _ZERO_ONE,
    "overflow": "visible|hidden|scroll|auto",
    "padding": rf"(({_PADDING_WIDTH})\s*){{1,4}}",
    "padding-bottom": _PADDING_WIDTH,
    "padding-left": _PADDING_WIDTH,
    "padding-right": _PADDING_WIDTH,
    "padding-top": _PADDING_WIDTH,
    "position": "static|relative|absolute",
    "text-align": "left|right|center|justify",
    "text-decoration": r"none|((underline|overline|line-through|blink)\s*)+",
    "text-overflow": r"((clip|ellipsis)\s*){1,2}",
    "top": rf"{_LENGTH}|{_PERCENTAGE}|auto",
    "vertical-align": rf"baseline|sub|super|top|text-top|middle|bottom|text-bottom|{_LEN_OR_PERC}",
    "white-space": "normal|pre|nowrap|pre-wrap|pre-line",
    "width": rf"{_LENGTH_POS}|{_PERCENTAGE_POS}|auto",
}
_COMPILED = {name: re.compile(f"^({rule})$", re.I) for name, rule in STYLE_RULES.items()}


def kept_style(style: str) -> str:
    """The declarations of a ``style`` attribute the sanitizer keeps, as ``name:value;...``."""
    kept = []
    for declaration in style.split(";"):
        name, colon, value = declaration.partition(":")
        name, value = name.strip().lower(), value.strip()
        rule = _COMPILED.get(name)
        if colon and rule is not None and rule.match(value):
            kept.append(f"{name}:{value}")
    return ";".join(kept)


class _Sanitizer(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.dropping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in DROPPED_WITH_CONTENT:
            self.dropping += 1
            return
        if self.dropping or tag not in ALLOWED_TAGS:
            return
        allowed = GLOBAL_ATTRIBUTES | TAG_ATTRIBUTES.get(tag, frozenset())
        kept = []
        for name, value in attrs:
            if name not in allowed:
                continue
            if name == "style":
                value = kept_style(value or "")
                if not value:
                    continue
            kept.append(f' {name}="{escape(value or "")}"')
        self.out.append(f"<{tag}{''.join(kept)}>")

    def handle_endtag(self, tag: str) -> None:
        if tag in DROPPED_WITH_CONTENT:
            self.dropping = max(0, self.dropping - 1)
            return
        if not self.dropping and tag in ALLOWED_TAGS and tag not in VOID:
            self.out.append(f"</{tag}>")

    def handle_data(self, data: str) -> None:
        if not self.dropping:
            self.out.append(escape(data, quote=False))


def sanitize(html: str) -> str:
    """``html`` as JupyterLab shows it in an untrusted notebook."""
    parser = _Sanitizer()
    parser.feed(html)
    parser.close()
    return "".join(parser.out)


def unstyled(html: str) -> str:
    """``html`` without its ``style`` attributes: the markup as the stylesheet alone styles it,
    for tests that look for an element's classes and text."""
    return re.sub(r'\sstyle="[^"]*"', "", html)
