"""Agent Server replicas: throughput of one replica against two, and deepnb's first token.

    python bench/remote.py        (needs `make agent-server`; or: make bench)

The self-hosted Agent Server (MIT ``langhost``: stock ``langgraph-api`` on PostgreSQL + Redis) runs
the ``quick`` graph of tests/support/scaleout_app: a deep agent on deepnb's scripted model that
takes 3 steps of a 0.2 s tool, then answers. Each replica has the same number of job slots
(``--jobs``, the server's ``--n-jobs-per-worker``), as a deployment sizes its replicas.

1. One replica: ``--runs`` runs (40), each on its own thread, all submitted at once; wall time from
   the first submission to the last run's end. This is the baseline.
2. Two replicas on the same database and queue: the same number of runs, submitted half to each.
   Target: at least 1.8× the one-replica throughput.
3. First token, on the one-replica server: from asking for a run to its first streamed token, as
   deepnb's run sees it (``deepnb.connect`` + ``workbench.start``; the token's event as the run view
   receives it, in this process) against a bare ``langgraph-sdk`` client on the same server sending
   the same request (same stream modes, the thread created with the run, as deepnb does). Medians
   of ``--trials`` alternating trials, each on a new thread.
   Target: at most 1.05× the bare client.

All are measured in the same run, after warm-up runs. Every run's thread must end
with the agent's answer, or the bench fails. Exits non-zero only if something fails, not on a missed
target.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
import uuid
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
FIRST_TOKEN_TARGET = 1.05
TRIALS = 15
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


def deepnb_first_token(workbench: Any) -> float:
    """Seconds from ``workbench.start`` to the run's first streamed text (its TextDelta event)."""
    import threading

    from deepnb.core import events as ev

    seen = threading.Event()
    started = time.perf_counter()
    run = workbench.start("first token", new_thread=True)
    stamp: list[float] = []

    def listener(event: Any) -> None:
        if isinstance(event, ev.TextDelta) and event.text and not stamp:
            stamp.append(time.perf_counter())
            seen.set()

    run.subscribe(listener)
    if not seen.wait(RUN_TIMEOUT):
        raise BenchFailure(f"no token from deepnb's run in {RUN_TIMEOUT:.0f} s ({run.status}: {run.error})")
    run.wait(RUN_TIMEOUT)
    if run.status != "done":
        raise BenchFailure(f"deepnb's run ended {run.status}: {run.error}")
    return stamp[0] - started


async def sdk_first_token(sdk: Any) -> float:
    """Seconds from asking a bare langgraph-sdk client for a streamed run to its first token."""
    from deepnb.core.events import STREAM_MODES
    from deepnb.session.remote.graph import STREAM_MODE_NAMES

    modes = [STREAM_MODE_NAMES.get(m, m) for m in STREAM_MODES]  # what deepnb asks for
    started = time.perf_counter()
    first = None
    async for part in sdk.runs.stream(  # one request, as deepnb's: the thread is created with the run
        str(uuid.uuid4()),
        "quick",
        input={"messages": [{"role": "user", "content": "first token"}]},
        stream_mode=modes,
        stream_subgraphs=True,
        if_not_exists="create",
    ):
        if first is None and part.event.startswith("messages") and isinstance(part.data, list):
            chunk = part.data[0] if part.data else {}
            if isinstance(chunk, dict) and chunk.get("content"):
                first = time.perf_counter()
    if first is None:
        raise BenchFailure("the bare client's run streamed no token")
    return first - started


async def first_tokens(url: str, trials: int) -> dict[str, float]:
    """Median first-token seconds through deepnb and through a bare client, trials alternating."""
    import deepnb

    workbench = deepnb.connect(url, "quick", name="bench-remote")
    from langgraph_sdk import get_client

    sdk = get_client(url=url, api_key=None)
    await asyncio.to_thread(deepnb_first_token, workbench)  # warm-up, both ways
    await sdk_first_token(sdk)
    through_deepnb, bare = [], []
    for _ in range(trials):
        through_deepnb.append(await asyncio.to_thread(deepnb_first_token, workbench))
        bare.append(await sdk_first_token(sdk))
    return {"deepnb": statistics.median(through_deepnb), "sdk": statistics.median(bare)}


def measure(runs: int, jobs: int, trials: int) -> dict[str, Any]:
    # Warnings only: the replicas' per-request and per-run INFO lines cost CPU this machine shares.
    with scaleout.cluster(names=("A",), jobs=jobs, env={"LOG_LEVEL": "WARNING"}) as servers:
        one = [servers["A"].url]
        tokens = asyncio.run(first_tokens(servers["A"].url, trials)) if trials else {}
        asyncio.run(run_batch(one, jobs))  # warm-up: imports, first connections
        single = asyncio.run(run_batch(one, runs))
        servers.start("B")
        two = [servers["A"].url, servers["B"].url]
        asyncio.run(run_batch(two, 2 * jobs))  # warm-up for B
        double = asyncio.run(run_batch(two, runs))
    return {"one": single, "two": double, "tokens": tokens}


def report(runs: int, jobs: int, seconds: dict[str, Any]) -> None:
    one, two = runs / seconds["one"], runs / seconds["two"]
    ratio = two / one
    result = "PASS" if ratio >= THROUGHPUT_TARGET else "MISS"
    print(f"{'figure':40} {'value':>14} {'baseline':>14} {'ratio':>7}  {'target':>7}  result")
    print("-" * 96)
    print(
        f"{'throughput, two replicas vs one':40} {two:>10.2f} r/s {one:>10.2f} r/s {ratio:>7.2f}"
        f"  {'≥ ' + str(THROUGHPUT_TARGET):>7}  {result}"
    )
    tokens = seconds["tokens"]
    if tokens:
        ratio = tokens["deepnb"] / tokens["sdk"]
        result = "PASS" if ratio <= FIRST_TOKEN_TARGET else "MISS"
        print(
            f"{'first token, deepnb vs bare sdk client':40} {tokens['deepnb'] * 1000:>11.0f} ms"
            f" {tokens['sdk'] * 1000:>11.0f} ms {ratio:>7.3f}  {'≤ ' + str(FIRST_TOKEN_TARGET):>7}  {result}"
        )
    work = f"{app.QUICK_STEPS} × {app.QUICK_STEP_SECONDS} s steps"
    print(f"\n{runs} runs of {work}; {jobs} job slots per replica;")
    print(f"wall time: one replica {seconds['one']:.2f} s, two replicas {seconds['two']:.2f} s.")
    print("baselines (measured in the same run): the same runs through one replica; the same server")
    print("streaming to a bare langgraph-sdk client (medians, trials alternating with deepnb's).")
    load = ", ".join(f"{n:.1f}" for n in os.getloadavg())
    print(f"machine: {os.cpu_count()} cores, load average {load}; replicas, PostgreSQL and Redis share them.")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=RUNS)
    parser.add_argument("--jobs", type=int, default=JOBS, help="job slots per replica")
    parser.add_argument("--trials", type=int, default=TRIALS, help="first-token trials (0: skip)")
    args = parser.parse_args()
    problem = scaleout.missing()
    if problem:
        print(f"bench/remote.py: {problem}", file=sys.stderr)
        return 2
    try:
        seconds = measure(args.runs, args.jobs, args.trials)
    except BenchFailure as failure:
        print(f"bench/remote.py: {failure}", file=sys.stderr)
        return 1
    report(args.runs, args.jobs, seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
