"""A second process holding a thread: ``python -m tests.support.thread_holder CHECKPOINTER THREAD
GATE``. It starts a run on THREAD of CHECKPOINTER (``sqlite:PATH`` or ``postgres:DSN``) whose tool
writes ``GATE/entered`` and waits for ``GATE/release``; then it prints the run's status."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import deepnb
from tests.support.agents import scripted
from tests.support.waiting import WAIT


def main(checkpointer: str, thread: str, gate: Path) -> None:
    def hold(note: str) -> str:
        """Hold the run until released."""
        (gate / "entered").write_text("entered", encoding="utf-8")
        deadline = time.monotonic() + WAIT
        while not (gate / "release").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        return f"held {note} in the other process"

    model = scripted({"main": [{"tool_calls": [{"name": "hold", "args": {"note": "x"}}]}, "Done there."]})
    bench = deepnb.agent("holder", model, tools=[hold], checkpointer=checkpointer)
    run = bench.start("Hold on", thread=thread)
    run.wait(WAIT + 30)
    print(run.status, run.error or "", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], Path(sys.argv[3]))
