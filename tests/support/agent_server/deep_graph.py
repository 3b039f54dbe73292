"""The ``deep`` graph that ``langgraph dev`` serves for the remote workbench tests.

A deep agent on deepnb's scripted model (offline). By prompt:

- "Plan the launch": writes todos, sends the ``researcher`` subagent off with ``task``, then writes
  ``/notes.md`` (gated by ``interrupt_on``: the run pauses for approval) and answers ``RESULT``;
  with "carefully" in it, it calls ``slow_step`` before writing (a run still going before it pauses).
- "Ask ...": calls ``send_note`` (gated; may be answered in its place) and ``ask_user`` (a raw
  ``interrupt()``).
- "Fail ...": the model raises ("The model broke.").
- "... slow ...": calls ``slow_step``, which takes ``SLOW_SECONDS`` (long enough to stop it, or to
  restart the kernel, mid-run).

Files live in the agent's state (deepagents' default backend), so the thread's state holds them.
"""

from __future__ import annotations

import asyncio

from deepagents import create_deep_agent
from langchain.agents.middleware import TodoListMiddleware
from langchain_core.tools import tool

from deepnb.models.scripted import ScriptedChatModel, parse_script

RESULT = "Done: the launch is in May, notes in /notes.md."
FOUND = "Found it: the launch moved to May."
SLOW_SECONDS = 12.0
WRITE_NOTES = {"name": "write_file", "args": {"file_path": "/notes.md", "content": "Launch: May\n"}}
TODOS = [
    {"content": "Ask the researcher", "status": "in_progress"},
    {"content": "Write the notes", "status": "pending"},
]


@tool
async def slow_step(what: str) -> str:
    """Do something that takes a while."""
    await asyncio.sleep(SLOW_SECONDS)
    return f"{what}: done"


@tool
def send_note(text: str) -> str:
    """Send a note to the team (asks first; the reviewer may answer in its place)."""
    return f"sent: {text}"


@tool
def ask_user(question: str) -> str:
    """Ask the person at the notebook (a raw LangGraph interrupt)."""
    from langgraph.types import interrupt

    return f"The user says: {interrupt({'question': question})}"


SCRIPT = {
    "agents": {
        "main": [
            {"match": "^Fail", "turns": [{"error": "The model broke."}]},
            {
                "match": "^Ask",
                "turns": [
                    {"text": "Noting.", "tool_calls": [{"name": "send_note", "args": {"text": "Launch?"}}]},
                    {"text": "Asking.", "tool_calls": [{"name": "ask_user", "args": {"question": "When?"}}]},
                    {"text": "Thanks."},
                ],
            },
            {
                "match": "slow",
                "turns": [
                    {
                        "text": "This takes a while.",
                        "tool_calls": [{"name": "slow_step", "args": {"what": "step one"}}],
                    },
                    {"text": "Slow work done."},
                ],
            },
            {
                "match": "carefully",
                "turns": [
                    {
                        "text": "I'll plan first.",
                        "tool_calls": [{"name": "write_todos", "args": {"todos": TODOS}}],
                    },
                    {
                        "text": "Thinking.",
                        "tool_calls": [{"name": "slow_step", "args": {"what": "thinking"}}],
                    },
                    {"text": "Writing the notes.", "tool_calls": [WRITE_NOTES]},
                    {"text": RESULT},
                ],
            },
            {
                "turns": [
                    {
                        "text": "I'll plan first.",
                        "tool_calls": [{"name": "write_todos", "args": {"todos": TODOS}}],
                    },
                    {
                        "text": "Asking the researcher.",
                        "tool_calls": [
                            {
                                "name": "task",
                                "args": {
                                    "subagent_type": "researcher",
                                    "description": "Find the launch date",
                                },
                            }
                        ],
                    },
                    {
                        "text": "Writing the notes.",
                        "tool_calls": [
                            {
                                "name": "write_file",
                                "args": {"file_path": "/notes.md", "content": "Launch: May\n"},
                            }
                        ],
                    },
                    {"text": RESULT},
                ],
            },
        ],
        "researcher": [{"text": FOUND}],
    }
}

graph = create_deep_agent(
    model=ScriptedChatModel(script=parse_script(SCRIPT, source="deep_graph.py")),
    tools=[slow_step, send_note, ask_user],
    subagents=[{"name": "researcher", "description": "Finds facts.", "system_prompt": "Find facts."}],
    interrupt_on={"write_file": True, "send_note": {"allowed_decisions": ["approve", "reject", "respond"]}},
    middleware=[TodoListMiddleware()],  # deepagents 0.7 no longer adds write_todos itself
    name="deep",
)
