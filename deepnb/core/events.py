"""The single seam between LangGraph and everything deepnb shows.

:class:`EventTranslator` turns the chunks of
``graph.astream(..., stream_mode=STREAM_MODES, subgraphs=True)`` — ``(namespace, mode, data)`` —
into a small set of typed events. Views, run objects and tests consume these events, never raw
chunks. This module imports nothing from LangChain at import time and needs no Jupyter.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from deepnb.core.call_args import call_args, call_name, text_arg
from deepnb.core.schema import ContentPart, FilePreview
from deepnb.core.tool_content import content_parts, parts_text

STREAM_MODES = ("updates", "messages", "tasks", "custom")
MAIN = "main"
STEERED = "deepnb_steered"
"""The mark of a message given while a run worked (``run.steer``): the ``additional_kwargs`` key of
its human message, and the ``type`` of the custom stream event its delivery writes."""
FILES_WATCHED = "deepnb_files_changed"
"""The ``type`` of the custom stream event a served agent's file watch writes (``written`` and
``deleted`` paths, :mod:`deepnb.engine.files.served_watch`): read as :class:`FilesChanged`."""
LC_RUN = "lc_run-"
"""How the id LangChain gives a streamed chunk without one of its provider's begins."""
MODEL_NODE = "model"
"""The node of a deep agent (``create_agent``) that calls the model: each of its writes is a turn."""
REMOVE_ALL_MESSAGES = "__remove_all__"
"""The id of the ``RemoveMessage`` that opens an update writing a thread's messages whole again
(LangGraph's ``langgraph.graph.message.REMOVE_ALL_MESSAGES``, as its reducer reads it)."""


@dataclass(frozen=True, slots=True)
class Event:
    """Base of all events. ``agent`` is the path of the agent it concerns: ``"main"`` or
    ``"main/general-purpose"`` for a subagent (nested subagents add more parts)."""

    agent: str


@dataclass(frozen=True, slots=True)
class TextDelta(Event):
    """A piece of streamed model text."""

    text: str


@dataclass(frozen=True, slots=True)
class ThinkingDelta(Event):
    """A piece of what a model thinks before it answers (Anthropic ``thinking`` blocks, OpenAI
    reasoning summaries, ``reasoning_content``), streamed apart from its text."""

    text: str


@dataclass(frozen=True, slots=True)
class ModelTurn(Event):
    """A model call finished: its whole text, the tool calls it asked for, its token usage.
    ``thinking`` is what it thought (never part of ``text``); ``usage_reported`` is ``False`` when
    the provider reported no usage, so the tokens are unknown rather than 0; ``reasoning_tokens``
    is the part of ``output_tokens`` spent thinking, where the provider says."""

    text: str
    tool_calls: tuple[Mapping[str, Any], ...] = ()
    input_tokens: int = 0
    output_tokens: int = 0
    step: int | None = None
    """For the main agent's model node: LangGraph's step of the checkpoint the turn wrote."""
    thinking: str = ""
    usage_reported: bool = True
    reasoning_tokens: int | None = None


@dataclass(frozen=True, slots=True)
class ToolCallStarted(Event):
    call_id: str
    name: str
    args: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class ToolCallFinished(Event):
    call_id: str
    name: str
    content: str
    is_error: bool = False
    executed: bool = True
    """Whether the tool ran: ``False`` for a result given in its place (an approval answered
    with reject or respond, a call patched as cancelled)."""
    parts: tuple[ContentPart, ...] = ()
    """The result's content blocks by kind, when it has more than one text
    (:func:`deepnb.core.tool_content.content_parts`); ``content`` then reads them one by one."""


@dataclass(frozen=True, slots=True)
class TodosChanged(Event):
    todos: tuple[Mapping[str, str], ...]


@dataclass(frozen=True, slots=True)
class FilesChanged(Event):
    written: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SubagentStarted(Event):
    """A ``task`` call (or a JS ``task()`` from the interpreter, ``source="js"``) started a
    subagent; ``path`` is the new subagent's own agent path. A subagent resumed after an
    approval starts again with the same path."""

    task_id: str
    call_id: str
    subagent_type: str
    description: str
    path: str
    source: str = "task"
    label: str = ""


@dataclass(frozen=True, slots=True)
class SubagentFinished(Event):
    """A subagent's task ended: with ``error``, or stopped at ``interrupted`` approvals."""

    task_id: str
    path: str
    error: str | None = None
    interrupted: bool = False


@dataclass(frozen=True, slots=True)
class Summarized(Event):
    """Context summarization fired (the ``_summarization_event`` state update).

    ``messages`` is how many messages this firing summarized (``None`` when the previous
    firing's cutoff is unknown); ``tokens_before`` / ``tokens_after`` are the input tokens the
    model reported for the agent's calls just before and just after it, where known.
    """

    cutoff: int
    summary: str
    file_path: str | None = None
    messages: int | None = None
    tokens_before: int | None = None
    tokens_after: int | None = None


@dataclass(frozen=True, slots=True)
class AsyncTasksChanged(Event):
    """The thread's async subagent tasks (the ``async_tasks`` state key) changed."""

    tasks: Mapping[str, Mapping[str, Any]]


@dataclass(frozen=True, slots=True)
class PromptLoaded(Event):
    """What an agent loaded into its prompt: skills ``(name, description)`` (the
    ``skills_metadata`` state update) and memory files by path (``memory_contents``); ``None``
    where the update doesn't say (each middleware loads its own)."""

    skills: tuple[tuple[str, str], ...] | None = None
    memory: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class ToolsListed(Event):
    """The tools each agent of the run can call: agent (``"main"`` or a subagent's name) →
    tool names, read from the graph when the run starts; ``servers``: the MCP server each
    tool from one came from (tool name → server name)."""

    tools: Mapping[str, tuple[str, ...]]
    servers: Mapping[str, str] = field(default_factory=dict)


def prompt_loaded(agent: str, values: Mapping[str, Any]) -> PromptLoaded | None:
    """The skills and memory files a state (an update, or a thread's values) says were loaded,
    or ``None`` when it says nothing about them."""
    skills, memory = values.get("skills_metadata"), values.get("memory_contents")
    if not isinstance(skills, list) and not isinstance(memory, Mapping):
        return None
    return PromptLoaded(
        agent,
        skills=tuple(
            (str(s.get("name", "")), str(s.get("description", ""))) for s in skills if isinstance(s, Mapping)
        )
        if isinstance(skills, list)
        else None,
        memory=tuple(str(path) for path in memory) if isinstance(memory, Mapping) else None,
    )


@dataclass(frozen=True, slots=True)
class InterruptRequest:
    """One pending interrupt: its id and payload (``action_requests``, ``review_configs``)."""

    id: str
    value: Any


@dataclass(frozen=True, slots=True)
class Interrupted(Event):
    interrupts: tuple[InterruptRequest, ...]


@dataclass(frozen=True, slots=True)
class Custom(Event):
    """Anything a tool or middleware wrote with ``runtime.stream_writer``."""

    data: Any


@dataclass(frozen=True, slots=True)
class NodeUpdated(Event):
    """A node of a graph that does not speak messages returned ``values`` (its state update)."""

    node: str
    values: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class NodeStarted(Event):
    """A node of the agent's graph (a middleware hook, the model, the tools, a graph's own node)
    began: ``node`` as the agent's drawing names it (``parent:node`` inside a subgraph drawn
    inline), ``task_id`` LangGraph's task running it (what :class:`NodeFinished` names)."""

    node: str
    task_id: str


@dataclass(frozen=True, slots=True)
class NodeFinished(Event):
    """A node's task ended (``error``: it raised)."""

    node: str
    task_id: str
    error: str | None = None


def is_thread_step(event: Event) -> bool:
    """Whether ``event`` is one of the thread's steps: a model call of the main agent (each adds
    its AI message to the thread), or a node's update in a graph that does not speak messages."""
    if isinstance(event, NodeUpdated):
        return True
    return isinstance(event, ModelTurn) and event.agent == MAIN


@dataclass(frozen=True, slots=True)
class RunStarted(Event):
    thread_id: str
    prompt: str | None
    first_step: int = 0
    """The thread's step before the run: the model calls of its main agent it held (its first
    step is ``first_step + 1``; see :func:`deepnb.engine.history.thread_step`)."""


@dataclass(frozen=True, slots=True)
class Steered(Event):
    """A message given while the run worked reached the agent's model call."""

    text: str


@dataclass(frozen=True, slots=True)
class SteerUndelivered(Event):
    """Messages given while the run worked that no model call took before it ended."""

    texts: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ContextGiven(Event):
    """The run was given runtime context: its keys (the values are never in an event)."""

    keys: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RunFinished(Event):
    result: str


@dataclass(frozen=True, slots=True)
class RunPaused(Event):
    """The run stopped at one or more interrupts and waits for decisions. ``previews`` maps
    ``(interrupt id, action index)`` to what the action would do (a file's content, a diff)."""

    interrupts: tuple[InterruptRequest, ...]
    previews: Mapping[tuple[str, int], FilePreview] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class DecisionMade(Event):
    """A decision on one action of an interrupt: ``{"type": "approve" | "edit" | "reject" |
    "respond", ...}``; ``auto`` when a rule made it rather than a person."""

    interrupt_id: str
    index: int
    tool: str
    decision: Mapping[str, Any]
    auto: bool = False


@dataclass(frozen=True, slots=True)
class InterruptAnswered(Event):
    """A whole interrupt answered with ``value`` (``resume(value)``: a raw interrupt's answer,
    or an approval answered without per-action decisions)."""

    interrupt_id: str
    value: Any


@dataclass(frozen=True, slots=True)
class RunResumed(Event):
    """The run goes on after decisions on these interrupts."""

    interrupt_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RunFailed(Event):
    error: str
    calls: tuple[str, ...] = ()
    """The tool calls whose execution raised the failure (their cards show it)."""


@dataclass(frozen=True, slots=True)
class RunCancelled(Event):
    reason: str = "stopped"


def subagent_path(parent: str, kind: str, count: int) -> str:
    """The agent path of the ``count``-th subagent of type ``kind`` started by ``parent``:
    ``main/general-purpose``, then ``main/general-purpose#2``, …"""
    base = f"{parent}/{kind}"
    return base if count == 1 else f"{base}#{count}"


def agent_label(path: str) -> str:
    """How deepnb names an agent wherever it shows one: ``main``, or a subagent by its path's
    last part, ``main/general-purpose#2`` → ``general-purpose #2``."""
    return path.rpartition("/")[2].replace("#", " #")


def agent_kind(path: str) -> str:
    """The name an agent was declared with (what its skills and memory belong to, LangChain's
    ``lc_agent_name``): ``main``, or ``main/critic#2`` → ``critic``."""
    return path.rpartition("/")[2].partition("#")[0]


def message_text(content: Any) -> str:
    """The plain text of a message ``content`` (a string or a list of content blocks)."""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, Mapping) and block.get("type") in (None, "text"):
                parts.append(str(block.get("text", "")))
        return "".join(parts)
    return ""


WITHHELD = "(the provider withheld this reasoning)"
"""What a thinking block the provider redacted (Anthropic's ``redacted_thinking``) shows."""


def _block_thinking(block: Mapping[str, Any]) -> str:
    """The thinking text of one content block ("" for a block that is not thinking)."""
    kind = block.get("type")
    if kind == "thinking":  # Anthropic
        return str(block.get("thinking") or "")
    if kind == "redacted_thinking":
        return WITHHELD
    if kind == "reasoning":  # LangChain's standard block, or OpenAI Responses' own with a summary
        if isinstance(block.get("reasoning"), str):
            return str(block["reasoning"])
        return _summary_parts(block.get("summary"))
    return ""


def _summary_parts(summary: Any) -> str:
    """The text of an OpenAI reasoning ``summary`` list (``[{"type": "summary_text", "text"}]``)."""
    if not isinstance(summary, Sequence) or isinstance(summary, str):
        return ""
    return "\n\n".join(
        str(part.get("text") or "") for part in summary if isinstance(part, Mapping) and part.get("text")
    )


def message_thinking(message: Any) -> str:
    """What a message (or a streamed chunk of one) says the model thought: its thinking and
    reasoning content blocks, or the ``reasoning_content`` / ``reasoning`` a provider puts in
    ``additional_kwargs``. Never any of its text."""
    content = getattr(message, "content", None)
    parts: list[str] = []
    if isinstance(content, Sequence) and not isinstance(content, str):
        parts = [_block_thinking(block) for block in content if isinstance(block, Mapping)]
    if any(parts):
        return "".join(parts)
    kwargs = getattr(message, "additional_kwargs", None) or {}
    if isinstance(kwargs.get("reasoning_content"), str):  # DeepSeek, xAI, Groq, Ollama, vLLM
        return str(kwargs["reasoning_content"])
    reasoning = kwargs.get("reasoning")
    if isinstance(reasoning, Mapping):  # OpenAI Responses with the older output version
        return _summary_parts(reasoning.get("summary"))
    return ""


def _summary_text(content: str) -> str:
    """The summary itself, without the framing deepagents wraps it in for the model."""
    start, end = content.find("<summary>"), content.rfind("</summary>")
    if start != -1 and end > start:
        return content[start + len("<summary>") : end].strip()
    return content.removeprefix("Here is a summary of the conversation to date:").strip()


def _usage(message: Any) -> tuple[int, int]:
    usage = getattr(message, "usage_metadata", None) or {}
    return int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0)


def _reasoning_tokens(message: Any) -> int | None:
    """The output tokens spent reasoning, where the provider reports them."""
    usage = getattr(message, "usage_metadata", None) or {}
    details = usage.get("output_token_details") if isinstance(usage, Mapping) else None
    value = details.get("reasoning") if isinstance(details, Mapping) else None
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


@dataclass
class _StreamedCall:
    """A model call seen streaming (``messages`` mode): where, and the usage its chunks reported."""

    agent: str
    node: str
    input_tokens: int = 0
    output_tokens: int = 0
    reported: bool = False
    reasoning_tokens: int | None = None

    def add(self, chunk: Any) -> None:
        """Count one chunk's usage (a streamed call reports it in pieces, often in its last)."""
        if not getattr(chunk, "usage_metadata", None):
            return
        inp, out = _usage(chunk)
        self.input_tokens += inp
        self.output_tokens += out
        self.reported = True
        reasoning = _reasoning_tokens(chunk)
        if reasoning is not None:
            self.reasoning_tokens = (self.reasoning_tokens or 0) + reasoning


def _is_message_list(value: Any) -> bool:
    """Whether ``value`` is a non-empty list of LangChain messages."""
    return (
        isinstance(value, list)
        and bool(value)
        and all(getattr(m, "type", None) in ("ai", "tool", "human", "system") for m in value)
    )


@dataclass
class EventTranslator:
    """Turns stream chunks into events, tracking which namespace belongs to which subagent."""

    main: str = MAIN
    _paths: dict[str, str] = field(default_factory=dict)
    """Pregel task id of a running ``task`` tool call → that subagent's agent path."""
    _seen: dict[str, int] = field(default_factory=dict)
    """How many subagents each base path has had, so parallel ones of one type get their own."""

    _seen_turns: set[str] = field(default_factory=set)
    """Ids of AI messages already reported: a resumed approval re-sends the message it held."""
    _model_step: int | None = None
    """The LangGraph step the main agent's model node streams in (from the messages' metadata)."""
    _by_call: dict[str, str] = field(default_factory=dict)
    """``task`` tool call id → path, so a subagent re-run after an approval keeps its path."""
    _call_tasks: dict[str, str] = field(default_factory=dict)
    """Tool call id → the Pregel task running it (to find the ``eval`` a JS ``task()`` runs in)."""
    _js_active: dict[str, list[str]] = field(default_factory=dict)
    """Pregel task id of an ``eval`` call → paths of the JS subagents running inside it."""
    _js_paths: dict[str, str] = field(default_factory=dict)
    """JS dispatch id → path."""
    _last_input: dict[str, int] = field(default_factory=dict)
    """Agent path → input tokens of its latest model call."""
    _cutoffs: dict[str, int] = field(default_factory=dict)
    """Agent path → cutoff index of its latest summarization."""
    node_updates: bool = False
    """Report each of the graph's own nodes' state updates (:class:`NodeUpdated`): set for a
    graph that does not speak messages, whose nodes' updates are all there is to show."""
    _streaming: dict[tuple[str, str], str] = field(default_factory=dict)
    """Agent path and node → the id of the model call streaming there now (till its last chunk)."""
    _aliases: dict[str, str] = field(default_factory=dict)
    """LangChain's run id of a streamed call → the provider's id its message keeps."""
    _streamed: dict[str, _StreamedCall] = field(default_factory=dict)
    """Id of a model call's streamed message → where it streamed and the usage it reported, until
    a state update holds that message (then it is the update's :class:`ModelTurn`)."""
    _finished_calls: set[str] = field(default_factory=set)
    """Tool call ids whose result came in a list of messages other than ``messages``."""
    _started_calls: set[str] = field(default_factory=set)
    """Tool call ids this run reported started (a :class:`ToolCallStarted`)."""
    _known: set[str] = field(default_factory=set)
    """Ids of the messages the thread held before the run (:meth:`thread_held`) or that the run
    reported since: what an update writing the whole list again sends back."""

    def _new_path(self, parent: str, kind: str, call_id: str) -> str:
        if call_id in self._by_call:
            return self._by_call[call_id]
        base = f"{parent}/{kind}"
        count = self._seen[base] = self._seen.get(base, 0) + 1
        path = self._by_call[call_id] = subagent_path(parent, kind, count)
        return path

    def thread_held(self, messages: Any) -> None:
        """Note the messages the thread holds as the run begins (its state's ``messages``)."""
        for message in messages if isinstance(messages, list) else ():
            message_id = getattr(message, "id", None)
            if message_id:
                self._known.add(str(message_id))

    def agent_path(self, namespace: Sequence[str]) -> str:
        """The agent path of a stream namespace (``()`` is the main agent)."""
        for part in reversed(namespace):
            task_id = part.partition(":")[2]
            if task_id in self._paths:
                return self._paths[task_id]
            js = self._js_active.get(task_id)
            if js and len(js) == 1:  # several JS subagents in one eval share its namespace
                return js[0]
        return self.main

    def translate(self, chunk: tuple[Sequence[str], str, Any]) -> Iterator[Event]:
        """Yield the events of one ``(namespace, mode, data)`` chunk."""
        namespace, mode, data = chunk
        agent = self.agent_path(namespace)
        if mode == "messages":
            yield from self._message(agent, data)
        elif mode == "updates":
            yield from self._updates(agent, data, top=not namespace)
        elif mode == "tasks":
            yield from self._task(agent, data, namespace)
        elif mode == "custom":
            if isinstance(data, Mapping) and data.get("type") == STEERED:
                yield Steered(agent, str(data.get("text") or ""))
                return
            if isinstance(data, Mapping) and data.get("type") == FILES_WATCHED:
                written, deleted = _paths(data.get("written")), _paths(data.get("deleted"))
                yield FilesChanged(agent, written=written, deleted=deleted)
                return
            if isinstance(data, Mapping) and data.get("type") == "subagent":
                yield from self._js_subagent(agent, data)
            yield Custom(agent, data)

    def _message(self, agent: str, data: Any) -> Iterator[Event]:
        message, metadata = data
        if getattr(message, "type", None) not in ("AIMessageChunk", "ai"):  # "ai": a call not streamed
            return
        node = metadata.get("langgraph_node") if isinstance(metadata, Mapping) else None
        if agent == self.main and node == MODEL_NODE:
            step = metadata.get("langgraph_step")  # the step of the checkpoint the node writes
            self._model_step = step if isinstance(step, int) else None
        message_id = self._call_id(agent, str(node or ""), message)
        if message_id and message_id not in self._seen_turns:
            call = self._streamed.setdefault(message_id, _StreamedCall(agent, str(node or "")))
            call.add(message)
        thinking = message_thinking(message)
        if thinking:
            yield ThinkingDelta(agent, thinking)
        text = message_text(message.content)
        if text:
            yield TextDelta(agent, text)

    def _call_id(self, agent: str, node: str, chunk: Any) -> str | None:
        """The id of the model call a streamed chunk belongs to. One call's chunks may carry two:
        the provider's on some (OpenAI's Responses API puts the response's id on its first) and
        LangChain's run id (``lc_run-…``) on the rest; the call's message keeps the provider's,
        so both name it, and its usage is counted once."""
        message_id = getattr(chunk, "id", None)
        if not isinstance(message_id, str) or not message_id:
            return None
        where = (agent, node)
        message_id = self._aliases.get(message_id, message_id)
        streaming = self._streaming.get(where)
        if streaming is not None and streaming != message_id and LC_RUN in (streaming[:7], message_id[:7]):
            kept, other = (message_id, streaming) if streaming.startswith(LC_RUN) else (streaming, message_id)
            self._aliases[other] = kept
            merged = self._streamed.pop(other, None)
            if merged is not None and kept not in self._seen_turns:
                call = self._streamed.setdefault(kept, _StreamedCall(agent, node))
                call.input_tokens += merged.input_tokens
                call.output_tokens += merged.output_tokens
                call.reported = call.reported or merged.reported
                if merged.reasoning_tokens is not None:
                    call.reasoning_tokens = (call.reasoning_tokens or 0) + merged.reasoning_tokens
            message_id = kept
        self._streaming[where] = message_id
        if getattr(chunk, "chunk_position", None) == "last" or getattr(chunk, "type", None) == "ai":
            self._streaming.pop(where, None)
        return message_id

    def _updates(self, agent: str, data: Mapping[str, Any], *, top: bool = True) -> Iterator[Event]:
        for node, update in data.items():
            if node == "__interrupt__":
                requests = tuple(
                    InterruptRequest(id=str(getattr(i, "id", "")), value=getattr(i, "value", i))
                    for i in update
                )
                if requests:
                    yield Interrupted(agent, requests)
                continue
            for part in update if isinstance(update, list) else [update]:
                if self.node_updates and top:  # the graph's own nodes, not those of graphs they run
                    yield NodeUpdated(agent, str(node), dict(part) if isinstance(part, Mapping) else {})
                if isinstance(part, Mapping):
                    yield from self._state_update(agent, part, node=str(node))
            yield from self._unrecorded(agent, str(node))

    def finish(self) -> Iterator[Event]:
        """The model calls that streamed but that no state update held (when the stream ends)."""
        yield from self._unrecorded()

    def _unrecorded(self, agent: str | None = None, node: str | None = None) -> Iterator[Event]:
        """A :class:`ModelTurn` for each model call that streamed in ``node`` of ``agent`` (any,
        when ``None``) and that no state update held: a graph's node that calls a model and keeps
        what it said elsewhere (a structured brief, a value of its own), so each model call is
        counted once."""
        for message_id, call in list(self._streamed.items()):
            if message_id in self._seen_turns:
                del self._streamed[message_id]
            elif agent is None or (call.agent == agent and call.node == node):
                del self._streamed[message_id]
                self._seen_turns.add(message_id)
                yield ModelTurn(
                    call.agent,
                    "",
                    (),
                    call.input_tokens,
                    call.output_tokens,
                    usage_reported=call.reported,
                    reasoning_tokens=call.reasoning_tokens,
                )

    def _state_update(self, agent: str, update: Mapping[str, Any], *, node: str = "") -> Iterator[Event]:
        messages = update.get("messages")
        messages = messages if isinstance(messages, list) else []
        summary = update.get("_summarization_event")
        if isinstance(summary, Mapping):
            yield self._summarized(agent, summary, messages)
        yield from self._messages(agent, messages, node=node)
        for key, value in update.items():  # a graph's own lists: supervisor_messages, notes, ...
            if key != "messages" and _is_message_list(value):
                yield from self._messages(agent, value, node=node, elsewhere=True)
        yield from self._side_updates(agent, update)

    def _messages(
        self, agent: str, messages: Sequence[Any], *, node: str, elsewhere: bool = False
    ) -> Iterator[Event]:
        """The events of the AI and tool messages a state update holds. ``elsewhere``: a list
        under another key than ``messages``, which a graph may write whole again, so each tool
        result is reported once. An update that writes the messages whole again (deepagents'
        patch of tool calls left without a result, a summarization that keeps the newest
        messages) sends the thread's own messages, with their ids, beside the few it adds: only
        those it adds are new."""
        rewritten = not elsewhere and _rewrites_all(messages)
        for message in messages:
            kind = getattr(message, "type", None)
            message_id = str(getattr(message, "id", None) or "")
            if rewritten and message_id in self._known:  # the thread's own, sent again
                if kind == "ai":
                    self._seen_turns.add(message_id)
                continue
            if message_id:
                self._known.add(message_id)
            if kind == "ai":
                if message_id:
                    if message_id in self._seen_turns:
                        continue
                    self._seen_turns.add(message_id)
                calls = tuple(getattr(message, "tool_calls", None) or ())
                inp, out = _usage(message)
                if inp:
                    self._last_input[agent] = inp
                step = None
                if agent == self.main and node == MODEL_NODE:  # each step is used once, never a stale one
                    step, self._model_step = self._model_step, None
                yield ModelTurn(
                    agent,
                    message_text(message.content),
                    calls,
                    inp,
                    out,
                    step,
                    thinking=message_thinking(message),
                    usage_reported=bool(getattr(message, "usage_metadata", None)),
                    reasoning_tokens=_reasoning_tokens(message),
                )
                for call in calls:  # a model's arguments are any JSON: read through call_args
                    if not isinstance(call, Mapping):
                        continue
                    self._started_calls.add(str(call.get("id")))
                    yield ToolCallStarted(
                        agent, str(call.get("id")), call_name(call), call_args(call.get("args"))
                    )
            elif kind == "tool":
                call_id = str(message.tool_call_id)
                if elsewhere:
                    if call_id in self._finished_calls:
                        continue
                    self._finished_calls.add(call_id)
                if rewritten and call_id not in self._started_calls:  # a call of an earlier run
                    started = _call_in(messages, call_id)
                    if started is not None:
                        self._started_calls.add(call_id)
                        yield ToolCallStarted(
                            agent, call_id, call_name(started), call_args(started.get("args"))
                        )
                parts = tuple(content_parts(message.content))
                yield ToolCallFinished(
                    agent,
                    call_id,
                    str(getattr(message, "name", "") or ""),
                    parts_text(parts) if parts else message_text(message.content),
                    getattr(message, "status", "success") == "error",
                    executed=_executed(node, message),
                    parts=parts,
                )

    def _side_updates(self, agent: str, update: Mapping[str, Any]) -> Iterator[Event]:
        """What a state update changes besides its messages: todos, files, async tasks, prompts."""
        todos = update.get("todos")
        if isinstance(todos, list):
            yield TodosChanged(agent, tuple(todos))
        files = update.get("files")
        if isinstance(files, Mapping) and files:
            yield FilesChanged(
                agent,
                written=tuple(p for p, v in files.items() if v is not None),
                deleted=tuple(p for p, v in files.items() if v is None),
            )
        tasks = update.get("async_tasks")
        if isinstance(tasks, Mapping):
            yield AsyncTasksChanged(agent, tasks)
        loaded = prompt_loaded(agent, update)
        if loaded is not None:
            yield loaded

    def _summarized(self, agent: str, event: Mapping[str, Any], messages: Sequence[Any]) -> Summarized:
        cutoff = int(event.get("cutoff_index") or 0)
        previous = self._cutoffs.get(agent)
        self._cutoffs[agent] = cutoff
        after = next((_usage(m)[0] for m in messages if getattr(m, "type", None) == "ai"), 0)
        summary = event.get("summary_message")
        text = _summary_text(message_text(getattr(summary, "content", summary) or ""))
        return Summarized(
            agent,
            cutoff=cutoff,
            summary=text,
            file_path=str(event["file_path"]) if event.get("file_path") else None,
            messages=cutoff - (previous or 0) if previous is not None or cutoff else None,
            tokens_before=self._last_input.get(agent),
            tokens_after=after or None,
        )

    def _js_subagent(self, agent: str, data: Mapping[str, Any]) -> Iterator[Event]:
        """A JS ``task()`` call inside the interpreter's ``eval`` (langchain-quickjs events)."""
        dispatch = str(data.get("id"))
        eval_task = self._call_tasks.get(str(data.get("eval_id")), "")
        if data.get("phase") == "start":
            kind = str(data.get("subagent_type") or "subagent")
            path = self._new_path(agent, kind, f"js:{dispatch}")
            self._js_paths[dispatch] = path
            active = self._js_active.setdefault(eval_task, [])
            if path not in active:
                active.append(path)
            yield SubagentStarted(
                agent,
                f"js:{dispatch}",
                f"js:{dispatch}",
                kind,
                str(data.get("description") or ""),
                path,
                source="js",
                label=str(data.get("label") or ""),
            )
        elif dispatch in self._js_paths and data.get("phase") in ("complete", "error"):
            path = self._js_paths[dispatch]
            if path in self._js_active.get(eval_task, ()):
                self._js_active[eval_task].remove(path)
            error = str(data.get("error") or "failed") if data.get("phase") == "error" else None
            yield SubagentFinished(agent, f"js:{dispatch}", path, error)

    def _task(self, agent: str, data: Mapping[str, Any], namespace: Sequence[str] = ()) -> Iterator[Event]:
        task_id = str(data.get("id"))
        yield from self._node(agent, data, namespace)
        if "input" in data:
            if data.get("name") != "tools" or not isinstance(data["input"], list):
                return
            for call in data["input"]:
                if isinstance(call, Mapping) and call.get("id"):
                    self._call_tasks[str(call["id"])] = task_id
                if isinstance(call, Mapping) and call.get("name") == "task":
                    args = call_args(call.get("args"))
                    kind = text_arg(args, "subagent_type") or "subagent"
                    path = self._new_path(agent, kind, str(call.get("id")))
                    self._paths[task_id] = path
                    yield SubagentStarted(
                        agent,
                        task_id,
                        str(call.get("id")),
                        kind,
                        text_arg(args, "description") or "",
                        path,
                    )
        elif task_id in self._paths:
            error = data.get("error")
            yield SubagentFinished(
                agent,
                task_id,
                self._paths[task_id],
                str(error) if error else None,
                interrupted=bool(data.get("interrupts")),
            )

    def _node(self, agent: str, data: Mapping[str, Any], namespace: Sequence[str]) -> Iterator[Event]:
        """A node's start or end (the ``tasks`` stream's chunks), named as the agent's drawing
        names it: within a subgraph that is itself a node (no subagent), ``parent:node``."""
        name = data.get("name")
        if not isinstance(name, str) or not name:
            return
        inline: list[str] = []
        for part in namespace:
            node, _, task_id = part.partition(":")
            if task_id in self._paths or task_id in self._js_active:
                inline = []  # a subagent's own graph begins here
            else:
                inline.append(node)
        node = ":".join([*inline, name])
        task_id = str(data.get("id"))
        if "input" in data:
            yield NodeStarted(agent, node, task_id)
        elif "result" in data or "error" in data:
            error = data.get("error")
            yield NodeFinished(agent, node, task_id, str(error) if error else None)


def _rewrites_all(messages: Sequence[Any]) -> bool:
    """Whether an update's messages replace the thread's whole list (they open with the
    ``RemoveMessage`` of every message)."""
    return any(
        getattr(m, "type", None) == "remove" and getattr(m, "id", None) == REMOVE_ALL_MESSAGES
        for m in messages
    )


def _call_in(messages: Sequence[Any], call_id: str) -> Mapping[str, Any] | None:
    """The tool call ``call_id`` as the AI message of ``messages`` that made it holds it."""
    for message in messages:
        for call in getattr(message, "tool_calls", None) or ():
            if isinstance(call, Mapping) and str(call.get("id")) == call_id and call.get("name"):
                return call
    return None


def _executed(node: str, message: Any) -> bool:
    """Whether a tool message is the tool's own result. A middleware hook's node
    (``HumanInTheLoopMiddleware.after_model``, named ``Middleware.hook``) or the harness's mark
    (``lc_source``, set on an approval's reject or respond) means it was given in the tool's place."""
    kwargs = getattr(message, "additional_kwargs", None) or {}
    return "." not in node and not kwargs.get("lc_source")


def _paths(found: Any) -> tuple[str, ...]:
    """The paths a custom stream event lists (none unless it is a list)."""
    return tuple(str(p) for p in found if isinstance(p, str)) if isinstance(found, list) else ()
