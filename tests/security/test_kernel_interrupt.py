"""The kernel's interrupt (■, Ctrl-C) during a foreground run: the cell reports KeyboardInterrupt,
never a CancelledError traceback, and the run says it was interrupted by the kernel."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.kernel_session import Execution, KernelSession, deepnb_kernel

pytestmark = pytest.mark.kernel

SLOW = """
delay: 0.05
agents:
  main:
    - text: "{long}"
      tool_calls: [{{name: write_todos, args: {{todos: [{{content: Count slowly, status: in_progress}}]}}}}]
    - text: "{long}"
      tool_calls: [{{name: ls, args: {{path: /}}}}]
    - text: "Counted."
""".format(long=" ".join(f"word{i}" for i in range(80)))


MARKED = """
delay: 0.05
agents:
  main:
    - tool_calls: [{{name: mark, args: {{}}}}]
    - text: "{long}"
      tool_calls: [{{name: ls, args: {{path: /}}}}]
    - text: "Counted."
""".format(long=" ".join(f"word{i}" for i in range(160)))
"""A run that calls ``mark`` (which leaves a file) first, then streams for seconds."""


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("interrupt")


@pytest.fixture(scope="module")
def kernel(folder: Path) -> Iterator[KernelSession]:
    (folder / "slow.yaml").write_text(textwrap.dedent(SLOW))
    (folder / "marked.yaml").write_text(textwrap.dedent(MARKED))
    with deepnb_kernel(str(folder)) as session:
        yield session


def _errors(execution: Execution) -> list[dict]:
    return [o["content"] for o in execution.outputs if o["msg_type"] == "error"]


def _interrupt_when_streaming(kernel: KernelSession, code: str) -> Execution:
    """Run ``code`` and interrupt the kernel once its run has written its todos."""
    before = len(kernel.run_views())
    execution = kernel.submit(code)
    kernel.wait_for(
        lambda: (
            (len(kernel.run_views()) > before and kernel.run_views()[-1][1]["todos"])
            or "todos written" in execution.text()
        ),
        timeout=60,
    )
    kernel.interrupt()
    assert execution.done.wait(30), "the interrupted cell did not end"
    return execution


@pytest.mark.parametrize(
    "code",
    [
        "%%deepagent -m scripted:slow.yaml --new -o stopped\ncount slowly",  # the awaited cell
        "import deepnb, time\nstopped = None\n"  # a blocking run from plain Python
        "bench = deepnb.agent(name='plain', model='scripted:slow.yaml')\n"
        "started = bench.start('count slowly', new_thread=True)\n"
        "while not started.todos: time.sleep(0.02)\n"
        "print('todos written', flush=True)\n"
        "started.follow()",
    ],
    ids=["magic", "python"],
)
def test_interrupt_reports_keyboard_interrupt(kernel: KernelSession, code: str) -> None:
    execution = _interrupt_when_streaming(kernel, code)
    assert not execution.ok  # an interrupt stops Run All, as it does for any cell
    errors = _errors(execution)
    assert [e["ename"] for e in errors] == ["KeyboardInterrupt"], errors
    shown = execution.text() + "".join("".join(e["traceback"]) for e in errors)
    assert "CancelledError" not in shown
    if code.startswith("%%deepagent"):  # the magic's cell: one line, no traceback through it
        assert [e["traceback"] for e in errors] == [
            ["KeyboardInterrupt: run-1 interrupted by the kernel; its thread keeps every step up to here."]
        ], errors

    check = kernel.execute(
        "from deepnb.session import building as _building\n"
        "_run = stopped or _building.get('plain').latest_run()\n"
        "assert _run.status == 'cancelled', _run.status\n"
        "_notice = _run.state.items[-1]\n"
        "assert _notice['kind'] == 'notice' and 'interrupted by the kernel' in _notice['text'], _notice\n"
        "assert _run.todos[0]['content'] == 'Count slowly'"
    )
    assert check.ok, check.text()


MARK_TOOL = '''
import deepnb, pathlib, uuid
many = None

def mark() -> str:
    """Leave a mark."""
    (pathlib.Path({folder!r}) / "marks" / uuid.uuid4().hex).touch()
    return "marked"

deepnb.agent(name="slowbatch", model="scripted:marked.yaml", tools=[mark])
jobs = [f"count slowly to {{n}}" for n in range(6)]
'''


@pytest.mark.parametrize(
    ("form", "runs"),
    [
        ("map jobs -a slowbatch -c 2 -o many", "many.runs"),
        ("eval jobs -a slowbatch -c 2 -o many", "many.runs.values()"),
    ],
    ids=["map", "eval"],
)
def test_interrupt_stops_a_waiting_batch(kernel: KernelSession, folder: Path, form: str, runs: str) -> None:
    """A cell waiting for its batch or experiment: the interrupt stops every run, drops what is
    queued, the cell says KeyboardInterrupt, and each stopped run says the kernel interrupted it."""
    marks = folder / "marks"
    marks.mkdir(exist_ok=True)
    for old in marks.iterdir():
        old.unlink()
    setup = kernel.execute(MARK_TOOL.format(folder=str(folder)))
    assert setup.ok, setup.text()
    execution = kernel.submit(f"%%deepagent {form}\n{{input}}")
    kernel.wait_for(lambda: any(marks.iterdir()), timeout=90, interval=0.1)
    kernel.interrupt()
    assert execution.done.wait(30), "the interrupted cell did not end"
    errors = _errors(execution)
    assert [e["ename"] for e in errors] == ["KeyboardInterrupt"], errors
    what = form.split()[0].replace("map", "batch").replace("eval", "experiment")
    assert [e["traceback"] for e in errors] == [
        [f"KeyboardInterrupt: the {what} was stopped; what ended is kept."]
    ], errors

    check = kernel.execute(
        f"_runs = [r for r in {runs} if hasattr(r, 'wait')]\n"
        "for _r in _runs: _r.wait(30)\n"
        "_stopped = [r for r in _runs if r.status == 'cancelled']\n"
        "assert _stopped and len(_runs) < 6, [r.status for r in _runs]\n"
        "_notices = [r.state.items[-1]['text'] for r in _stopped]\n"
        "assert all('interrupted by the kernel' in n for n in _notices), _notices"
    )
    assert check.ok, check.text()
