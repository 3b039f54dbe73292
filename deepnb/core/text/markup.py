"""Agent text to safe HTML: Markdown with raw HTML off, code highlighted by Pygments.

Every piece of model, tool or file text goes through :func:`escape` or :func:`markdown` before it
reaches HTML, in live views and static snapshots alike. Bidi control characters come out as
visible escapes (:mod:`deepnb.core.text.bidi`).

Untrusted text makes no requests: a Markdown image loads only from a ``data:image/`` URI; any
other image (remote, protocol-relative, relative, any other scheme; inline or reference-style)
becomes a placeholder naming its URL as text, which the live view can turn into the image on a
click (``data-src``, remote URLs only). Links open in a new tab with ``rel="noopener noreferrer"``.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from pygments import highlight as _highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.util import ClassNotFound

from deepnb.core.text.bidi import reveal_controls
from deepnb.core.text.code_style import themed_code_css
from deepnb.core.text.safe_display import shown_text

if TYPE_CHECKING:  # markdown-it is imported when the first Markdown is rendered
    from markdown_it import MarkdownIt
    from markdown_it.renderer import RendererHTML
    from markdown_it.token import Token
    from markdown_it.utils import EnvType, OptionsDict

CODE_CLASS = "dnb-code"
BLOCKED_IMAGE_CLASS = "dnb-image-blocked"
_INLINE_IMAGE = re.compile(r"data:image/", re.IGNORECASE)
"""The only images rendered as images: inline data, which loads nothing."""
_LOADABLE = re.compile(r"(https?:)?//", re.IGNORECASE)
"""Images the live view offers to load on a click (a relative path would hit the notebook server)."""


def escape(text: object) -> str:
    """HTML-escape ``text`` (quotes included); bidi controls become visible escapes."""
    return html.escape(reveal_controls(str(text)), quote=True)


@lru_cache(maxsize=1)
def _formatter() -> HtmlFormatter[str]:
    """One formatter for every block: making one builds Pygments' whole stylesheet (about 1 ms,
    the most of a short block's time; a report renders thousands)."""
    return HtmlFormatter(nowrap=True)


def _code_block(code: str, lexer: Any) -> str:
    body = reveal_controls(_highlight(code, lexer, _formatter()))
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


def blocked_image(src: str, alt: str) -> str:
    """The placeholder of an image that is not loaded: its URL as text. A remote URL is also
    kept in ``data-src``, for the live view's "load image" button."""
    remote = bool(_LOADABLE.match(src))
    label = ("image" if remote else "image (not shown here)") + (f": {alt}" if alt else "")
    loadable = f' data-src="{escape(src)}"' if remote else ""
    return (
        f'<span class="{BLOCKED_IMAGE_CLASS}"{loadable} data-alt="{escape(alt)}">'
        f'<span class="dnb-image-label">[{escape(label)}]</span> <code>{escape(src)}</code></span>'
    )


def _image(
    renderer: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    token = tokens[idx]
    src = str(token.attrGet("src") or "")
    alt = renderer.renderInlineAsText(token.children or [], options, env)
    if _INLINE_IMAGE.match(src):
        return f'<img src="{escape(src)}" alt="{escape(alt)}">'
    return blocked_image(src, alt)


def _link_open(
    renderer: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    token = tokens[idx]
    token.attrSet("target", "_blank")
    token.attrSet("rel", "noopener noreferrer")
    return renderer.renderToken(tokens, idx, options, env)


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    # lazy: markdown-it loads on the first Markdown rendered, not at import
    from markdown_it import MarkdownIt  # noqa: PLC0415

    def fence(code: str, language: str, _attrs: str) -> str:
        return highlight(code, language.strip().split(" ")[0] if language else "")

    parser = MarkdownIt("commonmark", {"html": False, "linkify": False, "highlight": fence})
    parser.enable(["table", "strikethrough"])
    parser.add_render_rule("image", _image)
    parser.add_render_rule("link_open", _link_open)
    return parser


def markdown(text: str) -> str:
    """Render Markdown to HTML with raw HTML escaped, unsafe links dropped, remote images turned
    into placeholders, secrets redacted and bidi controls made visible."""
    return shown_text(_parser().render(text))


def markdown_blocks(text: str) -> list[str]:
    """``text``'s top-level Markdown blocks (a paragraph, a heading, a whole list, a code block,
    a quote, a table), each as its source lines, in order; the blank lines between them left out."""
    lines = text.splitlines(keepends=True)
    spans = [t.map for t in _parser().parse(text) if t.level == 0 and t.nesting >= 0 and t.map]
    blocks = ["".join(lines[start:end]) for start, end in spans]
    return [block.rstrip() + "\n" for block in blocks]  # a list's span takes the blank line after it


@lru_cache(maxsize=1)
def code_css(scope: str = ".deepnb") -> str:
    """The style rules for highlighted code inside ``scope``: Pygments' token classes coloured by
    the notebook's theme (:mod:`deepnb.core.text.code_style`)."""
    return themed_code_css(scope, CODE_CLASS)
