"""What a run, a batch or an experiment started in one cell sends while a later cell executes
carries the later cell's parent header, as a thread's output does in ipykernel.

A client that collects outputs cell by cell (nbclient, so ``jupyter nbconvert --execute`` and
nbval) reads only the messages of the cell it is executing: an update tagged with a cell that
already ended is dropped, and the saved notebook keeps a state the run had left long before."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.kernel_session import KernelSession, deepnb_kernel

pytestmark = pytest.mark.kernel

HELD = """
delay: 0.01
agents:
  main:
    - turns:
        - {text: "Checking.", tool_calls: [{name: held_lookup, args: {topic: tides}}]}
        - {text: "One two three four five six seven eight nine ten about tides."}
"""
SENT_BY_VIEWS = ("comm_msg", "update_display_data")

START = {
    "a run": "run = bench.start('Write about tides')\ndisplay(run)",
    "a batch": (
        "batch = bench.map(['tides', 'kelp', 'gulls'], template='{input}', concurrency=2)\ndisplay(batch)"
    ),
    "an experiment": (
        "exp = deepnb.experiment(['tides', 'kelp', 'gulls'], agent='held', template='{input}',\n"
        "    scorers=[scorers.contains], log=str(logs / 'e.jsonl'))\n"
        "display(exp)"
    ),
}
WAIT = {"a run": "run.wait(60)", "a batch": "batch.wait(60)", "an experiment": "exp.wait(60)"}
SETUP = """
import pathlib, threading, time
import deepnb
from deepnb import scorers

logs = pathlib.Path('logs')
release = threading.Event()

def held_lookup(topic: str) -> str:
    \"\"\"Look a topic up once the later cell lets it go on.\"\"\"
    if not release.wait(60):
        raise TimeoutError('the later cell never let the run go on')
    return f'notes on {topic}'

bench = deepnb.agent(name='held', model='scripted:held.yaml', tools=[held_lookup])
"""


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KernelSession]:
    folder: Path = tmp_path_factory.mktemp("parents")
    (folder / "held.yaml").write_text(textwrap.dedent(HELD))
    with deepnb_kernel(str(folder)) as session:
        assert session.execute(SETUP).ok
        yield session


def _sent_while(kernel: KernelSession, cell: str) -> list[dict[str, Any]]:
    """What the views sent from the moment ``cell`` began (its first message) on. Between two
    cells the kernel tags what it sends with the cell before, the latest it was asked to run."""
    with kernel._lock:
        begun = next(i for i, m in enumerate(kernel.iopub) if m["parent_header"].get("msg_id") == cell)
        return [m for m in kernel.iopub[begun:] if m["msg_type"] in SENT_BY_VIEWS]


@pytest.mark.parametrize("what", list(START))
def test_updates_sent_while_a_later_cell_runs_belong_to_that_cell(kernel: KernelSession, what: str) -> None:
    # every run waits in its tool until the later cell lets it go on: it cannot end before
    started = kernel.execute(f"release = threading.Event()\n{START[what]}")
    assert started.ok, started.text()
    # the views' last flush comes while the later cell sleeps
    waited = kernel.execute(f"release.set()\n{WAIT[what]}\ntime.sleep(0.5)")
    assert waited.ok, waited.text()
    sent = _sent_while(kernel, waited.msg_id)
    assert sent, f"{what} sent nothing while the later cell ran"
    parents = {m["parent_header"].get("msg_id") for m in sent}
    assert started.msg_id not in parents, f"{what}: an update went to the cell that had ended"
    assert any(
        m["msg_type"] == "update_display_data"
        for m in sent
        if m["parent_header"].get("msg_id") == waited.msg_id
    ), f"{what}: its saved output was not brought up to date while the later cell ran"
