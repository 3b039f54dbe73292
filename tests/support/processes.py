"""Processes the tests start and watch: whether one still runs, and the hostile MCP fakes' paths."""

from __future__ import annotations

from pathlib import Path

HOSTILE_MCP = Path(__file__).parents[1] / "data" / "hostile" / "mcp"
SILENT = str(HOSTILE_MCP / "silent.py")
"""The MCP fake that never answers and outlives the end of its stdin and SIGTERM."""


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, ended but not yet reaped, does not). Reads /proc."""
    try:
        status = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return status.rpartition(")")[2].split()[0] != "Z"
