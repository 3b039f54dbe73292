"""The ``given`` graph: a deep agent built the way deepnb builds an agent it serves
(:class:`~deepnb.engine.spec.AgentSpec`), on its default backend (the thread's state, which runs no
commands: deepagents hides ``execute`` from the model), with a ``critic`` subagent carrying a tool
of its own; on deepnb's scripted model (offline). A connected run's "Given" line lists what each
agent's model is offered, as the same graph built in the kernel does."""

from __future__ import annotations

from langchain_core.tools import tool

from deepnb.engine.spec import AgentSpec
from deepnb.models.scripted import ScriptedChatModel, parse_script


@tool
def cite(source: str) -> str:
    """Cite a source (the critic's own tool)."""
    return f"cited: {source}"


@tool
def outline(topic: str) -> str:
    """Outline a topic (the main agent's own tool)."""
    return f"outline of {topic}"


SCRIPT = {"agents": {"main": ["Reviewed."], "critic": ["Fine."]}}
CRITIC = {
    "name": "critic",
    "description": "Reviews a draft.",
    "system_prompt": "You review drafts.",
    "tools": [cite],
}

graph = AgentSpec(
    ScriptedChatModel(script=parse_script(SCRIPT)),
    "scripted:given",
    {"tools": [outline], "subagents": [CRITIC]},
).build(name="given", checkpointer=None)
