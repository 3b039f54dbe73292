"""An experiment's cost at scale, each figure against a baseline measured in the same run.

    python bench/experiment.py [--turn 1.0] [--concurrency 16] [--logged 10000] [--served-jobs 2]

1. In a real kernel, with the live matrix displayed: 20 rows x 2 variants x 5 epochs = 200 runs
   of a deep agent on a scripted model whose every turn takes ``--turn`` seconds (an
   ``asyncio.sleep``, as a model's network call waits), 3 turns a run, at most ``--concurrency``
   at once. Baseline: the ideal wall time, 200 x 3 x turn / concurrency. Target: at most 1.25x the
   ideal. Meanwhile a trivial cell (``1 + 1``) is executed again and again from this process
   (target: 95th percentile at most 100 ms), and the matrix's front-end messages are counted
   (target: at most 20 in any second, none over 64 KB).
2. The same 200 runs against a connected agent on Agent Server replicas (the self-hosted runtime
   of ``make agent-server``: PostgreSQL + Redis, ``--served-jobs`` job slots per replica), with
   ``concurrency`` not given, so the server's job slots decide. Baseline: one replica. Target:
   two replicas at least 1.8x its throughput. Skipped, saying why, where the server is not built.
3. Scoring ``--logged`` finished runs again (``rescore``) with the built-in ``exact``,
   ``contains`` and ``regex`` scorers. Baseline: the same scorers called in a plain loop.
   Target: at most 10 s.
4. Reopening a log of ``--logged`` runs (``deepnb.load_experiment``). Baseline: reading the same
   file's lines with ``json.loads``. Target: at most 2 s.

Exits non-zero only if something fails (a run that did not end done), not on a missed target.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import deepnb  # noqa: E402
from bench.kernel_cells import BenchFailure, cell, peak_rate, value  # noqa: E402
from deepnb import scorers  # noqa: E402
from tests.support import scaleout  # noqa: E402
from tests.support.kernel_session import KernelSession  # noqa: E402
from tests.support.scaleout_app import scaleout_script as served_app  # noqa: E402

MATRIX = "deepnb.views.experiment.experiment_live.ExperimentView"
LARGEST_MESSAGE = 64 * 1024

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


KERNEL_SETUP = """
import json, threading, time
import deepnb
from deepnb import scorers
from tests.support.timed_model import Meter, timed
meter = Meter()
deepnb.agent(name="bench-experiment", model=timed({script!r}, turn_seconds={turn}, meter=meter))
rows, variants = {rows!r}, {variants!r}
"""
KERNEL_START = """
ended = []
started = time.perf_counter()
exp = deepnb.experiment(rows, variants=variants, agent="bench-experiment", scorers=[scorers.contains],
                        epochs={epochs}, concurrency={concurrency}, template="{{question}}", log={log!r})
threading.Thread(target=lambda: (exp.wait(), ended.append(time.perf_counter())), daemon=True).start()
exp
"""


def _widget_class(message: dict[str, Any]) -> Any:
    return message["content"]["data"].get("state", {}).get("_anywidget_id")


def _size(message: dict[str, Any]) -> int:
    """A message's content as JSON plus its binary buffers, in bytes."""
    buffers = sum(len(b) for b in message.get("buffers") or [])
    return len(json.dumps(message["content"], default=str)) + buffers


def in_kernel(turn: float, concurrency: int, folder: Path) -> dict[str, Any]:
    """The 200 runs in a kernel with the matrix displayed: wall time, the kernel's ``1 + 1``
    round trips meanwhile, and the matrix's messages."""
    session = KernelSession(cwd=str(ROOT), env={"PYTHONPATH": str(ROOT), "LANGSMITH_TRACING": "false"})
    try:
        cell(session, "%load_ext deepnb")
        cell(session, KERNEL_SETUP.format(script=SCRIPT, turn=turn, rows=ROWS, variants=VARIANTS))
        before = len(session.iopub)
        log = str(folder / "throughput.jsonl")
        cell(session, KERNEL_START.format(epochs=EPOCHS, concurrency=concurrency, log=log))
        latencies: list[float] = []
        while not value(session, "bool(ended)"):
            asked = time.perf_counter()
            if not session.execute("1 + 1", timeout=60).ok:
                raise BenchFailure("1 + 1 failed during the experiment")
            latencies.append(time.perf_counter() - asked)
            time.sleep(0.05)
        wall = value(session, "ended[0] - started")
        statuses = value(session, "sorted({r.status for r in exp.records.values()})")
        count = value(session, "len(exp.records)")
        most = value(session, "meter.most")
        messages = list(session.iopub[before:])
    finally:
        session.close()
    if count != len(ROWS) * len(VARIANTS) * EPOCHS or statuses != ["done"]:
        raise BenchFailure(f"not every run ended done: {statuses}, {count} runs")
    opened = [m for m in messages if m["msg_type"] == "comm_open"]
    matrix = [m["content"]["comm_id"] for m in opened if _widget_class(m) == MATRIX]
    if not matrix:
        raise BenchFailure("no experiment matrix was displayed")
    sent = [m for m in messages if m["msg_type"] == "comm_msg" and m["content"]["comm_id"] == matrix[0]]
    times = sorted(m["header"]["date"].timestamp() for m in sent)
    sizes = [_size(m) for m in sent]
    return {
        "wall": wall,
        "ideal": count * 3 * turn / concurrency,
        "most": most,
        "latencies": latencies,
        "peak": peak_rate(times),
        "messages": len(sent),
        "largest": max(sizes, default=0),
    }


def served_experiment(url: str, folder: Path, tag: str, epochs: int = EPOCHS) -> float:
    """The rows by two variants (two connections to the served ``quick`` agent) ``epochs`` times,
    ``concurrency`` not given; the wall time until every run is scored."""
    for label in VARIANTS:
        deepnb.connect(url, "quick", name=f"served-{label}-{tag}")
    rows = [{"question": row["question"], "reference": served_app.QUICK_DONE} for row in ROWS]
    started = time.perf_counter()
    exp = deepnb.experiment(
        rows,
        variants={label: f"served-{label}-{tag}" for label in VARIANTS},
        scorers=[scorers.exact],
        epochs=epochs,
        template="{question}",
        log=folder / f"served-{tag}.jsonl",
    ).wait()
    wall = time.perf_counter() - started
    records = exp.records.values()
    wrong = [r for r in records if r.status != "done" or r.scores["exact"].score != 1.0]
    if len(records) != len(rows) * len(VARIANTS) * epochs or wrong:
        raise BenchFailure(f"served runs not all done and right: {len(records)} runs, {len(wrong)} wrong")
    return wall


def on_replicas(jobs: int, folder: Path) -> dict[str, float]:
    """The served experiment on one replica, then on two sharing its database and queue."""
    with scaleout.cluster(names=("A",), jobs=jobs, env={"LOG_LEVEL": "WARNING"}) as servers:
        url = servers["A"].url
        served_experiment(url, folder, "warm-a", epochs=1)
        one = served_experiment(url, folder, "one")
        servers.start("B")
        served_experiment(url, folder, "warm-b", epochs=1)
        two = served_experiment(url, folder, "two")
    return {"one": one, "two": two}


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


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--turn", type=float, default=1.0)
    options.add_argument("--concurrency", type=int, default=16)
    options.add_argument("--logged", type=int, default=10_000)
    options.add_argument("--served-jobs", type=int, default=2, help="job slots per replica")
    args = options.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print("· 200 runs in a kernel, the matrix displayed, 1 + 1 asked meanwhile…", flush=True)
        try:
            kernel = in_kernel(args.turn, args.concurrency, folder)
        except BenchFailure as failure:
            print(f"bench/experiment.py: {failure}", file=sys.stderr)
            return 1
        report("throughput", kernel["wall"], "ideal", kernel["ideal"], "target ratio ≤ 1.25")
        p95 = statistics.quantiles(kernel["latencies"], n=20)[-1] if len(kernel["latencies"]) > 1 else 0.0
        print(
            f"{'kernel 1 + 1':<16}{p95 * 1000:8.1f} ms p95 over {len(kernel['latencies'])} cells, slowest "
            f"{max(kernel['latencies'], default=0) * 1000:.1f} ms   (target p95 ≤ 100 ms)"
        )
        print(
            f"{'matrix':<16}{kernel['peak']:8d} messages in the busiest second, {kernel['messages']} in all, "
            f"largest {kernel['largest']:,} bytes   (targets ≤ 20/s, ≤ {LARGEST_MESSAGE:,} bytes)"
        )
        print(f"{'':<16}{kernel['most']} model turns at once at most")

        problem = scaleout.missing()
        if problem:
            print(f"· served: skipped ({problem})")
        else:
            print(f"· 200 runs on Agent Server replicas ({args.served_jobs} job slots each)…", flush=True)
            try:
                served = on_replicas(args.served_jobs, folder)
            except BenchFailure as failure:
                print(f"bench/experiment.py: {failure}", file=sys.stderr)
                return 1
            runs = len(ROWS) * len(VARIANTS) * EPOCHS
            speed = served["one"] / served["two"]
            print(
                f"{'two replicas':<16}{served['two']:8.2f} s   one replica {served['one']:6.2f} s   "
                f"throughput ×{speed:.2f}   (target ≥ 1.8; {runs / served['two']:.1f} against "
                f"{runs / served['one']:.1f} runs/s)"
            )

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
    load = ", ".join(f"{n:.1f}" for n in os.getloadavg())
    print(f"machine: {os.cpu_count()} cores, load average {load}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
