"""A batch as rows: the short form each input takes in the grid and in its static snapshot (an
HTML table and plain text for places where widgets don't run). All text is escaped here or, in the
live grid, set as text by the front end."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from deepnb.core.schema import RUN_STATUS_LABEL, shown_as
from deepnb.core.text.markup import escape
from deepnb.core.text.safe_display import shown_text
from deepnb.core.text.secrets import redact
from deepnb.core.tokens import Tokens
from deepnb.many.batch import Batch
from deepnb.views.run.items import plural
from deepnb.views.run.tokens import token_cells, token_pair, tokens_words
from deepnb.views.styles import styled

LINE_LIMIT = 160
"""Characters of an answer's (or error's) first line a row shows."""
INPUT_LIMIT = 80
"""Characters of an input a row shows."""
SNAPSHOT_ROWS = 200
"""Rows a batch's static table and text draw (the first ones); a line counts the rest."""
ORDER = ("running", "interrupted", "queued", "done", "error", "cancelled")
"""The statuses in the order the progress line counts them."""


def status_label(status: str) -> str:
    """A row's status in words (``queued`` for an input whose run has not started)."""
    return shown_as(RUN_STATUS_LABEL, status, status)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def first_line(text: str | None) -> str:
    """The first line with text in it, clipped to :data:`LINE_LIMIT` characters."""
    for line in (text or "").splitlines():
        if line.strip():
            return _clip(line.strip(), LINE_LIMIT)
    return ""


def input_label(given: str | Mapping[str, Any]) -> str:
    """What a run was given, in one short line (secrets removed)."""
    text = given if isinstance(given, str) else json.dumps(dict(given), ensure_ascii=False, default=str)
    return _clip(redact(" ".join(text.split())), INPUT_LIMIT)


def grid_row(batch: Batch, index: int) -> dict[str, Any]:
    """Input ``index`` as the grid shows it (short keys: a grid of many rows goes over the wire;
    ``tokens`` is the count in words, "unknown" where no model call reported usage)."""
    row = batch.row(index)
    line = first_line(row["result"] if row["status"] == "done" else row["error"])
    return {
        "i": index,
        "input": input_label(batch.input(index).given),
        "status": row["status"],
        "steps": row["steps"],
        "tools": row["tool_calls"],
        "tokens": token_pair(Tokens.of(row)),
        "elapsed": round(float(row["elapsed"]), 1),
        "line": line,
        "waiting": bool(row["waiting"]),
    }


def batch_progress(batch: Batch) -> dict[str, Any]:
    """The counts by status, elapsed seconds and an estimate of the seconds left (``None`` until
    a run has ended)."""
    counts = batch.counts()
    total = len(batch)
    ended = counts["done"] + counts["error"] + counts["cancelled"]
    elapsed = batch.elapsed
    left = total - ended - counts["interrupted"]
    eta = None if not ended or batch.done else round(elapsed / ended * max(0, left), 1)
    return {**counts, "total": total, "ended": ended, "elapsed": round(elapsed, 1), "eta": eta}


def _progress_line(batch: Batch) -> str:
    p = batch_progress(batch)
    counts = ", ".join(f"{p[s]} {status_label(s)}" for s in ORDER if p[s])
    eta = f" · about {p['eta']:.0f} s left" if p["eta"] is not None else ""
    return (
        f"deepnb · batch of {plural(p['total'], 'run')} · agent {batch.session.name} · "
        f"{p['ended']} of {p['total']} ended ({counts}) · {p['elapsed']:.1f} s{eta}"
    )


def batch_text(batch: Batch) -> str:
    """The batch as plain text: the progress line, then a line per input."""
    lines = [_progress_line(batch)]
    for index in range(min(len(batch), SNAPSHOT_ROWS)):
        r = grid_row(batch, index)
        tokens = tokens_words(batch.row(index))
        lines.append(
            f"{index:>4} {status_label(r['status']):<26} {plural(r['steps'], 'step')} · "
            f"{plural(r['tools'], 'tool call')} · {tokens} · "
            f"{r['elapsed']:.1f} s · {r['input']} → {r['line']}"
        )
    if len(batch) > SNAPSHOT_ROWS:
        lines.append(_more_rows(batch))
    return shown_text(redact("\n".join(lines)))


_CSS = """
.deepnb-batch-snapshot table{border-collapse:collapse;font-size:12.5px;width:100%}
.deepnb-batch-snapshot th,.deepnb-batch-snapshot td{border-bottom:1px solid var(--jp-border-color2,#ddd);
 padding:2px 6px;text-align:left;vertical-align:top}
.deepnb-batch-snapshot th.dnb-num,.deepnb-batch-snapshot td.dnb-num{text-align:right;
 font-variant-numeric:tabular-nums}
.deepnb-batch-snapshot th.dnb-text,.deepnb-batch-snapshot td.dnb-text{text-align:left}
.deepnb-batch-snapshot tr[data-status=error] td.dnb-st{color:var(--jp-error-color1,#d32f2f)}
.deepnb-batch-snapshot tr[data-status=interrupted] td.dnb-st{color:var(--jp-warn-color1,#f57c00)}
"""
HEADERS = ("#", "input", "status", "steps", "tool calls", "tokens in", "tokens out", "time", "answer")
NUMBER_COLUMNS = frozenset({0, 3, 4, 5, 6, 7})
"""The columns of :data:`HEADERS` that hold numbers: right-aligned, the others left (every cell
says which, as JupyterLab's output area right-aligns every cell an untrusted notebook leaves bare)."""


def batch_html(batch: Batch) -> str:
    """The batch as a static HTML table (every text escaped)."""
    head = "".join(
        f'<th class="{"dnb-num" if i in NUMBER_COLUMNS else "dnb-text"}">{escape(h)}</th>'
        for i, h in enumerate(HEADERS)
    )
    body = []
    for index in range(min(len(batch), SNAPSHOT_ROWS)):
        r = grid_row(batch, index)
        tokens_in, tokens_out = token_cells(Tokens.of(batch.row(index)))
        body.append(
            f'<tr data-status="{escape(r["status"])}"><td class="dnb-num">{index}</td>'
            f'<td class="dnb-text">{escape(r["input"])}</td>'
            f'<td class="dnb-st dnb-text">{escape(status_label(r["status"]))}</td>'
            f'<td class="dnb-num">{r["steps"]}</td><td class="dnb-num">{r["tools"]}</td>'
            f'<td class="dnb-num">{escape(tokens_in)}</td><td class="dnb-num">{escape(tokens_out)}</td>'
            f'<td class="dnb-num">{r["elapsed"]:.1f} s</td><td class="dnb-text">{escape(r["line"])}</td></tr>'
        )
    more = f'<div class="dnb-muted">{escape(_more_rows(batch))}</div>' if len(batch) > SNAPSHOT_ROWS else ""
    return shown_text(
        styled(
            f'<div class="deepnb-snapshot deepnb-batch-snapshot">'
            f'<div class="dnb-head">{escape(_progress_line(batch))}</div>'
            f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>{more}</div>",
            _CSS,
        )
    )


def _more_rows(batch: Batch) -> str:
    left = len(batch) - SNAPSHOT_ROWS
    return f"… and {left:,} more rows (batch.to_records() or the live grid has every one)"


def batch_snapshot_bundle(batch: Batch) -> dict[str, str]:
    """``text/html`` and ``text/plain`` of the batch as it stands now."""
    return {"text/plain": batch_text(batch), "text/html": batch_html(batch)}
