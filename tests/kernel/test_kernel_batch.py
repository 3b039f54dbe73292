"""A batch in a real kernel: ``%%deepagent map --bg`` returns at once, other cells execute and
return while its runs go on, its grid's state reaches the front end, and the grid's Stop (the comm
message a front end sends) stops every run."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.kernel_session import KernelSession, deepnb_kernel

pytestmark = pytest.mark.kernel

WORDS = " ".join(f"w{i}" for i in range(40))
SLOW = f"""
delay: 0.05
agents:
  main:
    - match: kelp
      turns: [{{text: "{WORDS} about kelp."}}]
    - turns: [{{text: "{WORDS} about tides."}}]
"""
GRID = "deepnb.views.batch.batch_view.BatchView"


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KernelSession]:
    folder: Path = tmp_path_factory.mktemp("batch")
    (folder / "slow.yaml").write_text(textwrap.dedent(SLOW))
    with deepnb_kernel(str(folder)) as session:
        assert session.execute(
            "import deepnb\nbench = deepnb.agent(name='slow', model='scripted:slow.yaml')"
        ).ok
        yield session


def grids(kernel: KernelSession) -> list[tuple[str, dict[str, Any]]]:
    with kernel._lock:
        return [(cid, state) for cid, state in kernel.widgets.items() if state.get("_anywidget_id") == GRID]


def test_a_background_batch_leaves_the_kernel_free(kernel: KernelSession) -> None:
    before = len(grids(kernel))
    assert kernel.execute("topics = ['tides', 'kelp', 'crabs', 'gulls']").ok
    started = kernel.execute("%%deepagent map topics -c 2 -a slow --bg -o batch\nWrite about {input}")
    assert started.ok, started.text()
    meanwhile = kernel.execute("print(21 * 2, batch.done, batch.counts()['queued'])")
    assert meanwhile.ok and meanwhile.text().split() == ["42", "False", "2"], meanwhile.text()
    finished = kernel.execute("batch.wait(60); print(batch.counts()['done'], batch.results[1][-11:])")
    assert finished.text().split() == ["4", "about", "kelp."], finished.text()
    comm_id, _ = kernel.wait_for(lambda: len(grids(kernel)) > before and grids(kernel)[-1])
    state = kernel.wait_for(
        lambda: dict(kernel.widgets[comm_id]).get("progress", {}).get("done") == 4 and kernel.widgets[comm_id]
    )
    assert [row["status"] for row in state["rows"]] == ["done"] * 4
    assert state["rows"][0]["input"] == "Write about tides" and state["rows"][0]["line"].startswith(
        "w0 w1 w2"
    )


def test_the_grids_stop_stops_every_run(kernel: KernelSession) -> None:
    before = len(grids(kernel))
    started = kernel.execute("%%deepagent map topics -c 2 -a slow --bg -o stopped\nWrite about {input}")
    assert started.ok, started.text()
    comm_id, _ = kernel.wait_for(lambda: len(grids(kernel)) > before and grids(kernel)[-1])
    kernel.click(comm_id, {"type": "stop"})
    ended = kernel.execute("stopped.wait(60); print(stopped.statuses)")
    assert ended.text().strip() == str(["cancelled"] * 4), ended.text()


def test_a_map_cell_waits_for_its_batch_and_leaves_the_final_grid(kernel: KernelSession) -> None:
    before = len(grids(kernel))
    waited = kernel.execute("%%deepagent map topics -c 4 -a slow -o waited\nWrite about {input}")
    assert waited.ok, waited.text()
    _, state = grids(kernel)[before]
    assert state["progress"]["done"] == 4  # sent before the cell went idle
    assert [row["status"] for row in state["rows"]] == ["done"] * 4
    final = [o for o in waited.outputs if o["msg_type"] == "update_display_data"][-1]["content"]["data"]
    assert "4 of 4 ended (4 done)" in final["text/plain"] and "deepnb-batch-snapshot" in final["text/html"]
