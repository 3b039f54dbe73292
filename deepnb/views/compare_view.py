"""The compare view (``deepnb.compare``, ``%%deepagent --compare``): one column per model (or
agent) with its live run view, then a table that fills in as the runs finish; and the static form
saved notebooks keep (each run's snapshot side by side, then the table). Once two or more runs
have answered, their answers stand side by side as Markdown with the passages that differ from
the first's marked, then each after the first with its words' difference from the first's. Every
text is escaped."""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets  # type: ignore[import-untyped]  # no type information
from IPython.display import display

from deepnb.core import events as ev
from deepnb.core.graphs.structured import output_rows
from deepnb.core.schema import RUN_STATUS_LABEL, shown_as
from deepnb.core.text.markdown_diff import marked_pair
from deepnb.core.text.markup import escape, markdown
from deepnb.core.text.safe_display import shown_text
from deepnb.core.text.word_diff import same_words, word_diff_html
from deepnb.core.tokens import Tokens
from deepnb.many.comparing import Comparison, ComparisonTable
from deepnb.views.bounds import clip_text
from deepnb.views.listings import Table
from deepnb.views.output import run_snapshot, with_static
from deepnb.views.run.run_view import RunView
from deepnb.views.run.tokens import token_cells

CELL_CHARS = 120
"""Characters of a result, an error or an output a table cell shows."""
_ENDS = (ev.RunFinished, ev.RunFailed, ev.RunCancelled, ev.RunPaused)
ANSWERS_CHARS = 16_000
"""How much of the answers the side-by-side view shows, shared between them (each at least
:data:`ANSWER_MIN`): it travels in one widget message, which must stay under 64 KB however long
the answers are; ``comparison.runs[key].result`` holds each whole."""
ANSWER_MIN = 2_000
_ROW = "display:table;width:100%;table-layout:fixed;border-spacing:8px 0"
_COLUMN = "display:table-cell;vertical-align:top"
"""Columns side by side in equal widths, in styles JupyterLab's sanitizer keeps (no grid), so an
untrusted notebook shows them side by side too."""


def _clip(text: Any) -> str:
    line = str(text or "").strip().splitlines()[0] if str(text or "").strip() else ""
    return line if len(line) <= CELL_CHARS else line[: CELL_CHARS - 1] + "…"


def _output(value: Any) -> str:
    rows = output_rows(value)
    return _clip(", ".join(f"{key}={value}" for key, value in rows) if rows else "")


def table_of(table: ComparisonTable) -> Table:
    """The records as a listing table: a row per model (or agent), values shortened."""
    columns = [
        table.by,
        "status",
        "result",
        "steps",
        "model calls",
        "tool calls",
        "tokens in",
        "tokens out",
        "time (s)",
        "error",
    ]
    structured = any("output" in record for record in table.records)
    if structured:
        columns.append("output")
    rows = []
    for r in table.records:
        tokens_in, tokens_out = token_cells(Tokens.of(r))
        row = [
            r[table.by],
            shown_as(RUN_STATUS_LABEL, r["status"], r["status"]),
            _clip(r["result"]),
            r["steps"],
            r["model_calls"],
            r["tool_calls"],
            tokens_in,
            tokens_out,
            f"{r['seconds']:.1f}",
            _clip(r["error"]),
        ]
        if structured:
            row.append(_output(r.get("output")))
        rows.append(tuple(row))
    return Table(tuple(columns), tuple(rows))


def comparison_table_text(table: ComparisonTable) -> str:
    return repr(table_of(table))


def comparison_table_html(table: ComparisonTable) -> str:
    return f'<div class="deepnb-compare-table" aria-label="Comparison">{table_of(table)._repr_html_()}</div>'


def _answers(comparison: Comparison) -> dict[str, str]:
    """The answers of the runs that are done, by key, in the comparison's order."""
    return {
        key: run.result or ""
        for key, run in comparison.runs.items()
        if run.status == "done" and (run.result or "").strip()
    }


def _clipped_answer(key: str, text: str, limit: int) -> str:
    return clip_text(text, limit, where=f"comparison.runs[{key!r}].result has them")


def _rendered(answers: dict[str, str]) -> dict[str, str]:
    """Each answer as Markdown, the passages that differ from the first's marked (the first's
    own against the second's where there are only two)."""
    (first, base), *others = answers.items()
    shown = {key: markdown(text) for key, text in answers.items()}
    for key, text in others:
        marked_base, shown[key] = marked_pair(base, text, before_name=first, after_name=key)
        if len(others) == 1:
            shown[first] = marked_base
    return shown


def answers_html(comparison: Comparison) -> str:
    """The answers side by side as Markdown, each after the first with the passages that differ
    from the first's marked (and the first's against the second's where there are two), then each
    after the first as its words' difference from the first's; empty until two runs have answered."""
    whole = _answers(comparison)
    if len(whole) < 2:
        return ""
    each = max(ANSWER_MIN, ANSWERS_CHARS // len(whole))
    answers = {key: _clipped_answer(key, text, each) for key, text in whole.items()}
    (first, base), *others = answers.items()
    rendered = _rendered(answers)
    columns = "".join(
        f'<div class="dnb-compare-answer" style="{_COLUMN}">'
        f'<div class="dnb-compare-head"><b>{escape(key)}</b></div>'
        f"{rendered[key]}</div>"
        for key in answers
    )
    diffs = "".join(
        f'<div class="dnb-compare-diff"><b>{escape(key)}</b>: '
        + (
            "the same words."
            if same_words(whole[first], whole[key])  # the whole answers, not what is shown of them
            else f'<div style="white-space:pre-wrap">{word_diff_html(base, text)}</div>'
        )
        + "</div>"
        for key, text in others
    )
    return shown_text(
        f'<div class="dnb-compare-answers" aria-label="Answers side by side">'
        f'<div class="dnb-compare-head"><b>Answers</b></div>'
        f'<div style="{_ROW}">{columns}</div>'
        f'<div class="dnb-compare-head"><b>Differences from {escape(first)}</b> '
        f"(<del>only in {escape(first)}</del>, <ins>added</ins>)</div>{diffs}</div>"
    )


def answers_text(comparison: Comparison) -> str:
    """Which answers have the same words as the first, and which differ."""
    whole = _answers(comparison)
    if len(whole) < 2:
        return ""
    (first, base), *others = whole.items()
    said = [
        f"{key}: {'the same words as' if same_words(base, text) else 'differs from'} {first}"
        for key, text in others
    ]
    return shown_text("\n".join(said))


def _snapshot(comparison: Comparison, key: str) -> dict[str, str]:
    run = comparison.runs[key]
    return run_snapshot(run)


def comparison_static(comparison: Comparison) -> dict[str, str]:
    """``text/html`` (each run's snapshot in its column, then the table) and ``text/plain``."""
    keys = list(comparison.runs)
    columns = "".join(
        f'<div class="dnb-compare-column" style="{_COLUMN}"><div class="dnb-compare-head">{escape(key)}</div>'
        f"{_snapshot(comparison, key)['text/html']}</div>"
        for key in keys
    )
    table = comparison.table()
    grid = f'<div style="{_ROW}">{columns}</div>'
    answers = answers_html(comparison)
    # The styles come in each column's snapshot.
    html = f'<div class="deepnb-compare">{grid}{answers}{comparison_table_html(table)}</div>'
    text = "\n\n".join(
        [
            *(f"== {key} ==\n{_snapshot(comparison, key)['text/plain']}" for key in keys),
            *([said] if (said := answers_text(comparison)) else []),
            comparison_table_text(table),
        ]
    )
    return {"text/html": shown_text(html), "text/plain": shown_text(text)}


class CompareView:
    """The live compare view: a grid of run views, one column per model, over the table, which
    is redrawn as each run stops. ``widget`` is the ipywidgets box to display."""

    def __init__(self, comparison: Comparison, *, live_controls: bool = True) -> None:
        self.comparison = comparison
        self.views = {key: RunView(run, live_controls=live_controls) for key, run in comparison.runs.items()}
        columns = [
            widgets.VBox(
                [widgets.HTML(f'<div class="dnb-compare-head"><b>{escape(key)}</b></div>'), view],
                layout=widgets.Layout(min_width="0"),
            )
            for key, view in self.views.items()
        ]
        grid = widgets.GridBox(
            columns,
            layout=widgets.Layout(
                grid_template_columns=f"repeat({len(columns)}, minmax(0, 1fr))", grid_gap="8px", width="100%"
            ),
        )
        self.table = widgets.HTML(self._table_html())
        self.answers = widgets.HTML(answers_html(comparison))
        self.widget = widgets.VBox([grid, self.answers, self.table])
        self.widget.add_class("deepnb-compare")
        self._unsubscribe = [run.subscribe(self._on_event) for run in comparison.runs.values()]

    def _table_html(self) -> str:
        return shown_text(comparison_table_html(self.comparison.table()))

    def _on_event(self, event: ev.Event) -> None:
        if isinstance(event, _ENDS):
            self._redraw()

    def _redraw(self) -> None:
        self.table.value = self._table_html()
        self.answers.value = answers_html(self.comparison)

    def sync(self) -> None:
        """Send each run view's final state now, the answers and the table."""
        for view in self.views.values():
            view.sync()
        self._redraw()

    def close(self) -> None:
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        for view in self.views.values():
            view.close()
        self.widget.close()


def _bundle(view: CompareView) -> dict[str, Any]:
    data = view.widget._repr_mimebundle_()
    widget = data[0] if isinstance(data, tuple) else data
    return with_static(widget or {}, comparison_static(view.comparison))


def comparison_bundle(comparison: Comparison) -> dict[str, Any]:
    """A comparison displayed: the live view over its static form as it is now."""
    return _bundle(CompareView(comparison))


def show_comparison(comparison: Comparison, *, live_controls: bool = True) -> CompareView:
    """Display the live compare view; as each run stops, the output's static form is redrawn,
    so a saved notebook keeps every run's end."""
    view = CompareView(comparison, live_controls=live_controls)
    handle = display(_bundle(view), raw=True, display_id=True)

    def update() -> None:
        handle.update(_bundle(view), raw=True)

    def on_event(event: ev.Event) -> None:
        if isinstance(event, _ENDS):
            update()

    for run in comparison.runs.values():
        run.subscribe(on_event)
        run.when_ended(update)  # a run that ended before it was subscribed to: its end is drawn
    if comparison.done:
        update()
    return view
