"""An experiment's static view: the matrix (a row per dataset row, a column group per variant,
each cell its scores, status and the answer's first line, then its structured output's fields),
a bar chart per scorer, the summary and the baseline comparison, as HTML and text, escaped and
bounded however large the experiment or its answers."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import deepnb
from deepnb.many.report import page as report_page
from deepnb.views.experiment import experiment_view as view
from deepnb.views.experiment.baseline import MAX_PAIRS
from deepnb.views.experiment.charts import score_charts
from deepnb.views.experiment.fields import FIELD_VALUE, MAX_FIELDS
from tests.support.lab_sanitizer import unstyled

ANSWER = "first line of the answer " + "x" * 2_000 + "\nmore"


def write_log(path: Path, rows: int, variants: tuple[str, ...] = ("a", "b")) -> Path:
    lines = [
        {
            "type": "experiment",
            "format": 1,
            "name": "big",
            "created": "2026-01-01T00:00:00+00:00",
            "variants": {v: "system prompt" for v in variants},
            "scorers": ["exact"],
            "epochs": 1,
            "baseline": None,
            "template": None,
            "rows": rows,
        }
    ]
    for row in range(rows):
        lines.append(
            {"type": "row", "row": row, "inputs": {"input": f"q{row}"}, "reference": "r", "given": f"q{row}"}
        )
        for variant in variants:
            messages = [{"role": "user", "content": f"q{row}"}]
            if row == 0:  # one long transcript
                messages += [{"role": "assistant", "content": "y" * 5_000}] * 100
            scores = {"exact": {"score": float(row % 2), "comment": None, "error": None}}
            lines.append(
                {
                    "type": "run",
                    "row": row,
                    "variant": variant,
                    "epoch": 0,
                    "status": "done",
                    "result": ANSWER,
                }
                | {"messages": messages, "scores": scores, "latency": 1.5, "tokens_in": 3, "tokens_out": 4}
            )
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_the_matrix_shows_each_cell_and_the_summary(tmp_path: Path) -> None:
    experiment = deepnb.load_experiment(write_log(tmp_path / "small.jsonl", 2))
    html = unstyled(experiment._repr_html_() or "")
    assert html is not None
    # head, 2 rows; the summary's head and 2 variants; b against a (two variants): head, a scorer
    assert html.count("<tr>") == 2 + 1 + 1 + 2 + 2
    assert '<td data-status="done"><div class="dnb-scores">exact 1.00</div>' in html
    assert "first line of the answer " + "x" * 54 + "…" in html and "more" not in html
    text = repr(experiment)
    assert text.splitlines()[0].startswith("Experiment 'big': 2 rows × 2 variants × 1 epochs, 4/4 done")
    assert "    a: done exact=0.00 | first line of the answer" in text
    assert "exact mean [95%]" in text and "unknown" in text  # no price known


def test_the_view_is_bounded_however_large_the_experiment(tmp_path: Path) -> None:
    experiment = deepnb.load_experiment(
        write_log(tmp_path / "big.jsonl", 150, tuple(f"v{i}" for i in range(14)))
    )
    html = unstyled(experiment._repr_html_() or "")
    assert len(html.encode()) < 400_000
    # the matrix's head and rows, the summary's head and variants, and the comparisons with the
    # first variant (no baseline): at most MAX_PAIRS, each a head and a row for its one scorer
    assert html.count("<tr>") == 1 + view.MAX_ROWS + 1 + view.MAX_VARIANTS + MAX_PAIRS * 2
    assert "50 more rows" in html and "2 more variants" in html
    assert len(repr(experiment).encode()) < 200_000
    record = experiment.runs[(0, "v0", 0)]
    assert len(repr(record)) < view.MAX_MESSAGES * (view.MESSAGE_CHARS + 20)
    assert len(record._repr_html_() or "") < view.MAX_MESSAGES * (view.MESSAGE_CHARS + 200)


def hostile_log(
    path: Path, *, baseline: str | None = None, variants: tuple[str, ...] = ("base", "new")
) -> Path:
    """Three rows; ``new`` wins rows 1 and 2 on ``exact``; ``broken`` always raises, ``silent``
    gives no number; every run has a structured output with hostile text and more fields than shown."""
    lines: list[dict[str, Any]] = [
        {
            "type": "experiment",
            "format": 1,
            "name": "judged",
            "variants": {v: "" for v in variants},
            "scorers": ["exact", "broken", "silent"],
            "epochs": 2,
            "baseline": baseline,
            "rows": 3,
        }
    ]
    for row in range(3):
        lines.append(
            {"type": "row", "row": row, "inputs": {"q": f"q{row}"}, "reference": "r", "given": f"q{row}"}
        )
        for variant in variants:
            for epoch in range(2):
                won = variant != "base" and row > 0
                output = {f"field{n}": n for n in range(MAX_FIELDS + 3)}
                output |= {"verdict": "<script>alert(1)</script>", "field0": "y" * 500}
                scores = {
                    "exact": {"score": 1.0 if won or epoch else 0.0},
                    "broken": {"score": None, "error": "ValueError: <b>no</b>"},
                    "silent": {"score": None},
                }
                lines.append(
                    {"type": "run", "row": row, "variant": variant, "epoch": epoch, "status": "done"}
                    | {"result": f"<i>{variant} {row}</i>", "output": output, "scores": scores}
                )
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_a_chart_per_scorer_draws_each_variant_with_its_interval_or_says_why_not(tmp_path: Path) -> None:
    experiment = deepnb.load_experiment(hostile_log(tmp_path / "log.jsonl"))
    exact, broken, silent = score_charts(experiment.summary())
    assert exact["note"] == "" and [bar["v"] for bar in exact["bars"]] == ["base", "new"]
    base, new = exact["bars"]
    # base's every row scores 0 then 1: each row's mean is 0.50, so the rows agree exactly
    assert base["value"] == "0.50 [0.50, 0.50] n = 3 rows × 2 epochs"
    assert base["bar"] == [0.0, 50.0] and new["bar"][1] > base["bar"][1]
    low, width = new["whisker"]
    assert new["value"].startswith("0.83 [") and new["value"].endswith("] n = 3 rows × 2 epochs")
    assert 0 <= low < 83.3 < low + width <= 100
    assert broken["note"].startswith("Every score is an error (12)") and broken["bars"][0]["bar"] is None
    assert silent["note"] == "This scorer gave no numbers: nothing to chart."
    shown = experiment._repr_html_() or ""
    assert re.search(r'<div class="dnb-chart-fill" style="[^"]*;left:0\.0%;width:50\.0%"></div>', shown)
    html = unstyled(shown)
    assert html.count('class="dnb-chart"') == 3 and html.count('class="dnb-chart-whisker"') == 2
    assert "Every score is an error (12)" in html and "This scorer gave no numbers" in html
    text = repr(experiment)
    assert "exact: mean and 95 % interval, scale 0.00 to 1.00:" in text
    assert "  base  ██████████··········  0.50 [" in text


def test_the_comparison_with_the_baseline_is_under_the_summary(tmp_path: Path) -> None:
    two = deepnb.load_experiment(
        hostile_log(tmp_path / "two.jsonl")
    )  # two variants: the first is the baseline
    html = unstyled(two._repr_html_() or "")
    assert html.index('aria-label="Summary"') < html.index("new against base, per row")
    (scorer,) = re.findall(r"<tr><td>exact</td>.*?</tr>", html.split("new against base, per row")[1])
    assert [c for c in re.findall(r"<td>(.*?)</td>", scorer)][:5] == ["exact", "3", "2", "0", "1"]
    differing = html.split("Rows where they differ most")[-1]
    assert "<b>1</b> q1" in differing and "&lt;i&gt;new 1&lt;/i&gt;" in differing and "<i>" not in differing
    text = repr(two)
    assert (
        "new against base, per row:" in text
        and "  exact (a − b):\n    row 1: +0.50  new: (epoch 0) <i>new 1</i> | base: (epoch 0) <i>base 1</i>"
        in text
    )
    three = deepnb.load_experiment(
        hostile_log(tmp_path / "b.jsonl", baseline="base", variants=("base", "x", "new"))
    )
    html = unstyled(three._repr_html_() or "")
    assert "x against base, per row" in html and "new against base, per row" in html


@pytest.mark.parametrize(
    ("variants", "baseline", "pairs"),
    [
        (("base",), None, []),
        (("base", "new"), None, [("new", "base")]),
        (("base", "x", "new"), None, [("x", "base"), ("new", "base")]),
        (("base", "x", "new"), "x", [("base", "x"), ("new", "x")]),
        (("base", "x", "new"), "gone", [("x", "base"), ("new", "base")]),
    ],
)
def test_the_view_and_the_report_compare_the_same_pairs(
    tmp_path: Path, variants: tuple[str, ...], baseline: str | None, pairs: list[tuple[str, str]]
) -> None:
    experiment = deepnb.load_experiment(
        hostile_log(tmp_path / "log.jsonl", baseline=baseline, variants=variants)
    )
    assert experiment.comparison_pairs() == pairs
    shown = unstyled(experiment._repr_html_() or "")
    assert re.findall(r"(\w+) against (\w+), per row", shown) == pairs
    assert re.findall(r"<h3>(\w+) against (\w+)</h3>", report_page(experiment)) == pairs
    assert ("against" in repr(experiment)) == bool(pairs)


def test_structured_output_fields_are_columns_bounded_and_escaped(tmp_path: Path) -> None:
    experiment = deepnb.load_experiment(hostile_log(tmp_path / "log.jsonl"))
    axes = view.matrix_axes(experiment)
    assert axes.fields == [f"field{n}" for n in range(MAX_FIELDS)] and axes.more_fields == 4
    cell = view.matrix_cell(experiment, 0, "new", axes)
    assert cell["fields"][0] == "y" * (FIELD_VALUE - 1) + "…" and cell["fields"][1:] == [
        "1",
        "2",
        "3",
        "4",
        "5",
    ]
    html = unstyled(experiment._repr_html_() or "")
    head = html.split("<thead>")[1].split("</thead>")[0]
    assert "<th>base · field0</th>" in head and "<th>new · field5</th>" in head and "field6" not in head
    assert html.count('<td class="dnb-field">') == 3 * 2 * MAX_FIELDS
    assert "4 more output fields" in html and "<script>" not in html
    assert "    new: 2 done exact=0.50 broken=error silent=– | <i>new 0</i> | field0: yyy" in repr(experiment)


def test_a_displayed_comparison_shows_the_differing_rows_answers_as_markdown_marked(tmp_path: Path) -> None:
    lines: list[dict[str, Any]] = [
        {
            "type": "experiment",
            "format": 2,
            "name": "md",
            "variants": {"a": "", "b": ""},
            "epochs": 2,
            "rows": 1,
        },
        {"type": "row", "row": 0, "inputs": {"q": "q0"}, "reference": None, "given": "q0"},
    ]
    answers = {
        "a": [(1.0, "# T\n\nSame.\n\n- one\n- <b>two</b>\n"), (0.0, "a's wrong epoch")],
        "b": [(0.5, "b's other epoch"), (0.0, "# T\n\nSame.\n\n- one\n- three\n")],
    }
    for variant, epochs in answers.items():
        for epoch, (score, text) in enumerate(epochs):
            lines.append(
                {"type": "run", "row": 0, "variant": variant, "epoch": epoch, "status": "done"}
                | {"result": text, "scores": {"s": {"score": score}}}
            )
    path = tmp_path / "md.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    comparison = deepnb.load_experiment(path).compare("a", "b")
    html = unstyled(comparison._repr_html_() or "")
    shown = html[html.index("The answers of the rows that differ") :]
    assert shown.count("<details>") == 1 and "<summary>row 0: s +0.25</summary>" in shown
    # a's highest-scoring epoch against b's lowest: the answers that show the difference
    assert "a (epoch 0)" in shown and "b (epoch 1)" in shown
    assert "wrong epoch" not in shown and "other epoch" not in shown
    assert "<h1>T</h1>" in shown and "&lt;b&gt;two&lt;/b&gt;" in shown and "<b>two</b>" not in shown
    assert re.findall(r'class="dnb-diff-label"[^>]*>([^<]*)<', shown) == ["changed in b", "changed from a"]
