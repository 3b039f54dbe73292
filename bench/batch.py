"""A batch of runs in one real kernel: concurrency against one at a time, the kernel's answers
while the batch goes on, and the grid's front-end messages, measured in the same run.

    python bench/batch.py [--inputs 100] [--concurrency 8] [--turn 0.2]

The agent is a deep agent on a scripted model whose every turn takes ``--turn`` seconds (an
``asyncio.sleep``, as a model's network call waits) before it answers; each input is one run on a
new thread.

1. Throughput: ``workbench.map(inputs, concurrency=1)`` (the baseline) against
   ``%%deepagent map inputs -c 8 --bg`` in the same kernel: wall time from the start to the last
   run's end. Target: at least 6× faster.
2. The kernel while the concurrent batch runs: a trivial cell (``1 + 1``) is executed again and
   again from this process; its round trip (execute request → reply and idle) is measured.
   Target: the slowest at most 100 ms.
3. The grid's front-end messages during the concurrent batch (state updates and ``rows``
   messages on its comm): peak in any 1-second window and mean rate. Target: at most 20/s.

Rows marked ``(info)`` help read them: the kernel's CPU time per run during the concurrent batch
(the engine streams every run on one thread, so this bounds the throughput once the model's waits
overlap) and the machine's load average.

Exits non-zero only if something fails (a cell error, a run that did not end done), not on a
missed target.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.kernel_cells import BenchFailure, cell, peak_rate, value  # noqa: E402
from tests.support.kernel_session import KernelSession  # noqa: E402

SPEEDUP_TARGET = 6.0
LATENCY_TARGET = 0.100
RATE_TARGET = 20.0

SETUP = """
import deepnb
from tests.support.timed_model import timed
script = {{"main": [{{"turns": [{{"text": "Answered.\\nWith a second line."}}]}}]}}
bench = deepnb.agent(name="batched", model=timed(script, turn_seconds={turn}))
inputs = [f"Question {{i}}" for i in range({n})]
"""


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--inputs", type=int, default=100)
    options.add_argument("--concurrency", type=int, default=8)
    options.add_argument("--turn", type=float, default=0.2)
    args = options.parse_args()
    session = KernelSession(cwd=str(ROOT), env={"PYTHONPATH": str(ROOT), "LANGSMITH_TRACING": "false"})
    try:
        cell(session, "%load_ext deepnb")
        cell(session, SETUP.format(turn=args.turn, n=args.inputs))
        print("· warm-up…", flush=True)
        cell(session, "bench.map(inputs[:4], concurrency=2).wait(120);")

        print(f"· one at a time: {args.inputs} runs…", flush=True)
        cell(session, "one = bench.map(inputs, concurrency=1).wait()")
        sequential = value(session, "one.elapsed")
        if value(session, "one.counts()['done']") != args.inputs:
            raise BenchFailure(f"the one-at-a-time batch did not end done: {value(session, 'one.counts()')}")

        print(f"· concurrency {args.concurrency}, with the kernel asked 1 + 1 meanwhile…", flush=True)
        before = len(session.iopub)
        cell(session, "import time; cpu0 = time.process_time()")
        cell(session, f"%%deepagent map inputs -c {args.concurrency} -a batched --bg -o many\n")
        latencies: list[float] = []
        while True:
            started = time.perf_counter()
            reply = session.execute("1 + 1", timeout=60)
            latencies.append(time.perf_counter() - started)
            if not reply.ok:
                raise BenchFailure("1 + 1 failed during the batch")
            if value(session, "many.done"):
                break
            time.sleep(0.02)
        cell(session, "many.wait(); cpu = time.process_time() - cpu0")
        concurrent = value(session, "many.elapsed")
        cpu = value(session, "cpu")
        if value(session, "many.counts()['done']") != args.inputs:
            raise BenchFailure(f"the concurrent batch did not end done: {value(session, 'many.counts()')}")

        grid = [
            m["content"]["comm_id"]
            for m in session.iopub[before:]
            if m["msg_type"] == "comm_open"
            and m["content"]["data"].get("state", {}).get("_anywidget_id")
            == "deepnb.views.batch.batch_view.BatchView"
        ]
        if not grid:
            raise BenchFailure("no batch grid was opened")
        times = [
            m["header"]["date"].timestamp()
            for m in session.iopub[before:]
            if m["msg_type"] == "comm_msg" and m["content"]["comm_id"] == grid[0]
        ]
    finally:
        session.close()

    times.sort()
    speedup = sequential / concurrent
    span = (times[-1] - times[0]) if len(times) > 1 else 0.0
    mean_rate = len(times) / span if span else float(len(times))
    print()
    print(f"{'figure':<52}{'value':>14}{'target':>12}")
    print(f"{'one at a time (s)':<52}{sequential:>14.2f}{'':>12}")
    print(f"{f'concurrency {args.concurrency} (s)':<52}{concurrent:>14.2f}{'':>12}")
    print(f"{'speed-up':<52}{speedup:>13.2f}×{f'≥ {SPEEDUP_TARGET:.0f}×':>12}")
    print(f"{'kernel: slowest 1 + 1 during the batch (ms)':<52}{max(latencies) * 1000:>14.1f}{'≤ 100':>12}")
    median = statistics.median(latencies) * 1000
    print(f"{'kernel: median 1 + 1 during the batch (ms) (info)':<52}{median:>14.1f}")
    print(f"{'kernel: cells answered during the batch (info)':<52}{len(latencies):>14}")
    slowest = ", ".join(
        f"#{n} {t * 1000:.0f}" for t, n in sorted(((t, n) for n, t in enumerate(latencies)), reverse=True)[:4]
    )
    print(f"{'kernel: slowest cells, by order (ms) (info)':<52}{slowest:>14}")
    print(f"{'grid: messages, peak in any 1 s':<52}{peak_rate(times):>14.0f}{'≤ 20':>12}")
    print(f"{'grid: messages per second, mean (info)':<52}{mean_rate:>14.1f}")
    print(f"{'grid: messages in all (info)':<52}{len(times):>14}")
    print(f"{'kernel CPU per run, concurrent batch (ms) (info)':<52}{cpu / args.inputs * 1000:>14.1f}")
    print(f"{'load average of the machine, 1 min (info)':<52}{os.getloadavg()[0]:>14.2f}")
    met = speedup >= SPEEDUP_TARGET and max(latencies) <= LATENCY_TARGET and peak_rate(times) <= RATE_TARGET
    print("\nall targets met" if met else "\nsome targets missed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
