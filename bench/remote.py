"""Agent Server replicas: throughput of one replica against two, on one PostgreSQL and one Redis.

    python bench/remote.py        (needs `make agent-server`; or: make bench)

The self-hosted Agent Server (MIT ``langhost``: stock ``langgraph-api`` on PostgreSQL + Redis) runs
the ``quick`` graph of tests/support/scaleout_app: a deep agent on deepnb's scripted model that
takes 3 steps of a 0.2 s tool, then answers. Each replica has the same number of job slots
(``--jobs``, the server's ``--n-jobs-per-worker``), as a deployment sizes its replicas.

1. One replica: ``--runs`` runs (40), each on its own thread, all submitted at once; wall time from
   the first submission to the last run's end. This is the baseline.
2. Two replicas on the same database and queue: the same number of runs, submitted half to each.
   Target: at least 1.8× the one-replica throughput.

Both are measured in the same run, after a warm-up run on each replica. Every run's thread must end
with the agent's answer, or the bench fails. Exits non-zero only if something fails, not on a missed
target.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support import scaleout  # noqa: E402
from tests.support.scaleout_app import scaleout_script as app  # noqa: E402

RUNS = 40
# Job slots per replica. Two keeps a replica's capacity, not this machine's CPU, the limit on a
# 2-core machine: with 4 slots each, two replicas need more than 2 cores (see the closing note).
JOBS = 2
THROUGHPUT_TARGET = 1.8
RUN_TIMEOUT = 300.0


class BenchFailure(RuntimeError):
    """A run failed or did not end with the agent's answer."""


async def last_message(sdk: Any, thread_id: str) -> Any:
    state = await sdk.threads.get_state(thread_id)
    messages = (state.get("values") or {}).get("messages") or [{}]
    return messages[-1].get("content")


async def run_batch(urls: list[str], runs: int) -> float:
    """Submit ``runs`` runs of the ``quick`` graph round-robin to ``urls`` and wait for all of them;
    return the wall time from the first submission to the last run's end."""
    from langgraph_sdk import get_client

    clients = [get_client(url=url, api_key=None) for url in urls]

    async def one(n: int) -> None:
        sdk = clients[n % len(clients)]
        thread = await sdk.threads.create()
        run = await sdk.runs.create(
            thread["thread_id"], "quick", input={"messages": [{"role": "user", "content": f"job {n}"}]}
        )
        await asyncio.wait_for(sdk.runs.join(thread["thread_id"], run["run_id"]), RUN_TIMEOUT)
        # The thread's state is the authority: join's own reply has been seen to lag it by a step.
        deadline = time.monotonic() + RUN_TIMEOUT
        while (last := await last_message(sdk, thread["thread_id"])) != app.QUICK_DONE:
            status = (await sdk.runs.get(thread["thread_id"], run["run_id"]))["status"]
            if status not in {"pending", "running", "success"} or time.monotonic() > deadline:
                raise BenchFailure(f"run {n} ended {status} without the answer; its last message: {last!r}")
            await asyncio.sleep(0.05)

    started = time.perf_counter()
    await asyncio.gather(*(one(n) for n in range(runs)))
    return time.perf_counter() - started


def measure_throughput(runs: int, jobs: int) -> dict[str, Any]:
    with scaleout.cluster(names=("A",), jobs=jobs) as servers:
        one = [servers["A"].url]
        asyncio.run(run_batch(one, jobs))  # warm-up: imports, first connections
        single = asyncio.run(run_batch(one, runs))
        servers.start("B")
        two = [servers["A"].url, servers["B"].url]
        asyncio.run(run_batch(two, 2 * jobs))  # warm-up for B
        double = asyncio.run(run_batch(two, runs))
    return {"one": single, "two": double}


def report(runs: int, jobs: int, seconds: dict[str, float]) -> None:
    one, two = runs / seconds["one"], runs / seconds["two"]
    ratio = two / one
    result = "PASS" if ratio >= THROUGHPUT_TARGET else "MISS"
    print(f"{'figure':40} {'value':>14} {'baseline':>14} {'ratio':>7}  {'target':>7}  result")
    print("-" * 96)
    print(
        f"{'throughput, two replicas vs one':40} {two:>10.2f} r/s {one:>10.2f} r/s {ratio:>7.2f}"
        f"  {'≥ ' + str(THROUGHPUT_TARGET):>7}  {result}"
    )
    work = f"{app.QUICK_STEPS} × {app.QUICK_STEP_SECONDS} s steps"
    print(f"\n{runs} runs of {work}; {jobs} job slots per replica;")
    print(f"wall time: one replica {seconds['one']:.2f} s, two replicas {seconds['two']:.2f} s.")
    print("baseline: the same runs through one replica, measured in the same run.")
    load = ", ".join(f"{n:.1f}" for n in os.getloadavg())
    print(f"machine: {os.cpu_count()} cores, load average {load}; replicas, PostgreSQL and Redis share them.")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=RUNS)
    parser.add_argument("--jobs", type=int, default=JOBS, help="job slots per replica")
    args = parser.parse_args()
    problem = scaleout.missing()
    if problem:
        print(f"bench/remote.py: {problem}", file=sys.stderr)
        return 2
    try:
        seconds = measure_throughput(args.runs, args.jobs)
    except BenchFailure as failure:
        print(f"bench/remote.py: {failure}", file=sys.stderr)
        return 1
    report(args.runs, args.jobs, seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
