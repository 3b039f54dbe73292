"""The run view in a real browser while a long run streams: is the page still responsive?

    python bench/browser_stream.py [--steps 2000] [--baseline-steps 100]

Starts JupyterLab on 127.0.0.1 (a free port, its own process group, stopped at the end) and
headless Chromium (``/usr/bin/chromium``, or ``$DEEPNB_CHROMIUM``), opens a notebook, and runs
``bench/overhead.py``'s replay script through ``%%deepagent`` twice in the same page: a short run
first (the baseline, ``--baseline-steps``), then the long one (``--steps``). During each run the
page records, and the script prints:

- the DOM nodes of the run's view: the most while it streamed (sampled twice a second) and at
  the end, and of the whole page (goal: a few thousand);
- frames: the longest gap between two animation frames while the run streamed, and how many
  were over 16 ms (one frame at 60 Hz; headless Chromium on a busy machine is slower than a
  person's browser, so compare with the baseline measured in the same page);
- long tasks (the browser's own "longtask" entries, over 50 ms): how many, the longest, their
  total;
- per-message handling: for each kernel message on the websocket, the time from its arrival to
  the end of the task that handled it (its microtasks included), median and 95th percentile.

``--profile DIR`` also records the long run with Chromium's sampling profiler and its trace (the
DevTools protocol's Profiler and Tracing domains), writes ``long.cpuprofile`` and ``long.trace.json``
to DIR (open them in Chromium's DevTools), and prints where the time went: the functions with the
most self time, and the browser's own work (script, style, layout, paint, garbage collection) by
total time. The profiler slows the page a little: compare figures from runs without it.

Figures, not a pass/fail test: exits 0 unless something failed to run.

What the profile showed for a 2,000-step run (2 shared cores, headless Chromium 156, software
rendering): script was a small part of each frame; the browser's paint, pre-paint, layout and
style passes, which grow with the nodes on the page, were most of it, and folding 240 old items
at once made the longest frames. Since the view folds past 120 items (not 300), skips the items a
patch did not change and paints each item as a layer of its own, the same run, back to back on the
same machine: most DOM nodes in the view 3,860 → 1,780; longest frame 133 → 67 ms; frames over
16.7 ms 38 → 15 (95th percentile 16.8 ms, one frame, in both); long tasks 7 (0.5 s) → 2 (0.1 s);
per message 95th percentile 10.3 → 5.9 ms, longest 108 → 38 ms; main-thread CPU for the whole
run in ``--profile``'s trace 23.9 → 13.9 s.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.overhead import build_script  # noqa: E402
from tests.browser.conftest import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    JupyterServer,
    _free_port,
    _server_command,
    _server_env,
    _stop,
)
from tests.support.notebook_ui import open_notebook, wait_for_cell  # noqa: E402

# Installed before JupyterLab loads: frame gaps, long tasks and websocket message handling times.
PROBE = """
(() => {
  const probe = window.__dnb = { recording: false, frames: [], longtasks: [], messages: [], nodes: 0 };
  setInterval(() => { // the run view's DOM while it streams, sampled twice a second
    if (!probe.recording) return;
    const views = document.querySelectorAll('.deepnb-run');
    const view = views[views.length - 1];
    if (view) probe.nodes = Math.max(probe.nodes, view.querySelectorAll('*').length);
  }, 500);
  let last = performance.now();
  const frame = (now) => {
    if (probe.recording) probe.frames.push(now - last);
    last = now;
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  try {
    new PerformanceObserver((list) => {
      if (probe.recording) for (const e of list.getEntries()) probe.longtasks.push(e.duration);
    }).observe({ entryTypes: ["longtask"] });
  } catch (e) {}
  const channel = new MessageChannel();
  const pending = [];
  channel.port1.onmessage = () => {
    const end = performance.now();
    for (const start of pending.splice(0)) probe.messages.push(end - start);
  };
  const desc = Object.getOwnPropertyDescriptor(WebSocket.prototype, "onmessage");
  Object.defineProperty(WebSocket.prototype, "onmessage", {
    configurable: true,
    get() { return desc.get.call(this); },
    set(handler) {
      desc.set.call(this, handler && function (event) {
        const start = performance.now();
        try { return handler.call(this, event); } finally {
          if (probe.recording) { pending.push(start); channel.port2.postMessage(0); }
        }
      });
    },
  });
})();
"""

COUNTS = """() => {
  const views = [...document.querySelectorAll('.deepnb-run')];
  const view = views[views.length - 1];
  return { view: view ? view.querySelectorAll('*').length : 0, page: document.querySelectorAll('*').length };
}"""


def _stats(values: list[float]) -> dict[str, float]:
    if not values:
        return {"n": 0, "max": 0.0, "median": 0.0, "p95": 0.0, "total": 0.0}
    ordered = sorted(values)
    return {
        "n": len(values),
        "max": ordered[-1],
        "median": statistics.median(ordered),
        "p95": ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))],
        "total": sum(values),
    }


TRACE_CATEGORIES = "devtools.timeline,v8,disabled-by-default-devtools.timeline"


class Recorder:
    """Chromium's sampling profiler and trace for one run, through a DevTools protocol session."""

    def __init__(self, page: Any, folder: Path) -> None:
        self.cdp = page.context.new_cdp_session(page)
        self.folder = folder
        self.events: list[dict[str, Any]] = []
        self.cdp.on("Tracing.dataCollected", lambda params: self.events.extend(params["value"]))

    def start(self) -> None:
        self.cdp.send("Profiler.enable")
        self.cdp.send("Profiler.setSamplingInterval", {"interval": 200})  # microseconds
        self.cdp.send("Tracing.start", {"categories": TRACE_CATEGORIES, "transferMode": "ReportEvents"})
        self.cdp.send("Profiler.start")

    def stop(self) -> dict[str, Any]:
        profile = self.cdp.send("Profiler.stop")["profile"]
        done: list[bool] = []
        self.cdp.on("Tracing.tracingComplete", lambda _params: done.append(True))
        self.cdp.send("Tracing.end")
        deadline = time.monotonic() + 60
        while not done and time.monotonic() < deadline:
            self.cdp.send("Runtime.evaluate", {"expression": "0"})  # lets the events arrive
            time.sleep(0.1)
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / "long.cpuprofile").write_text(json.dumps(profile))
        (self.folder / "long.trace.json").write_text(json.dumps({"traceEvents": self.events}))
        return {"self_time": _self_time(profile), "browser_work": _browser_work(self.events)}


def _self_time(profile: dict[str, Any], top: int = 30) -> list[tuple[str, float]]:
    """The functions with the most self time in a CPU profile, in ms."""
    nodes = {node["id"]: node for node in profile["nodes"]}
    spent: dict[str, float] = {}
    deltas = profile.get("timeDeltas", [])
    for sample, delta in zip(profile.get("samples", []), [*deltas[1:], 0], strict=False):
        frame = nodes[sample]["callFrame"]
        where = frame["url"].rsplit("/", 1)[-1].split("?")[0]
        line, column = frame["lineNumber"] + 1, frame["columnNumber"] + 1
        name = f"{frame['functionName'] or '(anonymous)'} {where}:{line}:{column}"
        spent[name] = spent.get(name, 0.0) + delta / 1000
    return sorted(spent.items(), key=lambda kv: -kv[1])[:top]


BROWSER_WORK = {
    "FunctionCall": "script (function calls)",
    "EvaluateScript": "script (evaluate)",
    "RunMicrotasks": "script (microtasks)",
    "V8.GC_SCAVENGER": "garbage collection (minor)",
    "MinorGC": "garbage collection (minor)",
    "MajorGC": "garbage collection (major)",
    "V8.GC_MARK_COMPACTOR": "garbage collection (major)",
    "UpdateLayoutTree": "style recalculation",
    "Layout": "layout",
    "PrePaint": "pre-paint",
    "Paint": "paint",
    "Layerize": "layerize",
    "ParseHTML": "parse HTML",
    "HitTest": "hit test",
}


def _browser_work(events: list[dict[str, Any]]) -> list[tuple[str, float, float, int]]:
    """The browser's main-thread work by kind, from a trace: wall time and CPU time (ms), count.
    CPU time (the trace's thread time) is what a busy machine changes least."""
    threads = {
        (e["pid"], e["tid"])
        for e in events
        if e.get("name") == "thread_name" and e.get("args", {}).get("name") == "CrRendererMain"
    }
    totals: dict[str, tuple[float, float, int]] = {}
    for event in events:
        label = BROWSER_WORK.get(event.get("name", ""))
        if not label or event.get("ph") != "X" or (event["pid"], event["tid"]) not in threads:
            continue
        wall, cpu, count = totals.get(label, (0.0, 0.0, 0))
        totals[label] = (wall + event.get("dur", 0) / 1000, cpu + event.get("tdur", 0) / 1000, count + 1)
    return sorted(((k, *v) for k, v in totals.items()), key=lambda row: -row[2])


def measure(
    page: Any, steps: int, tag: str, timeout: float, recorder: Recorder | None = None
) -> dict[str, Any]:
    """Run ``steps`` replayed steps in a new cell and record the page while they stream."""
    page.evaluate("() => Object.assign(window.__dnb, { frames: [], longtasks: [], messages: [], nodes: 0 })")
    cell = page.locator(".jp-Notebook .jp-CodeCell").nth(1 if tag == "baseline" else 2)
    cell.locator(".jp-InputPrompt").first.click()
    if recorder:  # started before the recording, whose first frame it would otherwise hold up
        recorder.start()
    page.evaluate("() => { window.__dnb.recording = true; }")
    started = time.monotonic()
    page.keyboard.press("Shift+Enter")
    try:
        wait_for_cell(cell, timeout=timeout * 1000)
        cell.locator('.deepnb-run[data-status="done"]').wait_for(timeout=timeout * 1000)
    except Exception:
        statuses = "() => [...document.querySelectorAll('.deepnb-run')].map((v) => v.dataset.status)"
        shown = page.evaluate(statuses)
        print(f"the {tag} run did not end done (views: {shown}); page in bench-failure.png", file=sys.stderr)
        page.screenshot(path="bench-failure.png", full_page=True)
        raise
    elapsed = time.monotonic() - started
    page.evaluate("() => { window.__dnb.recording = false; }")
    profile = recorder.stop() if recorder else None
    data = page.evaluate("() => window.__dnb")
    counts = page.evaluate(COUNTS)
    frames = _stats(data["frames"])
    return {
        "steps": steps,
        "seconds": elapsed,
        "view_nodes": counts["view"],
        "view_nodes_max": data["nodes"],
        "page_nodes": counts["page"],
        "frames": frames,
        "frames_over_16": sum(1 for f in data["frames"] if f > 17.5),  # 16.7 ms at 60 Hz, give or take
        "longtasks": _stats(data["longtasks"]),
        "messages": _stats(data["messages"]),
        "profile": profile,
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--baseline-steps", type=int, default=100)
    parser.add_argument("--timeout", type=float, default=900, help="seconds for one run")
    parser.add_argument(
        "--profile", type=Path, metavar="DIR", help="record the long run's CPU profile and trace into DIR"
    )
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    work = Path(tempfile.mkdtemp(prefix="deepnb-browser-bench-"))
    root, state = work / "root", work / "state"
    for folder in (root, state / "runtime", state / "ipython", state / "settings", state / "workspaces"):
        folder.mkdir(parents=True)
    for steps, name in ((args.baseline_steps, "short.json"), (args.steps, "long.json")):
        script = build_script(steps)  # the long one is summarized on the way
        script["summaries"] = {"main": "The earlier steps listed the notes and wrote one file in ten."}
        (root / name).write_text(json.dumps(script))
    cells = [
        "%load_ext deepnb",
        "%%deepagent -a short -m scripted:short.json\nWork through the plan.",
        "%%deepagent -a long -m scripted:long.json\nWork through the plan.",
    ]
    port, token = _free_port(), secrets.token_hex(16)
    log = state / "server.log"
    env = {**_server_env(state), "LANGSMITH_TRACING": "false", "PYTHONPATH": str(ROOT)}
    with log.open("wb") as out:
        process = subprocess.Popen(
            _server_command(root, port, token, state),
            cwd=root,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    server = JupyterServer(root, port, token, log, process)
    results: list[dict[str, Any]] = []
    try:
        deadline = time.monotonic() + 60
        while not server.ready():
            if process.poll() is not None or time.monotonic() > deadline:
                print(server.log_tail(), file=sys.stderr)
                return 1
            time.sleep(0.2)
        server.put_notebook("bench.ipynb", cells)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=os.environ.get("DEEPNB_CHROMIUM", CHROMIUM), headless=True, args=CHROMIUM_ARGS
            )
            try:
                context = browser.new_context(viewport={"width": 1280, "height": 1000})
                context.add_init_script(PROBE)
                page = context.new_page()
                open_notebook(page, server, "bench.ipynb")
                first = page.locator(".jp-Notebook .jp-CodeCell").first
                first.locator(".jp-InputPrompt").click()
                page.keyboard.press("Shift+Enter")
                wait_for_cell(first)
                results.append(measure(page, args.baseline_steps, "baseline", args.timeout))
                recorder = Recorder(page, args.profile) if args.profile else None
                results.append(measure(page, args.steps, "long", args.timeout, recorder))
            finally:
                browser.close()
    finally:
        _stop(process, server)
        shutil.rmtree(work, ignore_errors=True)
    _print(results)
    return 0


def _print(results: list[dict[str, Any]]) -> None:
    rows = [
        ("run", lambda r: f"{r['steps']:,} steps"),
        ("cell wall time", lambda r: f"{r['seconds']:.1f} s"),
        ("DOM nodes in the view (most)", lambda r: f"{r['view_nodes_max']:,}"),
        ("DOM nodes in the view (end)", lambda r: f"{r['view_nodes']:,}"),
        ("DOM nodes in the page (end)", lambda r: f"{r['page_nodes']:,}"),
        ("frames recorded", lambda r: f"{r['frames']['n']:,}"),
        ("longest frame", lambda r: f"{r['frames']['max']:.0f} ms"),
        ("median frame", lambda r: f"{r['frames']['median']:.1f} ms"),
        ("95th pct frame", lambda r: f"{r['frames']['p95']:.1f} ms"),
        (
            "frames over 16.7 ms",
            lambda r: (
                f"{r['frames_over_16']:,} ({100 * r['frames_over_16'] / max(1, r['frames']['n']):.0f}%)"
            ),
        ),
        ("long tasks (>50 ms)", lambda r: f"{r['longtasks']['n']:,}"),
        ("longest task", lambda r: f"{r['longtasks']['max']:.0f} ms"),
        ("long tasks total", lambda r: f"{r['longtasks']['total'] / 1000:.1f} s"),
        ("messages handled", lambda r: f"{r['messages']['n']:,}"),
        ("per message, median", lambda r: f"{r['messages']['median']:.2f} ms"),
        ("per message, 95th pct", lambda r: f"{r['messages']['p95']:.2f} ms"),
        ("per message, max", lambda r: f"{r['messages']['max']:.0f} ms"),
    ]
    print(f"{'':32}{'baseline':>18}{'long run':>18}")
    for label, cell in rows:
        print(f"{label:32}" + "".join(f"{cell(r):>18}" for r in results))
    print("\nGoals: the DOM stays under a few thousand nodes; frames while streaming under 16 ms.")
    profile = results[-1].get("profile")
    if profile:
        print("\nThe long run's main thread, by kind of work (from the trace):")
        print(f"  {'':34}{'wall':>10}{'CPU':>13}{'times':>10}")
        for label, wall, cpu, count in profile["browser_work"]:
            print(f"  {label:34}{wall:7.0f} ms {cpu:9.0f} ms {count:9,}")
        print("\nSelf time by function (sampling profiler):")
        for name, spent in profile["self_time"]:
            print(f"  {spent:8.0f} ms  {name}")


if __name__ == "__main__":
    raise SystemExit(main())
