"""A run of an experiment read from its log, described once for the notebook (a record's
display) and for the matrix (the cell opened): its place, status, tokens and latency, its scores
with their comments, its error, and its conversation as the thread preview shows a thread (the
prompts, the answers, each tool call and its result; escaped, secrets removed, within
:data:`deepnb.views.run.thread_preview.PREVIEW_BUDGET`). It is read-only: the run happened in
another kernel, and only its log is here."""

from __future__ import annotations

from deepnb.core.text.figures import number
from deepnb.core.text.markup import escape
from deepnb.core.text.secrets import redact
from deepnb.many.record import RunRecord
from deepnb.views.run.thread_preview import thread_html
from deepnb.views.run.tokens import tokens_words


def logged_head(record: RunRecord) -> str:
    """The record's head line: where it sits in the experiment, how it ended, what it cost."""
    attempts = f", {record.attempts} attempts" if record.attempts > 1 else ""
    cached = f", {record.cached} model calls from the cache" if record.cached else ""
    return (
        f"Run (row {record.row}, {record.variant}, epoch {record.epoch}): {record.status}, "
        f"{tokens_words(record.tokens.columns())}, {number(record.latency)} s{attempts}{cached}"
    )


def _score(name: str, score_text: str, comment: str | None, error: str | None) -> str:
    said = f" — {comment}" if comment else ""
    failed = f" — error: {error}" if error else ""
    return f"<li>{escape(redact(name))}: {escape(score_text)}{escape(redact(said + failed))}</li>"


def logged_run_html(record: RunRecord) -> str:
    """The record as safe HTML (no stylesheet: the matrix's, or a snapshot's, styles it)."""
    scores = "".join(_score(name, number(s.score), s.comment, s.error) for name, s in record.scores.items())
    error = f'<div class="dnb-error">{escape(redact(record.error))}</div>' if record.error else ""
    listed = f'<ul class="dnb-logged-scores">{scores}</ul>' if scores else ""
    messages = thread_html({"messages": record.messages})
    return (
        '<div class="dnb-logged-run" aria-label="Logged run">'
        f'<div class="dnb-head">{escape(redact(logged_head(record)))}</div>'
        '<div class="dnb-muted">Read from the experiment\'s log (read-only).</div>'
        f'{listed}{error}<div class="dnb-logged-messages">{messages}</div></div>'
    )
