"""``%deepagent export``: one line saying what it wrote; bad input is a one-line UsageError and
writes nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
import pytest
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output


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
