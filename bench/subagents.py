"""The run view under many subagents: message rate, which tree nodes each patch carries, payloads.

    python bench/subagents.py       (or: make bench)

The requirement: a run with 50 subagents of 20 tool calls each keeps to at most 20 front-end
messages per second and updates only the nodes that changed.

A replay script has the main agent launch 50 general-purpose subagents through ``task``, in 5
waves of 10 parallel calls (``--waves 1`` launches all 50 at once). Each subagent makes 20 tool
calls, one per turn (``ls``, ``write_file``, ``read_file``, ``edit_file`` in turn, on its own
files), streams a sentence before each, then answers. It runs in one real kernel as a
``%%deepagent`` cell; the client records every comm message of the run view with its arrival
time. The baseline is the same agent drained by a bare ``astream()`` loop on deepnb's engine
loop, in the same kernel, without deepnb's events or view.

Figures: the run's wall time against the baseline; front-end messages (all, peak in any 1-s
window, mean rate; target ≤ 20/s); per live patch, the tree nodes it carried against the nodes
that existed then, and how many of the carried nodes had not changed since the front-end last
saw them (target 0); payload bytes per message; the final tree (50 nodes, all done, 20 tool calls
each), read from the view's final state.

Exits 0 whether or not the targets are met; non-zero if something failed or the final tree is
wrong.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.overhead import (  # noqa: E402
    DEEPNB,
    DEEPNB_REPORT,
    ENGINE_ASTREAM,
    SETUP,
    STREAM_MODES,
    Bench,
    BenchFailure,
    Timed,
    print_table,
    ratio_row,
    verdict,
)
from deepnb.models.scripted import _TOKEN, parse_script  # noqa: E402
from tests.support.kernel_session import KernelSession  # noqa: E402

SUBAGENTS = 50
TOOL_CALLS = 20
WAVES = 5
DELAY = 0.01
RATE_TARGET = 20.0

PROMPT = "Run the survey: fifty parts, one subagent each."
WARMUP_PROMPT = "warm up"
FINAL_ANSWER = "The survey is done: 50 parts, each with its notes under /work."
SUBAGENT = "general-purpose"

_PROSE = (
    "the subagent looks at its part of the corpus and notes what it found before it checks the "
    "next file so the summary at the end stays short and **accurate**"
)
_WORDS = _PROSE.split()


# -- the replay script -----------------------------------------------------------------------


def description(n: int) -> str:
    return f"Subagent {n:02d}: survey part {n} of the corpus; keep notes under /work/s{n:02d}"


def answer(n: int) -> str:
    return f"Part {n:02d} surveyed: {TOOL_CALLS} tool calls, notes under /work/s{n:02d}."


def tool_call(n: int, k: int) -> dict[str, Any]:
    """The ``k``-th call of subagent ``n``: ``ls``, ``write_file``, ``read_file``, ``edit_file``."""
    folder = f"/work/s{n:02d}"
    note = f"{folder}/note-{k // 4}.md"
    return [
        {"name": "ls", "args": {"path": folder}},
        {"name": "write_file", "args": {"file_path": note, "content": f"# Note {k // 4}\n\nstatus: draft\n"}},
        {"name": "read_file", "args": {"file_path": note}},
        {"name": "edit_file", "args": {"file_path": note, "old_string": "draft", "new_string": "final"}},
    ][k % 4]


def build_script(waves: int = WAVES, delay: float = DELAY) -> dict[str, Any]:
    """Main launches ``SUBAGENTS`` subagents in ``waves`` turns of parallel ``task`` calls; each
    subagent (routed by its task description) streams 8–16 words and makes one tool call per
    turn, ``TOOL_CALLS`` turns, then answers."""
    rng = random.Random(20_240_615)
    per_wave = -(-SUBAGENTS // waves)
    main: list[dict[str, Any]] = []
    for wave, first in enumerate(range(0, SUBAGENTS, per_wave)):
        numbers = range(first + 1, min(first + per_wave, SUBAGENTS) + 1)
        calls = [
            {"name": "task", "args": {"subagent_type": SUBAGENT, "description": description(n)}}
            for n in numbers
        ]
        main.append({"text": f"Wave {wave + 1}: sending out {len(calls)} subagents.", "tool_calls": calls})
    main.append({"text": FINAL_ANSWER})
    subagents = []
    for n in range(1, SUBAGENTS + 1):
        turns: list[dict[str, Any]] = []
        for k in range(TOOL_CALLS):
            words = 8 + rng.randrange(9)
            text = " ".join(rng.choice(_WORDS) for _ in range(words)).capitalize() + "."
            turns.append({"text": text, "tool_calls": [tool_call(n, k)]})
        turns.append({"text": answer(n)})
        subagents.append({"match": f"^Subagent {n:02d}:", "turns": turns})
    warm_call = {"name": "task", "args": {"subagent_type": SUBAGENT, "description": "Warm-up check"}}
    subagents.append(
        {
            "match": "^Warm-up",
            "turns": [{"text": "Checking.", "tool_calls": [{"name": "ls", "args": {"path": "/"}}]}, "Fine."],
        }
    )
    return {
        "delay": delay,
        "agents": {
            "main": [
                {
                    "match": f"^{WARMUP_PROMPT}",
                    "turns": [{"text": "One.", "tool_calls": [warm_call]}, "Warm."],
                },
                {"turns": main},
            ],
            SUBAGENT: subagents,
        },
    }


def script_size(script: dict[str, Any]) -> tuple[int, int]:
    """(model turns, streamed text chunks) of the long run."""
    conversations = [script["agents"]["main"][-1]] + [
        c for c in script["agents"][SUBAGENT] if c["match"].startswith("^Subagent")
    ]
    turns = [turn for c in conversations for turn in c["turns"]]
    texts = [turn if isinstance(turn, str) else turn.get("text", "") for turn in turns]
    return len(turns), sum(len(_TOKEN.findall(text)) for text in texts)


# -- code run in the kernel ------------------------------------------------------------------

BASELINE_REPORT = """
_b_messages = _b_agent.get_state(_b_config({thread!r})).values["messages"]
_b_report(
    _b_agent.checkpointer,
    {thread!r},
    loop=_b_loop,
    final=_b_messages[-1].content,
    tasks=sum(m.type == "tool" and m.name == "task" for m in _b_messages),
)
"""


class RecordingSession(KernelSession):
    """A kernel session that also keeps every comm message with its arrival time (client clock)."""

    def __init__(self, **kwargs: Any) -> None:
        self.arrivals: list[tuple[float, dict[str, Any]]] = []
        super().__init__(**kwargs)

    def _record(self, msg: dict[str, Any]) -> None:
        if msg["msg_type"] in ("comm_open", "comm_msg"):
            self.arrivals.append((time.monotonic(), msg))
        super()._record(msg)

    def comm_messages(self, comm_id: str) -> list[tuple[float, dict[str, Any]]]:
        with self._lock:
            return [(t, m) for t, m in self.arrivals if m["content"].get("comm_id") == comm_id]


def run_baseline(bench: Bench, thread: str, prompt: str = PROMPT) -> Timed:
    result = bench.timed(
        ENGINE_ASTREAM.format(prompt=prompt, thread=thread), BASELINE_REPORT.format(thread=thread)
    )
    final, tasks = result.report["final"], result.report["tasks"]
    expected = (FINAL_ANSWER, SUBAGENTS) if prompt == PROMPT else ("Warm.", 1)
    if (final, tasks) != expected:
        raise BenchFailure(f"baseline run on {thread} ended with {final!r} after {tasks} task results")
    return result


def run_deepnb(bench: Bench, path: Path, prompt: str = PROMPT) -> tuple[Timed, str]:
    session = bench.session
    before = {cid for cid, _ in session.run_views()}
    result = bench.timed(DEEPNB.format(path=path, prompt=prompt), DEEPNB_REPORT)
    report = result.report
    expected = FINAL_ANSWER if prompt == PROMPT else "Warm."
    if report["status"] != "done" or report["result"] != expected:
        raise BenchFailure(
            f"deepnb run ended {report['status']!r} (error {report['error']!r}, result {report['result']!r})"
        )
    views = [cid for cid, _ in session.run_views() if cid not in before]
    if len(views) != 1:
        raise BenchFailure(f"expected one new run view, saw {len(views)}")
    return result, views[0]


# -- what the view sent ----------------------------------------------------------------------


@dataclass
class ViewTraffic:
    """The run view's messages to the front-end, folded as the front-end folds them."""

    received: list[float] = field(default_factory=list)
    """Arrival times (client clock) of every update and patch."""
    sent: list[float] = field(default_factory=list)
    """Send times (the kernel's header date) of the same messages."""
    sizes: list[int] = field(default_factory=list)
    patches: list[dict[str, int]] = field(default_factory=list)
    """Per live patch: nodes carried, nodes existing then, carried nodes that had not changed,
    and the JSON bytes of its parts."""
    full_syncs: list[int] = field(default_factory=list)
    """Bytes of each full trait update that carried the tree."""
    live_tree: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The tree as folded from the opening state and the live patches alone."""
    unchanged_examples: list[str] = field(default_factory=list)


def fold(messages: list[tuple[float, dict[str, Any]]]) -> ViewTraffic:
    traffic = ViewTraffic()
    for arrived, msg in messages:
        data = msg["content"]["data"]
        if msg["msg_type"] == "comm_open":
            traffic.live_tree = {n["id"]: n for n in data.get("state", {}).get("tree", [])}
            continue
        method = data.get("method")
        if method not in ("update", "custom"):
            continue
        size = len(json.dumps(data))
        traffic.received.append(arrived)
        traffic.sent.append(msg["header"]["date"].timestamp())
        traffic.sizes.append(size)
        if method == "update":
            if "tree" in data.get("state", {}):
                traffic.full_syncs.append(size)
            continue
        patch = data.get("content") or {}
        if patch.get("type") != "patch":
            continue
        nodes = patch.get("nodes", [])
        unchanged = [n for n in nodes if traffic.live_tree.get(n["id"]) == n]
        if unchanged and len(traffic.unchanged_examples) < 5:
            node = unchanged[0]
            traffic.unchanged_examples.append(
                f"patch {len(traffic.patches) + 1}: {node['id']} ({node['status']}, "
                f"{node['tool_calls']} tool calls) resent unchanged"
            )
        traffic.live_tree.update((n["id"], n) for n in nodes)
        state = patch.get("state", {})
        traffic.patches.append(
            {
                "nodes": len(nodes),
                "existing": len(traffic.live_tree),
                "unchanged": len(unchanged),
                "bytes": size,
                "nodes_bytes": len(json.dumps(nodes)) if nodes else 0,
                "upsert_bytes": len(json.dumps(patch.get("upsert", []))),
                "upserts": len(patch.get("upsert", [])),
                "ids_bytes": len(json.dumps(patch["ids"])) if "ids" in patch else 0,
                "ids": len(patch.get("ids", [])),
                "files_bytes": len(json.dumps(state["files_changed"])) if "files_changed" in state else 0,
                "state_bytes": len(json.dumps(state)),
            }
        )
    return traffic


def check_tree(tree: list[dict[str, Any]]) -> list[str]:
    """What is wrong with the final tree (nothing, if it has every subagent, done, with its calls)."""
    problems = []
    if len(tree) != SUBAGENTS:
        problems.append(f"{len(tree)} nodes, expected {SUBAGENTS}")
    if len({node["id"] for node in tree}) != len(tree):
        problems.append("node ids repeat")
    seen = set()
    for node in tree:
        number = next(
            (n for n in range(1, SUBAGENTS + 1) if node.get("description", "") == description(n)), None
        )
        where = f"node {node.get('id')!r}"
        if number is None:
            problems.append(f"{where}: unknown description {node.get('description')!r}")
            continue
        seen.add(number)
        expected = {
            "parent": "main",
            "name": SUBAGENT,
            "status": "done",
            "tool_calls": TOOL_CALLS,
            "result": answer(number),
            "children": [],
        }
        for key, value in expected.items():
            if node.get(key) != value:
                problems.append(
                    f"{where} (subagent {number:02d}): {key} is {node.get(key)!r}, expected {value!r}"
                )
        if not node.get("finished_at"):
            problems.append(f"{where} (subagent {number:02d}): no finished_at")
    missing = sorted(set(range(1, SUBAGENTS + 1)) - seen)
    if missing:
        problems.append(f"no node for subagent(s) {', '.join(f'{n:02d}' for n in missing)}")
    return problems


def tree_differences(live: dict[str, dict[str, Any]], final: list[dict[str, Any]]) -> list[str]:
    """Where the tree folded from live patches differs from the final full state."""
    diffs = []
    final_by_id = {node["id"]: node for node in final}
    for node_id in sorted(set(live) | set(final_by_id)):
        a, b = live.get(node_id), final_by_id.get(node_id)
        if a is None or b is None:
            diffs.append(f"{node_id}: {'only in the final state' if a is None else 'only in the patches'}")
            continue
        keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
        if keys:
            diffs.append(f"{node_id}: {', '.join(f'{k} {a.get(k)!r} → {b.get(k)!r}' for k in keys)}")
    return diffs


def peak_window(times: list[float], window: float = 1.0) -> tuple[int, float]:
    """The most timestamps within any ``window``-second span, and when that span starts."""
    times = sorted(times)
    best, at, start = 0, times[0] if times else 0.0, 0
    for end, t in enumerate(times):
        while t - times[start] >= window:
            start += 1
        if end - start + 1 > best:
            best, at = end - start + 1, times[start]
    return best, at


# -- the whole benchmark ---------------------------------------------------------------------


def mean_max(values: list[float], fmt: str = "{:.1f}") -> str:
    if not values:
        return "—"
    return f"{fmt.format(statistics.mean(values))} mean, {fmt.format(max(values))} max"


def main(argv: list[str] | None = None) -> int:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument(
        "--waves",
        type=int,
        default=WAVES,
        help=f"turns of parallel task calls (default {WAVES}; 1: all at once)",
    )
    options.add_argument(
        "--delay", type=float, default=DELAY, help=f"seconds between streamed tokens (default {DELAY})"
    )
    args = options.parse_args(argv)
    if not 1 <= args.waves <= SUBAGENTS:
        options.error(f"--waves must be between 1 and {SUBAGENTS}")

    began = time.monotonic()
    script = build_script(args.waves, args.delay)
    parse_script(script)  # fail here, not in the kernel, if the script is malformed
    turns, tokens = script_size(script)
    workdir = Path(tempfile.mkdtemp(prefix="deepnb-bench-"))
    path = workdir / "subagents.json"
    path.write_text(json.dumps(script), encoding="utf-8")
    per_wave = -(-SUBAGENTS // args.waves)
    waves = len(range(0, SUBAGENTS, per_wave))
    shape = "all at once" if waves == 1 else f"{waves} waves of up to {per_wave} parallel task calls"
    print(
        f"deepnb subagent benchmark: {SUBAGENTS} general-purpose subagents ({shape}), {TOOL_CALLS} tool "
        f"calls each; {turns} model turns, {tokens} streamed tokens, delay {args.delay:g} s; "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    )

    try:
        print("· starting a kernel…", flush=True)
        session = RecordingSession(cwd=str(ROOT))
        try:
            bench = Bench(session)
            bench.cell(SETUP.format(modes=STREAM_MODES, path=str(path)))
            bench.cell("%load_ext deepnb")
            print("· warm-up runs…", flush=True)
            run_baseline(bench, "warm-b", prompt=WARMUP_PROMPT)
            run_deepnb(bench, path, prompt=WARMUP_PROMPT)
            print("· baseline: bare astream() on deepnb's engine loop…", end="", flush=True)
            base = run_baseline(bench, "base")
            print(f" {base.report['cell']:.2f} s; deepnb…", end="", flush=True)
            run, comm_id = run_deepnb(bench, path)
            print(f" {run.report['cell']:.2f} s", flush=True)
            time.sleep(0.5)  # the reader thread may still be taking the last messages in
            traffic = fold(session.comm_messages(comm_id))
            final_tree = session.widgets[comm_id].get("tree", [])
        finally:
            session.close()
    except BenchFailure as exc:
        print(f"\nFAILED: {exc}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    problems = check_tree(final_tree)
    live_diffs = tree_differences(traffic.live_tree, final_tree)

    cell = run.report["cell"]
    count = len(traffic.received)
    peak, peak_at = peak_window(traffic.received)
    peak_sent, _ = peak_window(traffic.sent)
    first = traffic.received[0] if traffic.received else 0.0
    mean_rate = count / cell
    patches = traffic.patches
    with_nodes = [p for p in patches if p["nodes"]]
    every = [p for p in with_nodes if p["nodes"] == p["existing"]]
    every_after_first = [p for p in with_nodes[1:] if p["nodes"] == p["existing"]]
    unchanged = sum(p["unchanged"] for p in patches)
    carried = sum(p["nodes"] for p in patches)
    total_bytes = sum(traffic.sizes)
    patch_bytes = [p["bytes"] for p in patches]
    share = {
        part: sum(p[f"{part}_bytes"] for p in patches) / max(1, sum(patch_bytes))
        for part in ("nodes", "upsert", "ids", "files", "state")
    }
    ids_patches = [p for p in patches if p["ids"]]
    rows = [
        ratio_row("wall time, in kernel (cell)", cell, base.report["cell"]),
        ratio_row("wall time, client (reply+idle)", run.client, base.client),
        ratio_row("kernel CPU time (all threads)", run.report["cpu"], base.report["cpu"]),
        ratio_row("run.state.elapsed / bare loop", run.report["elapsed"], base.report["loop"]),
        ("front-end messages, peak in 1 s window", f"{peak}/s", "—", "—", f"≤ {RATE_TARGET:.0f}/s",
         verdict(peak, RATE_TARGET)),
        ("  window starts (s into the run)", f"{peak_at - first:.2f} s", "—", "—", "(info)", ""),
        ("  same, by kernel send time", f"{peak_sent}/s", "—", "—", "(info)", ""),
        ("front-end messages, mean rate", f"{mean_rate:.1f}/s", "—", "—", "(info)", ""),
        ("front-end messages, in all", f"{count}", f"{tokens}", f"{count / tokens:.4f}",
         "(info: / streamed tokens)", ""),
        ("  live patches, full syncs (tree)", f"{len(patches)}, {len(traffic.full_syncs)}", "—", "—",
         "(info)", ""),
        ("nodes per patch (with nodes)", mean_max([p["nodes"] for p in with_nodes]),
         mean_max([p["existing"] for p in with_nodes]),
         f"{statistics.mean(p['nodes'] / p['existing'] for p in with_nodes):.3f}" if with_nodes else "—",
         "(info: carried / existing)", ""),
        ("  patches carrying nodes", f"{len(with_nodes)} of {len(patches)}", "—", "—", "(info)", ""),
        ("  patches carrying every node", f"{len(every)}", f"{len(with_nodes)}",
         f"{len(every) / max(1, len(with_nodes)):.3f}", "(info)", ""),
        ("    same, after the first", f"{len(every_after_first)}", f"{max(0, len(with_nodes) - 1)}",
         f"{len(every_after_first) / max(1, len(with_nodes) - 1):.3f}", "(info)", ""),
        ("carried nodes that had not changed", f"{unchanged}", f"{carried}",
         f"{unchanged / max(1, carried):.3f}", "0", "PASS" if unchanged == 0 else "MISS"),
        ("payload per message", mean_max(traffic.sizes, "{:,.0f}") + " B", "—", "—", "(info)", ""),
        ("  per live patch", mean_max(patch_bytes, "{:,.0f}") + " B", "—", "—", "(info)", ""),
        ("  per full sync", mean_max(traffic.full_syncs, "{:,.0f}") + " B", "—", "—", "(info)", ""),
        ("payload in all", f"{total_bytes / 1e6:.2f} MB", "—", "—", "(info)", ""),
        ("  patch bytes: nodes/upsert/ids/files", " / ".join(f"{share[k]:.0%}" for k in
         ("nodes", "upsert", "ids", "files")), "—", "—", "(info)", ""),
        ("  patches resending all ids", f"{len(ids_patches)}", f"{len(patches)}",
         mean_max([p["ids"] for p in ids_patches], "{:.0f}") + " ids", "(info)", ""),
        ("final tree: 50 done, 20 tool calls each",
         f"{sum(n.get('status') == 'done' for n in final_tree)} done of {len(final_tree)}", "—", "—",
         "all right", "PASS" if not problems else "FAIL"),
        ("tree from live patches = final tree", "yes" if not live_diffs else f"{len(live_diffs)} differ",
         "—", "—", "(info)", ""),
    ]  # fmt: skip
    print()
    print_table(rows)
    print()
    for example in traffic.unchanged_examples:
        print(f"  unchanged node: {example}")
    for diff in live_diffs[:5]:
        print(f"  live tree ≠ final: {diff}")
    took = time.monotonic() - began
    print(
        f"{SUBAGENTS} subagents ({shape}) in {cell:.1f} s (×{cell / base.report['cell']:.3f} of the bare "
        f"loop): peak {peak} messages/s ({'PASS' if peak <= RATE_TARGET else 'MISS'}), {count} in all; "
        f"{unchanged} unchanged nodes resent in {len(patches)} patches; {total_bytes / 1e6:.1f} MB sent; "
        f"{took:.0f} s in all."
    )
    if problems:
        print("\nFAILED: the final tree is wrong:", file=sys.stderr)
        for problem in problems[:20]:
            print(f"  {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
