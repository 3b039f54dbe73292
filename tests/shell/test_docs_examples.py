"""The documentation's examples marked ``<!-- runs offline -->`` run: each page's marked blocks,
in page order, as cells of one IPython shell, on the shipped ``demo:`` models (no key, no
network). Every cell ends without an error, and every run a ``%%deepagent`` cell starts ends done."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from IPython.utils.capture import capture_output

from deepnb.session import agents

ROOT = Path(__file__).resolve().parents[2]
MARKED = re.compile(r"^<!-- runs offline -->\n```(\w+)\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def runnable() -> dict[str, list[str]]:
    """Each page's marked blocks, in order."""
    found = {}
    for path in sorted((ROOT / "docs").rglob("*.md")):
        cells = [match.group(2) for match in MARKED.finditer(path.read_text(encoding="utf-8"))]
        if cells:
            found[str(path.relative_to(ROOT))] = cells
    return found


def test_the_pages_mark_examples_that_run() -> None:
    pages = runnable()
    assert {"docs/getting-started.md", "docs/guide/magics.md"} <= set(pages)
    assert sum(map(len, pages.values())) >= 8


@pytest.mark.parametrize("page", sorted(runnable()))
def test_every_example_marked_runnable_runs(page: str, ip: Any, tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)  # what a run writes (a sqlite file, a recording) stays here
    for code in runnable()[page]:
        with capture_output():
            result = ip.run_cell(code)
        assert result.success, f"{page}: {code!r} failed: {result.error_before_exec or result.error_in_exec}"
    runs = [run for bench in agents.registered().values() for run in bench._latest.values()]
    assert runs, f"{page}: its examples started no run"
    for run in runs:
        assert run.wait(60).status == "done", (page, run.status, run.error)
