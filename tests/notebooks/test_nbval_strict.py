"""The demo notebooks are checked by strict nbval: every output compared, after the sanitizers in
``tests/support/nbval_sanitize.cfg``, with each run's display as it ended."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from nbval.plugin import get_sanitize_patterns

from tests.support.nbval_displays import DisplayUpdates

ROOT = Path(__file__).resolve().parents[2]
SANITIZE = ROOT / "tests" / "support" / "nbval_sanitize.cfg"


PATTERNS = get_sanitize_patterns(SANITIZE.read_text(encoding="utf-8"))


def sanitize(text: str) -> str:
    """``text`` as nbval sees it after the sanitizers."""
    for pattern, replacement in PATTERNS:
        text = re.sub(pattern, replacement, text)
    return text


def msg(kind: str, cell: str = "c1", **content: object) -> dict:
    return {"msg_type": kind, "parent_header": {"msg_id": cell}, "content": content}


def drain(updates: DisplayUpdates) -> list[dict]:
    out = list(updates.ready)
    updates.ready.clear()
    return out


def test_a_display_reaches_nbval_with_its_last_data_in_its_place() -> None:
    updates = DisplayUpdates()
    updates.feed(msg("status", execution_state="busy"))
    updates.feed(msg("stream", name="stdout", text="before\n"))
    assert [m["msg_type"] for m in drain(updates)] == ["status", "stream"]

    updates.feed(msg("display_data", data={"text/plain": "running"}, transient={"display_id": "d1"}))
    updates.feed(msg("stream", name="stdout", text="after\n"))
    updates.feed(msg("update_display_data", data={"text/plain": "done"}, transient={"display_id": "d1"}))
    assert drain(updates) == []  # held until the cell is idle

    updates.feed(msg("status", cell="other", execution_state="idle"))  # a comm's, not the cell's
    assert drain(updates) == []
    updates.feed(msg("status", execution_state="idle"))
    shown = drain(updates)
    assert [m["msg_type"] for m in shown] == ["display_data", "stream", "status", "status"]
    assert shown[0]["content"]["data"] == {"text/plain": "done"}


def test_updates_to_displays_of_earlier_cells_are_dropped() -> None:
    updates = DisplayUpdates()
    updates.feed(msg("update_display_data", data={"text/plain": "x"}, transient={"display_id": "old"}))
    updates.feed(msg("display_data", data={"text/plain": "plain"}))  # no display id: passes at once
    assert [m["msg_type"] for m in drain(updates)] == ["display_data"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("thread 3f9a0c1b2d4e · done", "thread THREAD-ID · done"),
        (
            "/conversation_history/session_08c02dd4e4a04fab88c178142337512a.md",
            "/conversation_history/session_ID.md",
        ),
        ("<td>2026-11-30 00:19:49</td>", "<td>DATE-TIME</td>"),
        ("modified 2026-11-30T00:19:49.123456+00:00", "modified DATE-TIME"),
        ("6 tool calls · 2.3 s · tokens 3,374 in", "6 tool calls · N s · tokens 3,374 in"),
        ("[done] · 0.4 s · 1 tool call", "[done] · N s · 1 tool call"),
        ("notebook: /tmp/tmp7urcz9nq/tide_tools.py", "notebook: /tmp/TMPDIR/tide_tools.py"),
        (
            '<div>a</div>\n<details class="dnb-timeline"><summary>Timeline: 2 model calls</summary>'
            '<svg><rect x="150.0"><title>model call · main · 0.31 s</title></rect></svg></details>'
            "\n<div>b</div>",
            "<div>a</div>\n<div>b</div>",
        ),
        (
            '<div class="dnb-tool">ls</div><div class="dnb-muted dnb-step-link" '
            'title="%deepagent fork -t 3f9a0c1b2d4e --at 3">step 3</div>',
            '<div class="dnb-tool">ls</div>',
        ),
        (
            "Done.\nTimeline: 2 model calls, 1 tool calls over 0.62 s\n"
            "  step 1 · 0.31 s · 300 in / 20 out — fork: %deepagent fork -t 3f9a0c1b2d4e --at 1\n"
            "Files changed: /a.md",
            "Done.\nFiles changed: /a.md",
        ),
    ],
)
def test_sanitizers_hide_what_changes_between_executions(text: str, expected: str) -> None:
    assert sanitize(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "tokens 3,374 in / 123 out",
        "6 steps · 7 tool calls",
        "Half Moon Bay: 2.05 m",
        "timeout 30 s",
        "id 1234",
        "step 3 of the plan",
    ],
)
def test_sanitizers_leave_the_rest_alone(text: str) -> None:
    assert sanitize(text) == text


@pytest.mark.kernel
def test_a_changed_output_fails_nbval(tmp_path: Path) -> None:
    """A saved notebook whose outputs drift from what it computes fails: a plain result, and the
    run's final snapshot (which nbval only sees through the display-update plugin)."""
    notebook = json.loads((ROOT / "notebooks" / "quickstart.ipynb").read_text(encoding="utf-8"))
    code = [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]
    run_cell = next(i for i, cell in enumerate(code) if cell["source"][0].startswith("%%deepagent"))
    status_cell = next(i for i, cell in enumerate(code) if "".join(cell["source"]).startswith("run.status"))
    _replace_in_outputs(code[run_cell], "Life in a tide pool", "Life on a sand dune")
    _replace_in_outputs(code[status_cell], "'done'", "'failed'")
    copy = tmp_path / "quickstart.ipynb"
    copy.write_text(json.dumps(notebook), encoding="utf-8")

    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "tests.support.nbval_displays",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:randomly",  # a notebook's cells run in their order (this run reads no pyproject.toml)
            "--nbval",
            f"--nbval-sanitize-with={SANITIZE}",
            "--rootdir",
            str(tmp_path),
            "-c",
            "/dev/null",
            "-q",
            str(copy),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
    )
    failed = sorted(re.findall(r"FAILED .*::Cell (\d+)", result.stdout), key=int)
    assert result.returncode == 1, result.stdout[-3000:]
    assert failed == [str(run_cell), str(status_cell)], result.stdout[-3000:]
    assert "Life on a sand dune" in result.stdout


def _replace_in_outputs(cell: dict, old: str, new: str) -> None:
    text = json.dumps(cell["outputs"])
    assert old in text
    cell["outputs"] = json.loads(text.replace(old, new))
