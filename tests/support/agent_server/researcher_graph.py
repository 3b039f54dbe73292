"""The ``researcher`` graph that ``langgraph dev`` serves for the async subagent tests.

A deep agent on deepnb's scripted model, so it runs offline. It first calls ``look_up``, a tool
that waits ``LOOK_UP_SECONDS``, so its run is still going while the calling agent checks on it;
then it answers ``RESULT``. (The server runs graphs without token streaming, so the script's
``delay`` would not slow it down.)

The tests serve a copy of this folder, so nothing (``.langgraph_api/``, ``__pycache__``) is
written here at run time.
"""

from __future__ import annotations

import asyncio

from deepagents import create_deep_agent
from langchain_core.tools import tool

from deepnb.models.scripted import ScriptedChatModel, parse_script

RESULT = "Three sources agree: the launch moved to May."
LOOK_UP_SECONDS = 2.0


@tool
async def look_up(query: str) -> str:
    """Look something up (takes a moment)."""
    await asyncio.sleep(LOOK_UP_SECONDS)
    return f"Notes on {query!r}: the launch moved to May."


SCRIPT = {
    "agents": {
        "researcher": [
            {"text": "Looking it up.", "tool_calls": [{"name": "look_up", "args": {"query": "launch date"}}]},
            {"text": RESULT},
        ]
    }
}

graph = create_deep_agent(
    model=ScriptedChatModel(script=parse_script(SCRIPT, source="researcher_graph.py")),
    tools=[look_up],
    name="researcher",
)
