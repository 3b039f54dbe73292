"""The experiment report at scale, each figure against a baseline measured in the same run.

    python bench/report.py [--runs 2000] [--epochs 2]

An experiment of ``--runs`` done runs (``--runs`` / 2 / ``--epochs`` rows x 2 variants x
``--epochs`` epochs), written as a log the way a finished experiment leaves it (each answer a
paragraph of Markdown with a list and a code block, a judge's score with its reasoning, a
four-message transcript) and reopened with ``deepnb.load_experiment``:

1. Size: ``exp.report(path)``'s file. Baseline: ``exp.to_parquet(path)`` of the same experiment
   (every run's answer, scores and measures, no view). Target: at most 10 MB.
2. Time to write it. Baseline: the time ``to_parquet`` takes. Target: a few seconds (it renders
   every input, reference and answer as Markdown).
3. Time to open it from disk in headless Chromium, until the matrix is drawn (skipped, saying why,
   without Playwright or Chromium). Target: at most 2 s.

Exits non-zero only if something fails (the report has not every run), not on a missed target.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import deepnb  # noqa: E402

CHROMIUM = os.environ.get("DEEPNB_CHROMIUM", "/usr/bin/chromium")
ANSWER = """The capital of **country {row}** is *City {row}*, and has been since 1{row:03d}.

- population: about {row} thousand
- it sits on a river, which the question did not ask about

```python
capital = "City {row}"  # epoch {epoch}
```

Checked against two sources; the second one agrees."""


def _run_line(row: int, variant: str, epoch: int) -> dict[str, Any]:
    answer = ANSWER.format(row=row, epoch=epoch)
    passed = (row + epoch + (variant == "b")) % 3 != 0
    reasoning = f"The answer names City {row}, {'as' if passed else 'unlike'} the reference: " + (
        "the rest is context the question did not need, which does not change the verdict. " * 2
    )
    return {
        "type": "run",
        "row": row,
        "variant": variant,
        "epoch": epoch,
        "status": "done",
        "result": answer,
        "output": None,
        "error": None,
        "tokens_in": 1200 + row,
        "tokens_out": 180,
        "cost": 0.0021,
        "latency": 2.5,
        "thread_id": f"t-{row}-{variant}-{epoch}",
        "messages": [
            {"role": "user", "content": f"What is the capital of country {row}?"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"id": f"c{row}", "type": "function", "function": {"name": "search", "arguments": "{}"}}
                ],
            },
            {"role": "tool", "content": f"City {row} is the capital of country {row}.", "tool_call_id": "c"},
            {"role": "assistant", "content": answer},
        ],
        "scores": {"judge": {"score": 1.0 if passed else 0.0, "comment": reasoning, "error": None}},
        "cached": epoch % 2,
    }


def write_log(path: Path, runs: int, epochs: int) -> None:
    """A log of ``runs`` done runs, written as another program could (the documented format)."""
    rows = runs // 2 // epochs
    header = {
        "type": "experiment",
        "format": 1,
        "name": "report-bench",
        "created": "2026-12-01T00:00:00Z",
        "variants": {"a": "", "b": ""},
        "scorers": ["judge"],
        "epochs": epochs,
        "baseline": "a",
        "template": None,
        "rows": rows,
    }
    lines: list[dict[str, Any]] = [header]
    lines += [
        {
            "type": "row",
            "row": row,
            "inputs": {"question": f"What is the capital of country {row}?"},
            "reference": f"City {row}",
            "given": f"What is the capital of country {row}?",
        }
        for row in range(rows)
    ]
    lines += [_run_line(row, v, e) for e in range(epochs) for row in range(rows) for v in "ab"]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def open_time(path: Path) -> float | str:
    """Seconds from opening ``path`` in headless Chromium to its matrix drawn; or why not measured."""
    try:
        from playwright.sync_api import sync_playwright  # lazy: optional here
    except ImportError:
        return "skipped: no Playwright (pip install playwright)"
    if not Path(CHROMIUM).exists():
        return f"skipped: no Chromium at {CHROMIUM}"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        try:
            page = browser.new_page()
            page.goto("about:blank")
            started = time.perf_counter()
            page.goto(path.as_uri())
            page.wait_for_selector(".dnb-matrix tbody tr")
            return time.perf_counter() - started
        finally:
            browser.close()


def line(name: str, figure: str, baseline: str, ratio: str, target: str) -> None:
    print(f"{name:<28} {figure:>12} {baseline:>22} {ratio:>10}   {target}")


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--runs", type=int, default=2000)
    options.add_argument("--epochs", type=int, default=2)
    args = options.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        log = folder / "bench.jsonl"
        write_log(log, args.runs, args.epochs)
        exp = deepnb.load_experiment(log)
        runs = len(exp.records)

        exp.to_parquet(folder / "warm.parquet")  # pyarrow imported before either is timed
        started = time.perf_counter()
        parquet = exp.to_parquet(folder / "runs.parquet")
        parquet_seconds = time.perf_counter() - started
        started = time.perf_counter()
        report = exp.report(folder / "report.html")
        report_seconds = time.perf_counter() - started
        html = report.read_text(encoding="utf-8")
        drawn = html.count('"s":"done"')
        if drawn != runs:
            print(f"bench/report.py: the report has {drawn} of {runs} runs", file=sys.stderr)
            return 1

        size, base_size = report.stat().st_size, parquet.stat().st_size
        print(f"the report of {runs:,} runs ({len(exp.plan.rows)} rows × 2 variants × {args.epochs} epochs)")
        line("", "report", "baseline", "ratio", "target")
        line(
            "size",
            f"{size / 1e6:.2f} MB",
            f"to_parquet {base_size / 1e6:.2f} MB",
            f"{size / base_size:.1f}x",
            "≤ 10 MB",
        )
        line(
            "time to write",
            f"{report_seconds:.2f} s",
            f"to_parquet {parquet_seconds:.2f} s",
            f"{report_seconds / parquet_seconds:.1f}x",
            "a few seconds",
        )
        opened = open_time(report)
        if isinstance(opened, str):
            line("time to open (Chromium)", opened, "", "", "≤ 2 s")
        else:
            line("time to open (Chromium)", f"{opened:.2f} s", "", "", "≤ 2 s")
    load = ", ".join(f"{n:.1f}" for n in os.getloadavg())
    print(f"machine: {os.cpu_count()} cores, load average {load}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
