"""Agent text to safe HTML: Markdown with raw HTML off, code highlighted by Pygments.

Every piece of model, tool or file text goes through :func:`escape` or :func:`markdown` before it
reaches HTML, in live views and static snapshots alike.
"""

from __future__ import annotations

import html
from functools import lru_cache
from typing import Any

from pygments import highlight as _highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.util import ClassNotFound

CODE_CLASS = "dnb-code"


def escape(text: object) -> str:
    """HTML-escape ``text`` (quotes included)."""
    return html.escape(str(text), quote=True)


def _code_block(code: str, lexer: Any) -> str:
    body = _highlight(code, lexer, HtmlFormatter(nowrap=True))
    return f'<pre class="{CODE_CLASS}"><code>{body}</code></pre>\n'


def highlight(code: str, language: str = "") -> str:
    """``code`` as highlighted, escaped HTML (plain escaped text for an unknown language)."""
    try:
        lexer = get_lexer_by_name(language or "text", stripall=False)
    except ClassNotFound:
        return f'<pre class="{CODE_CLASS}"><code>{escape(code)}</code></pre>'
    return _code_block(code, lexer)


def highlight_file(text: str, path: str) -> str:
    """A file's text as highlighted, escaped HTML, the language guessed from its name."""
    try:
        lexer = get_lexer_for_filename(path.rsplit("/", 1)[-1], stripall=False)
    except ClassNotFound:
        return highlight(text)
    return _code_block(text, lexer)


@lru_cache(maxsize=1)
def _parser():
    from markdown_it import MarkdownIt

    def fence(code: str, language: str, _attrs: str) -> str:
        return highlight(code, language.strip().split(" ")[0] if language else "")

    return MarkdownIt("commonmark", {"html": False, "linkify": False, "highlight": fence}).enable(
        ["table", "strikethrough"]
    )


def markdown(text: str) -> str:
    """Render Markdown to HTML with raw HTML escaped and unsafe links dropped."""
    rendered = _parser().render(text)
    return rendered.replace("<a href=", '<a target="_blank" rel="noopener noreferrer" href=')


@lru_cache(maxsize=1)
def code_css(scope: str = ".deepnb") -> str:
    """The Pygments style rules for highlighted code inside ``scope``."""
    rules = HtmlFormatter().get_style_defs(f"{scope} .{CODE_CLASS}").splitlines()
    return "\n".join(rule for rule in rules if rule.startswith(scope))
