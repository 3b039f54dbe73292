"""The turns of one run view: a follow-up sent from its box continues the conversation in the same
view, so the view shows the turns before the one it streams, and its static snapshot (the cell's
record where widgets don't run) shows every turn, with the line that runs a follow-up as a cell.

Everything here reads the runs' public state (:meth:`Run.snapshot`), already redacted; each text is
escaped before it reaches HTML."""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from deepnb.core.schema import EarlierTurn, RunStateJSON
from deepnb.core.text.markup import escape
from deepnb.core.text.safe_display import shown_text
from deepnb.views.bounds import FIELD_LIMIT, clip_item, clip_text, size
from deepnb.views.run.snapshot import final_answer_id, head_line
from deepnb.views.styles import snapshot_style

if TYPE_CHECKING:
    from deepnb.session.run import Run  # at run time the views only read a run they are given

TURNS_BUDGET = 16 * 1024
"""Bytes the ``turns`` trait holds at most: past it, the oldest turns lose their answers first."""
MARK_STYLE = "margin: 10px 0 4px; font-weight: 600"
PROMPT_CHARS = 2_000
"""Characters of an earlier turn's prompt the view shows."""


def cell_line(agent: str, thread_id: str, *, auto_approve: bool = False) -> str:
    """The first line of a cell that sends a follow-up on ``thread_id`` (its prompt is the body),
    quoted the way the magic's parser reads it."""
    line = f"%%deepagent -a {shlex.quote(agent)} -t {shlex.quote(thread_id)}"
    return line + (" --auto-approve" if auto_approve else "")


CELL_SAID = ("Each follow-up as a cell: ", ", its prompt as the cell's body.")
"""The one line under a view whose box sent follow-ups, before and after the cell's first line."""


def cell_sentence(cell: str) -> str:
    """The one line under a view whose box sent follow-ups, as text."""
    return f"{CELL_SAID[0]}{cell}{CELL_SAID[1]}"


def earlier_turn(run_id: str, state: RunStateJSON) -> EarlierTurn:
    """One finished turn, compact: its prompt, its head line, its answer and its error."""
    items = state["items"]
    main = [item for item in items if item.get("agent", "main") == "main"]
    prompt = next((str(item["text"]) for item in items if item["kind"] == "prompt"), "")
    final = final_answer_id(main, state["status"])
    answer = next((item for item in main if item["id"] == final), None)
    html = str(clip_item(answer).get("html") or "") if answer else ""  # a long one shortened
    return {
        "run_id": run_id,
        "prompt": clip_text(prompt, PROMPT_CHARS),
        "status": state["status"],
        "head": head_line(state),
        "answer_html": html,
        "error": clip_text(state["error"] or "", FIELD_LIMIT),
    }


def bounded_turns(turns: Sequence[EarlierTurn], budget: int = TURNS_BUDGET) -> list[EarlierTurn]:
    """``turns`` within ``budget`` bytes: the oldest answers dropped first (each run keeps its
    whole answer: ``run.result``, ``run.follow_ups[i].result``), then the oldest turns."""
    kept = [EarlierTurn(**turn) for turn in turns]
    for turn in kept:
        if size(kept) <= budget:
            break
        turn["answer_html"] = ""
    while len(kept) > 1 and size(kept) > budget:
        kept.pop(0)
    return kept


def turns_bundle(bundles: Sequence[Mapping[str, str]], cell: str) -> dict[str, str]:
    """The static snapshot of a view's turns: each turn's own snapshot (``bundles``, oldest
    first; the styles the first one carries, once), the follow-ups marked, and the line that
    runs a follow-up as a cell."""
    if len(bundles) == 1:
        return dict(bundles[0])
    html: list[str] = []
    text: list[str] = []
    for n, bundle in enumerate(bundles):
        if n:
            html.append(f'<div class="dnb-turn-mark" style="{MARK_STYLE}">Follow-up {n}</div>')
            text.append(f"── Follow-up {n} ──")
        html.append(bundle["text/html"].removeprefix(snapshot_style()) if n else bundle["text/html"])
        text.append(bundle["text/plain"])
    before, after = CELL_SAID
    said = f"{escape(before)}<code>{escape(cell)}</code>{escape(after)}"
    html.append(f'<div class="dnb-muted dnb-follow-up-cell">{said}</div>')
    text.append(cell_sentence(cell))
    return {"text/html": shown_text("\n".join(html)), "text/plain": shown_text("\n\n".join(text))}


def turns_of(runs: Sequence[Run]) -> list[EarlierTurn]:
    """The earlier turns of a view whose runs are ``runs`` (the newest, streaming, left out)."""
    return bounded_turns([earlier_turn(run.id, run.snapshot().state) for run in runs[:-1]])
