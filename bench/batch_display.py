"""What displaying a large batch costs as it grows: the first display (live grid plus static
table) and the snapshot alone, for a batch of ``--inputs`` and one four times larger, measured in
the same run.

    python bench/batch_display.py [--inputs 2500] [--repeats 5]

Each batch is started with one run at a time and stopped at once, so its rows are queued or
cancelled: what is measured is drawing them, not running agents. Linear drawing makes the larger
batch cost at most about 4× the smaller (the table draws its first rows only, so less); a
per-row rebuild of the inputs list made it 16×. Bytes are the first display's JSON size.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import deepnb
from deepnb.views.batch.batch_rows import batch_snapshot_bundle
from deepnb.views.batch.batch_view import batch_bundle
from tests.support.agents import scripted


def _batch(count: int) -> Any:
    bench = deepnb.agent(f"bench-display-{count}", scripted({"main": ["ok"]}, delay=0.05))
    batch = bench.map([f"question {n} " + "x" * 60 for n in range(count)], concurrency=1)
    batch.stop()
    batch.wait(60)
    return batch


def _best(repeats: int, draw: Any, batch: Any) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        draw(batch)
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, default=2_500)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    small, large = _batch(args.inputs), _batch(4 * args.inputs)
    rows = []
    for name, draw in [("snapshot", batch_snapshot_bundle), ("first display", batch_bundle)]:
        base = _best(args.repeats, draw, small)
        grown = _best(args.repeats, draw, large)
        rows.append((name, base, grown))
    size = len(json.dumps(batch_bundle(large), default=str))
    print(f"{'':<16}{args.inputs:>10,} inputs{4 * args.inputs:>12,} inputs{'ratio':>8}")
    for name, base, grown in rows:
        print(f"{name:<16}{base * 1000:>13.1f} ms{grown * 1000:>15.1f} ms{grown / base:>8.2f}")
    print(f"first display of {4 * args.inputs:,} inputs: {size:,} bytes")


if __name__ == "__main__":
    main()
