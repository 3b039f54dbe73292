"""Two answers side by side as Markdown with the passages that differ marked: blocks compared,
white space aside, each rendered by the project's renderer (raw HTML escaped), a block only one
has or that changed marked with a rule and a word; past the bounds both unmarked, said so."""

from __future__ import annotations

import re

import pytest

from deepnb.core.text import markdown_diff
from deepnb.core.text.markdown_diff import UNMARKED, marked_pair
from deepnb.core.text.markup import markdown, markdown_blocks

BEFORE = "# Tides\n\nThe **tide** rises.\n\n- one\n- two\n\n<script>alert(1)</script> old end.\n"
AFTER = (
    "# Tides\n\nThe   **tide**\nrises.\n\n- one\n- three\n\n<script>alert(1)</script> old end.\n\nAdded.\n"
)


def _marked(html: str) -> list[str]:
    """The labels of the marked blocks, in order."""
    return re.findall(r'<div class="dnb-diff-label"[^>]*>([^<]*)</div>', html)


def test_blocks_are_the_top_level_markdown_blocks() -> None:
    assert markdown_blocks(BEFORE) == [
        "# Tides\n",
        "The **tide** rises.\n",
        "- one\n- two\n",
        "<script>alert(1)</script> old end.\n",
    ]


def test_the_blocks_that_differ_are_marked_on_each_side_and_the_rest_is_as_rendered() -> None:
    left, right = marked_pair(BEFORE, AFTER, before_name="a", after_name="b")
    assert _marked(left) == ["changed in b"]
    assert _marked(right) == ["changed from a", "not in a"]
    assert "<li>two</li>" in left and "<li>three</li>" in right
    # unchanged blocks (white space aside) are rendered as the renderer renders them, unmarked
    assert left.startswith(markdown("# Tides\n") + markdown("The **tide** rises.\n"))
    assert "<strong>tide</strong>" in right
    for html in (left, right):
        assert "<script>" not in html and "&lt;script&gt;" in html
    assert "border-left:3px solid #2ea043" in right and "border-left:3px solid #d32f2f" in left


def test_same_answers_mark_nothing() -> None:
    left, right = marked_pair(BEFORE, BEFORE)
    assert _marked(left) == _marked(right) == [] and left == right


def test_past_the_bound_both_are_unmarked_and_it_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(markdown_diff, "MAX_BLOCKS", 2)
    left, right = marked_pair(BEFORE, AFTER)
    assert left.endswith(UNMARKED) and right.endswith(UNMARKED) and not _marked(left + right)
