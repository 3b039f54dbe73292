"""How soon a ``%%deepagent`` cell shows something, and how soon the first word of an answer
reaches the front end, each against a bare display in the same kernel.

    python bench/first_paint.py [--repeats 5]

In real kernels driven over the Jupyter protocol (the client stamps each message as it arrives;
``time.monotonic`` is the machine's, so the kernel's stamps compare with the client's):

1. **First paint, cold**: a fresh kernel runs ``%load_ext deepnb`` and, straight after, a
   ``%%deepagent`` cell: seconds from sending the cell to its first output (the "starting…"
   placeholder) and to the run view (its ``comm_open``). Baseline: a fresh kernel's first cell
   showing ``display(HTML(...))``. Goals: the first output within 300 ms, and the run view too
   (it opens before the agent stack has loaded). Run it as ``make`` runs the tests, with bytecode
   written (``PYTHONDONTWRITEBYTECODE`` unset), or each fresh kernel compiles deepnb again.
2. **First paint, preloaded**: the same, after the idle kernel has imported the agent stack.
3. **First paint, warm**: a second ``%%deepagent`` cell in that kernel, against a bare display
   cell in the same kernel.
4. **First token**: from the scripted model's first chunk (stamped in the kernel by a LangChain
   callback) to the client receiving the view's message that carries it, over several runs, the
   word coming just after a flush (a tool card's); against an ``anywidget`` trait set from
   a thread in the same kernel (the comm path alone); and, in the same kernel, with the
   throttle's bucket of flushes cut to one (the pace before it). Goal: ≤ 50 ms.

Figures, not a pass/fail test: exits 0 unless something failed to run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.kernel_session import KernelSession  # noqa: E402

RUN_VIEW = "deepnb.views.run.run_view.RunView"
SCRIPT = """
delay: 0.01
agents:
  main:
    - turns:
        - text: ""
          tool_calls:
            - name: write_todos
              args: {todos: [{content: "Answer", status: in_progress}]}
        - text: "Firstword of the answer, then a few more words to stream along."
"""
"""A tool call first: its card's flush comes just before the answer's first word, the moment a
throttle that spaces every flush would hold that word back."""
STAMPED_MODEL = """
import time
from langchain_core.callbacks import BaseCallbackHandler
from deepnb.models.resolve import resolve_model
from deepnb.views import throttle

class FirstChunk(BaseCallbackHandler):
    run_inline = True  # stamped as the chunk comes, not later on an executor
    def __init__(self):
        self.stamps = []
        self._seen = set()
    def on_llm_new_token(self, token, *, run_id, **kwargs):
        if token.startswith("Firstword") and run_id not in self._seen:
            self._seen.add(run_id)
            self.stamps.append(time.monotonic())

first_chunk = FirstChunk()
model = resolve_model("scripted:{path}")
model.callbacks = [first_chunk]
import deepnb
bench = deepnb.agent("first-token", model=model)
"""
BARE_WIDGET = """
import threading, time, anywidget, traitlets
class Bare(anywidget.AnyWidget):
    _esm = "export default {}"
    value = traitlets.Unicode("").tag(sync=True)
bare = Bare()
display(bare)
bare_stamps = []
"""
SET_FROM_A_THREAD = """
def _set(i):
    bare_stamps.append(time.monotonic())
    bare.value = f"word{i}"
t = threading.Thread(target=_set, args=({i},)); t.start(); t.join()
"""


def _arrived(
    kernel: KernelSession, start: int, test: Any, timeout: float = 120
) -> tuple[float, dict[str, Any]]:
    """The first message from ``start`` on that passes ``test``, with the client's arrival stamp."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with kernel._lock:
            for stamp, msg in kernel.stamped[start:]:
                if test(msg):
                    return stamp, msg
        time.sleep(0.002)
    raise TimeoutError("no such message")


def _first(kernel: KernelSession, start: int, test: Any) -> float:
    """The client's arrival stamp of the first message from ``start`` on that passes ``test``."""
    return _arrived(kernel, start, test)[0]


class StampedSession(KernelSession):
    """A kernel session that stamps each iopub message with ``time.monotonic()`` on arrival."""

    def __init__(self, **kwargs: Any) -> None:
        self.stamped: list[tuple[float, dict[str, Any]]] = []
        super().__init__(**kwargs)

    def _record(self, msg: dict[str, Any]) -> None:
        with self._lock:
            self.stamped.append((time.monotonic(), msg))
        super()._record(msg)


def _is_output_of(msg_id: str) -> Any:
    return lambda m: m["msg_type"] == "display_data" and m["parent_header"].get("msg_id") == msg_id


def _is_run_view(m: dict[str, Any]) -> bool:
    return (
        m["msg_type"] == "comm_open"
        and m["content"]["data"].get("state", {}).get("_anywidget_id") == RUN_VIEW
    )


def _paint(kernel: KernelSession, code: str) -> tuple[float, float | None]:
    """Seconds from sending ``code`` to its first output, and to a run view's opening (if any)."""
    with kernel._lock:
        start = len(kernel.stamped)
    sent = time.monotonic()
    execution = kernel.submit(code)
    output = _first(kernel, start, _is_output_of(execution.msg_id)) - sent
    view = _first(kernel, start, _is_run_view) - sent if "%%deepagent" in code else None
    if not execution.done.wait(120):
        raise TimeoutError(code)
    if not execution.ok:
        raise RuntimeError(execution.text())
    return output, view


def _fresh(folder: str) -> StampedSession:
    kernel = StampedSession(cwd=folder)
    return kernel


def first_paints(folder: str) -> dict[str, float]:
    cell = "%%deepagent -m demo:quickstart --new\nWrite a brief on tide pools."
    bare = "from IPython.display import HTML, display\ndisplay(HTML('<b>tide pools</b>'))"
    found: dict[str, float] = {}
    kernel = _fresh(folder)
    try:
        found["bare display, fresh kernel"], _ = _paint(kernel, bare)
    finally:
        kernel.close()
    kernel = _fresh(folder)
    try:
        assert kernel.execute("%load_ext deepnb").ok
        found["cold: first output"], found["cold: run view"] = _paint(kernel, cell)  # type: ignore[assignment]
        found["warm: first output"], found["warm: run view"] = _paint(kernel, cell)  # type: ignore[assignment]
        found["bare display, same kernel"], _ = _paint(kernel, bare)
    finally:
        kernel.close()
    kernel = _fresh(folder)
    try:
        assert kernel.execute("%load_ext deepnb").ok
        deadline = time.monotonic() + 120
        while "True" not in kernel.execute("import sys; print('deepnb.views.output' in sys.modules)").text():
            if time.monotonic() > deadline:
                raise TimeoutError("the preload did not end")
            time.sleep(0.2)
        found["preloaded: first output"], found["preloaded: run view"] = _paint(kernel, cell)  # type: ignore[assignment]
    finally:
        kernel.close()
    return found


def _token_delays(kernel: StampedSession, repeats: int) -> list[float]:
    delays = []
    for _ in range(repeats):
        with kernel._lock:
            start = len(kernel.stamped)
        execution = kernel.execute(
            "run = bench.start('Answer.', new_thread=True)\ndisplay(run)\nrun.wait(60)"
        )
        if not execution.ok:
            raise RuntimeError(execution.text())
        _, opened = _arrived(kernel, start, _is_run_view)
        view = opened["content"]["comm_id"]
        arrived = _first(
            kernel,
            start,
            lambda m, view=view: m["content"].get("comm_id") == view and "Firstword" in str(m["content"]),
        )
        stamp = float(kernel.execute("print(first_chunk.stamps[-1])").text().strip())
        delays.append(arrived - stamp)
    return delays


def first_tokens(folder: str, repeats: int) -> dict[str, list[float]]:
    (Path(folder) / "first.yaml").write_text(textwrap.dedent(SCRIPT))
    kernel = _fresh(folder)
    found: dict[str, list[float]] = {}
    try:
        assert kernel.execute("%load_ext deepnb").ok
        assert kernel.execute(STAMPED_MODEL.replace("{path}", str(Path(folder) / "first.yaml"))).ok
        _token_delays(kernel, 1)  # warm-up
        found["deepnb view"] = _token_delays(kernel, repeats)
        assert kernel.execute("throttle.BURST = 1").ok
        found["one flush per gap (the pace before the bucket)"] = _token_delays(kernel, repeats)
        assert kernel.execute("throttle.BURST = 2").ok
        assert kernel.execute(BARE_WIDGET).ok
        bare = []
        for i in range(repeats):
            with kernel._lock:
                start = len(kernel.stamped)
            assert kernel.execute(SET_FROM_A_THREAD.replace("{i}", str(i))).ok
            arrived = _first(kernel, start, lambda m, i=i: f"word{i}" in str(m["content"].get("data", {})))
            bare.append(arrived - float(kernel.execute("print(bare_stamps[-1])").text().strip()))
        found["bare anywidget trait set from a thread"] = bare
    finally:
        kernel.close()
    return found


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--repeats", type=int, default=5)
    args = options.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        paints = first_paints(folder)
        tokens = first_tokens(folder, args.repeats)
    print("First paint (seconds from sending the cell)")
    baseline = paints["bare display, fresh kernel"]
    for name, seconds in paints.items():
        ratio = seconds / (paints["bare display, same kernel"] if name.startswith("warm") else baseline)
        print(f"  {name:<34}{seconds * 1000:8.0f} ms   × {ratio:5.2f} of a bare display")
    print("  goal: the first output and the run view within 300 ms, cold")
    print(f"First token (ms from the model's first chunk to the front end, median of {args.repeats})")
    bare = statistics.median(tokens["bare anywidget trait set from a thread"])
    for name, delays in tokens.items():
        median = statistics.median(delays)
        spread = f"{min(delays) * 1000:.0f}–{max(delays) * 1000:.0f}"
        print(f"  {name:<48}{median * 1000:7.1f} ms  ({spread})   × {median / bare:5.2f} of the bare trait")
    print("  goal: ≤ 50 ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
