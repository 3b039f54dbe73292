"""``openai:`` models that keep the reasoning an OpenAI-compatible server sends.

``langchain-openai``'s ``ChatOpenAI`` reads only the fields of OpenAI's own API: the
``reasoning_content`` (or ``reasoning``) that vLLM, SGLang, LM Studio and other OpenAI-compatible
servers add to a message or a streamed delta is dropped. :class:`ChatOpenAICompatible` is
``ChatOpenAI`` that keeps it in the message's ``additional_kwargs["reasoning_content"]``, where
deepnb reads a model's thinking (:func:`deepnb.core.events.message_thinking`); against OpenAI
itself nothing changes. ``-m openai:MODEL`` builds one (``OPENAI_BASE_URL`` points it at the
server).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_openai import ChatOpenAI

REASONING_KEYS = ("reasoning_content", "reasoning")
"""Where OpenAI-compatible servers put a message's reasoning (vLLM has used both names)."""


def _reasoning(part: Any) -> str:
    if not isinstance(part, Mapping):
        return ""
    for key in REASONING_KEYS:
        value = part.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def _first_choice(data: Mapping[str, Any], key: str) -> Any:
    choices = data.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], Mapping):
        return choices[0].get(key)
    return None


class ChatOpenAICompatible(ChatOpenAI):
    """``ChatOpenAI`` keeping an OpenAI-compatible server's ``reasoning_content``."""

    def _convert_chunk_to_generation_chunk(
        self, chunk: dict[str, Any], default_chunk_class: type, base_generation_info: dict[str, Any] | None
    ) -> ChatGenerationChunk | None:
        generated = super()._convert_chunk_to_generation_chunk(
            chunk, default_chunk_class, base_generation_info
        )
        reasoning = _reasoning(_first_choice(chunk, "delta"))
        if generated is not None and reasoning and isinstance(generated.message, AIMessageChunk):
            generated.message.additional_kwargs["reasoning_content"] = reasoning
        return generated

    def _create_chat_result(self, response: Any, generation_info: dict[str, Any] | None = None) -> ChatResult:
        result = super()._create_chat_result(response, generation_info)
        data = response if isinstance(response, Mapping) else getattr(response, "model_dump", dict)()
        reasoning = _reasoning(_first_choice(data, "message")) if isinstance(data, Mapping) else ""
        message = result.generations[0].message if result.generations else None
        if reasoning and isinstance(message, AIMessage):
            message.additional_kwargs["reasoning_content"] = reasoning
        return result
