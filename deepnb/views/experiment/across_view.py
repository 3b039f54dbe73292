"""``deepnb.compare_experiments(a, b)`` drawn: what the two experiments are (A and B: name, when,
log, epochs), the rows, variants and scorers compared and those only one has, how each compared
variant's mean moved from A to B per scorer, then each variant pair as ``compare`` shows it (per
scorer wins, losses, ties, mean difference and p; per scorer the rows where they differ on it).
One description serves the text and the HTML; every text is escaped where it becomes HTML."""

from __future__ import annotations

from typing import Any

from deepnb.core.text.figures import number
from deepnb.core.text.markup import escape
from deepnb.many.across import ExperimentComparison, Side
from deepnb.views.experiment.baseline import answers_body, comparison_body, comparison_lines, comparison_table
from deepnb.views.experiment.experiment_view import experiment_snapshot

MOVE_COLUMNS = ("variant", "scorer", "A mean", "B mean", "moved (B − A)")


def _side_line(label: str, side: Side) -> str:
    when = f", {side.created[:19].replace('T', ' ')} UTC" if side.created else ""
    epochs = f"{side.epochs} epoch{'s' * (side.epochs != 1)}"
    reduced = f", each row's {side.reducer}" if side.epochs > 1 else ""
    return f"{label}: {side.name}{when} ({epochs}{reduced}; {side.path})"


def _left_out(comparison: ExperimentComparison) -> list[str]:
    """What is not compared, a sentence each (nothing: none)."""
    said = []
    for label, side in (("A", comparison.a), ("B", comparison.b)):
        if side.only_rows:
            said.append(f"{side.only_rows} row{'s' * (side.only_rows != 1)} only in {label}, not compared.")
        if side.only_variants:
            said.append(f"Variants of {label} not compared: {', '.join(side.only_variants)}.")
        if side.only_scorers:
            said.append(f"Scorers only in {label}, not compared: {', '.join(side.only_scorers)}.")
    return said


def _moves(comparison: ExperimentComparison) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for m in comparison.moves:
        label = m.a if m.a == m.b else f"{m.a} → {m.b}"
        moved = None if m.a_mean is None or m.b_mean is None else m.b_mean - m.a_mean
        rows.append(
            (label, m.scorer, number(m.a_mean), number(m.b_mean), "–" if moved is None else f"{moved:+.2f}")
        )
    return rows


def description(comparison: ExperimentComparison) -> dict[str, Any]:
    """What both forms draw: the head lines, what is left out, the moves and each pair's table."""
    shared = comparison.shared_rows
    compared = ", ".join(a if a == b else f"{a} (A) with {b} (B)" for a, b in comparison.pairs)
    tables = []
    for one in comparison.comparisons:
        table = comparison_table(one)
        table["paired"] = comparison.paired
        tables.append(table)
    return {
        "head": [
            _side_line("A", comparison.a),
            _side_line("B", comparison.b),
            f"Compared over the {shared} row{'s' * (shared != 1)} both have (matched by id, else by "
            f"their fields); variants: {compared}.",
        ],
        "left_out": _left_out(comparison),
        "moves": _moves(comparison),
        "tables": tables,
    }


def across_text(comparison: ExperimentComparison) -> str:
    """``repr(deepnb.compare_experiments(a, b))``."""
    said = description(comparison)
    lines = [
        *said["head"],
        *said["left_out"],
        "",
        "How each variant's mean moved (over the rows both scored):",
    ]
    cells = [MOVE_COLUMNS, *said["moves"]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(MOVE_COLUMNS))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells]
    for table in said["tables"]:
        lines += ["", *comparison_lines(table)]
    return "\n".join(lines)


def across_html(comparison: ExperimentComparison) -> str:
    """The comparison as escaped HTML, in an experiment's static card."""
    said = description(comparison)
    head = "".join(f"<div>{escape(line)}</div>" for line in said["head"])
    left = "".join(f'<p class="dnb-muted">{escape(line)}</p>' for line in said["left_out"])
    move_head = "".join(f"<th>{escape(c)}</th>" for c in MOVE_COLUMNS)
    move_rows = "".join(
        "<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in said["moves"]
    )
    moves = (
        '<div class="dnb-head">How each variant\'s mean moved (over the rows both scored)</div>'
        f'<table class="deepnb-table" aria-label="How each variant\'s mean moved">'
        f"<thead><tr>{move_head}</tr></thead><tbody>{move_rows}</tbody></table>"
    )
    tables = "".join(
        comparison_body(table) + answers_body(one)
        for table, one in zip(said["tables"], comparison.comparisons, strict=True)
    )
    return experiment_snapshot(f"{head}{left}{moves}{tables}", "Comparison of experiments")
