"""Exporting a long thread against exporting a short one, measured in the same process.

    python bench/export.py [--steps 3000] [--baseline 300]

Both threads replay ``bench/overhead.py``'s script (each step streams 20–40 words and calls a
tool; ``write_todos`` every 10th step, ``write_file`` every 10th shifted by 5), with a summary
ready for when the conversation grows past the summarization threshold (which offloads the
history to a file of many megabytes). Two figures, each printed as long / short against its goal:

1. Size of the exported notebook. Goal: ≤ 8× however long the thread (the export folds the run's
   view, keeps the start of long files, at most ``FILE_CELLS`` of them).
2. Wall time of ``deepnb.export``. Goal: ≤ 3× (the files are read in one pass).

Exits 0 whether or not the goals are met; non-zero only if something failed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import deepnb  # noqa: E402
from bench.overhead import PROMPT, build_script  # noqa: E402
from deepnb.models.scripted import ScriptedChatModel, parse_script  # noqa: E402

GOALS = {"size": 8.0, "time": 3.0}


def measure(steps: int, folder: Path) -> tuple[int, float]:
    """The size (bytes) and export time (seconds) of a ``steps``-long thread's notebook."""
    script = build_script(steps)
    script["summaries"] = {"main": "Summary of the steps so far."}
    name = f"bench-export-{steps}"
    bench = deepnb.agent(name=name, model=ScriptedChatModel(script=parse_script(script)))
    run = bench.run(PROMPT)
    if run.status != "done":
        raise SystemExit(f"the {steps}-step run ended {run.status}: {run.error}")
    path = folder / f"{name}.ipynb"
    started = time.perf_counter()
    deepnb.export(path, agent=name)
    return path.stat().st_size, time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--baseline", type=int, default=300)
    args = parser.parse_args()
    import nbformat  # its first import (jsonschema's) is no part of an export's time

    nbformat.validate(nbformat.v4.new_notebook())
    with tempfile.TemporaryDirectory() as folder:
        short = measure(args.baseline, Path(folder))
        long = measure(args.steps, Path(folder))
    print(f"{'figure':<8}{args.baseline:>12} steps{args.steps:>12} steps{'ratio':>9}   goal")
    for n, (figure, unit) in enumerate((("size", "KB"), ("time", "s"))):
        a, b = (short[n] / 1024, long[n] / 1024) if unit == "KB" else (short[n], long[n])
        ratio = b / a
        verdict = "ok" if ratio <= GOALS[figure] else "MISSED"
        row = f"{figure:<8}{a:>12.1f} {unit:<5}{b:>11.1f} {unit:<5}{ratio:>8.2f}×"
        print(f"{row}   ≤ {GOALS[figure]}× {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
