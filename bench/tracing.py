"""What tracing costs a run: a 300-step scripted run (bench/overhead.py's script) through the Python
API with tracing off, on to a live local Phoenix, and on to a collector that is down.

    python bench/tracing.py          (Phoenix from .venv-phoenix: make .venv-phoenix/.installed)

Runs alternate (off, Phoenix, down, ...) on fresh agents after one warm-up each; the medians are
compared with the run with tracing off. Targets (issue 43): Phoenix ≤ 1.05×, down ≤ 1.02×. Prints
the spans each traced run sent or counted as dropped. Exits 0 whether or not the targets are met.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from overhead import PROMPT, STEPS, build_script  # noqa: E402

import deepnb  # noqa: E402
from deepnb.engine.tracing import settings, switch  # noqa: E402
from deepnb.models.scripted import ScriptedChatModel, parse_script  # noqa: E402
from tests.support import phoenix  # noqa: E402
from tests.support.servers import free_port, stop  # noqa: E402

REPEATS = 3
TARGETS = {"phoenix": 1.05, "down": 1.02}


def timed(label: str, script: dict[str, object]) -> float:
    bench = deepnb.agent(f"bench-{label}", ScriptedChatModel(script=parse_script(script)))
    started = time.perf_counter()
    run = bench.run(PROMPT)
    took = time.perf_counter() - started
    if run.status != "done":
        raise SystemExit(f"the {label} run ended {run.status}: {run.error}")
    return took


def main() -> None:
    script = build_script(STEPS)
    server = phoenix.start(Path(tempfile.mkdtemp(prefix="deepnb-bench-phoenix-")))
    modes = {
        "off": None,
        "phoenix": settings.settings(server.url, project="bench"),
        "down": settings.settings(f"http://127.0.0.1:{free_port()}", project="bench"),
    }
    times: dict[str, list[float]] = {mode: [] for mode in modes}
    said: dict[str, str] = {}
    try:
        for repeat in range(REPEATS + 1):
            for mode, chosen in modes.items():
                if chosen is None:
                    switch.turn_off()
                else:
                    switch.turn_on(chosen)
                took = timed(f"{mode}-{repeat}", script)
                if chosen is not None:
                    switch.flush(60)
                    said[mode] = repr(switch.status()).splitlines()[1]
                if repeat:  # the first round warms up
                    times[mode].append(took)
    finally:
        switch.turn_off()
        stop(server.process)
    base = statistics.median(times["off"])
    print(f"{STEPS}-step run, median of {REPEATS}: tracing off {base:.2f} s")
    for mode, target in TARGETS.items():
        ratio = statistics.median(times[mode]) / base
        verdict = "meets" if ratio <= target else "misses"
        median = statistics.median(times[mode])
        print(f"  {mode:8} {median:.2f} s  {ratio:.2f}x ({verdict} {target}x)  {said[mode]}")


if __name__ == "__main__":
    main()
