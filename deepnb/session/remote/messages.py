"""The server's JSON as the LangChain objects a local graph gives: messages (the server sends them
as dicts), interrupts, summarization events; so the events layer reads a remote stream as it
reads a local one."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

log = logging.getLogger(__name__)


def message(data: Any) -> Any:
    """A message dict as a LangChain message (anything else as it is)."""
    if not isinstance(data, Mapping) or "type" not in data:
        return data
    # lazy: langchain_core is heavy to import, and only a connected agent needs it here
    from langchain_core import messages as lc  # noqa: PLC0415

    kinds: dict[str, type[Any]] = {
        "human": lc.HumanMessage,
        "ai": lc.AIMessage,
        "tool": lc.ToolMessage,
        "system": lc.SystemMessage,
        "remove": lc.RemoveMessage,
        "AIMessageChunk": lc.AIMessageChunk,
    }
    fields = {k: v for k, v in data.items() if v is not None and k != "type"}
    kind = kinds.get(str(data["type"]))
    if kind is not None:
        try:  # every field as the server sent it (usage, tool calls, additional_kwargs' marks)
            return kind(**fields)
        except Exception:  # a shape this langchain_core does not take: the lenient path below
            log.debug("deepnb: a %s message kept only its main fields", data["type"], exc_info=True)
    try:
        return lc.convert_to_messages([{**fields, "type": data["type"]}])[0]
    except Exception:  # a message type this langchain_core does not know: left as the server sent it
        return data


def messages(value: Any) -> Any:
    return [message(m) for m in value] if isinstance(value, list) else message(value)


def interrupt(data: Any) -> Any:
    """An interrupt dict (``{"value": ..., "id": ...}``) as LangGraph's ``Interrupt``."""
    from langgraph.types import Interrupt  # noqa: PLC0415  # lazy: langgraph is heavy to import

    if isinstance(data, Mapping) and "value" in data:
        return Interrupt(value=data["value"], id=str(data.get("id") or ""))
    return data


def state_update(update: Any) -> Any:
    """A state update (``values``, or one node's ``updates``) with its messages as objects."""
    if isinstance(update, list):
        return [state_update(u) for u in update]
    if not isinstance(update, Mapping):
        return update
    converted = dict(update)
    if "messages" in converted:
        converted["messages"] = messages(converted["messages"])
    summary = converted.get("_summarization_event")
    if isinstance(summary, Mapping) and "summary_message" in summary:
        converted["_summarization_event"] = {
            **summary,
            "summary_message": message(summary["summary_message"]),
        }
    return converted


def updates(data: Any) -> Any:
    """An ``updates`` chunk: node → update, interrupts as ``Interrupt`` objects."""
    if not isinstance(data, Mapping):
        return data
    return {
        node: [interrupt(i) for i in update]
        if node == "__interrupt__" and isinstance(update, list)
        else state_update(update)
        for node, update in data.items()
    }


def chunk(mode: str, data: Any) -> Any:
    """One stream chunk's data, as a local graph's ``astream`` gives it."""
    if mode == "messages" and isinstance(data, list | tuple) and len(data) == 2:
        return (message(data[0]), data[1])
    if mode == "updates":
        return updates(data)
    if mode == "values":
        return state_update(data)
    return data
