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


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KernelSession]:
    folder: Path = tmp_path_factory.mktemp("interrupt")
    (folder / "slow.yaml").write_text(textwrap.dedent(SLOW))
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

    check = kernel.execute(
        "from deepnb import workbench as _wb\n"
        "_run = stopped or _wb.get('plain').latest_run()\n"
        "assert _run.status == 'cancelled', _run.status\n"
        "_notice = _run.state.items[-1]\n"
        "assert _notice['kind'] == 'notice' and 'interrupted by the kernel' in _notice['text'], _notice\n"
        "assert _run.todos[0]['content'] == 'Count slowly'"
    )
    assert check.ok, check.text()
