"""An exported notebook with a recording runs on its own in a fresh kernel, offline: executed cell
by cell as nbclient (and nbval) execute a notebook, its replay cells reproduce the recorded answer,
the subagent's work and the files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

import deepnb
from tests.support.agents import scripted, unique
from tests.support.waiting import WAIT

pytestmark = pytest.mark.kernel

ANSWER = "The tide pool notes are in /pools.md, checked by a researcher."
MODEL = {
    "main": [
        {
            "text": "Asking a researcher.",
            "tool_calls": [
                {
                    "name": "task",
                    "args": {"subagent_type": "general-purpose", "description": "Note tide pools"},
                }
            ],
        },
        {"tool_calls": [{"name": "read_file", "args": {"file_path": "/pools.md"}}]},
        ANSWER,
    ],
    "general-purpose": [
        {"tool_calls": [{"name": "write_file", "args": {"file_path": "/pools.md", "content": "Anemones."}}]},
        "Wrote /pools.md.",
    ],
}


def outputs_text(cell: Any) -> str:
    parts = []
    for output in cell.get("outputs", []):
        if output.output_type == "stream":
            parts.append(output.text)
        elif output.output_type in ("display_data", "execute_result"):
            parts.append(output.data.get("text/plain", ""))
        elif output.output_type == "error":
            parts.append(f"{output.ename}: {output.evalue}")
    return "\n".join(parts)


def test_the_exported_notebook_replays_the_recorded_run_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DEEPNB_MODEL", raising=False)  # the kernel inherits the environment
    bench = deepnb.agent(unique("exported"), scripted(MODEL))
    run = bench.start("Take notes on tide pools", new_thread=True).wait(WAIT)
    assert run.status == "done" and run.result == ANSWER
    run.record(tmp_path / "recorded.yaml")
    exported = deepnb.export(tmp_path / "notes.ipynb", agent=bench.name)
    assert exported.replay is not None
    notebook = nbformat.read(tmp_path / "notes.ipynb", as_version=4)
    replayed_cells = len(notebook.cells)
    notebook.cells.append(
        nbformat.v4.new_code_cell(
            "import deepnb\n"
            f"_run = deepnb.get({bench.name!r}).latest_run()\n"
            "print(repr(_run.result), _run.status, sorted(_run.files.items()),"
            " _run.tree.children[0].description)"
        )
    )
    client = NotebookClient(
        notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()
    errors = [
        outputs_text(c) for c in notebook.cells if any(o.output_type == "error" for o in c.get("outputs", []))
    ]
    assert errors == []
    assert ANSWER in outputs_text(notebook.cells[replayed_cells - 1])
    checked = outputs_text(notebook.cells[-1])
    assert f"{ANSWER!r} done [('/pools.md', 'Anemones.')] Note tide pools" in checked
