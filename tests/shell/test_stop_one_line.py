"""``%deepagent stop`` on a ``--bg`` run says in one line that it stopped the run: no second copy
of the run's view (the view already on the page shows where it stopped)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from IPython.utils.capture import capture_output

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
SCRIPT = """
delay: 0.05
agents:
  main:
    - text: "counting one two three four five six seven eight nine ten eleven twelve thirteen"
    - text: "done"
"""


def test_stop_prints_one_line_not_the_view(ip, tmp_path: Path) -> None:
    script = tmp_path / "script.yaml"
    script.write_text(textwrap.dedent(SCRIPT))
    with capture_output():
        ip.run_cell(f"%%deepagent -m scripted:{script} --bg -o bg_stop\ncount")
    run = ip.user_ns["bg_stop"]
    assert run.status == "running"
    with capture_output() as captured:
        stopped = ip.run_cell("%deepagent stop")
    assert stopped.error_in_exec is None
    # The view already on the page may update in place as the run ends; a second copy is new output.
    views = [o for o in captured.outputs if not o.update and (WIDGET_MIME in o.data or "text/html" in o.data)]
    assert not views, "a second copy of the view"
    data, _ = ip.display_formatter.format(stopped.result)
    assert set(data) == {"text/plain"}
    assert data["text/plain"] == (
        f"Stopped the run on thread {run.thread_id} of agent {run.workbench.name}; "
        "the thread keeps everything up to the last step."
    )
    assert stopped.result.run is run
    run.wait(10)
    assert run.status == "cancelled"
