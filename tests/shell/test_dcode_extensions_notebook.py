"""Deep Agents Code's reference extensions (tests/support/dcode_extensions, copied unchanged) in a
notebook: loaded with ``%deepagent extension``, run by a ``%%deepagent`` cell, listed by
``%deepagent extensions``."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
from IPython.utils.capture import capture_output

from deepnb import extensions

DCODE = Path(__file__).parents[1] / "support" / "dcode_extensions"

SCRIPT = """
agents:
  main:
    - tool_calls:
        - {name: execute, args: {command: "curl https://example.com"}}
        - {name: execute, args: {command: "echo tide"}}
    - tool_calls:
        - {name: remember_note, args: {note: "kelp grows fast"}}
        - {name: write_file, args: {file_path: /memories/tides.md, content: "spring tides"}}
    - text: "Noted."
"""

SETUP = '''
import deepnb

def execute(command: str) -> str:
    """Run a shell command (a stand-in that only echoes it)."""
    return f"ran {{command}}"

deepnb.agent("dcode-ref", model="scripted:{script}", tools=[execute])
'''


@pytest.fixture
def notebook_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The project, deepnb home and home folder (audit_log writes ~/.deepagents/shell-audit.log)."""
    (tmp_path / "home" / ".deepagents").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("DEEPNB_HOME", str(tmp_path / "home" / ".deepnb"))
    monkeypatch.delenv("DEEPNB_EXTENSIONS", raising=False)
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    extensions.shutdown()
    yield tmp_path
    extensions.shutdown()


def run_cell(ip: Any, source: str) -> Any:
    with capture_output():
        result = ip.run_cell(source)
    assert result.error_in_exec is None, result.error_in_exec
    return result.result


def test_the_reference_extensions_run_in_a_notebook(ip: Any, notebook_home: Path) -> None:
    loaded = run_cell(ip, f"%deepagent extension {DCODE}")
    assert repr(loaded).splitlines() == [
        "Loaded extension audit_log: middleware ShellAudit.",
        "Loaded extension memory_store: route /memories/.",
        "Loaded extension scratchpad: tool remember_note, tool read_notes, shutdown clear.",
        "Loaded extension tool_counter: middleware ToolCounter.",
    ]
    (notebook_home / "script.yaml").write_text(textwrap.dedent(SCRIPT))
    run_cell(ip, SETUP.format(script=notebook_home / "script.yaml"))
    run_cell(ip, "%%deepagent -a dcode-ref -o run\nCheck the tides and remember them.")
    run = ip.user_ns["run"]
    assert (run.status, run.error, run.result) == ("done", None, "Noted.")

    messages = ip.user_ns["deepnb"].get("dcode-ref").state_values(run.thread_id)["messages"]
    assert [m.content for m in messages if m.type == "tool"] == [
        "Blocked by the ShellAudit extension: curl https://example.com",  # audit_log's deny-list
        "ran echo tide",
        "Saved 1 note(s).",  # scratchpad's tool
        "Updated file /memories/tides.md",
    ]
    assert (notebook_home / "home" / ".deepagents" / "shell-audit.log").read_text() == "echo tide\n"
    assert run.files["/memories/tides.md"] == "spring tides"  # memory_store, on the kernel's store
    [counter] = [m for m in extensions.REGISTRY.of_kind("middleware") if m.name == "ToolCounter"]
    assert counter.unit.count == 3  # every call that got past audit_log (loaded first, so outside it)

    listing = repr(run_cell(ip, "%deepagent extensions"))
    assert "Extension registrations (6):" in listing and "Failed" not in listing
