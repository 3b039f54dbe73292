"""The ``supervisor`` graph that ``langgraph dev`` serves for the remote async subagent tests.

A deep agent on deepnb's scripted model (offline) with two async subagents, both the
``researcher`` graph of the same server:

- ``researcher`` is reached at the URL in ``DEEPNB_AGENT_SERVER_URL`` (set by
  tests/support/servers.py, which picks the port before it starts the server), as a subagent on
  any server would be. Asked anything, the supervisor starts one ``researcher`` task and answers
  ``RESULT`` while the task goes on.
- ``analyst`` has no URL: deepagents reaches it in-process, as a subagent of the same deployment,
  and it wakes the supervisor when it finishes (a new run on the supervisor's thread, answered
  ``NOTIFIED``). A prompt with "analyst" in it starts one ``analyst`` task.
"""

from __future__ import annotations

import os

from deepagents import create_deep_agent

from deepnb.models.scripted import ScriptedChatModel, parse_script

RESULT = "The researcher is on it."
NOTIFIED = "The analyst has finished."
URL_VARIABLE = "DEEPNB_AGENT_SERVER_URL"

SCRIPT = {
    "agents": {
        "main": [
            {"match": "task-notification", "turns": [{"text": NOTIFIED}]},
            {
                "match": "analyst",
                "turns": [
                    {
                        "text": "I'll ask the analyst.",
                        "tool_calls": [
                            {
                                "name": "start_async_task",
                                "args": {"description": "When is the launch?", "subagent_type": "analyst"},
                            }
                        ],
                    },
                    {"text": RESULT},
                ],
            },
            {
                "turns": [
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
            },
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
        },
        {"name": "analyst", "description": "Analyses facts on this deployment.", "graph_id": "researcher"},
    ],
    name="supervisor",
)
