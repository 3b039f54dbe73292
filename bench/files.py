"""The file browser at scale: a backend with 10,000 files, against listing it directly.

    python bench/files.py        (or: make bench)

For the thread's state (``StateBackend``) and a folder on disk (``FilesystemBackend``), each with
10,000 files (ten folders of 1,000):

1. First render: building ``%deepagent files``'s view and its output bundle (the synced state and
   the static listing), against reading the backend's root listing directly. Target < 300 ms.
2. Opening a folder of 1,000 entries (the view's ``ls`` request, sizes and permissions included),
   against listing that folder directly. Target < 100 ms.
3. The saved output's size (widget state plus static HTML and text). Target < 100 KB.
4. For the folder on disk, what a run's file watch costs after a tool call: its listing of the
   10,000 files (each file's stamp, and the digest of each one changed a moment before),
   against the listing of them it is taken from. Once the files have settled, and right after
   a tool rewrote 100 of them. Target < 3× that listing.

Medians of repeated runs; the direct listing is measured in the same run and printed as the
baseline of each ratio. Exits non-zero only if something fails, not on a missed target.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

FILES = 10_000
FOLDERS = 10
TARGETS = {"render": 0.300, "folder": 0.100, "snapshot": 100_000}
WATCH_RATIO = 3.0
"""How many times the backend's own listing a watch's listing may take."""
REWRITTEN = 100


def median_time(fn: Callable[[], Any], repeat: int) -> float:
    """The median wall time of ``fn()`` over ``repeat`` calls (after one warm-up call)."""
    fn()
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def paths() -> list[str]:
    per = FILES // FOLDERS
    return [f"/data{n // per}/note{n % per:04}.md" for n in range(FILES)]


def state_agent() -> tuple[Any, Callable[[str], Any]]:
    """An agent whose thread state holds the files, and a direct listing of its state."""
    from deepagents.backends.utils import create_file_data

    import deepnb

    workbench = deepnb.agent("bench-state", "demo:quickstart")
    thread = workbench.current_thread
    config = {"configurable": {"thread_id": thread}}
    files = {path: create_file_data(f"# {path}\n" + "tide " * 30) for path in paths()}
    workbench.graph.update_state(config, {"files": files})

    def direct(folder: str) -> list[str]:
        """What a caller would do without deepnb: read the state, keep the folder's children."""
        values = workbench.graph.get_state(config).values
        return sorted(
            {folder + p[len(folder) :].split("/")[0] for p in values["files"] if p.startswith(folder)}
        )

    return workbench, direct


def disk_agent(root: Path) -> tuple[Any, Callable[[str], Any]]:
    """An agent on a FilesystemBackend folder holding the files, and the backend's own listing."""
    from deepagents.backends import FilesystemBackend

    import deepnb

    for path in paths():
        target = root / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(f"# {path}\n" + "tide " * 30)
    backend = FilesystemBackend(root_dir=str(root), virtual_mode=True)
    workbench = deepnb.agent("bench-disk", "demo:quickstart", backend=backend)

    def direct(folder: str) -> list[Any]:
        return backend.ls(folder).entries or []

    return workbench, direct


def measure(label: str, workbench: Any, direct: Callable[[str], Any], repeat: int) -> list[tuple]:
    from deepnb.views.files.files_view import FilesView

    files = workbench.files()

    def render() -> dict[str, Any]:
        view = FilesView(files)
        bundle = view._repr_mimebundle_()
        view.close()
        return bundle

    def open_folder() -> Any:
        reply = view.request({"type": "ls", "path": "/data3/", "limit": 1000})
        assert reply and not reply.get("error") and len(reply["entries"]) == 1000, reply
        return reply

    view = FilesView(files)
    render_time = median_time(render, repeat)
    base_root = median_time(lambda: direct("/"), repeat)
    folder_time = median_time(open_folder, repeat)
    base_folder = median_time(lambda: direct("/data3/"), repeat)
    data, _metadata = render()
    state = {name: getattr(view, name) for name in view.keys if not name.startswith("_")}
    size = (
        len(json.dumps(state, default=str)) + len(data.get("text/html", "")) + len(data.get("text/plain", ""))
    )
    code = len(getattr(view, "_esm", "")) + len(getattr(view, "_css", ""))
    view.close()
    return [
        (f"{label}: first render", render_time, base_root, TARGETS["render"]),
        (f"{label}: open a folder of 1,000", folder_time, base_folder, TARGETS["folder"]),
        (f"{label}: saved output (bytes)", size, code, TARGETS["snapshot"]),
    ]


def watch_rows(label: str, workbench: Any, root: Path, repeat: int) -> list[tuple]:
    """A run's file watch over the folder: one comparison after a tool call (stamps, and the
    digests of files changed a moment before), against the listing it takes them from."""
    from deepnb.engine.files import changed
    from deepnb.engine.files.sources import BackendSource

    changed.LIST_TIMEOUT = 600.0  # measured here, not given up on (a run's watch would be)
    source = BackendSource(workbench.file_setup.backend)
    loop = asyncio.get_event_loop()
    watch = changed.ListingWatch(source)
    newest = max(p.stat().st_ctime for p in root.rglob("*"))
    time.sleep(max(0.0, changed.RACY_SECONDS - (time.time() - newest)))
    loop.run_until_complete(watch.begin())
    direct = median_time(lambda: loop.run_until_complete(source.entries()), repeat)
    settled = median_time(lambda: loop.run_until_complete(watch.check()), repeat)
    rewritten = [root / p.lstrip("/") for p in paths()[:REWRITTEN]]

    def after_rewrites() -> Any:
        for target in rewritten:
            target.write_text(target.read_text())
        return loop.run_until_complete(watch.check())

    fresh = median_time(after_rewrites, repeat)
    return [
        (f"{label}: watch, files settled", settled, direct, direct * WATCH_RATIO),
        (f"{label}: watch, {REWRITTEN} just rewritten", fresh, direct, direct * WATCH_RATIO),
    ]


def report(rows: list[tuple]) -> None:
    print(f"{'figure':44} {'value':>12} {'baseline':>12} {'ratio':>8}  {'target':>10}  result")
    print("-" * 100)
    for name, value, base, target in rows:
        if "bytes" in name:
            shown, based, goal = (
                f"{value / 1000:.1f} kB",
                f"{base / 1000:.1f} kB*",
                f"< {target / 1000:.0f} kB",
            )
        else:
            shown, based, goal = (
                f"{value * 1000:.1f} ms",
                f"{base * 1000:.1f} ms",
                f"< {target * 1000:.0f} ms",
            )
        ratio = f"×{value / base:.2f}" if base else "—"
        result = "PASS" if value < target else "MISS"
        print(f"{name:44} {shown:>12} {based:>12} {ratio:>8}  {goal:>10}  {result}")
    print("\nbaseline: the same backend listed directly (root, then the folder; for a watch, every")
    print("file, as the watch lists them) in the same run; a watch's target is 3x its baseline;")
    print("* for the saved output, the baseline column is the view's code (ESM + CSS), kept once per")
    print("  notebook by the widget manager, shown for scale and not counted in the figure.")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    asyncio.set_event_loop(asyncio.new_event_loop())
    rows = []
    workbench, direct = state_agent()
    rows += measure("state", workbench, direct, args.repeat)
    with tempfile.TemporaryDirectory() as folder:
        workbench, direct = disk_agent(Path(folder))
        rows += measure("disk", workbench, direct, args.repeat)
        rows += watch_rows("disk", workbench, Path(folder), args.repeat)
    report(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
