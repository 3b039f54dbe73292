"""``bench.state(thread, at)`` and ``bench.diff(thread, a, b)`` drawn: a step's state (its
messages, todos, files, structured response and other keys) and what changed between two steps
(messages, todos, each file's line diff, other keys), each described once with
:mod:`deepnb.views.blocks` and drawn as escaped HTML and as text.

Both are bounded whatever the state's size: the last :data:`MESSAGES_SHOWN` messages, each cut
at :data:`TEXT_SHOWN` characters, the first :data:`FILES_SHOWN` files, :data:`DIFF_SHOWN` diff
lines in all, each section saying how many more there are and where to read them.
"""

from __future__ import annotations

from collections.abc import Sequence

from deepnb.engine.step_state import (
    FileDiff,
    StateDiff,
    StepState,
    TodoChange,
    clip,
    role_of,
    said,
    short_repr,
)
from deepnb.views import blocks
from deepnb.views.blocks import Block, Em, Fields, Grid, Group, Line, Pre
from deepnb.views.history_view import saved_at
from deepnb.views.listings import size_label
from deepnb.views.styles import inline

MESSAGES_SHOWN = 30
TEXT_SHOWN = 400
FILES_SHOWN = 40
KEYS_SHOWN = 30
DIFF_SHOWN = 400
"""Diff lines a drawn :class:`StateDiff` shows over all its files."""
FILE_DIFFS_SHOWN = 20


def _more(count: int, what: str, where: str) -> Line:
    return Line.of(f"… {count:,} more {what}: {where}", css="dnb-muted")


def _section(title: str, body: Sequence[Block]) -> Group:
    return Group(tuple(body), head=Line.of(Em(title)), cls="dnb-state-section")


def _message_lines(state: StepState) -> list[Block]:
    messages = state.messages
    shown = messages[-MESSAGES_SHOWN:]
    lines: list[Block] = []
    if len(messages) > len(shown):
        lines.append(_more(len(messages) - len(shown), "earlier messages", "state.messages has them all"))
    lines += [Line.of(Em(role_of(m)), ": ", clip(said(m), TEXT_SHOWN)) for m in shown]
    return lines


def _file_rows(state: StepState) -> list[Block]:
    files = state.files
    rows = []
    for path, content in list(files.items())[:FILES_SHOWN]:
        size = len(content) if isinstance(content, bytes) else len(content.encode("utf-8"))
        lines = "binary" if isinstance(content, bytes) else f"{content.count(chr(10)) + bool(content):,}"
        rows.append((path, size_label(size), lines))
    found: list[Block] = [Grid(("path", "size", "lines"), tuple(rows))]
    if len(files) > FILES_SHOWN:
        found.append(_more(len(files) - FILES_SHOWN, "files", "state.files has them all"))
    return found


def state_block(state: StepState) -> Group:
    """A step's state, described once."""
    upcoming = ", ".join(state.next) or "nothing (the run ended there)"
    head = Line.of(
        Em(f"Thread {state.thread}"),
        f" · agent {state.agent} · {state.where}",
        f" · checkpoint {state.checkpoint_id}" if state.checkpoint_id else "",
        f" · saved {saved_at(state.created_at)} (UTC)" if state.created_at else "",
        f" · next: {upcoming}",
        css="dnb-head",
    )
    body: list[Block] = []
    if "messages" in state.values:
        body.append(_section(f"Messages ({len(state.messages):,})", _message_lines(state)))
    if "todos" in state.values:
        todos = [Line.of(f"[{t.get('status', '')}] ", str(t.get("content", ""))) for t in state.todos]
        body.append(_section(f"Todos ({len(todos):,})", todos or [Line.of("none", css="dnb-muted")]))
    if "files" in state.values:
        body.append(_section(f"Files ({len(state.files):,})", _file_rows(state)))
    if state.structured_response is not None:
        body.append(_section("Structured response", [Line.of(short_repr(state.structured_response, 600))]))
    other = list(state.other.items())
    if other:
        rows: list[Block] = [Fields(tuple((key, short_repr(value)) for key, value in other[:KEYS_SHOWN]))]
        if len(other) > KEYS_SHOWN:
            rows.append(_more(len(other) - KEYS_SHOWN, "keys", "state.other has them all"))
        body.append(_section("Other keys", rows))
    return Group(tuple(body), cls="deepnb-snapshot dnb-state", head=head)


def _todo_line(change: TodoChange) -> Line:
    if change.kind == "added":
        return Line.of("+ ", change.content, f" [{change.status}]")
    if change.kind == "removed":
        return Line.of("- ", change.content)
    return Line.of("~ ", change.content, f": {change.before} → {change.status}")


def _diff_class(line: str) -> str:
    if line.startswith(("+++", "---")):
        return "dnb-muted"
    return {"+": "dnb-add", "-": "dnb-del", "@": "dnb-hunk"}.get(line[:1], "")


def _file_blocks(files: Sequence[FileDiff]) -> list[Block]:
    found: list[Block] = []
    budget = DIFF_SHOWN
    for change in files[:FILE_DIFFS_SHOWN]:
        lines = change.lines[: max(0, budget)]
        budget -= len(lines)
        left = change.more + len(change.lines) - len(lines)
        title = Line.of(Em(change.kind), " ", change.path)
        spans = tuple((_diff_class(line), line) for line in lines)
        found.append(Pre("", cls="dnb-diff", spans=spans, title=title) if spans else title)
        if left:
            found.append(
                _more(left, "lines", f"diff.files has the first {len(change.lines)}; state.files the text")
            )
    if len(files) > FILE_DIFFS_SHOWN:
        found.append(_more(len(files) - FILE_DIFFS_SHOWN, "files changed", "diff.files lists them all"))
    return found


def diff_block(diff: StateDiff) -> Group:
    """What changed between two steps, described once."""
    head = Line.of(
        Em(f"Thread {diff.thread}"),
        f" · agent {diff.agent} · from {diff.before} to {diff.after}",
        css="dnb-head",
    )
    body: list[Block] = []
    if diff.messages:
        marks = {"added": "+ ", "removed": "- ", "changed": "~ "}
        lines: list[Block] = [
            Line.of(marks.get(m.kind, ""), Em(m.role), ": ", clip(m.text, TEXT_SHOWN))
            for m in diff.messages[:MESSAGES_SHOWN]
        ]
        if len(diff.messages) > MESSAGES_SHOWN:
            lines.append(_more(len(diff.messages) - MESSAGES_SHOWN, "messages", "diff.messages has them all"))
        body.append(_section(f"Messages ({len(diff.messages):,})", lines))
    if diff.todos:
        body.append(_section("Todos", [_todo_line(t) for t in diff.todos[:MESSAGES_SHOWN]]))
    if diff.files:
        body.append(_section(f"Files ({len(diff.files):,})", _file_blocks(diff.files)))
    if diff.other:
        rows = tuple((key, old, new) for key, old, new in diff.other[:KEYS_SHOWN])
        other: list[Block] = [Grid(("key", "before", "after"), rows)]
        if len(diff.other) > KEYS_SHOWN:
            other.append(_more(len(diff.other) - KEYS_SHOWN, "keys", "diff.other has them all"))
        body.append(_section("Other keys", other))
    if not body:
        body.append(Line.of("Nothing changed.", css="dnb-muted"))
    return Group(tuple(body), cls="deepnb-snapshot dnb-state", head=head)


def state_text(state: StepState) -> str:
    return "\n".join(blocks.text(state_block(state)))


def state_html(state: StepState) -> str:
    return inline(blocks.html(state_block(state)), cells=True)


def diff_text(diff: StateDiff) -> str:
    return "\n".join(blocks.text(diff_block(diff)))


def diff_html(diff: StateDiff) -> str:
    return inline(blocks.html(diff_block(diff)), cells=True)
