"""The ``disk`` graph: a deep agent built as deepnb builds an agent it serves, on a folder of the
server's machine (``FilesystemBackend`` over ``disk/`` beside this module), on deepnb's scripted
model (offline). Its ``tidy`` tool writes that folder behind the graph's back, then the model
writes a report with ``write_file`` and ``delete``s a file: nothing of it is in the thread's state,
so only the served agent's own file watch can tell a connected kernel what changed."""

from __future__ import annotations

from pathlib import Path

from deepagents.backends import FilesystemBackend
from langchain_core.tools import tool

from deepnb.engine.spec import AgentSpec
from deepnb.models.scripted import ScriptedChatModel, parse_script

ROOT = Path(__file__).resolve().parent / "disk"
ROOT.mkdir(exist_ok=True)
(ROOT / "kept.txt").write_text("kept\n")
(ROOT / "gone.txt").write_text("gone\n")


@tool
def tidy(note: str) -> str:
    """Tidy the folder, leaving a note."""
    (ROOT / "made.txt").write_text(note)
    (ROOT / "kept.txt").write_text("kept, and more\n")
    return "tidied"


SCRIPT = {
    "agents": {
        "main": [
            {"tool_calls": [{"name": "tidy", "args": {"note": "hi"}}]},
            {
                "tool_calls": [
                    {"name": "write_file", "args": {"file_path": "/report.md", "content": "# Report\n"}}
                ]
            },
            {"tool_calls": [{"name": "delete", "args": {"file_path": "/gone.txt"}}]},
            "Tidied.",
        ]
    }
}

graph = AgentSpec(
    ScriptedChatModel(script=parse_script(SCRIPT)),
    "scripted:disk",
    {"tools": [tidy], "backend": FilesystemBackend(root_dir=str(ROOT), virtual_mode=True)},
).build(name="disk", checkpointer=None, served=True)
