"""A run's timeline as a waterfall: a lane per agent (the main agent first, each subagent on its
own), a bar per model call and per tool call over the run's time, and the thread step each of
the main agent's model calls wrote (to fork there). The live view gets :func:`timeline_payload` (drawn in
``widgets/src/run/timeline.ts``); the static snapshot :func:`timeline_block`, described once and
drawn as HTML (:func:`timeline_html`, with an SVG chart) and as text (:func:`timeline_lines`,
without it). Every name is escaped."""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from typing import Any

from deepnb.core.events import agent_label
from deepnb.core.text.markup import escape
from deepnb.core.tokens import Tokens
from deepnb.views import blocks
from deepnb.views.blocks import Em, Fold, Line, List, Raw
from deepnb.views.bounds import size
from deepnb.views.run.durations import waited_words
from deepnb.views.run.tokens import UNKNOWN, token_cells

TIMELINE_BUDGET = 40 * 1024
"""Bytes the live view's timeline may take in a message: past it, the earliest bars are left out
(``run.timeline`` keeps every record)."""
WIDTH, LABEL, LANE = 640, 150, 18
"""The static chart's width, its lane labels' column and a lane's height (SVG units)."""
COLORS = {"model": "#4c78a8", "tool": "#f58518"}


def lanes(records: Sequence[Mapping[str, Any]]) -> list[str]:
    """The agents' paths in the order they first appear, the main agent first."""
    found = dict.fromkeys(["main"] if any(r["agent"] == "main" for r in records) else [])
    found.update(dict.fromkeys(str(r["agent"]) for r in records))
    return list(found)


def _total(records: Sequence[Mapping[str, Any]]) -> float:
    return max([0.001, *(float(r["end"] if r["end"] is not None else r["start"]) for r in records)])


def _tokens(record: Mapping[str, Any]) -> str:
    """A model call's tokens: ``"300 in / 20 out"``, or ``"tokens unknown"``."""
    tokens_in, tokens_out = token_cells(Tokens.of(record))
    return "tokens unknown" if tokens_in == UNKNOWN else f"{tokens_in} in / {tokens_out} out"


def _label(record: Mapping[str, Any]) -> str:
    """``"model call · main · 1.23 s · 300 in / 20 out"``, ``"tool ls · main/… · 0.01 s"``."""
    what = "model call" if record["kind"] == "model" else f"tool {record['name']}"
    took = f"{record['latency']:.2f} s" if record["latency"] is not None else "running"
    tokens = ""
    if record["kind"] == "model":
        tokens = f" · {_tokens(record)}"
    step = f" · step {record['step']}" if record.get("step") is not None else ""
    return f"{what} · {record['agent']} · {took}{tokens}{step}"


def _compact(record: Mapping[str, Any], lane: int) -> dict[str, Any]:
    bar: dict[str, Any] = {
        "kind": record["kind"],
        "lane": lane,
        "name": record["name"],
        "start": record["start"],
        "end": record["end"],
        "label": _label(record),
    }
    if record.get("step") is not None:
        bar["step"] = record["step"]
        bar["item"] = step_item(record)
    return bar


FINAL = "final"
"""Where a main step that asked for no tool shows: the run's final answer."""


def step_item(record: Mapping[str, Any]) -> str:
    """The transcript item a main model call's step shows on: the card of the first tool call it
    asked for (``tool-<call id>``, as :class:`deepnb.engine.state.RunState` names cards), else the
    final answer (:data:`FINAL`)."""
    calls = [c for c in record.get("calls") or [] if c]
    return f"tool-{calls[0]}" if calls else FINAL


def step_links(records: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Transcript item (:func:`step_item`) → the step its main model call wrote."""
    return {step_item(r): int(r["step"]) for r in records if r.get("step") is not None}


def timeline_payload(
    records: Sequence[Mapping[str, Any]], *, thread: str, waited: float = 0.0
) -> dict[str, Any]:
    """What the live view draws: ``{thread, lanes, bars, total, left_out}``, within
    :data:`TIMELINE_BUDGET`: the latest bars that fit, built from the newest back, so the work
    is the same however long the run (the earliest bars are left out first)."""
    paths = lanes(records)
    index = {path: n for n, path in enumerate(paths)}
    payload: dict[str, Any] = {
        "thread": thread,
        "lanes": [{"agent": p, "label": agent_label(p)} for p in paths],
        "bars": [],
        "total": _total(records),
        "waited": round(waited, 1),
        "left_out": len(records),
    }
    room = TIMELINE_BUDGET - size(payload)
    bars: list[dict[str, Any]] = []
    for record in reversed(records):
        bar = _compact(record, index[str(record["agent"])])
        room -= size(bar) + 2  # and the ", " between bars
        if room < 0:
            break
        bars.append(bar)
    payload["bars"], payload["left_out"] = bars[::-1], len(records) - len(bars)
    return payload


def fork_command(thread: str, step: int) -> str:
    """The magic that forks ``thread`` at ``step``, as it can be pasted into a cell (a thread id
    with spaces or quotes is quoted the way the magic's parser reads it)."""
    return f"%deepagent fork -t {shlex.quote(thread)} --at {step}"


def _summary(records: Sequence[Mapping[str, Any]], waited: float = 0.0) -> str:
    """The timeline's line: its calls over the run's time, the time it waited said apart."""
    models = sum(1 for r in records if r["kind"] == "model")
    over = f"over {_total(records):.2f} s{waited_words(waited)}"
    return f"Timeline: {models} model calls, {len(records) - models} tool calls {over}"


SNAPSHOT_BARS = 200
"""Calls the static chart draws at most: the latest (``run.timeline`` keeps every one), so a saved
notebook's timeline stays the same size however long the run."""
SNAPSHOT_STEPS = 40
"""Steps the static snapshot lists with their fork command at most: the latest."""


def timeline_block(records: Sequence[Mapping[str, Any]], *, thread: str, waited: float = 0.0) -> Fold | None:
    """The waterfall, described once: a collapsed section of its chart (a static SVG, drawn in
    HTML only) and the main agent's steps with the ``%deepagent fork`` that starts a thread at
    each (``None`` for a run with no calls). A long run's chart draws its latest
    :data:`SNAPSHOT_BARS` calls and the section lists its latest :data:`SNAPSHOT_STEPS` steps,
    saying how many earlier ones it leaves out."""
    if not records:
        return None
    summary = _summary(records, waited)
    steps, earlier = _listed_steps(records)
    rows = [
        Line.of(
            f"step {r['step']} · {r['latency']:.2f} s · {_tokens(r)} — fork: ",
            Em(fork_command(thread, r["step"]), "code"),
            tag="li",
            data_step=str(r["step"]),
        )
        for r in steps
    ]
    if rows and earlier:
        rows.insert(0, Line.of(_earlier_steps(earlier, thread), css="dnb-muted", tag="li"))
    listed = (List(tuple(rows), cls="dnb-timeline-steps", tag="ol"),) if rows else ()
    return Fold((summary,), (Raw(_chart(records, summary), ""), *listed), cls="dnb-timeline")


def _chart(records: Sequence[Mapping[str, Any]], summary: str) -> str:
    """The chart's legend and its SVG, every name escaped."""
    paths = lanes(records)
    index = {path: n for n, path in enumerate(paths)}
    total = _total(records)
    drawn = records[-SNAPSHOT_BARS:]
    origin = drawn[0]["start"] if len(drawn) < len(records) else 0.0
    scale = (WIDTH - LABEL - 4) / max(0.001, total - origin)
    height = LANE * len(paths) + 4
    shapes = [
        f'<text x="0" y="{n * LANE + 13}" font-size="11" fill="currentColor">'
        f"<title>{escape(path)}</title>{escape(_clipped(path.rsplit('/', 1)[-1]))}</text>"
        for n, path in enumerate(paths)
    ]
    for record in drawn:
        end = record["end"] if record["end"] is not None else total
        x = LABEL + (record["start"] - origin) * scale
        width = max(1.0, (end - record["start"]) * scale)
        kind = record["kind"]
        tall = 10 if kind == "model" else 6
        y = index[str(record["agent"])] * LANE + (3 if kind == "model" else 8)
        shapes.append(
            f'<rect x="{x:.1f}" y="{y}" width="{width:.1f}" height="{tall}" fill="{COLORS[kind]}" '
            f'data-kind="{kind}"><title>{escape(_label(record))}</title></rect>'
        )
    svg = (
        f'<svg class="dnb-timeline-chart" role="img" aria-label="{escape(summary)}" '
        f'viewBox="0 0 {WIDTH} {height}" width="100%" style="max-width:{WIDTH}px">{"".join(shapes)}</svg>'
    )
    if len(drawn) < len(records):
        svg = (
            f'<div class="dnb-muted">The latest {len(drawn):,} calls, from {origin:.2f} s; '
            f"{len(records) - len(drawn):,} earlier calls are in run.timeline.</div>{svg}"
        )
    return (
        f'<div class="dnb-muted">model calls <span style="color:{COLORS["model"]}">■</span> · tool calls '
        f'<span style="color:{COLORS["tool"]}">■</span></div>{svg}'
    )


def timeline_html(records: Sequence[Mapping[str, Any]], *, thread: str, waited: float = 0.0) -> str:
    """The timeline as HTML (:func:`timeline_block`; ``""`` for a run with no calls)."""
    block = timeline_block(records, thread=thread, waited=waited)
    return blocks.html(block) if block is not None else ""


def _listed_steps(records: Sequence[Mapping[str, Any]]) -> tuple[list[Mapping[str, Any]], int]:
    """The main agent's ended steps a snapshot lists (the latest :data:`SNAPSHOT_STEPS`), and how
    many earlier ones it leaves out."""
    steps = [r for r in records if r.get("step") is not None and r["latency"] is not None]
    return steps[-SNAPSHOT_STEPS:], max(0, len(steps) - SNAPSHOT_STEPS)


def _earlier_steps(count: int, thread: str) -> str:
    return f"… {count:,} earlier steps: %deepagent history -t {shlex.quote(thread)} lists them"


def _clipped(text: str, limit: int = 22) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def timeline_lines(records: Sequence[Mapping[str, Any]], *, thread: str, waited: float = 0.0) -> list[str]:
    """The timeline in plain text (:func:`timeline_block`): its summary and the main agent's
    latest steps, each with its fork."""
    block = timeline_block(records, thread=thread, waited=waited)
    return blocks.text(block) if block is not None else []
