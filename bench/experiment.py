"""An experiment's cost at scale, each figure against a baseline measured in the same run.

    python bench/experiment.py [--turn 1.0] [--concurrency 16] [--logged 10000]

1. Throughput: 20 rows x 2 variants x 5 epochs = 200 runs of a deep agent on a scripted model
   whose every turn takes ``--turn`` seconds (an ``asyncio.sleep``, as a model's network call
   waits), 3 turns a run, at most ``--concurrency`` at once. Baseline: the ideal wall time,
   200 x 3 x turn / concurrency. Target: at most 1.25x the ideal.
2. Scoring ``--logged`` finished runs again (``rescore``) with the built-in ``exact``,
   ``contains`` and ``regex`` scorers. Baseline: the same scorers called in a plain loop.
   Target: at most 10 s.
3. Reopening a log of ``--logged`` runs (``deepnb.load_experiment``). Baseline: reading the same
   file's lines with ``json.loads``. Target: at most 2 s.

Exits non-zero only if something fails (a run that did not end done), not on a missed target.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import deepnb  # noqa: E402
from deepnb import scorers  # noqa: E402
from tests.support.timed_model import Meter, timed  # noqa: E402

SCRIPT = {
    "main": [
        {
            "turns": [
                {
                    "tool_calls": [
                        {
                            "name": "write_todos",
                            "args": {"todos": [{"content": "Answer", "status": "in_progress"}]},
                        }
                    ]
                },
                {"tool_calls": [{"name": "ls", "args": {"path": "/"}}]},
                {"text": "The answer is 42."},
            ]
        }
    ]
}
ROWS = [{"question": f"Question {n}?", "reference": "42" if n % 2 else "41"} for n in range(20)]
VARIANTS = {"brief": "Answer in one line.", "careful": "Check the answer before you give it."}
EPOCHS = 5


def throughput(turn: float, concurrency: int, folder: Path) -> tuple[float, float, int]:
    meter = Meter()
    deepnb.agent(name="bench-experiment", model=timed(SCRIPT, turn_seconds=turn, meter=meter))
    started = time.perf_counter()
    exp = deepnb.experiment(
        ROWS,
        variants=VARIANTS,
        agent="bench-experiment",
        scorers=[scorers.contains],
        epochs=EPOCHS,
        concurrency=concurrency,
        template="{question}",
        log=folder / "throughput.jsonl",
    )
    exp.wait()
    wall = time.perf_counter() - started
    statuses = [r.status for r in exp.records.values()]
    if len(statuses) != len(ROWS) * len(VARIANTS) * EPOCHS or set(statuses) != {"done"}:
        raise SystemExit(f"not every run ended done: {sorted(set(statuses))}, {len(statuses)} runs")
    ideal = len(statuses) * 3 * turn / concurrency
    return wall, ideal, meter.most


def _run_line(n: int) -> dict[str, object]:
    answer = f"The answer is {40 + n % 3}."
    return {
        "type": "run",
        "row": n // 10,
        "variant": "ab"[n % 2],
        "epoch": (n // 2) % 5,
        "status": "done",
        "result": answer,
        "output": None,
        "error": None,
        "tokens_in": 120,
        "tokens_out": 30,
        "cost": None,
        "latency": 1.5,
        "thread_id": f"t{n}",
        "messages": [{"role": "user", "content": f"Q{n // 10}"}, {"role": "assistant", "content": answer}],
        "scores": {"contains": {"score": 1.0, "comment": "", "error": None}},
    }


def write_log(path: Path, count: int) -> None:
    """A log of ``count`` done runs, written as another program could (the documented format)."""
    rows = count // 10
    header = {
        "type": "experiment",
        "format": 1,
        "name": "logged",
        "created": "2026-12-01T00:00:00Z",
        "variants": {"a": "", "b": ""},
        "scorers": ["contains"],
        "epochs": 5,
        "baseline": "a",
        "template": None,
        "rows": rows,
    }
    lines = [header]
    lines += [
        {"type": "row", "row": row, "inputs": {"question": f"Q{row}"}, "reference": "42", "given": f"Q{row}"}
        for row in range(rows)
    ]
    lines += [_run_line(n) for n in range(count)]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def report(name: str, seconds: float, base_name: str, base: float, target: str) -> None:
    print(
        f"{name:<16}{seconds:8.2f} s   {base_name} {base:6.2f} s   ratio {seconds / base:6.2f}   ({target})"
    )


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--turn", type=float, default=1.0)
    options.add_argument("--concurrency", type=int, default=16)
    options.add_argument("--logged", type=int, default=10_000)
    args = options.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print("· 200 runs…", flush=True)
        wall, ideal, most = throughput(args.turn, args.concurrency, folder)
        report("throughput", wall, "ideal", ideal, f"target ratio ≤ 1.25; {most} turns at once at most")

        log = folder / "logged.jsonl"
        write_log(log, args.logged)
        started = time.perf_counter()
        lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
        floor = time.perf_counter() - started
        started = time.perf_counter()
        exp = deepnb.load_experiment(log)
        reopen = time.perf_counter() - started
        report(f"reopen {args.logged:,}", reopen, "json.loads", floor, "target ≤ 2 s")

        built_in = [scorers.exact, scorers.contains, scorers.regex(r"\b42\b")]
        runs = [line for line in lines if line["type"] == "run"]
        started = time.perf_counter()
        for run in runs:
            for score in built_in:
                score(run["result"], "42", None)
        plain = time.perf_counter() - started
        started = time.perf_counter()
        exp.rescore(built_in)
        rescored = time.perf_counter() - started
        report(f"rescore {args.logged:,}", rescored, "plain loop", plain, "target ≤ 10 s")


if __name__ == "__main__":
    main()
