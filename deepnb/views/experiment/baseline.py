"""The baseline comparison under the matrix: each variant against the experiment's ``baseline=``
(or, with exactly two variants and no baseline, the second against the first), from
:meth:`~deepnb.many.experiment.Experiment.compare`: wins, losses and ties per
scorer with the paired test's p over the rows, and per scorer the rows where the two differ most
on it, each with both runs' answers (a click on one, in the live view, opens that run). One
description serves the live view and the static snapshot; every text is clipped here and
escaped where it becomes HTML."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deepnb.core.graphs.structured import output_rows
from deepnb.core.text.figures import sentence
from deepnb.core.text.markdown_diff import marked_pair
from deepnb.core.text.markup import escape
from deepnb.many import stats
from deepnb.many.experiment import Experiment, VariantComparison
from deepnb.views.bounds import clip_text

MAX_PAIRS = 4
"""Variants compared with the baseline at most (the first, in the experiment's order)."""
LINE = 80
"""Characters of an answer (and a row's prompt) a differing row shows."""
MAX_ANSWERS = 4
"""Differing rows whose whole answers a displayed comparison shows side by side at most."""
ANSWER_CHARS = 4_000
"""Characters of each of those answers shown (the rest said, not shown)."""
_ROW = "display:table;width:100%;table-layout:fixed;border-spacing:8px 0"
_COLUMN = "display:table-cell;vertical-align:top"
MAX_DIFFERENCES = 8
"""Differing rows a comparison shows at most, shared among its scorers: each scorer's most
different row first, then each one's next, and so on."""


def _clip(text: Any, limit: int = LINE) -> str:
    value = " ".join(("" if text is None else str(text)).split())
    return value if len(value) <= limit else value[: limit - 1] + "…"


def baseline_pairs(experiment: Experiment) -> list[tuple[str, str]]:
    """The pairs the view compares: the experiment's :meth:`~Experiment.comparison_pairs` (the
    report's too), at most :data:`MAX_PAIRS` of them."""
    return experiment.comparison_pairs()[:MAX_PAIRS]


def comparison_table(comparison: VariantComparison) -> dict[str, Any]:
    """A comparison as texts: ``{a, b, paired, columns, rows, epochs}`` (a row per scorer;
    ``paired`` says what each row's score is) and ``differences`` (``{r, scorer, difference, a,
    b}``: the row, the scorer, a - b on that scorer, each variant's answer; with several epochs
    ``a_epoch`` and ``b_epoch``, the epochs whose answers show the difference), grouped by scorer."""
    columns, rows = comparison.table()
    differences = [
        {
            "r": d.row,
            "scorer": d.scorer,
            "difference": f"{d.difference:+.2f}",
            "a": _clip(d.a),
            "b": _clip(d.b),
            **({"a_epoch": d.a_epoch, "b_epoch": d.b_epoch} if comparison.epochs > 1 else {}),
        }
        for d in _shared(comparison.differences)
    ]
    return {
        "a": comparison.a,
        "b": comparison.b,
        "paired": comparison.paired,
        "columns": columns,
        "rows": rows,
        "differences": differences,
        "epochs": comparison.epochs,
    }


def _shared(differences: tuple[stats.Difference, ...]) -> list[stats.Difference]:
    """At most :data:`MAX_DIFFERENCES` of ``differences`` (listed by scorer, the furthest apart
    first), taken from each scorer in turn, then listed by scorer again."""
    by_scorer: dict[str, list[stats.Difference]] = {}
    for d in differences:
        by_scorer.setdefault(d.scorer, []).append(d)
    taken: set[int] = set()
    for rank in range(max((len(ds) for ds in by_scorer.values()), default=0)):
        for ds in by_scorer.values():
            if rank < len(ds) and len(taken) < MAX_DIFFERENCES:
                taken.add(id(ds[rank]))
    return [d for d in differences if id(d) in taken]


def baseline_tables(experiment: Experiment) -> list[dict[str, Any]]:
    """The comparisons the view shows (:func:`baseline_pairs`), each as :func:`comparison_table`
    with each differing row's ``prompt``. Computing them imports scipy: call it off the engine loop."""
    given = {row.index: row.prompt for row in experiment.plan.rows}
    tables = []
    for a, b in baseline_pairs(experiment):
        table = comparison_table(experiment.compare(a, b))
        for difference in table["differences"]:
            difference["prompt"] = _clip(given.get(difference["r"], ""), LINE)
            for side in ("a", "b"):
                if not difference[side]:  # a structured answer: its fields stand for it
                    difference[side] = _output_line(
                        experiment, difference["r"], table[side], difference.get(f"{side}_epoch")
                    )
        tables.append(table)
    return tables


def _output_line(experiment: Experiment, row: int, variant: str, shown: int | None = None) -> str:
    """The structured output of ``variant``'s run of ``row`` in epoch ``shown`` (else its first
    with one) as one clipped line."""
    epochs = range(experiment.plan.epochs)
    for epoch in [shown, *epochs] if shown is not None else epochs:
        record = experiment.record_for((row, variant, epoch))
        if record is not None and record.output is not None:
            return _clip(" · ".join(f"{k}: {v}" for k, v in output_rows(record.output)))
    return ""


def comparison_body(table: dict[str, Any]) -> str:
    """One comparison as escaped HTML: the per-scorer table, then per scorer the rows that
    differ most on it."""
    a, b = table["a"], table["b"]
    head = "".join(f"<th>{escape(c)}</th>" for c in table["columns"])
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in table["rows"])
    html = (
        f'<div class="dnb-head">{escape(a)} against {escape(b)}, per row</div>'
        f'<table class="deepnb-table" aria-label="{escape(a)} against {escape(b)}">'
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
        f'<p class="dnb-muted">{escape(table.get("paired", ""))}</p>'
    )
    if table["differences"]:
        html += '<div class="dnb-head">Rows where they differ most, per scorer</div>'
    for scorer, rows in per_scorer(table["differences"]).items():
        diff_head = "".join(f"<th>{escape(c)}</th>" for c in ("row", f"{_clip(scorer, 40)}: a − b", a, b))
        diff_rows = "".join(
            f"<tr><td><b>{d['r']}</b> {escape(d.get('prompt', ''))}</td><td>{escape(d['difference'])}</td>"
            f"<td>{escape(answer(d, 'a'))}</td><td>{escape(answer(d, 'b'))}</td></tr>"
            for d in rows
        )
        html += (
            f'<table class="deepnb-table" aria-label="Rows where they differ on {escape(scorer)}">'
            f"<thead><tr>{diff_head}</tr></thead><tbody>{diff_rows}</tbody></table>"
        )
    return html


def per_scorer(differences: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The differing rows grouped by scorer, in their order (each scorer's furthest apart first)."""
    grouped: dict[str, list[dict[str, Any]]] = {}
    for d in differences:
        grouped.setdefault(str(d.get("scorer", "")), []).append(d)
    return grouped


def answer(difference: Mapping[str, Any], side: str) -> str:
    """A differing row's answer on ``side`` (``a`` or ``b``), with its epoch where there are several."""
    epoch = difference.get(f"{side}_epoch")
    said = str(difference.get(side) or "–")
    return f"(epoch {epoch}) {said}" if epoch is not None else said


def comparison_lines(table: dict[str, Any]) -> list[str]:
    """One comparison as text lines: a line per scorer, then per scorer the rows that differ
    most on it."""
    cells = [table["columns"], *table["rows"]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(table["columns"]))]
    lines = [f"{table['a']} against {table['b']}, per row:"]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells]
    if table.get("paired"):
        lines.append(sentence(table["paired"]))
    if table["differences"]:
        lines.append("Rows where they differ most, per scorer:")
    for scorer, rows in per_scorer(table["differences"]).items():
        lines.append(f"  {scorer} (a − b):")
        a, b = table["a"], table["b"]
        lines += [
            f"    row {d['r']}: {d['difference']}  {a}: {answer(d, 'a')} | {b}: {answer(d, 'b')}"
            for d in rows
        ]
    return lines


def answers_body(comparison: VariantComparison) -> str:
    """The answers of the first :data:`MAX_ANSWERS` differing rows (of those the table lists),
    side by side as Markdown with the passages that differ marked, each in a closed
    ``<details>`` headed by its row and scorer (a pair of answers listed under several scorers
    shown once); escaped HTML, ``""`` with no differing rows."""
    shown: set[tuple[int, int | None, int | None]] = set()
    parts = []
    where = "the experiment's records hold the whole answer"
    for d in _shared(comparison.differences):
        key = (d.row, d.a_epoch, d.b_epoch)
        if key in shown or len(shown) >= MAX_ANSWERS:
            continue
        shown.add(key)
        a_text = clip_text(d.a or "", ANSWER_CHARS, where=where)
        b_text = clip_text(d.b or "", ANSWER_CHARS, where=where)
        left, right = marked_pair(a_text, b_text, before_name=comparison.a, after_name=comparison.b)
        several = comparison.epochs > 1
        heads = [
            f"{name} (epoch {epoch})" if several and epoch is not None else name
            for name, epoch in ((comparison.a, d.a_epoch), (comparison.b, d.b_epoch))
        ]
        columns = "".join(
            f'<div style="{_COLUMN}"><div class="dnb-head">{escape(head)}</div>{body}</div>'
            for head, body in zip(heads, (left, right), strict=True)
        )
        parts.append(
            f"<details><summary>row {d.row}: {escape(_clip(d.scorer, 40))} {d.difference:+.2f}</summary>"
            f'<div style="{_ROW}">{columns}</div></details>'
        )
    if not parts:
        return ""
    return (
        '<div class="dnb-head">The answers of the rows that differ, as Markdown '
        "(the passages that differ marked)</div>" + "".join(parts)
    )
