"""deepnb's overhead against a bare ``agent.stream()`` loop, measured in the same run.

    python bench/overhead.py        (or: make bench)

Three figures, each printed as a ratio against a baseline measured alongside it:

1. Wall time of a 300-step scripted run (tokens streamed with ``delay: 0``, a cheap tool per step)
   in one real kernel: a ``%%deepagent`` cell with its live view, against the same agent built
   with ``create_deep_agent`` and drained by ``for _ in agent.stream(...): pass``. Runs alternate
   (baseline, deepnb, …) on fresh threads; medians of the repetitions are compared.
2. Comm ``update`` messages the run view sends: peak in any 1-second window and mean rate (target
   ≤ 20/s), and messages per streamed token, which shows the coalescing.
3. ``%load_ext deepnb`` in a fresh IPython shell against ``import deepagents`` in a fresh process,
   and whether loading the extension imported deepagents or LangChain.

Rows marked ``(info)`` help read the figures: kernel and client CPU time, the default-mode
``stream()``, the bytes the view sends, and variants timed in the same repeats as the baseline
(each a median of per-repeat ratios): deepnb driving the synchronous ``stream()`` in a worker
thread (the alternative to ``astream()`` that :mod:`deepnb.core.graphs.streaming` explains) and bare
``astream()`` on deepnb's engine loop. ``--profile DIR`` adds an instrumented run
that shows where deepnb's own CPU time goes (engine thread), and a cProfile of the engine thread
over one more run, saved as ``DIR/engine.prof`` (``python -m pstats``) with its top functions in
``DIR/engine.txt``.

Exits 0 whether or not the targets are met; non-zero only if something failed (a cell error, a
run that did not end ``done``, a subprocess that crashed).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from deepnb.models.scripted import _TOKEN, parse_script  # noqa: E402
from tests.support.kernel_session import KernelSession  # noqa: E402

STEPS = 300
REPEATS = 3
LOAD_REPEATS = 5
CELL_TIMEOUT = 180.0

WALL_TARGET = 1.10
RATE_TARGET = 20.0
LOAD_TARGET = 0.05

PROMPT = "Work through the long plan, one step at a time."
WARMUP_PROMPT = "warm up"
FINAL_ANSWER = "All steps are done; the notes are under /notes."
STREAM_MODES = ["updates", "messages", "tasks", "custom"]

_PROSE = (
    "the agent reads data and writes a short plan before it calls a tool to check the files "
    "then it notes what changed so the next step can start from a **clean** state"
)
_WORDS = _PROSE.split()


class BenchFailure(RuntimeError):
    """Something broke: a cell raised, a run did not finish, a subprocess crashed."""


# -- the replay script -----------------------------------------------------------------------


def build_script(steps: int = STEPS) -> dict[str, Any]:
    """``steps`` model turns for the main agent: each streams 20–40 words and calls ``ls``
    (``write_todos`` every 10th step, ``write_file`` every 10th shifted by 5); the last answers."""
    rng = random.Random(20_240_601)
    todo_count = (steps + 9) // 10
    turns: list[dict[str, Any]] = []
    for step in range(steps - 1):
        words = 20 + rng.randrange(21)
        text = " ".join(rng.choice(_WORDS) for _ in range(words)).capitalize() + "."
        if step % 10 == 0:
            current = step // 10
            todos = [
                {
                    "content": f"Step group {n + 1}",
                    "status": "completed" if n < current else "in_progress" if n == current else "pending",
                }
                for n in range(todo_count)
            ]
            call = {"name": "write_todos", "args": {"todos": todos}}
        elif step % 10 == 5:
            call = {
                "name": "write_file",
                "args": {"file_path": f"/notes/step-{step}.md", "content": f"# Step {step}\n\n{text}\n"},
            }
        else:
            call = {"name": "ls", "args": {"path": "/"}}
        turns.append({"text": text, "tool_calls": [call]})
    turns.append({"text": FINAL_ANSWER})
    warmup = [
        {"text": "Warming up.", "tool_calls": [{"name": "ls", "args": {"path": "/"}}]},
        {"text": "Warm."},
    ]
    return {
        "delay": 0,
        "agents": {"main": [{"match": f"^{WARMUP_PROMPT}", "turns": warmup}, {"turns": turns}]},
    }


def streamed_tokens(script: dict[str, Any]) -> int:
    """How many text chunks the long conversation streams (one per token, as the model does)."""
    turns = script["agents"]["main"][-1]["turns"]
    return sum(len(_TOKEN.findall(turn.get("text", ""))) for turn in turns)


# -- code run in the kernel ------------------------------------------------------------------

SETUP = """
import gc as _b_gc
import json as _b_json
import time as _b_time

from deepagents import create_deep_agent
from langchain.agents.middleware import TodoListMiddleware
from langgraph.checkpoint.memory import InMemorySaver

from deepnb.core.loop import run_sync as _b_run_sync
from deepnb.models.scripted import ScriptedChatModel, load_script

_B_MODES = {modes!r}
_b_agent = create_deep_agent(
    model=ScriptedChatModel(script=load_script({path!r})),
    middleware=[TodoListMiddleware()],
    checkpointer=InMemorySaver(),
)
_b_cells = []


def _b_pre(info):
    _b_cells.append([_b_time.perf_counter(), _b_time.process_time(), 0.0, 0.0])


def _b_post(result):
    cell = _b_cells[-1]
    cell[2:] = [_b_time.perf_counter() - cell[0], _b_time.process_time() - cell[1]]


get_ipython().events.register("pre_run_cell", _b_pre)
get_ipython().events.register("post_run_cell", _b_post)


def _b_config(thread):
    return {{"configurable": {{"thread_id": thread}}, "recursion_limit": 10_000}}


def _b_input(prompt):
    return {{"messages": [{{"role": "user", "content": prompt}}]}}


async def _b_drain(prompt, thread):
    chunks = _b_agent.astream(_b_input(prompt), _b_config(thread), stream_mode=_B_MODES, subgraphs=True)
    async for _ in chunks:
        pass


# The alternative to astream(): the synchronous stream() in a worker thread, its chunks handed to
# the engine loop in batches (the loop is woken only when it waits for one), Stop acting at the
# next chunk (the worker checks after each one).
import asyncio as _s_asyncio
import collections as _s_collections
import contextvars as _s_contextvars
import threading as _s_threading

import deepnb.core.graphs.streaming as _s_streaming
from deepnb.core import events as _s_ev

_s_astream = _s_streaming.chunks


async def _s_threaded(graph, graph_input, config, *, context=None):
    loop = _s_asyncio.get_running_loop()
    queue = _s_collections.deque()
    lock = _s_threading.Lock()
    waiter = [None]
    stop = _s_threading.Event()
    end = object()

    def wake(future):
        if not future.done():
            future.set_result(None)

    def put(entry):
        with lock:
            queue.append(entry)
            future, waiter[0] = waiter[0], None
        if future is not None:
            loop.call_soon_threadsafe(wake, future)

    def work():
        try:
            given = {{}} if context is None else {{"context": context}}
            stream = graph.stream(
                graph_input, config, stream_mode=list(_s_ev.STREAM_MODES), subgraphs=True, **given
            )
            try:
                for chunk in stream:
                    put((True, chunk))
                    if stop.is_set():
                        break
            finally:
                stream.close()
        except BaseException as exc:
            put((False, exc))
        put(end)

    copied = _s_contextvars.copy_context()
    worker = _s_threading.Thread(target=copied.run, args=(work,), name="deepnb-stream", daemon=True)
    worker.start()
    try:
        while True:
            with lock:
                future = None if queue else loop.create_future()
                waiter[0] = future
            if future is not None:
                await future
                continue
            entry = queue.popleft()
            if entry is end:
                return
            ok, value = entry
            if not ok:
                raise value
            yield value
    finally:
        stop.set()
        await loop.run_in_executor(None, worker.join)


def _b_variant(name):
    _s_streaming.chunks = _s_threaded if name == "sync-thread" else _s_astream


# Report the cell before this one (wall and kernel CPU seconds), then drop its thread and
# collect garbage, so every run starts from the same memory.
def _b_report(checkpointer, thread, **extra):
    _, _, wall, cpu = _b_cells[-2]
    print(_b_json.dumps({{"cell": wall, "cpu": cpu, **extra}}))
    checkpointer.delete_thread(thread)
    _b_gc.collect()
"""

# Each timed cell is bare; the cell after it reports (the hooks time the cell before it).
BASELINE = """
_b_t0 = _b_time.perf_counter()
for _ in _b_agent.stream(_b_input({prompt!r}), _b_config({thread!r}), stream_mode=_B_MODES, subgraphs=True):
    pass
_b_loop = _b_time.perf_counter() - _b_t0
"""

ENGINE_ASTREAM = """
_b_t0 = _b_time.perf_counter()
_b_run_sync(_b_drain({prompt!r}, {thread!r}))
_b_loop = _b_time.perf_counter() - _b_t0
"""

PLAIN = """
_b_t0 = _b_time.perf_counter()
for _ in _b_agent.stream(_b_input({prompt!r}), _b_config({thread!r})):
    pass
_b_loop = _b_time.perf_counter() - _b_t0
"""

BASELINE_REPORT = """
_b_messages = _b_agent.get_state(_b_config({thread!r})).values["messages"]
_b_report(_b_agent.checkpointer, {thread!r}, loop=_b_loop, final=_b_messages[-1].content)
"""

DEEPNB = """%%deepagent -m scripted:{path} --new -o _b_run
{prompt}
"""

DEEPNB_REPORT = """
_b_report(
    _b_run.workbench.checkpointer,
    _b_run.thread_id,
    elapsed=_b_run.state.elapsed,
    status=_b_run.status,
    result=_b_run.result,
    error=_b_run.error,
)
"""


# -- running cells ---------------------------------------------------------------------------


@dataclass
class Timed:
    """One timed cell: client-side seconds (request sent → reply and idle), the CPU seconds this
    process spent meanwhile (reading the kernel's messages), and the kernel's report."""

    client: float
    client_cpu: float
    report: dict[str, Any]


@dataclass
class Bench:
    session: KernelSession

    def cell(self, code: str, timeout: float = CELL_TIMEOUT) -> tuple[float, str]:
        start = time.monotonic()
        execution = self.session.submit(code)
        if not execution.done.wait(timeout):
            raise BenchFailure(f"cell did not finish in {timeout:.0f} s:\n{code.strip()[:200]}")
        seconds = time.monotonic() - start
        if not execution.ok:
            raise BenchFailure(f"cell failed:\n{code.strip()[:200]}\n→ {execution.text()[-2000:]}")
        return seconds, execution.text()

    def timed(self, code: str, report: str) -> Timed:
        cpu = time.process_time()
        client, _ = self.cell(code)
        cpu = time.process_time() - cpu
        _, text = self.cell(report, timeout=30)
        lines = [line for line in text.splitlines() if line.startswith("{")]
        if not lines:
            raise BenchFailure(f"no report after the timed cell; output was:\n{text[-1000:]}")
        return Timed(client, cpu, json.loads(lines[-1]))

    def baseline(self, thread: str, template: str = BASELINE, prompt: str = PROMPT) -> Timed:
        result = self.timed(
            template.format(prompt=prompt, thread=thread), BASELINE_REPORT.format(thread=thread)
        )
        expected = FINAL_ANSWER if prompt == PROMPT else "Warm."
        if result.report["final"] != expected:
            raise BenchFailure(f"baseline run on {thread} ended with {result.report['final']!r}")
        return result

    def deepnb(self, path: Path, prompt: str = PROMPT) -> tuple[Timed, str]:
        before = {cid for cid, _ in self.session.run_views()}
        result = self.timed(DEEPNB.format(path=path, prompt=prompt), DEEPNB_REPORT)
        report = result.report
        expected = FINAL_ANSWER if prompt == PROMPT else "Warm."
        if report["status"] != "done" or report["result"] != expected:
            raise BenchFailure(
                f"deepnb run ended {report['status']!r} (error {report['error']!r}, "
                f"result {report['result']!r})"
            )
        views = [cid for cid, _ in self.session.run_views() if cid not in before]
        if len(views) != 1:
            raise BenchFailure(f"expected one new run view, saw {len(views)}")
        return result, views[0]


# -- message rates ---------------------------------------------------------------------------


def peak_per_window(times: list[float], window: float = 1.0) -> int:
    """The most timestamps within any ``window``-second span."""
    times = sorted(times)
    best = start = 0
    for end, t in enumerate(times):
        while t - times[start] >= window:
            start += 1
        best = max(best, end - start + 1)
    return best


def _view_messages(session: KernelSession, comm_id: str) -> list[dict]:
    """The comm messages a view sent to the front-end: trait updates and live patches."""
    return [
        msg
        for msg in list(session.iopub)
        if msg["msg_type"] == "comm_msg"
        and msg["content"].get("comm_id") == comm_id
        and msg["content"].get("data", {}).get("method") in ("update", "custom")
    ]


def view_update_bytes(session: KernelSession, comm_id: str) -> int:
    """The JSON size of what a view's messages carried."""
    return sum(len(json.dumps(msg["content"]["data"])) for msg in _view_messages(session, comm_id))


def view_update_times(session: KernelSession, comm_id: str) -> tuple[list[float], list[float]]:
    """Receive times (client clock) and send times (kernel's header date) of a view's messages."""
    received = [t for t, cid, _ in session.comm_updates if cid == comm_id]
    sent = [msg["header"]["date"].timestamp() for msg in _view_messages(session, comm_id)]
    return received, sent


# -- extension load time ---------------------------------------------------------------------

LOAD_EXT = """
import json, sys, time
from IPython.testing.globalipapp import start_ipython
ip = start_ipython()
t = time.perf_counter()
ip.run_line_magic("load_ext", "deepnb")
seconds = time.perf_counter() - t
heavy = sorted(m for m in ("deepagents", "langchain", "langchain_core", "langgraph") if m in sys.modules)
print(json.dumps({"seconds": seconds, "heavy": heavy}))
"""

IMPORT_DEEPAGENTS = """
import json, time
t = time.perf_counter()
import deepagents
print(json.dumps({"seconds": time.perf_counter() - t}))
"""


def fresh_process(code: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tempfile.gettempdir()
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise BenchFailure(f"subprocess failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return json.loads(lines[-1])


def measure_load() -> tuple[list[float], list[float], set[str]]:
    load, imports, heavy = [], [], set()
    for _ in range(LOAD_REPEATS):
        result = fresh_process(LOAD_EXT)
        load.append(result["seconds"])
        heavy.update(result["heavy"])
        imports.append(fresh_process(IMPORT_DEEPAGENTS)["seconds"])
    return load, imports, heavy


# -- the report ------------------------------------------------------------------------------


def verdict(value: float, target: float) -> str:
    return "PASS" if value <= target else "MISS"


def ratio_row(figure: str, value: float, base: float, *, unit: str = "s", target: float | None = None):
    ratio = value / base
    return (
        figure,
        f"{value:.2f} {unit}",
        f"{base:.2f} {unit}",
        f"{ratio:.3f}",
        f"≤ {target:.2f}" if target else "(info)",
        verdict(ratio, target) if target else "",
    )


def print_table(rows: list[tuple[str, ...]]) -> None:
    header = ("figure", "value", "baseline", "ratio", "target", "result")
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header))]
    for n, row in enumerate((header, *rows)):
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
        if n == 0:
            print("  ".join("-" * w for w in widths))


# -- where deepnb's time goes (--profile) ----------------------------------------------------

# Wraps deepnb's per-event and per-flush work and adds up the engine thread's CPU time in each.
# A flush can run inside Run.emit (when the throttle's interval has already passed): those are
# counted apart, so the total adds each CPU second once.
PROFILE_SETUP = """
import ipywidgets.widgets.widget as _p_widget

import deepnb.core.events as _p_events
import deepnb.session.run as _p_run
import deepnb.engine.state as _p_state
from deepnb.views.run import run_view as _p_view

_P = {}
_p_emitting = [0]


def _p_wrap(owner, name, key, generator=False):
    inner = getattr(owner, name)

    def timed(*args, **kwargs):
        start = _b_time.thread_time()
        emit = key == "emit"
        _p_emitting[0] += emit
        try:
            result = inner(*args, **kwargs)
            return iter(list(result)) if generator else result
        finally:
            _p_emitting[0] -= emit
            seconds = _b_time.thread_time() - start
            for k in (key, "flush_in_emit") if key == "flush" and _p_emitting[0] else (key,):
                calls, total = _P.get(k, (0, 0.0))
                _P[k] = (calls + 1, total + seconds)

    setattr(owner, name, timed)


_p_wrap(_p_events.EventTranslator, "translate", "translate", generator=True)
_p_wrap(_p_run.Run, "emit", "emit")
_p_wrap(_p_run, "redact_data", "redact_data")
_p_wrap(_p_state.RunState, "apply", "apply")
_p_wrap(_p_state, "redact", "redact")
_p_wrap(_p_state, "markdown", "markdown")
_p_wrap(_p_view.RunView, "_flush", "flush")
_p_wrap(_p_state.RunState, "to_json", "to_json")
_p_wrap(_p_widget.Widget, "send_state", "send_state")
_p_wrap(_p_widget, "_remove_buffers", "remove_buffers")
_p_wrap(_p_widget.Widget, "_send", "send")


async def _p_thread_time():
    return _b_time.thread_time()
"""

PROFILE_START = "_P.clear(); _p_engine0 = _b_run_sync(_p_thread_time())"
PROFILE_REPORT = """
_p_engine = _b_run_sync(_p_thread_time()) - _p_engine0
print(_b_json.dumps({"engine": _p_engine, "parts": _P}))
"""

PROFILE_LINES = (
    ("translate", "EventTranslator.translate (chunks → events)"),
    ("emit", "Run.emit (the fold, then listeners)"),
    ("redact_data", "  secrets.redact_data (the event)"),
    ("apply", "  RunState.apply"),
    ("redact", "    secrets.redact"),
    ("markdown", "    render.markdown (finished turns)"),
    ("flush", "RunView._flush (throttled view updates)"),
    ("to_json", "  RunState.to_json"),
    ("send_state", "  Widget.send_state"),
    ("remove_buffers", "    ipywidgets _remove_buffers"),
    ("send", "    Widget._send (serialize, sign, send)"),
)


# cProfile on the engine thread (a profiler sees only the thread that enables it).
CPROFILE_START = """
import cProfile as _c_cProfile

_c_profile = _c_cProfile.Profile()


async def _c_enable():
    _c_profile.enable()


async def _c_disable():
    _c_profile.disable()


_b_run_sync(_c_enable())
"""

CPROFILE_REPORT = """
import io as _c_io
import pstats as _c_pstats

_b_run_sync(_c_disable())
_c_profile.dump_stats({path!r})
_c_out = _c_io.StringIO()
_c_stats = _c_pstats.Stats(_c_profile, stream=_c_out)
_c_stats.sort_stats("tottime").print_stats({top})
_c_stats.sort_stats("cumulative").print_stats({top})
print(_c_out.getvalue())
"""
CPROFILE_TOP = 30


def cprofile(bench: Bench, path: Path, out: Path) -> None:
    """One more deepnb run under cProfile (engine thread): the stats to ``out/engine.prof``, the
    top functions by own and cumulative time to ``out/engine.txt`` (and the first few printed)."""
    out.mkdir(parents=True, exist_ok=True)
    bench.cell(CPROFILE_START)
    run, _ = bench.deepnb(path)
    _, text = bench.cell(CPROFILE_REPORT.format(path=str(out / "engine.prof"), top=CPROFILE_TOP))
    (out / "engine.txt").write_text(text, encoding="utf-8")
    lines = text.splitlines()
    start = next((n for n, line in enumerate(lines) if line.strip().startswith("ncalls")), 0)
    print(f"\ncProfile of the engine thread over one run ({run.report['cell']:.2f} s wall), by own time:")
    print("\n".join(lines[start : start + 16]))
    print(f"  (all of it: {out / 'engine.txt'}; python -m pstats {out / 'engine.prof'})")


def profile(bench: Bench, path: Path) -> None:
    """One more deepnb run with its per-event and per-flush work timed (engine-thread CPU)."""
    bench.cell(PROFILE_SETUP)
    bench.cell(PROFILE_START)
    run, _ = bench.deepnb(path)
    _, text = bench.cell(PROFILE_REPORT)
    data = json.loads([line for line in text.splitlines() if line.startswith("{")][-1])
    engine, parts = data["engine"], data["parts"]
    print(
        f"\nwhere deepnb's time goes (one instrumented run, {run.report['cell']:.2f} s wall; "
        f"CPU of deepnb's engine thread: {engine:.2f} s):"
    )
    for key, label in PROFILE_LINES:
        calls, cpu = parts.get(key, (0, 0.0))
        print(f"  {label:46s} {calls:6d} calls  {cpu:6.3f} s  {cpu / engine:6.1%}")
    own = sum(parts.get(k, (0, 0.0))[1] for k in ("translate", "emit", "flush"))
    own -= parts.get("flush_in_emit", (0, 0.0))[1]
    print(f"  {'deepnb in all (translate + emit + flushes)':46s} {'':13s} {own:6.3f} s  {own / engine:6.1%}")


# -- the whole benchmark ---------------------------------------------------------------------


VARIANTS = (("sync-thread", "deepnb, sync stream() in a worker thread"),)
"""deepnb run another way (see ``_b_variant`` in SETUP), timed in every repeat."""
REFERENCES = ((ENGINE_ASTREAM, "ref: bare astream() on engine loop"),)


def paired_row(figure: str, values: list[float], bases: list[float], *, target: float | None = None):
    """Medians of ``values`` and ``bases``, and the median of their ratios repeat by repeat."""
    ratio = statistics.median(v / b for v, b in zip(values, bases, strict=True))
    return (
        figure,
        f"{statistics.median(values):.2f} s",
        f"{statistics.median(bases):.2f} s",
        f"{ratio:.3f}",
        f"≤ {target:.2f}" if target else "(info)",
        verdict(ratio, target) if target else "",
    )


def main(argv: list[str] | None = None) -> int:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument(
        "--profile",
        metavar="DIR",
        type=Path,
        help="add an instrumented run (where deepnb's CPU time goes) and a cProfile of the engine "
        "thread, saved in DIR",
    )
    options.add_argument("--repeats", type=int, default=REPEATS, help=f"timed repeats (default {REPEATS})")
    args = options.parse_args(argv)
    repeats = max(1, args.repeats)

    began = time.monotonic()
    script = build_script()
    parse_script(script)  # fail here, not in the kernel, if the script is malformed
    tokens = streamed_tokens(script)
    workdir = Path(tempfile.mkdtemp(prefix="deepnb-bench-"))
    path = workdir / "overhead.json"
    path.write_text(json.dumps(script), encoding="utf-8")
    print(f"deepnb overhead benchmark: {STEPS} steps, {tokens} streamed tokens, delay 0, {repeats} repeats")

    try:
        print("· extension load time (fresh processes)…", flush=True)
        load, imports, heavy = measure_load()

        print("· starting a kernel…", flush=True)
        session = KernelSession(cwd=str(ROOT))
        try:
            bench = Bench(session)
            bench.cell(SETUP.format(modes=STREAM_MODES, path=str(path)))
            bench.cell("%load_ext deepnb")
            print("· warm-up runs…", flush=True)
            bench.baseline("warm-b", prompt=WARMUP_PROMPT)
            bench.deepnb(path, prompt=WARMUP_PROMPT)
            for name, _ in VARIANTS:
                bench.cell(f"_b_variant({name!r})")
                bench.deepnb(path, prompt=WARMUP_PROMPT)
            bench.cell("_b_variant('default')")

            base: list[Timed] = []
            runs: list[Timed] = []
            variants: dict[str, list[Timed]] = {name: [] for name, _ in VARIANTS}
            references: dict[str, list[Timed]] = {label: [] for _, label in REFERENCES}
            rates: list[tuple[int, int, float, int, int]] = []
            for n in range(repeats):
                print(f"· repeat {n + 1}/{repeats}: baseline…", end="", flush=True)
                base.append(bench.baseline(f"base-{n}"))
                print(f" {base[-1].report['cell']:.2f} s; deepnb…", end="", flush=True)
                run, comm_id = bench.deepnb(path)
                runs.append(run)
                print(f" {run.report['cell']:.2f} s", end="", flush=True)
                received, sent = view_update_times(session, comm_id)
                mean = len(received) / run.report["cell"]
                size = view_update_bytes(session, comm_id)
                rates.append((peak_per_window(received), peak_per_window(sent), mean, len(received), size))
                for name, _ in VARIANTS:
                    bench.cell(f"_b_variant({name!r})")
                    try:
                        variants[name].append(bench.deepnb(path)[0])
                    finally:
                        bench.cell("_b_variant('default')")
                    print(f"; {name} {variants[name][-1].report['cell']:.2f} s", end="", flush=True)
                for template, label in REFERENCES:
                    references[label].append(bench.baseline(f"ref-{len(references[label])}-{n}", template))
                print(flush=True)
            plain = bench.baseline("plain", template=PLAIN)
            if args.profile:
                profile(bench, path)
                cprofile(bench, path, args.profile)
        finally:
            session.close()
    except BenchFailure as exc:
        print(f"\nFAILED: {exc}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    med = statistics.median
    base_loop = med(t.report["loop"] for t in base)
    base_cells = [t.report["cell"] for t in base]
    wall = med(t.report["cell"] / b for t, b in zip(runs, base_cells, strict=True))
    base_cpu = [t.report["cpu"] for t in base]
    cpu = med(t.report["cpu"] / b for t, b in zip(runs, base_cpu, strict=True))
    peak = max(r[0] for r in rates)
    updates = med(r[3] for r in rates)
    size = med(r[4] for r in rates)
    load_s, import_s = med(load), med(imports)
    load_ratio = load_s / import_s
    forbidden = sorted(heavy & {"deepagents", "langchain"})
    rows = [
        paired_row("wall time, in kernel (cell)", [t.report["cell"] for t in runs], base_cells,
                   target=WALL_TARGET),
        *(paired_row(f"  {label}", [t.report["cell"] for t in variants[name]], base_cells)
          for name, label in VARIANTS),
        ratio_row("wall time, client (reply+idle)", med(t.client for t in runs), med(t.client for t in base)),
        paired_row("kernel CPU time (all threads)", [t.report["cpu"] for t in runs], base_cpu),
        *(paired_row(f"  {label}", [t.report["cpu"] for t in variants[name]], base_cpu)
          for name, label in VARIANTS),
        ratio_row("client CPU (reading iopub)", med(t.client_cpu for t in runs),
                  med(t.client_cpu for t in base)),
        ratio_row("run.state.elapsed / bare loop", med(t.report["elapsed"] for t in runs), base_loop),
        *(paired_row(label, [t.report["loop"] for t in refs], [t.report["loop"] for t in base])
          for label, refs in references.items()),
        ratio_row("ref: bare stream(), default mode", plain.report["loop"], base_loop),
        ("view updates, peak in 1 s window", f"{peak}/s", "—", "—", f"≤ {RATE_TARGET:.0f}/s",
         verdict(peak, RATE_TARGET)),
        ("  same, by kernel send time", f"{max(r[1] for r in rates)}/s", "—", "—", "(info)", ""),
        ("view updates, mean rate", f"{med(r[2] for r in rates):.1f}/s", "—", "—", "(info)", ""),
        ("view updates / streamed tokens", f"{updates:.0f}", f"{tokens}", f"{updates / tokens:.4f}",
         "(info)", ""),
        ("view update payload (total, per msg)", f"{size / 1e6:.1f} MB", "—",
         f"{size / updates / 1e3:.0f} kB", "(info)", ""),
        ("%load_ext deepnb / import deepagents", f"{load_s * 1000:.1f} ms", f"{import_s * 1000:.0f} ms",
         f"{load_ratio:.1%}", f"≤ {LOAD_TARGET:.0%}", verdict(load_ratio, LOAD_TARGET)),
        ("deepagents/langchain after load_ext", ", ".join(forbidden) or "not imported", "—", "—",
         "not imported", "MISS" if forbidden else "PASS"),
    ]  # fmt: skip
    print()
    print_table(rows)
    verdicts = [row[5] for row in rows if row[5]]
    print()
    took = time.monotonic() - began
    print(
        f"{verdicts.count('PASS')}/{len(verdicts)} targets met: wall ×{wall:.3f} "
        f"({(wall - 1) * 100:+.1f}%, kernel CPU ×{cpu:.3f}), peak {peak} view updates/s for "
        f"{tokens} tokens, load_ext {load_ratio:.1%} of import deepagents; {took:.0f} s in all."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
