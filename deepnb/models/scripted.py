"""A chat model that replays a script: offline, deterministic, routed per agent.

A script is YAML or JSON::

    delay: 0.02            # seconds between streamed tokens (optional)
    agents:
      main:                # the main agent (also matched by the agent's own name)
        - match: "report"  # optional: a regex searched in the conversation's latest human message
                           # (Python's syntax, matched by RE2 in linear time: no backreferences)
          turns:
            - text: "I'll start with a plan."
              tool_calls:
                - name: write_todos
                  args: {todos: [{content: Read the data, status: in_progress}]}
            - text: "Done. Here is the **report**."
      general-purpose:     # a subagent, by its name
        - turns: [{text: "Found it."}]

A structured answer (an agent built with ``response_format``) is a tool call named after the
schema (the class's name, or a JSON schema's ``title``), as LangChain's ``ToolStrategy`` expects
from a model without native structured output; ``run.output`` is then the parsed object::

    agents:
      main:
        - tool_calls: [{name: Person, args: {name: Ada, age: 36}}]

``run.record(PATH)`` (or ``%%deepagent --record PATH``) writes a script from a real run
(:mod:`deepnb.engine.recording`): every turn with its tool calls' ``id`` and its ``usage``, each
conversation matched by its prompt or task description.

A turn may think before it answers: ``thinking: "..."`` streams as Anthropic's ``thinking`` content
blocks do, ahead of the text (the turn's usage then counts it as reasoning tokens)::

    - thinking: "The user wants a report; start with the sources."
      text: "Here is the report."

An agent's value may also be a plain list of turns. A turn may instead be ``{error: "message"}``,
which makes the model raise, to rehearse failures.

Two optional keys rehearse context summarization offline::

    profile: {max_input_tokens: 9000}   # the model's profile: summarization fires at 85 % of it
    summaries:                          # what each agent answers when asked to summarize
      main: "The user asked for a report; notes are in /notes/."

Each new prompt on a thread starts its conversation's turns again. After that, a reply plays the turn
after the one the agent's latest reply played (a reply remembers its turn), so subagents that run in
parallel replay the same way whatever order they run in, and summarization, which drops older
messages, does not lose the place.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage, UsageMetadata
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import ConfigDict, model_validator

from deepnb.core.errors import DeepnbError
from deepnb.core.text.documents import MAX_BYTES, DocumentError, load_document
from deepnb.core.text.safe_regex import SPACE, BoundedPattern, RegexError, compile_bounded

MAIN_AGENT = "main"
_TOKEN = compile_bounded(rf"[{SPACE}]*[^{SPACE}]+[{SPACE}]*|[{SPACE}]+")
"""A token of a turn's text (the script's, read in linear time), its white space with it."""


class ScriptError(DeepnbError):
    """A replay script is malformed, or has no turn for the conversation being played."""


@dataclass(frozen=True)
class ScriptedTurn:
    """One model reply: streamed text, then tool calls (or an error to raise)."""

    text: str = ""
    tool_calls: tuple[Mapping[str, Any], ...] = ()
    usage: Mapping[str, int] | None = None
    error: str | None = None
    thinking: str = ""


@dataclass(frozen=True)
class Conversation:
    """The turns an agent plays when its latest human message matches ``match``."""

    turns: tuple[ScriptedTurn, ...]
    match: BoundedPattern | None = None


@dataclass(frozen=True)
class Script:
    """A parsed replay script."""

    agents: Mapping[str, tuple[Conversation, ...]]
    delay: float = 0.0
    source: str = "<script>"
    profile: Mapping[str, Any] | None = None
    summaries: Mapping[str, str] = field(default_factory=dict)
    digest: str = ""
    """A hash of the script's content: the model's identity in a cache key (``cache=``), so two
    scripts never share an answer and an edited one is answered afresh."""

    def summary_for(self, agent: str) -> str:
        """What ``agent`` answers when the summarization middleware asks it for a summary."""
        if agent not in self.summaries:
            raise ScriptError(
                f"{self.source}: agent {agent!r} was asked to summarize its conversation; add "
                f"'{agent}: <summary text>' under 'summaries:'."
            )
        return self.summaries[agent]

    def conversation_for(self, agent: str, prompt: str) -> Conversation:
        """The conversation ``agent`` plays for ``prompt``."""
        conversations = self.agents.get(agent)
        if conversations is None:
            known = ", ".join(sorted(self.agents)) or "none"
            raise ScriptError(
                f"{self.source}: no turns for agent {agent!r} (the script has: {known}). "
                f"Add an '{agent}:' entry under 'agents:'."
            )
        for conversation in conversations:
            if conversation.match is None or conversation.match.search(prompt):
                return conversation
        raise ScriptError(
            f"{self.source}: no conversation of agent {agent!r} matches the prompt "
            f"{_shorten(prompt)!r}. Add one without 'match:' as a fallback."
        )


def _shorten(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def parse_script(data: Any, *, source: str = "<script>") -> Script:
    """Validate a decoded script (the YAML or JSON document) and return a :class:`Script`."""
    if not isinstance(data, Mapping) or not isinstance(data.get("agents"), Mapping):
        raise ScriptError(f"{source}: a script is a mapping with an 'agents:' mapping inside.")
    delay = data.get("delay", 0.0)
    if isinstance(delay, bool) or not isinstance(delay, int | float) or delay < 0:
        raise ScriptError(f"{source}: 'delay' must be a number of seconds, not {delay!r}.")
    agents: dict[str, tuple[Conversation, ...]] = {}
    for agent, entry in data["agents"].items():
        where = f"{source}: agents.{agent}"
        if (
            isinstance(entry, Sequence)
            and entry
            and all(isinstance(item, Mapping) and "turns" in item for item in entry)
        ):
            agents[str(agent)] = tuple(_parse_conversation(item, where) for item in entry)
        elif isinstance(entry, Sequence) and not isinstance(entry, str):
            agents[str(agent)] = (Conversation(turns=_parse_turns(entry, where)),)
        else:
            raise ScriptError(f"{where} must be a list of turns or of {{match, turns}} entries.")
    profile = data.get("profile")
    if profile is not None and not (
        isinstance(profile, Mapping) and isinstance(profile.get("max_input_tokens", 0), int)
    ):
        raise ScriptError(f"{source}: 'profile' must be a mapping like {{max_input_tokens: 9000}}.")
    summaries = data.get("summaries") or {}
    if not isinstance(summaries, Mapping) or not all(isinstance(v, str) for v in summaries.values()):
        raise ScriptError(f"{source}: 'summaries' must map agent names to summary text.")
    return Script(
        agents=agents,
        delay=float(delay),
        source=source,
        profile=dict(profile) if profile is not None else None,
        summaries={str(k): v for k, v in summaries.items()},
        digest=hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()[:24],
    )


def _parse_conversation(item: Mapping[str, Any], where: str) -> Conversation:
    match = item.get("match")
    if match is not None and not isinstance(match, str):
        raise ScriptError(f"{where}: 'match' must be a regex, a string.")
    try:
        pattern = compile_bounded(match) if match is not None else None
    except RegexError as exc:
        raise ScriptError(f"{where}: 'match' is not a valid regex ({exc}).") from None
    return Conversation(turns=_parse_turns(item["turns"], where), match=pattern)


def _parse_turns(turns: Any, where: str) -> tuple[ScriptedTurn, ...]:
    if not isinstance(turns, Sequence) or isinstance(turns, str) or not turns:
        raise ScriptError(f"{where}: 'turns' must be a non-empty list.")
    parsed = []
    for index, turn in enumerate(turns):
        if isinstance(turn, str):
            turn = {"text": turn}
        if not isinstance(turn, Mapping):
            raise ScriptError(f"{where}, turn {index}: a turn is a mapping or a string.")
        unknown = set(turn) - {"text", "thinking", "tool_calls", "usage", "error"}
        if unknown:
            raise ScriptError(
                f"{where}, turn {index}: unknown key(s) {sorted(unknown)}; "
                "use text, thinking, tool_calls, usage or error."
            )
        if turn.get("thinking") is not None and not isinstance(turn["thinking"], str):
            raise ScriptError(f"{where}, turn {index}: 'thinking' must be text, a string.")
        calls = turn.get("tool_calls") or ()
        if not isinstance(calls, Sequence) or isinstance(calls, str):
            raise ScriptError(f"{where}, turn {index}: 'tool_calls' must be a list of {{name, args}}.")
        usage = turn.get("usage")
        if usage is not None and not (
            isinstance(usage, Mapping)
            and all(isinstance(v, int) and not isinstance(v, bool) for v in usage.values())
        ):
            raise ScriptError(
                f"{where}, turn {index}: 'usage' must map input_tokens and output_tokens to numbers."
            )
        if turn.get("error") is not None and not isinstance(turn["error"], str):
            raise ScriptError(f"{where}, turn {index}: 'error' must be the error's message, a string.")
        for call in calls:
            if not isinstance(call, Mapping) or not isinstance(call.get("name"), str):
                raise ScriptError(f"{where}, turn {index}: each tool call needs a 'name'.")
            if not isinstance(call.get("args", {}), Mapping):
                raise ScriptError(f"{where}, turn {index}: 'args' of {call['name']} must be a mapping.")
        parsed.append(
            ScriptedTurn(
                text=str(turn.get("text") or ""),
                tool_calls=tuple(calls),
                usage=usage,
                error=turn.get("error"),
                thinking=str(turn.get("thinking") or ""),
            )
        )
    return tuple(parsed)


def load_script(path: str | Path) -> Script:
    """Read a script from a ``.yaml``/``.yml`` or ``.json`` file."""
    path = Path(path).expanduser()
    if not path.is_file():
        raise ScriptError(f"No replay script at {str(path)!r}: check the path after 'scripted:'.")
    try:
        if path.stat().st_size > MAX_BYTES:
            raise DocumentError(
                f"not read: it is {path.stat().st_size:,} bytes, and at most {MAX_BYTES:,} are read"
            )
        data = load_document(path.read_text(encoding="utf-8"), json_format=path.suffix == ".json")
    except UnicodeDecodeError as exc:
        raise ScriptError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}).") from None
    except DocumentError as exc:
        raise ScriptError(f"{path}: {exc}.") from None
    return parse_script(data, source=str(path))


def _text_of(message: BaseMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(
        str(part.get("text", "")) if isinstance(part, Mapping) else str(part)
        for part in content
        if not isinstance(part, Mapping) or part.get("type") in (None, "text")
    )


SIGNATURE = "deepnb-scripted"
"""The ``signature`` of a scripted thinking block (Anthropic signs each one)."""


def _content(turn: ScriptedTurn) -> str | list[str | dict[Any, Any]]:
    """A reply's content: its text, or, for a turn that thinks, Anthropic's content blocks."""
    if not turn.thinking:
        return turn.text
    blocks: list[str | dict[Any, Any]] = [
        {"type": "thinking", "thinking": turn.thinking, "signature": SIGNATURE}
    ]
    if turn.text:
        blocks.append({"type": "text", "text": turn.text})
    return blocks


def _thinking_of(message: BaseMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return ""
    return "".join(
        str(part.get("thinking", ""))
        for part in content
        if isinstance(part, Mapping) and part.get("type") == "thinking"
    )


def _graph_metadata() -> Mapping[str, Any]:
    """The metadata of the graph step calling the model (streamed calls get no run manager)."""
    from langgraph.config import get_config  # noqa: PLC0415  # lazy: langgraph is heavy to import

    try:
        return get_config().get("metadata") or {}
    except RuntimeError:
        return {}


_PLACE = "deepnb_script"
"""The ``response_metadata`` key where a reply keeps its place: ``{"prompt": ..., "turn": n}``."""


def _is_summary(message: BaseMessage) -> bool:
    return message.additional_kwargs.get("lc_source") == "summarization"


def _position(messages: Sequence[BaseMessage]) -> tuple[str, int]:
    """The prompt being played and the index of the turn to play next.

    A human message (other than a summary standing in for older messages) starts the prompt's
    turns again; otherwise the turn follows the one the latest scripted reply played. Replies
    without a remembered place count one turn each.
    """
    unmarked = 0
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if isinstance(message, AIMessage):
            place = message.response_metadata.get(_PLACE)
            if isinstance(place, Mapping):
                return str(place.get("prompt", "")), int(place.get("turn", 0)) + 1 + unmarked
            unmarked += 1
        elif isinstance(message, HumanMessage) and not _is_summary(message):
            return _text_of(message), unmarked
    return "", unmarked


class ScriptedChatModel(BaseChatModel):
    """Replays a :class:`Script`, token by token, with tool calls and usage metadata."""

    script: Script
    agent_name: str | None = None
    """The name of the agent this model serves when the run metadata names none."""
    path: str | None = None
    """The script's file, re-read when it changes, so an edited script takes effect on the next call."""
    _loaded_mtime: float | None = None

    model_config = ConfigDict(arbitrary_types_allowed=True)

    @property
    def _llm_type(self) -> str:
        return "deepnb-scripted"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        """The script's content (its digest): what a LangChain cache keys this model by."""
        return {"script": self._current_script().digest}

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedChatModel:
        """Tools are named by the script, so binding them changes nothing."""
        return self

    @model_validator(mode="after")
    def _profile_from_script(self) -> ScriptedChatModel:
        if self.profile is None and self.script.profile is not None:
            self.profile = dict(self.script.profile)  # type: ignore[assignment]
        return self

    @staticmethod
    def _metadata(run_manager: Any) -> Mapping[str, Any]:
        return getattr(run_manager, "metadata", None) or _graph_metadata()

    def _agent(self, run_manager: Any) -> str:
        """The script entry to play: the subagent's name, or ``main`` for the top-level agent
        unless the script has an entry under that agent's own name."""
        metadata = self._metadata(run_manager)
        name = metadata.get("lc_agent_name") or self.agent_name
        nested = "tools:" in str(metadata.get("langgraph_checkpoint_ns", ""))
        if name and (nested or name in self.script.agents):
            return name
        return MAIN_AGENT

    def _current_script(self) -> Script:
        if self.path is not None:
            mtime = Path(self.path).stat().st_mtime
            if self._loaded_mtime is None:
                self._loaded_mtime = mtime
            elif mtime != self._loaded_mtime:
                self.script, self._loaded_mtime = load_script(self.path), mtime
                if self.script.profile is not None:
                    self.profile = dict(self.script.profile)  # type: ignore[assignment]
        return self.script

    def _reply(self, messages: list[BaseMessage], run_manager: Any) -> tuple[ScriptedTurn, AIMessage]:
        self._current_script()
        agent = self._agent(run_manager)
        if self._metadata(run_manager).get("lc_source") == "summarization":
            text = self.script.summary_for(agent)
            usage = self._usage(messages, ScriptedTurn(text=text), [])
            return ScriptedTurn(text=text), AIMessage(content=text, usage_metadata=usage)
        prompt, index = _position(messages)
        conversation = self.script.conversation_for(agent, prompt)
        if index >= len(conversation.turns):
            raise ScriptError(
                f"{self.script.source}: agent {agent!r} has {len(conversation.turns)} turn(s) for "
                f"the prompt {_shorten(prompt)!r} and was asked for turn {index + 1}."
            )
        turn = conversation.turns[index]
        if turn.error is not None:
            raise RuntimeError(turn.error)
        seed = hashlib.sha1(f"{agent}\0{prompt}".encode()).hexdigest()[:8]
        calls = [
            {
                "name": call["name"],
                "args": dict(call.get("args", {})),
                "id": call.get("id") or f"call_{seed}_{index}_{n}",
                "type": "tool_call",
            }
            for n, call in enumerate(turn.tool_calls)
        ]
        usage = self._usage(messages, turn, calls)
        place = {_PLACE: {"prompt": prompt, "turn": index}}
        message = AIMessage(
            content=_content(turn), tool_calls=calls, usage_metadata=usage, response_metadata=place
        )
        return turn, message

    @staticmethod
    def _usage(messages: list[BaseMessage], turn: ScriptedTurn, calls: list[dict[str, Any]]) -> UsageMetadata:
        thought = len(_TOKEN.findall(turn.thinking))
        if turn.usage:
            inp = int(turn.usage.get("input_tokens", 0))
            out = int(turn.usage.get("output_tokens", 0))
            thought = int(turn.usage.get("reasoning_tokens", thought))
        else:
            inp = max(1, sum(len(_text_of(m)) for m in messages) // 4)
            out = (
                thought + len(_TOKEN.findall(turn.text)) + sum(len(json.dumps(c["args"])) // 4 for c in calls)
            )
        usage = UsageMetadata(input_tokens=inp, output_tokens=out, total_tokens=inp + out)
        if turn.thinking:
            usage["output_token_details"] = {"reasoning": thought}
        return usage

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        _, message = self._reply(messages, run_manager)
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _chunks(self, message: AIMessage) -> Iterator[AIMessageChunk]:
        thinking = _thinking_of(message)
        if thinking:  # as Anthropic streams it: thinking deltas in block 0, its signature, then text
            for token in _TOKEN.findall(thinking):
                yield AIMessageChunk(content=[{"type": "thinking", "thinking": token, "index": 0}])
            yield AIMessageChunk(content=[{"type": "thinking", "signature": SIGNATURE, "index": 0}])
            for token in _TOKEN.findall(_text_of(message)):
                yield AIMessageChunk(content=[{"type": "text", "text": token, "index": 1}])
        else:
            for token in _TOKEN.findall(_text_of(message)):  # the turn's text, a str
                yield AIMessageChunk(content=token)
        yield AIMessageChunk(
            content="",
            tool_calls=message.tool_calls,
            usage_metadata=message.usage_metadata,
            response_metadata=message.response_metadata,
            chunk_position="last",
        )

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        _, message = self._reply(messages, run_manager)
        for chunk in self._chunks(message):
            if self.script.delay and chunk.content:
                time.sleep(self.script.delay)
            if run_manager and chunk.content:
                run_manager.on_llm_new_token(chunk.text)
            yield ChatGenerationChunk(message=chunk)

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        _, message = self._reply(messages, run_manager)
        for chunk in self._chunks(message):
            if chunk.content:
                if self.script.delay:  # as _stream: no trip through the event loop per token at 0
                    await asyncio.sleep(self.script.delay)
                if run_manager:
                    await run_manager.on_llm_new_token(chunk.text)
            yield ChatGenerationChunk(message=chunk)
