"""A graph deepnb builds draws what its agents' models are offered (the tools a kernel lists for
it), so a kernel connected to it served lists the same; any other drawing says only its tool
node's own list."""

from __future__ import annotations

import json
from typing import Any

from langchain_core.tools import tool

from deepnb.engine.anatomy import tools_by_agent
from deepnb.engine.spec import AgentSpec
from deepnb.models.scripted import ScriptedChatModel, parse_script
from deepnb.session.remote.given import tools_drawn


@tool
def cite(source: str) -> str:
    """Cite a source."""
    return source


def _built() -> Any:
    model = ScriptedChatModel(script=parse_script({"agents": {"main": ["Done."]}}))
    critic = {"name": "critic", "description": "Reviews.", "system_prompt": "Review.", "tools": [cite]}
    return AgentSpec(model, "scripted:x", {"subagents": [critic]}).build(name="drawn", checkpointer=None)


def _served(graph: Any) -> Any:
    """The drawing as an Agent Server sends it: of a copy of the graph, as JSON."""
    return json.loads(json.dumps(graph.copy({"name": "served"}).get_graph().to_json(), default=str))


def test_a_built_graph_draws_each_agents_tools_without_those_its_backend_cannot_run() -> None:
    graph = _built()
    drawn = tools_drawn(_served(graph))
    assert drawn == tools_by_agent(graph)
    assert "execute" not in drawn["main"] and "cite" in drawn["critic"] and "cite" not in drawn["main"]
    assert type(graph).__name__ == "CompiledStateGraph"


def test_a_drawing_without_the_reading_says_its_tool_nodes_list() -> None:
    drawing = _served(_built())
    for node in drawing["nodes"]:
        (node.get("metadata") or {}).pop("deepnb_tools", None)
    drawn = tools_drawn(drawing)
    if not any("__tools" in (node.get("metadata") or {}) for node in drawing["nodes"]):
        assert drawn == {}  # an older LangGraph draws no node's tools: none are listed
        return
    assert list(drawn) == ["main"] and "execute" in drawn["main"]
