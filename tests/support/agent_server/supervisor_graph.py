"""The ``supervisor`` graph that ``langgraph dev`` serves for the remote async subagent tests.

A deep agent on deepnb's scripted model (offline) whose async subagent ``researcher`` is the
``researcher`` graph of the same server, reached at the URL in ``DEEPNB_AGENT_SERVER_URL`` (set by
tests/support/servers.py, which picks the port before it starts the server). Asked anything, it
starts one ``researcher`` task and answers ``RESULT`` while the task goes on.
"""

from __future__ import annotations

import os

from deepagents import create_deep_agent

from deepnb.models.scripted import ScriptedChatModel, parse_script

RESULT = "The researcher is on it."
URL_VARIABLE = "DEEPNB_AGENT_SERVER_URL"

SCRIPT = {
    "agents": {
        "main": [
            {
                "text": "I'll ask the researcher.",
                "tool_calls": [
                    {
                        "name": "start_async_task",
                        "args": {"description": "When is the launch?", "subagent_type": "researcher"},
                    }
                ],
            },
            {"text": RESULT},
        ]
    }
}

graph = create_deep_agent(
    model=ScriptedChatModel(script=parse_script(SCRIPT, source="supervisor_graph.py")),
    subagents=[
        {
            "name": "researcher",
            "description": "Researches facts on this server.",
            "graph_id": "researcher",
            "url": os.environ.get(URL_VARIABLE, "http://127.0.0.1:2024"),
        }
    ],
    name="supervisor",
)
