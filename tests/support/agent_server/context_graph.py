"""The ``contextual`` graph: a deep agent whose ``context_schema`` is :class:`Caller` and whose
``whoami`` tool reads the runtime context (on deepnb's scripted model, offline): a connected run
given ``context=`` answers with it, the Agent Protocol having carried it to the server."""

from __future__ import annotations

from dataclasses import dataclass

from deepagents import create_deep_agent
from langchain.tools import ToolRuntime
from langchain_core.tools import tool

from deepnb.models.scripted import ScriptedChatModel, parse_script


@dataclass
class Caller:
    user_id: str
    role: str = "reader"


@tool
def whoami(runtime: ToolRuntime[Caller]) -> str:
    """Who is calling, as the runtime context says."""
    return f"{runtime.context.user_id} ({runtime.context.role})"


SCRIPT = {"agents": {"main": [{"tool_calls": [{"name": "whoami", "args": {}}]}, "Done."]}}

graph = create_deep_agent(
    model=ScriptedChatModel(script=parse_script(SCRIPT)),
    tools=[whoami],
    context_schema=Caller,
)
