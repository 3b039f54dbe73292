"""The baseline comparison under the matrix: each variant against the experiment's ``baseline=``
(or, with exactly two variants and no baseline, the second against the first), from
:meth:`~deepnb.many.experiment.Experiment.compare`: wins, losses and ties per
scorer with the paired test's p, and the rows where the two differ most, each with both runs'
answers (a click on one, in the live view, opens that run). One description serves the live view
and the static snapshot; every text is clipped here and escaped where it becomes HTML."""

from __future__ import annotations

from typing import Any

from deepnb.core.graphs.structured import output_rows
from deepnb.core.text.markup import escape
from deepnb.many.experiment import Experiment, VariantComparison
from deepnb.views.experiment.figures import number

MAX_PAIRS = 4
"""Variants compared with the baseline at most (the first, in the experiment's order)."""
LINE = 80
"""Characters of an answer (and a row's prompt) a differing row shows."""


def _clip(text: Any, limit: int = LINE) -> str:
    value = " ".join(("" if text is None else str(text)).split())
    return value if len(value) <= limit else value[: limit - 1] + "…"


def baseline_pairs(experiment: Experiment) -> list[tuple[str, str]]:
    """``(a, baseline)`` for each variant ``a`` the view compares with the baseline; ``[]``
    without a baseline (unless there are exactly two variants: the first is then the baseline)."""
    variants = experiment.variants
    baseline = experiment.plan.baseline
    if baseline is None and len(variants) == 2:
        baseline = variants[0]
    if baseline is None or baseline not in variants:
        return []
    return [(a, baseline) for a in variants if a != baseline][:MAX_PAIRS]


def comparison_table(comparison: VariantComparison) -> dict[str, Any]:
    """A comparison as texts: ``{a, b, columns, rows}`` (a row per scorer) and ``differences``
    (``{r, difference, a, b}``: the row, a - b over the scorers, each variant's answer)."""
    columns = ["scorer", "pairs", f"{comparison.a} wins", "losses", "ties", "mean difference", "p (Wilcoxon)"]
    rows = [
        [
            s.scorer,
            str(s.pairs),
            str(s.wins),
            str(s.losses),
            str(s.ties),
            number(s.mean_difference),
            number(s.p_value, 3),
        ]
        for s in comparison.scorers
    ]
    differences = [
        {"r": d.row, "difference": f"{d.difference:+.2f}", "a": _clip(d.a), "b": _clip(d.b)}
        for d in comparison.differences
    ]
    return {
        "a": comparison.a,
        "b": comparison.b,
        "columns": columns,
        "rows": rows,
        "differences": differences,
    }


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
                    difference[side] = _output_line(experiment, difference["r"], table[side])
        tables.append(table)
    return tables


def _output_line(experiment: Experiment, row: int, variant: str) -> str:
    """The structured output of ``variant``'s first run of ``row`` as one clipped line."""
    for epoch in range(experiment.plan.epochs):
        record = experiment.record_for((row, variant, epoch))
        if record is not None and record.output is not None:
            return _clip(" · ".join(f"{k}: {v}" for k, v in output_rows(record.output)))
    return ""


def comparison_body(table: dict[str, Any]) -> str:
    """One comparison as escaped HTML: the per-scorer table, then the rows that differ most."""
    a, b = table["a"], table["b"]
    head = "".join(f"<th>{escape(c)}</th>" for c in table["columns"])
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in table["rows"])
    html = (
        f'<div class="dnb-head">{escape(a)} against {escape(b)}, per row</div>'
        f'<table class="deepnb-table" aria-label="{escape(a)} against {escape(b)}">'
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    )
    if table["differences"]:
        diff_head = "".join(f"<th>{escape(c)}</th>" for c in ("row", "difference", a, b))
        diff_rows = "".join(
            f"<tr><td><b>{d['r']}</b> {escape(d.get('prompt', ''))}</td><td>{escape(d['difference'])}</td>"
            f"<td>{escape(d['a'])}</td><td>{escape(d['b'])}</td></tr>"
            for d in table["differences"]
        )
        html += (
            '<div class="dnb-head">Rows where they differ most</div>'
            f'<table class="deepnb-table" aria-label="Rows where they differ most">'
            f"<thead><tr>{diff_head}</tr></thead><tbody>{diff_rows}</tbody></table>"
        )
    return html


def comparison_lines(table: dict[str, Any]) -> list[str]:
    """One comparison as text lines: a line per scorer, then the rows that differ most."""
    cells = [table["columns"], *table["rows"]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(table["columns"]))]
    lines = [f"{table['a']} against {table['b']}, per row:"]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells]
    if table["differences"]:
        lines.append("Rows where they differ most:")
        lines += [
            f"  row {d['r']}: {d['difference']}  {table['a']}: {d['a']} | {table['b']}: {d['b']}"
            for d in table["differences"]
        ]
    return lines
