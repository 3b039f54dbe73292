"""Highlighted code that follows the notebook's theme.

Pygments' default style paints code for a white page. Here each token class takes its colour from
JupyterLab's editor theme variables (``--jp-mirror-editor-*-color``; the block's background from
``--jp-cell-editor-background``), so code in a dark theme is light on dark like the notebook's
own cells; the default style's colour stays as the fallback where those variables don't exist
(GitHub, nbviewer, a plain HTML export).
"""

from __future__ import annotations

import re

from pygments.formatters import HtmlFormatter
from pygments.token import Comment, Error, Generic, Keyword, Name, Number, Operator, String, Text, _TokenType

# The JupyterLab variable (``--jp-mirror-editor-NAME-color``) each token family takes; the most
# specific family listed wins.
_FAMILIES: dict[_TokenType, str] = {
    Comment: "comment",
    Comment.Preproc: "meta",
    Keyword: "keyword",
    Operator: "operator",
    Operator.Word: "keyword",
    Number: "number",
    String: "string",
    String.Escape: "string-2",
    String.Interpol: "string-2",
    String.Regex: "string-2",
    String.Symbol: "atom",
    String.Other: "string-2",
    Name.Builtin: "builtin",
    Name.Function: "def",
    Name.Class: "def",
    Name.Namespace: "variable",
    Name.Tag: "tag",
    Name.Attribute: "attribute",
    Name.Decorator: "meta",
    Name.Constant: "atom",
    Name.Variable: "variable-2",
    Name.Exception: "error",
    Name.Entity: "variable-2",
    Name.Label: "variable-2",
    Generic.Heading: "header",
    Generic.Subheading: "header",
    Generic.Deleted: "error",
    Generic.Error: "error",
    Generic.Traceback: "error",
    Generic.Inserted: "string",
    Generic.Output: "comment",
    Generic.Prompt: "keyword",
    Error: "error",
    Text.Whitespace: "comment",
}

_COLOR = re.compile(r"(color|border): ([^;}]*?)(#[0-9A-Fa-f]{3,8})")


def _family(token: _TokenType) -> str | None:
    while token is not None:
        if token in _FAMILIES:
            return _FAMILIES[token]
        token = token.parent
    return None


def themed_code_css(scope: str, code_class: str) -> str:
    """The style rules for ``scope .code_class`` blocks: each colour a JupyterLab variable with the
    Pygments default colour as its fallback."""
    formatter = HtmlFormatter()
    block = f"{scope} .{code_class}"
    rules = [
        f"{block} {{ background: var(--jp-cell-editor-background, #f8f8f8); "
        "color: var(--jp-content-font-color1, inherit); }",
        f"{block} .hll {{ background-color: var(--jp-cell-editor-active-background, #ffffcc) }}",
    ]
    for name, (style, token, _level) in sorted(formatter.class2style.items()):
        if not name or not style:
            continue
        family = _family(token)
        if family is not None:
            style = _COLOR.sub(rf"\1: \2var(--jp-mirror-editor-{family}-color, \3)", style)
        rules.append(f"{block} .{name} {{ {style} }}")
    return "\n".join(rules)
