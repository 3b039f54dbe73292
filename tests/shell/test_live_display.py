"""A run, a batch and a comparison shown as a cell's result (or by ``display()``) keep their output
up to date: the static form saved with the notebook shows how they ended, not the moment they were
shown."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from IPython.utils.capture import capture_output

import deepnb
from tests.support.agents import unique

SLOW = """
delay: 0.02
agents:
  main:
    - text: "one two three four five six seven eight nine ten"
"""


def _start_run(script: str) -> Any:
    return deepnb.agent(unique("live"), model=f"scripted:{script}").start("count", new_thread=True)


def _start_batch(script: str) -> Any:
    return deepnb.agent(unique("live"), model=f"scripted:{script}").map(["a", "b"], concurrency=1)


def _start_comparison(script: str) -> Any:
    deepnb.agent(unique("live"), model=f"scripted:{script}")
    return deepnb.compare("count", models=[f"scripted:{script}", "demo:terse"])


@pytest.mark.parametrize(
    "start", [_start_run, _start_batch, _start_comparison], ids=["run", "batch", "comparison"]
)
def test_a_live_object_shown_as_a_result_saves_how_it_ended(
    ip: Any, tmp_path: Path, start: Callable[[str], Any]
) -> None:
    script = tmp_path / "slow.yaml"
    script.write_text(textwrap.dedent(SLOW))
    ip.user_ns["live"] = live = start(str(script))
    with capture_output() as captured:
        ip.run_cell("live")
        live.wait(60)
        shown = [o for o in captured.outputs if "text/plain" in o.data]
    assert shown and not shown[0].update, "shown once, as a new output"
    last = shown[-1]
    assert last.update, "then updated in place as it ended"
    assert "running" not in last.data["text/plain"].splitlines()[0], last.data["text/plain"][:200]
