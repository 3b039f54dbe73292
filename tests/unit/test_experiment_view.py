"""An experiment's static view: the matrix (a row per dataset row, a column per variant, each
cell its scores, status and the answer's first line) and the summary, as HTML and text, escaped
and bounded however large the experiment or its answers."""

from __future__ import annotations

import json
from pathlib import Path

import deepnb
from deepnb.views.experiment import experiment_view as view

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
    html = experiment._repr_html_()
    assert html is not None
    assert html.count("<tr>") == 2 + 1 + 1 + 2  # head, 2 rows; the summary's head and 2 variants
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
    html = experiment._repr_html_() or ""
    assert len(html.encode()) < 400_000
    assert html.count("<tr>") == 1 + view.MAX_ROWS + 1 + view.MAX_VARIANTS
    assert "50 more rows" in html and "2 more variants" in html
    assert len(repr(experiment).encode()) < 200_000
    record = experiment.runs[(0, "v0", 0)]
    assert len(repr(record)) < view.MAX_MESSAGES * (view.MESSAGE_CHARS + 20)
    assert len(record._repr_html_() or "") < view.MAX_MESSAGES * (view.MESSAGE_CHARS + 200)
