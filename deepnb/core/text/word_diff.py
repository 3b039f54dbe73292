"""Two texts' difference word by word, as escaped HTML: what only the first has in ``<del>``, what
only the second has in ``<ins>``, the rest as it is (how a comparison shows two answers apart).

The work is bounded whatever the texts are (they are a model's answers): the common start and end
are set aside, the rest is compared line by line, then word by word within the lines that
changed, each by Myers' O(ND) difference with a budget of steps (:data:`BUDGET`). Lines whose
words would cost more than what is left are marked whole; two texts whose lines alone cost more
are said to differ, not marked (:data:`TOO_LONG`)."""

from __future__ import annotations

from collections.abc import Sequence

from deepnb.core.text.markup import escape

MAX_WORDS = 20000
"""Words (and runs of white space) of each text compared at most (the rest is said, not compared)."""
BUDGET = 100_000
"""Steps one comparison may take (a step: one diagonal of Myers' search, or one token matched)."""
TOO_LONG = "<i>The answers differ; they are too long or too different to mark word by word.</i>"
"""What a comparison says when its lines alone exceed :data:`BUDGET`."""

Op = tuple[str, int, int, int, int]
"""An opcode as difflib's: ``equal``, ``delete``, ``insert`` or ``replace`` and the two ranges."""


class _Spent(Exception):
    """The budget ran out."""


class _Budget:
    def __init__(self, steps: int) -> None:
        self.left = steps

    def spend(self, steps: int) -> None:
        self.left -= steps
        if self.left < 0:
            raise _Spent


def _words(text: str, limit: int = MAX_WORDS + 1) -> list[str]:
    """The first ``limit`` tokens of ``text``: each a run of white space (as ``str.split`` sees
    it) or of anything else; no pattern, so a long text costs a pass of ``str.split``."""
    tokens: list[str] = []
    at = 0
    for word in text.split():
        if len(tokens) >= limit:
            break
        start = text.find(word, at)  # text[at:start] is white space only: the word is there
        if start > at:
            tokens.append(text[at:start])
        tokens.append(word)
        at = start + len(word)
    if at < len(text) and len(tokens) < limit and text[at:].isspace():
        tokens.append(text[at:])
    return tokens[:limit]


def _lines(words: Sequence[str]) -> list[tuple[int, int]]:
    """The words' lines as ``(start, end)`` ranges of words (a run of white space holding a
    line break ends its line)."""
    lines, start = [], 0
    for i, word in enumerate(words):
        if "\n" in word:
            lines.append((start, i + 1))
            start = i + 1
    if start < len(words):
        lines.append((start, len(words)))
    return lines


def opcodes(a: Sequence[object], b: Sequence[object], budget: _Budget) -> list[Op]:
    """``a`` to ``b`` as difflib-like opcodes, by Myers' greedy O((N+M)D) search (a shortest
    edit script); raises :class:`_Spent` when ``budget`` runs out."""
    n, m = len(a), len(b)
    start = 0
    while start < n and start < m and a[start] == b[start]:
        start += 1
    end_a, end_b = n, m
    while end_a > start and end_b > start and a[end_a - 1] == b[end_b - 1]:
        end_a, end_b = end_a - 1, end_b - 1
    budget.spend(start + n - end_a + 1)
    middle = _myers(a[start:end_a], b[start:end_b], budget)
    ops: list[Op] = [("equal", 0, start, 0, start)] if start else []
    ops += [(op, i1 + start, i2 + start, j1 + start, j2 + start) for op, i1, i2, j1, j2 in middle]
    if end_a < n:
        ops.append(("equal", end_a, n, end_b, m))
    return ops


def _myers(a: Sequence[object], b: Sequence[object], budget: _Budget) -> list[Op]:
    n, m = len(a), len(b)
    if not n or not m:
        return [("delete" if n else "insert", 0, n, 0, m)] if n or m else []
    v = {1: 0}
    trace: list[dict[int, int]] = []
    for d in range(n + m + 1):
        trace.append(dict(v))
        budget.spend(len(v))
        for k in range(-d, d + 1, 2):
            x = v[k + 1] if k == -d or (k != d and v[k - 1] < v[k + 1]) else v[k - 1] + 1
            y = x - k
            run = x
            while x < n and y < m and a[x] == b[y]:
                x, y = x + 1, y + 1
            budget.spend(1 + x - run)
            v[k] = x
            if x >= n and y >= m:
                return _path(trace, n, m)
    raise AssertionError("unreachable: n + m edits always suffice")


def _path(trace: list[dict[int, int]], n: int, m: int) -> list[Op]:
    """The edit path found, walked back through ``trace``, as opcodes."""
    steps: list[str] = []
    x, y = n, m
    for d in range(len(trace) - 1, -1, -1):
        v, k = trace[d], x - y
        prev_k = k + 1 if k == -d or (k != d and v[k - 1] < v[k + 1]) else k - 1
        prev_x = v[prev_k]
        prev_y = prev_x - prev_k
        while x > prev_x and y > prev_y:
            steps.append("=")
            x, y = x - 1, y - 1
        if d:
            steps.append("+" if x == prev_x else "-")
        x, y = prev_x, prev_y
    steps.reverse()
    ops: list[Op] = []
    i = j = 0
    at = 0
    while at < len(steps):
        if steps[at] == "=":
            end = at
            while end < len(steps) and steps[end] == "=":
                end += 1
            ops.append(("equal", i, i + end - at, j, j + end - at))
            i, j = i + end - at, j + end - at
        else:
            end = at
            while end < len(steps) and steps[end] != "=":
                end += 1
            gone = steps[at:end].count("-")
            came = end - at - gone
            op = "replace" if gone and came else "delete" if gone else "insert"
            ops.append((op, i, i + gone, j, j + came))
            i, j = i + gone, j + came
        at = end
    return ops


def diff_opcodes(a: Sequence[object], b: Sequence[object], *, budget: int = BUDGET) -> list[Op] | None:
    """``a`` to ``b`` (any sequences of comparable items) as opcodes, a shortest edit script;
    ``None`` when finding it would take more than ``budget`` steps."""
    try:
        return opcodes(a, b, _Budget(budget))
    except _Spent:
        return None


def word_opcodes(old: Sequence[str], new: Sequence[str], *, budget: int = BUDGET) -> list[Op] | None:
    """``old`` to ``new`` (lists of words) as opcodes: compared line by line, then word by word
    within the lines that changed while the budget lasts (lines past it are one replace);
    ``None`` when the lines alone exceed ``budget``."""
    spending = _Budget(budget)
    old_lines, new_lines = _lines(old), _lines(new)
    try:
        by_line = opcodes(
            ["".join(old[s:e]) for s, e in old_lines], ["".join(new[s:e]) for s, e in new_lines], spending
        )
    except _Spent:
        return None
    ops: list[Op] = []
    for op, i1, i2, j1, j2 in by_line:
        a1 = old_lines[i1][0] if i1 < len(old_lines) else len(old)
        a2 = old_lines[i2 - 1][1] if i2 > i1 else a1
        b1 = new_lines[j1][0] if j1 < len(new_lines) else len(new)
        b2 = new_lines[j2 - 1][1] if j2 > j1 else b1
        if op != "replace":
            ops.append((op, a1, a2, b1, b2))
            continue
        try:
            inner = opcodes(old[a1:a2], new[b1:b2], spending)
        except _Spent:
            ops.append(("replace", a1, a2, b1, b2))
            continue
        ops += [(o, x1 + a1, x2 + a1, y1 + b1, y2 + b1) for o, x1, x2, y1, y2 in inner]
    return ops


def word_diff_html(before: str, after: str, *, budget: int = BUDGET) -> str:
    """``after`` against ``before``, word by word, escaped: removed words in ``<del>``, added ones
    in ``<ins>``, whitespace kept; :data:`TOO_LONG` where marking them would exceed ``budget``."""
    old, new = _words(before), _words(after)
    cut = len(old) > MAX_WORDS or len(new) > MAX_WORDS
    old, new = old[:MAX_WORDS], new[:MAX_WORDS]
    ops = word_opcodes(old, new, budget=budget)
    if ops is None:
        return TOO_LONG
    parts: list[str] = []
    for op, a1, a2, b1, b2 in ops:
        if op == "equal":
            parts.append(escape("".join(new[b1:b2])))
            continue
        if op in ("delete", "replace"):
            parts.append(f"<del>{escape(''.join(old[a1:a2]))}</del>")
        if op in ("insert", "replace"):
            parts.append(f"<ins>{escape(''.join(new[b1:b2]))}</ins>")
    if cut:
        parts.append(f" <i>… compared up to {MAX_WORDS:,} words</i>")
    return "".join(parts)


def same_words(before: str, after: str) -> bool:
    """Whether the two texts have the same words (whitespace aside)."""
    return before.split() == after.split()
