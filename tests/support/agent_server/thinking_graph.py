"""The ``thinking`` graph: a deep agent whose scripted model thinks before it acts and before it
answers (its turns stream Anthropic's ``thinking`` blocks; offline): a connected run's view
shows each thought as its own item, never in the result."""

from __future__ import annotations

from deepagents import create_deep_agent

from deepnb.models.scripted import ScriptedChatModel, parse_script

SCRIPT = {
    "agents": {
        "main": [
            {
                "thinking": "First, see what is <there>.",
                "tool_calls": [{"name": "ls", "args": {"path": "/"}}],
            },
            {"thinking": "Nothing yet: say so.", "text": "The folder is empty."},
        ]
    }
}

graph = create_deep_agent(model=ScriptedChatModel(script=parse_script(SCRIPT)))
