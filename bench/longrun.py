"""A long run through deepnb against a bare ``graph.stream()`` loop, measured in the same kernel.

    python bench/longrun.py [--steps 2000] [--repeats 2]       (or: make bench)

The replay script is ``bench/overhead.py``'s (each step streams 20–40 words and calls a tool;
``write_todos`` every 10th step, ``write_file`` every 10th shifted by 5), ``--steps`` long. Four
figures, each printed as measured / baseline against its goal:

1. The largest front-end message at any point of the run: every comm message of the run's view
   (its opening, trait updates, live patches), as the kernel sent it (its JSON ``data``). Goal:
   none over 64 KB.
2. What the run leaves in the saved notebook: the output bundle of the ``%%deepagent`` cell once
   the run ends (``text/html`` + ``text/plain`` + the widget's view mimetype), per 300 steps.
   Goal: ≤ 200 KB per 300-step run, and bounded however long the run.
3. Kernel memory kept after the run (``tracemalloc``, after a garbage collection, the thread
   still in the checkpointer; deepnb's run object and view kept as a notebook keeps them)
   against the same for a bare ``stream()`` loop. Separate runs from the timed ones (tracing
   slows Python). Goal: ≤ 1.5×.
4. Wall time of the ``%%deepagent`` cell against a bare synchronous ``graph.stream()`` loop with
   the same stream modes, medians over ``--repeats`` alternating runs. Goal: ≤ 1.10×.

Exits 0 whether or not the goals are met; non-zero only if something failed.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.overhead import (  # noqa: E402
    BASELINE,
    BASELINE_REPORT,
    DEEPNB,
    PROMPT,
    SETUP,
    STREAM_MODES,
    WARMUP_PROMPT,
    Bench,
    BenchFailure,
    build_script,
    print_table,
    verdict,
)
from deepnb.models.scripted import parse_script  # noqa: E402
from tests.support.kernel_session import KernelSession  # noqa: E402

STEPS = 2000
REPEATS = 2
PER_STEPS = 300

MESSAGE_GOAL = 64 * 1024
NOTEBOOK_GOAL = 200 * 1024
MEMORY_GOAL = 1.5
WALL_GOAL = 1.10

# Memory: trace allocations from just before the run to just after it, collect garbage, and keep
# what is still allocated (the thread's checkpoints; for deepnb also the run and its view).
MEMORY_START = """
import tracemalloc as _m_trace
_b_gc.collect()
_m_trace.start()
_m_before = _m_trace.get_traced_memory()[0]
"""
MEMORY_BASELINE = """
for _ in _b_agent.stream(_b_input({prompt!r}), _b_config({thread!r}), stream_mode=_B_MODES, subgraphs=True):
    pass
"""
MEMORY_REPORT = """
_b_gc.collect()
_m_after, _m_peak = _m_trace.get_traced_memory()
_m_trace.stop()
print(_b_json.dumps({{"kept": _m_after - _m_before, "peak": _m_peak - _m_before, "status": {status}}}))
"""


# The experiment: the synchronous stream() in a worker thread, chunks handed to the engine loop,
# Stop acting at the next chunk. ``--sync-thread`` times deepnb with it too, in the same pairs.
SYNC_THREAD = """
import asyncio as _s_asyncio
import threading as _s_threading

import deepnb.core.graphs.streaming as _s_streaming
from deepnb.core import events as _s_ev

_s_astream = _s_streaming.chunks


async def _s_threaded(graph, graph_input, config):
    loop = _s_asyncio.get_running_loop()
    queue = _s_asyncio.Queue()
    stop = _s_threading.Event()

    def work():
        try:
            stream = graph.stream(graph_input, config, stream_mode=list(_s_ev.STREAM_MODES), subgraphs=True)
            try:
                for chunk in stream:
                    loop.call_soon_threadsafe(queue.put_nowait, (True, chunk))
                    if stop.is_set():
                        break
            finally:
                stream.close()
        except BaseException as exc:
            loop.call_soon_threadsafe(queue.put_nowait, (False, exc))
        loop.call_soon_threadsafe(queue.put_nowait, None)

    worker = _s_threading.Thread(target=work, name="deepnb-stream", daemon=True)
    worker.start()
    try:
        while (entry := await queue.get()) is not None:
            ok, value = entry
            if not ok:
                raise value
            yield value
    finally:
        stop.set()
        await loop.run_in_executor(None, worker.join)
"""
USE_THREAD = "_s_streaming.chunks = _s_threaded"
USE_ASTREAM = "_s_streaming.chunks = _s_astream"


def _kib(n: float) -> str:
    return f"{n / 1024:,.1f} KB"


def _mib(n: float) -> str:
    return f"{n / 1024 / 1024:,.1f} MB"


def view_messages(session: KernelSession, comm_id: str) -> list[dict]:
    """Every message the kernel sent on a view's comm (opening, updates, custom messages)."""
    return [
        msg
        for msg in list(session.iopub)
        if msg["msg_type"] in ("comm_open", "comm_msg") and msg["content"].get("comm_id") == comm_id
    ]


ASSETS = ("_esm", "_css")
"""The view's loader and styles in its opening (the bundle itself comes once per kernel in code
part models, on comms of their own: ``bench/opening.py`` measures those)."""


def message_size(msg: dict, *, assets: bool = False) -> int:
    """A comm message's payload as the kernel serialized it (JSON, UTF-8); without the view's
    code and styles unless ``assets``."""
    data = msg["content"].get("data", {})
    if not assets and isinstance(data.get("state"), dict):
        data = {**data, "state": {k: v for k, v in data["state"].items() if k not in ASSETS}}
    return len(json.dumps(data, ensure_ascii=False).encode())


def saved_output(execution_outputs: list[dict]) -> dict:
    """The cell's output bundle as a notebook saves it: the last display of the run's view."""
    bundles = [
        msg["content"]["data"]
        for msg in execution_outputs
        if msg["msg_type"] in ("display_data", "update_display_data")
        and "application/vnd.jupyter.widget-view+json" in msg["content"].get("data", {})
    ]
    if not bundles:
        raise BenchFailure("the %%deepagent cell displayed no run view")
    return bundles[-1]


def bundle_size(bundle: dict) -> int:
    return len(json.dumps(bundle, ensure_ascii=False).encode())


def run_deepnb(bench: Bench, path: Path, prompt: str = PROMPT) -> tuple[float, list[dict], dict]:
    """One ``%%deepagent`` run: its cell seconds, its view's messages, its saved output bundle."""
    session = bench.session
    before = {cid for cid, _ in session.run_views()}
    execution = session.submit(DEEPNB.format(path=path, prompt=prompt))
    if not execution.done.wait(3600):
        raise BenchFailure("the deepnb run did not finish in an hour")
    if not execution.ok:
        raise BenchFailure(f"the deepnb cell failed: {execution.text()[-2000:]}")
    _, text = bench.cell(
        "print(_b_json.dumps({'cell': _b_cells[-2][2], 'status': _b_run.status, 'error': _b_run.error}))"
    )
    report = json.loads([line for line in text.splitlines() if line.startswith("{")][-1])
    if report["status"] != "done":
        raise BenchFailure(f"deepnb run ended {report['status']!r}: {report['error']!r}")
    views = [cid for cid, _ in session.run_views() if cid not in before]
    if len(views) != 1:
        raise BenchFailure(f"expected one new run view, saw {len(views)}")
    return report["cell"], view_messages(session, views[0]), saved_output(execution.outputs)


def run_baseline(bench: Bench, thread: str) -> float:
    """One bare ``stream()`` loop: its cell seconds (the thread is dropped after)."""
    bench.cell(BASELINE.format(prompt=PROMPT, thread=thread), timeout=3600)
    _, text = bench.cell(BASELINE_REPORT.format(thread=thread), timeout=60)
    report = json.loads([line for line in text.splitlines() if line.startswith("{")][-1])
    return report["cell"]


def forget(bench: Bench, thread: str | None = None) -> None:
    """Drop the last deepnb run (or a baseline thread) and collect, so runs start alike."""
    if thread is None:
        bench.cell(
            "_b_run.workbench.checkpointer.delete_thread(_b_run.thread_id)\ndel _b_run\n_b_gc.collect()"
        )
    else:
        bench.cell(f"_b_agent.checkpointer.delete_thread({thread!r})\n_b_gc.collect()")


def measure_memory(bench: Bench, path: Path) -> tuple[dict, dict]:
    """Kept and peak traced bytes of one bare run and one deepnb run."""
    bench.cell(MEMORY_START)
    bench.cell(MEMORY_BASELINE.format(prompt=PROMPT, thread="mem-base"), timeout=7200)
    _, text = bench.cell(MEMORY_REPORT.format(status='"done"'))
    base = json.loads([line for line in text.splitlines() if line.startswith("{")][-1])
    forget(bench, "mem-base")
    bench.cell(MEMORY_START)
    execution = bench.session.submit(DEEPNB.format(path=path, prompt=PROMPT))
    if not execution.done.wait(7200) or not execution.ok:
        raise BenchFailure(f"the traced deepnb run failed: {execution.text()[-2000:]}")
    _, text = bench.cell(MEMORY_REPORT.format(status="_b_run.status"))
    run = json.loads([line for line in text.splitlines() if line.startswith("{")][-1])
    if run["status"] != "done":
        raise BenchFailure(f"the traced deepnb run ended {run['status']!r}")
    forget(bench)
    return base, run


def main(argv: list[str] | None = None) -> int:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--steps", type=int, default=STEPS, help=f"model turns (default {STEPS})")
    options.add_argument("--repeats", type=int, default=REPEATS, help="timed pairs (default 2)")
    options.add_argument("--no-memory", action="store_true", help="skip the traced memory runs")
    options.add_argument(
        "--sync-thread",
        action="store_true",
        help="also time deepnb driving the synchronous stream() in a worker thread",
    )
    args = options.parse_args(argv)

    began = time.monotonic()
    script = build_script(args.steps)
    # Past about 1,000 steps the default summarization fires: the model answers it too.
    script["summaries"] = {"main": "The plan so far: each step checked its files; notes are under /notes."}
    parse_script(script)
    workdir = Path(tempfile.mkdtemp(prefix="deepnb-longrun-"))
    path = workdir / "longrun.json"
    path.write_text(json.dumps(script), encoding="utf-8")
    print(f"deepnb long-run benchmark: {args.steps:,} steps, {args.repeats} timed pairs", flush=True)
    try:
        session = KernelSession(cwd=str(ROOT))
        try:
            bench = Bench(session)
            bench.cell(SETUP.format(modes=STREAM_MODES, path=str(path)))
            bench.cell("%load_ext deepnb")
            bench.baseline("warm-b", prompt=WARMUP_PROMPT)
            bench.deepnb(path, prompt=WARMUP_PROMPT)
            base_walls, walls, largest, bundles = [], [], [], []
            biggest_all: list[dict] = []
            threaded: list[float] = []
            if args.sync_thread:
                bench.cell(SYNC_THREAD)
            for n in range(args.repeats):
                print(f"· pair {n + 1}/{args.repeats}: bare stream()…", end="", flush=True)
                base_walls.append(run_baseline(bench, f"base-{n}"))
                print(f" {base_walls[-1]:.1f} s; deepnb…", end="", flush=True)
                wall, messages, bundle = run_deepnb(bench, path)
                walls.append(wall)
                largest.append(max(messages, key=message_size))
                biggest_all = messages
                bundles.append(bundle)
                print(f" {wall:.1f} s, {len(messages)} view messages", end="", flush=True)
                forget(bench)
                if args.sync_thread:
                    bench.cell(USE_THREAD)
                    print("; deepnb, stream() in a thread…", end="", flush=True)
                    threaded.append(run_deepnb(bench, path)[0])
                    bench.cell(USE_ASTREAM)
                    print(f" {threaded[-1]:.1f} s", end="", flush=True)
                    forget(bench)
                print(flush=True)
            memory = None
            if not args.no_memory:
                print("· traced memory: bare stream(), then deepnb…", flush=True)
                memory = measure_memory(bench, path)
        finally:
            session.close()
    except BenchFailure as exc:
        print(f"\nFAILED: {exc}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    med = statistics.median
    biggest = max(largest, key=message_size)
    top = message_size(biggest)
    what = biggest["msg_type"] + (
        f" {biggest['content']['data'].get('method')}" if biggest["msg_type"] == "comm_msg" else ""
    )
    opening = next(m for m in biggest_all if m["msg_type"] == "comm_open") if biggest_all else None
    code = message_size(opening, assets=True) - message_size(opening) if opening else 0
    saved = max(bundle_size(b) for b in bundles)
    per = saved * PER_STEPS / args.steps if args.steps > PER_STEPS else saved
    parts = ", ".join(f"{k.split('/')[-1]} {_kib(bundle_size({k: v}))}" for k, v in bundles[-1].items())
    wall = med(walls) / med(base_walls)
    rows = [
        ("largest view message", _kib(top), _kib(MESSAGE_GOAL), f"{top / MESSAGE_GOAL:.3f}", "≤ 1.00",
         verdict(top / MESSAGE_GOAL, 1.0)),
        (f"  (it was a {what})", "", "", "", "(info)", ""),
        ("  view code + styles in its opening", _kib(code), "", "", "(info)", ""),
        (f"saved output per {PER_STEPS} steps", _kib(per), _kib(NOTEBOOK_GOAL),
         f"{per / NOTEBOOK_GOAL:.3f}", "≤ 1.00", verdict(per / NOTEBOOK_GOAL, 1.0)),
        (f"  whole bundle, {args.steps:,} steps", _kib(saved), "", "", "(info)", ""),
        (f"  parts: {parts}", "", "", "", "(info)", ""),
    ]  # fmt: skip
    if memory is not None:
        base_mem, run_mem = memory
        rows += [
            ("kernel memory kept after the run", _mib(run_mem["kept"]), _mib(base_mem["kept"]),
             f"{run_mem['kept'] / base_mem['kept']:.3f}", f"≤ {MEMORY_GOAL:.2f}",
             verdict(run_mem["kept"] / base_mem["kept"], MEMORY_GOAL)),
            ("  peak traced memory during the run", _mib(run_mem["peak"]), _mib(base_mem["peak"]),
             f"{run_mem['peak'] / base_mem['peak']:.3f}", "(info)", ""),
        ]  # fmt: skip
    rows.append(
        ("wall time (cell) vs bare stream()", f"{med(walls):.2f} s", f"{med(base_walls):.2f} s",
         f"{wall:.3f}", f"≤ {WALL_GOAL:.2f}", verdict(wall, WALL_GOAL))
    )  # fmt: skip
    if threaded:
        rows.append(
            ("  experiment: stream() in a thread", f"{med(threaded):.2f} s", f"{med(base_walls):.2f} s",
             f"{med(threaded) / med(base_walls):.3f}", "(info)", "")
        )  # fmt: skip
    print()
    print_table(rows)
    verdicts = [row[5] for row in rows if row[5]]
    print(f"\n{verdicts.count('PASS')}/{len(verdicts)} goals met; {time.monotonic() - began:.0f} s in all.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
