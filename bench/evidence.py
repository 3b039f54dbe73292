"""What trustworthy experiments cost, each figure against a baseline measured in the same run.

    python bench/evidence.py [--runs 300] [--epochs 3] [--turn 0.2] [--concurrency 32] [--cpu-runs 100]

1. CPU per run: ``--cpu-runs`` runs of a deep agent (a scripted model answering at once, three
   turns a run) through ``deepnb.experiment``. Baseline: the same compiled agent's ``ainvoke``
   in a plain asyncio loop, as many at once. Figure: deepnb's CPU per run above the bare loop's.
   Target: at most 10 ms a run.
2. Wall time: ``--runs`` rows x ``--epochs`` epochs at ``--concurrency``, each model turn taking
   ``--turn`` seconds. Baseline: the ideal, runs x 3 turns x turn / concurrency. Target: at most
   2.0x the ideal.
3. Judge rescoring: the ``--runs`` runs of one epoch scored again by an LLM judge whose every call
   takes ``--turn`` seconds, at concurrency 8. Baseline: the ideal, runs x turn / 8. Target: at
   most 1.2x.
4. A cached re-run: the same experiment run again with ``cache=`` (after a first run that filled
   it). Baseline: the first run's wall time. Target: at most 5 %.
5. Memory: the peak resident memory of a fresh process that runs 600 runs, above the same
   process's once the agent is built (an idle kernel). Target: at most 200 MB.

Exits non-zero only if something fails (a run that did not end done), not on a missed target.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import deepnb  # noqa: E402
from bench.experiment import SCRIPT  # noqa: E402  # the same three-turn run
from deepnb import scorers  # noqa: E402
from deepnb.models.scripted import ScriptedChatModel, parse_script  # noqa: E402
from tests.support.timed_model import timed  # noqa: E402

JUDGE = {
    "main": [
        {"turns": [{"tool_calls": [{"name": "score", "args": {"reasoning": "It says 42.", "score": True}}]}]}
    ]
}
TURNS = 3


class SlowJudge(ScriptedChatModel):
    """A scripted judge whose every call takes ``turn_seconds`` (a judge is called synchronously,
    on a scoring thread, as a provider's network call would block it)."""

    turn_seconds: float = 0.0

    def _reply(self, messages: Any, run_manager: Any) -> Any:
        time.sleep(self.turn_seconds)
        return super()._reply(messages, run_manager)


class BenchFailure(Exception):
    """A run did not end done: the figures would mean nothing."""


def rows(count: int) -> list[dict[str, str]]:
    return [{"question": f"Question {n}?", "reference": "42"} for n in range(count)]


def check(experiment: Any, expected: int) -> None:
    statuses = sorted({r.status for r in experiment.records.values()})
    if len(experiment.records) != expected or statuses != ["done"]:
        raise BenchFailure(f"not every run ended done: {statuses}, {len(experiment.records)} of {expected}")


def run(name: str, count: int, log: Path, **options: Any) -> Any:
    """``count`` rows by agent ``name``, scored by ``contains``, waited for and checked done."""
    options.setdefault("concurrency", 8)
    experiment = deepnb.experiment(
        rows(count), agent=name, scorers=[scorers.contains], template="{question}", log=log, **options
    ).wait()
    check(experiment, count * options.get("epochs", 1))
    return experiment


def cpu_per_run(count: int, folder: Path) -> tuple[float, float]:
    """deepnb's and the bare loop's CPU seconds per run."""
    name = f"cpu-{uuid.uuid4().hex[:6]}"
    bench = deepnb.agent(name, model=timed(SCRIPT, turn_seconds=0.0))
    started = time.process_time()
    run(name, count, folder / "cpu.jsonl")
    ours = (time.process_time() - started) / count

    async def bare() -> None:
        gate = asyncio.Semaphore(8)

        async def one(n: int) -> None:
            async with gate:
                config = {"configurable": {"thread_id": uuid.uuid4().hex}}
                await bench.graph.ainvoke(
                    {"messages": [{"role": "user", "content": f"Question {n}?"}]}, config
                )

        await asyncio.gather(*(one(n) for n in range(count)))

    started = time.process_time()
    asyncio.run(bare())
    return ours, (time.process_time() - started) / count


def wall(runs: int, epochs: int, turn: float, concurrency: int, folder: Path) -> tuple[float, float]:
    """The experiment's wall time and the ideal."""
    name = f"wall-{uuid.uuid4().hex[:6]}"
    deepnb.agent(name, model=timed(SCRIPT, turn_seconds=turn))
    started = time.perf_counter()
    run(name, runs, folder / "wall.jsonl", epochs=epochs, concurrency=concurrency)
    took = time.perf_counter() - started
    return took, runs * epochs * TURNS * turn / concurrency


def judge_rescoring(runs: int, turn: float, folder: Path) -> tuple[float, float]:
    """Rescoring ``runs`` runs with a judge whose calls take ``turn`` seconds, at concurrency 8."""
    name = f"judged-{uuid.uuid4().hex[:6]}"
    deepnb.agent(name, model=timed(SCRIPT, turn_seconds=0.0))
    experiment = run(name, runs, folder / "judged.jsonl")
    slow = SlowJudge(script=parse_script({"agents": JUDGE}), turn_seconds=turn)
    judge = scorers.judge(slow, "Is the answer right?", name="judge")
    started = time.perf_counter()
    experiment.rescore([judge])
    took = time.perf_counter() - started
    failed = [r for r in experiment.records.values() if r.scores["judge"].score is None]
    if failed:
        raise BenchFailure(f"{len(failed)} judge scores failed: {failed[0].scores['judge'].error}")
    return took, runs * turn / 8


def cached(runs: int, turn: float, concurrency: int, folder: Path) -> tuple[float, float]:
    """The first run's wall time and a re-run's through the cache it filled."""
    name = f"cached-{uuid.uuid4().hex[:6]}"
    deepnb.agent(name, model=timed(SCRIPT, turn_seconds=turn))
    times = []
    for attempt in ("first", "again"):
        started = time.perf_counter()
        experiment = run(
            name, runs, folder / f"cached-{attempt}.jsonl", concurrency=concurrency, cache=folder / "cache"
        )
        times.append(time.perf_counter() - started)
    hits = sum(r.cached for r in experiment.records.values())
    if hits != runs * TURNS:
        raise BenchFailure(f"the re-run's cache answered {hits} of {runs * TURNS} model calls")
    return times[1], times[0]


MEMORY = """
import json, resource, sys, tempfile
sys.path.insert(0, {root!r})
import deepnb
from deepnb import scorers
from tests.support.timed_model import timed
deepnb.agent("memory", model=timed({script!r}, turn_seconds=0.0))
idle = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
rows = [{{"question": f"Question {{n}}?", "reference": "42"}} for n in range(200)]
e = deepnb.experiment(rows, agent="memory", scorers=[scorers.contains], template="{{question}}", epochs=3,
                      concurrency=16, log=tempfile.mkdtemp() + "/memory.jsonl").wait()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({{"idle": idle, "peak": peak, "runs": len(e.records)}}))
"""


def memory() -> tuple[float, float]:
    """A fresh process's peak resident MB over 600 runs, and its MB once the agent is built."""
    code = MEMORY.format(root=str(ROOT), script=SCRIPT)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=1200, check=True
    )
    found = json.loads(out.stdout.strip().splitlines()[-1])
    if found["runs"] != 600:
        raise BenchFailure(f"the memory run ended {found['runs']} of 600 runs")
    return found["peak"] / 1024, found["idle"] / 1024  # ru_maxrss is in KiB on Linux


def line(name: str, figure: str, baseline: str, ratio: str, target: str) -> None:
    print(f"{name:<34} {figure:>14} {baseline:>16} {ratio:>10}   {target}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--turn", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--cpu-runs", type=int, default=100)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="deepnb-bench-evidence-"))
    try:
        line("figure", "measured", "baseline", "ratio", "target")
        ours, bare = cpu_per_run(args.cpu_runs, folder)
        line(
            "CPU per run (ms)",
            f"{ours * 1000:.1f}",
            f"bare {bare * 1000:.1f}",
            f"+{(ours - bare) * 1000:.1f}",
            "<= +10 ms",
        )
        took, ideal = wall(args.runs, args.epochs, args.turn, args.concurrency, folder)
        line(
            f"{args.runs}x{args.epochs} runs, c={args.concurrency}",
            f"{took:.2f} s",
            f"ideal {ideal:.2f} s",
            f"{took / ideal:.2f}",
            "<= 2.0",
        )
        took, ideal = judge_rescoring(args.runs, args.turn, folder)
        line(
            f"judge rescoring {args.runs}, c=8",
            f"{took:.2f} s",
            f"ideal {ideal:.2f} s",
            f"{took / ideal:.2f}",
            "<= 1.2",
        )
        again, first = cached(args.runs, args.turn, args.concurrency, folder)
        line("cached re-run", f"{again:.2f} s", f"first {first:.2f} s", f"{again / first:.1%}", "<= 5 %")
        peak, idle = memory()
        line(
            "peak memory over 600 runs",
            f"{peak:.0f} MB",
            f"idle {idle:.0f} MB",
            f"+{peak - idle:.0f} MB",
            "<= +200 MB",
        )
    except BenchFailure as failure:
        print(f"failed: {failure}")
        return 1
    print(f"(peak RSS of this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
