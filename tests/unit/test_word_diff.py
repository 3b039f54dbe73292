"""Two answers' word diff: a shortest edit script, escaped, and bounded work whatever the answers
are (two hostile 200k-character answers are said to differ, or marked whole, at once)."""

from __future__ import annotations

import difflib
import random
import sys
from typing import Any

import pytest

from deepnb.core.text import word_diff
from deepnb.core.text.word_diff import BUDGET, MAX_WORDS, TOO_LONG, word_diff_html, word_opcodes


def _rebuilt(old: list[str], new: list[str], ops: list[tuple[str, int, int, int, int]]) -> None:
    at_a = at_b = 0
    for op, a1, a2, b1, b2 in ops:
        assert (a1, b1) == (at_a, at_b)
        if op == "equal":
            assert old[a1:a2] == new[b1:b2]
        at_a, at_b = a2, b2
    assert (at_a, at_b) == (len(old), len(new))


def test_the_edit_script_is_whole_and_no_longer_than_difflibs() -> None:
    chance = random.Random(7)
    for _ in range(500):
        old = [chance.choice("ab\n ") for _ in range(chance.randint(0, 25))]
        new = [chance.choice("ab\n ") for _ in range(chance.randint(0, 25))]
        by_lines = word_opcodes(old, new, budget=10**9)
        assert by_lines is not None
        _rebuilt(old, new, by_lines)
        ops = word_diff.opcodes(old, new, word_diff._Budget(10**9))  # one level: a shortest script
        _rebuilt(old, new, ops)
        edits = sum(a2 - a1 + b2 - b1 for op, a1, a2, b1, b2 in ops if op != "equal")
        matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
        theirs = sum(a2 - a1 + b2 - b1 for op, a1, a2, b1, b2 in matcher.get_opcodes() if op != "equal")
        assert edits <= theirs


def test_changed_words_are_marked_within_their_lines_and_escaped() -> None:
    before = "# Title\n\nOne <b>two</b> three.\nSame line.\n"
    after = "# Title\n\nOne <b>2</b> three.\nSame line.\nAdded.\n"
    html = word_diff_html(before, after)
    assert html == (
        "# Title\n\nOne <del>&lt;b&gt;two&lt;/b&gt;</del><ins>&lt;b&gt;2&lt;/b&gt;</ins> three.\n"
        "Same line.\n<ins>Added.\n</ins>"
    )
    assert "<b>" not in html


def _calls(work: Any) -> int:
    counted = [0]

    def count(frame: Any, event: str, arg: Any) -> None:
        if event in ("call", "c_call"):
            counted[0] += 1

    sys.setprofile(count)
    try:
        work()
    finally:
        sys.setprofile(None)
    return counted[0]


_pick = {seed: random.Random(seed).choice for seed in (1, 2, 3, 4)}
HOSTILE = {
    "different words, one line": (
        " ".join(_pick[1]("abc") for _ in range(100_000)),
        " ".join(_pick[2]("abd") for _ in range(100_000)),
    ),
    "different lines": (
        "\n".join(_pick[3]("abc") for _ in range(100_000)),
        "\n".join(_pick[4]("abd") for _ in range(100_000)),
    ),
    "one word repeated": ("a " * 100_000, "a b " * 50_000),
    "no white space": ("x" * 200_000, "y" * 200_000),
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_two_hostile_answers_cost_a_bounded_work(name: str) -> None:
    before, after = HOSTILE[name]
    assert len(before) >= 199_999 and len(after) >= 199_999
    shown: list[str] = []
    calls = _calls(lambda: shown.append(word_diff_html(before, after)))
    # the budget's steps, and a call or two per token read (at most MAX_WORDS + 1 of each answer)
    assert calls < 2 * BUDGET + 6 * MAX_WORDS
    html = shown[0]
    assert html == TOO_LONG or ("<del>" in html and "<ins>" in html)
    assert len(html) < 4 * len(before)


def test_a_small_budget_marks_changed_lines_whole_or_says_they_differ() -> None:
    before = "keep\n" + " ".join(f"w{i}" for i in range(300)) + "\nend"
    after = "keep\n" + " ".join(f"v{i}" for i in range(300)) + "\nend"
    assert word_diff_html(before, after, budget=50) == (
        f"keep\n<del>{before.split(chr(10))[1]}\n</del><ins>{after.split(chr(10))[1]}\n</ins>end"
    )
    many = "\n".join(f"line {i}" for i in range(200))
    assert word_diff_html(many, many.replace("line", "row"), budget=50) == TOO_LONG
    assert word_diff.same_words("a  b", "a b")
