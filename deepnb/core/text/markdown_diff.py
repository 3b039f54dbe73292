"""Two answers rendered as Markdown side by side with the passages that differ marked: each
answer is cut into its top-level blocks (paragraphs, headings, lists, code, quotes, tables), the
two lists of blocks are compared (Myers' difference under :data:`~deepnb.core.text.word_diff.BUDGET`,
white space aside), and each block is rendered by the project's Markdown renderer (raw HTML
escaped) — a block only one answer has, or that changed, is marked with a coloured rule and a
word saying so (for readers who do not see the colour). Past :data:`MAX_BLOCKS` blocks, or the
budget, both are rendered unmarked and a line says why."""

from __future__ import annotations

from deepnb.core.text.markup import escape, markdown, markdown_blocks
from deepnb.core.text.word_diff import diff_opcodes

MAX_BLOCKS = 500
"""Blocks of each answer compared at most."""
REMOVED = "border-left:3px solid #d32f2f;padding-left:6px;margin:2px 0"
ADDED = "border-left:3px solid #2ea043;padding-left:6px;margin:2px 0"
LABEL = "font-size:11px;color:#888"
UNMARKED = "<p><i>The answers are too long to mark the passages that differ.</i></p>"


def _key(block: str) -> str:
    return " ".join(block.split())


def _marked(blocks: list[str], style: str, label: str) -> str:
    body = "".join(markdown(block) for block in blocks)
    return (
        f'<div class="dnb-diff-block" style="{style}" aria-label="{escape(label)}">'
        f'<div class="dnb-diff-label" style="{LABEL}">{escape(label)}</div>{body}</div>'
    )


def marked_pair(
    before: str, after: str, *, before_name: str = "the first", after_name: str = "this one"
) -> tuple[str, str]:
    """``before`` and ``after`` as escaped HTML from their Markdown, each with the blocks the
    other lacks marked: in ``before``'s, those removed or changed; in ``after``'s, those added or
    changed. Beyond the bounds, both unmarked with a line saying so."""
    old, new = markdown_blocks(before), markdown_blocks(after)
    ops = None
    if len(old) <= MAX_BLOCKS and len(new) <= MAX_BLOCKS:
        ops = diff_opcodes([_key(b) for b in old], [_key(b) for b in new])
    if ops is None:
        return markdown(before) + UNMARKED, markdown(after) + UNMARKED
    left: list[str] = []
    right: list[str] = []
    for op, a1, a2, b1, b2 in ops:
        if op == "equal":
            left.append("".join(markdown(block) for block in old[a1:a2]))
            right.append("".join(markdown(block) for block in new[b1:b2]))
            continue
        changed = op == "replace"
        if a2 > a1:
            said = f"changed in {after_name}" if changed else f"not in {after_name}"
            left.append(_marked(old[a1:a2], REMOVED, said))
        if b2 > b1:
            said = f"changed from {before_name}" if changed else f"not in {before_name}"
            right.append(_marked(new[b1:b2], ADDED, said))
    return "".join(left), "".join(right)
