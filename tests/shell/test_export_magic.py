"""``%deepagent export``: one line saying what it wrote; bad input is a one-line UsageError and
writes nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
import pytest
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output

from deepnb.session.agents import registered


def test_export_writes_the_thread_and_refuses_to_overwrite(ip: Any, tmp_path: Path) -> None:
    with capture_output():
        ip.run_cell("%%deepagent -m demo:quickstart -a exported -o export_run\nWrite a brief")
    run = ip.user_ns["export_run"]
    assert run.status == "done"
    path = tmp_path / "brief.ipynb"
    shown = ip.run_line_magic("deepagent", f"export '{path}' -a exported")
    assert repr(shown) == (
        f"Wrote {path}: thread {run.thread_id} of agent 'exported', 1 prompt(s), 1 run view(s), 1 file(s)."
    )
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    assert "Write a brief" in notebook.cells[1].source
    before = path.read_bytes()
    with pytest.raises(UsageError, match="exists") as caught:
        ip.run_line_magic("deepagent", f"export '{path}' -a exported")
    assert "\n" not in str(caught.value)
    assert path.read_bytes() == before
    ip.run_line_magic("deepagent", f"export '{path}' -a exported -t {run.thread_id} --force")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["brief.ipynb"]


BAD = [("x.txt", "ending in .ipynb"), ("x.ipynb -t nope", "no thread 'nope'")]


@pytest.mark.parametrize(("line", "error"), BAD)
def test_bad_export_is_one_line(ip: Any, tmp_path: Path, line: str, error: str) -> None:
    with capture_output():
        ip.run_cell("%%deepagent -m demo:quickstart -a exported2\nWrite a brief about tide pools")
    with pytest.raises(UsageError) as caught:
        ip.run_line_magic("deepagent", f"export {tmp_path}/{line} -a exported2")
    assert error in str(caught.value)
    assert "\n" not in str(caught.value)
    assert list(tmp_path.iterdir()) == []


def test_an_unrecorded_thread_exports_cells_that_rebuild_the_conversation(ip: Any, tmp_path: Path) -> None:
    """Run the exported code cells: they ask the agent the thread's prompts again, in order, on a
    new thread, which then holds the same conversation."""
    with capture_output():
        ip.run_cell(
            "%%deepagent -m demo:quickstart -a rebuilt -o first --no-interpolate\n"
            "Write a brief on {tide} pools"
        )
        ip.run_cell("%%deepagent -a rebuilt\nNow a shorter one")
    thread = ip.user_ns["first"].thread_id
    path = tmp_path / "rebuilt.ipynb"
    ip.run_line_magic("deepagent", f"export '{path}' -a rebuilt")
    notebook = nbformat.read(path, as_version=4)
    code = [c.source for c in notebook.cells if c.cell_type == "code"]
    assert code == [
        "%load_ext deepnb",
        "%%deepagent -a rebuilt -m demo:quickstart --new --no-interpolate\nWrite a brief on {tide} pools",
        "%%deepagent -a rebuilt --no-interpolate\nNow a shorter one",
    ]
    heading = next(c.source for c in notebook.cells if "Run the conversation again" in c.source)
    assert "was not recorded" in heading and "replies may differ" in heading
    with capture_output():
        for source in code:
            ip.run_cell(source)
    again = registered()["rebuilt"]
    assert again.current_thread != thread  # a new thread, the old one kept

    def prompts(thread_id: str) -> list[str]:
        return [str(m.content) for m in again.state_values(thread_id)["messages"] if m.type == "human"]

    assert (
        prompts(again.current_thread)
        == prompts(thread)
        == ["Write a brief on {tide} pools", "Now a shorter one"]
    )
