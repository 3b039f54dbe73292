"""Steering a running agent: a message given while it works reaches its next model call.

``run.steer(text)`` puts the message in its thread's queue. The main agent of every agent deepnb
builds has a middleware (:func:`steering_middleware`) that wraps each model call: it takes what
its thread's queue holds, gives it to the model as human messages after the conversation so far,
and writes them to the thread just before the model's reply (one state update, so the thread
keeps them in the order the model saw them, and no graph step is added). As it delivers them it
tells the stream (``{"type": STEERED, "text": ...}``), so the transcript shows each message where
it was delivered. What no model call took before the run ended is given back (:func:`take`).
"""

from __future__ import annotations

import threading
import weakref
from collections import deque
from functools import cache
from typing import Any

from deepnb.core.events import STEERED

__all__ = ["accepts", "mark", "put", "steering_middleware", "take"]

_queues: dict[str, deque[str]] = {}
_lock = threading.Lock()
_steerable: weakref.WeakSet[Any] = weakref.WeakSet()


def put(thread_id: str, text: str) -> None:
    """Queue ``text`` for the next model call of the main agent on ``thread_id``."""
    with _lock:
        _queues.setdefault(thread_id, deque()).append(text)


def take(thread_id: str) -> list[str]:
    """The messages queued for ``thread_id``, removed from its queue, oldest first."""
    with _lock:
        queued = _queues.pop(thread_id, None)
    return list(queued or ())


def mark(graph: Any) -> Any:
    """Note that ``graph``'s main agent has the steering middleware; return the graph."""
    _steerable.add(graph)
    return graph


def accepts(graph: Any) -> bool:
    """Whether ``graph``'s main agent takes steering messages (deepnb built it)."""
    try:
        return graph in _steerable
    except TypeError:  # not weakly referable: not a graph deepnb built
        return False


def _queued() -> list[Any]:
    """The queued messages of the calling thread as human messages, each told to the stream."""
    from langchain_core.messages import HumanMessage  # noqa: PLC0415  # lazy: heavy to import
    from langgraph.config import get_config, get_stream_writer  # noqa: PLC0415

    configurable = get_config().get("configurable") or {}
    if "tools:" in str(configurable.get("checkpoint_ns", "")):  # a subagent's call: not its turn
        return []
    queued = take(str(configurable.get("thread_id", "")))
    write = get_stream_writer()
    for text in queued:
        write({"type": STEERED, "text": text})
    return [HumanMessage(content=text, additional_kwargs={STEERED: True}) for text in queued]


def _delivered(response: Any, messages: list[Any]) -> Any:
    """``response`` with ``messages`` written to the thread ahead of the model's reply."""
    from langchain.agents.middleware.types import ExtendedModelResponse, ModelResponse  # noqa: PLC0415
    from langchain_core.messages import AIMessage  # noqa: PLC0415

    if isinstance(response, ExtendedModelResponse):
        inner = response.model_response
        response.model_response = ModelResponse(
            result=[*messages, *inner.result], structured_response=inner.structured_response
        )
        return response
    if isinstance(response, AIMessage):
        return ModelResponse(result=[*messages, response])
    return ModelResponse(
        result=[*messages, *response.result], structured_response=response.structured_response
    )


@cache
def _middleware_class() -> type:
    from langchain.agents.middleware import AgentMiddleware  # noqa: PLC0415  # lazy: heavy to import

    class DeepnbSteeringMiddleware(AgentMiddleware):
        """Delivers the messages queued with ``run.steer`` to the main agent's next model call."""

        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            messages = _queued()
            if not messages:
                return handler(request)
            return _delivered(handler(request.override(messages=[*request.messages, *messages])), messages)

        async def awrap_model_call(self, request: Any, handler: Any) -> Any:
            messages = _queued()
            if not messages:
                return await handler(request)
            reply = await handler(request.override(messages=[*request.messages, *messages]))
            return _delivered(reply, messages)

    return DeepnbSteeringMiddleware


def steering_middleware() -> Any:
    """A new steering middleware for an agent's main agent."""
    return _middleware_class()()
