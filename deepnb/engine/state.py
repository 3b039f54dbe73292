"""What a run looks like so far: events folded into plain, JSON-ready state.

One fold serves the run object, the live view and the static snapshot, so all three agree.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from deepnb.core import clock as clocks
from deepnb.core import events as ev
from deepnb.core.call_args import call_args, json_text, list_arg, text_arg, whole_json
from deepnb.core.explain import PREVIEW_LIMIT, clip_failure
from deepnb.core.file_paths import is_history
from deepnb.core.schema import (
    OPEN_NODE,
    RUNNING,
    TODO_STATUS_MARK,
    WAITING,
    ActionDecision,
    AsyncTaskRow,
    ContentPart,
    DecisionLogEntry,
    DecisionType,
    ErrorItem,
    FilePreview,
    Given,
    GivenMemory,
    GivenSkill,
    NodeSource,
    NodeState,
    NodeStatus,
    NoticeItem,
    PendingAction,
    PendingRequest,
    Progress,
    PromptItem,
    RunStateJSON,
    RunStatus,
    SummaryItem,
    TextItem,
    ThinkingItem,
    Todo,
    TodoStatus,
    ToolItem,
    TranscriptItem,
    UpdateItem,
)
from deepnb.core.text.markup import highlight, markdown
from deepnb.core.text.secrets import redact
from deepnb.core.tokens import Tokens
from deepnb.engine.async_tasks import merge_rows
from deepnb.engine.card_text import (
    DIFF_SOURCE,
    args_diff,
    changes_summary,
    own_description,
    readable_args,
    todo_changes,
)
from deepnb.engine.interpreter import parse_eval
from deepnb.engine.interrupts import is_approval, question_entry, value_text
from deepnb.engine.tool_failure import error_text, failed

ARGS_PREVIEW = 80
ARGS_JSON_LIMIT = 1 << 20
"""Characters of an approval's arguments kept as JSON; past them (or past
:data:`deepnb.core.call_args.MAX_DEPTH` levels) its card shows them shortened and cannot edit them."""
TODOS_TOOL = "write_todos"
"""The planning tool: its cards show what changed in the todo list, not the list's repr."""
EVAL_TOOL = "eval"
"""The interpreter's tool: its cards show the code, what it printed and what it returned."""
FILE_TOOLS = frozenset({"write_file", "edit_file", "delete"})
"""Built-in tools that change a file (named by their ``file_path`` argument)."""
ACTIVITY = 100
DESCRIPTION = 300
FULL_LIMIT = 4000
RESULT_PREVIEW = 160
GIVEN_DESCRIPTION = 160
"""Characters of a skill's description the run view shows."""
GIVEN_ENTRIES = 40
"""Skills, memory files, agents and tools per agent the run view lists (bounded messages)."""
ALL_DECISIONS: tuple[DecisionType, ...] = ("approve", "edit", "reject", "respond")
"""What an action allows when its interrupt names no review config for it."""

_Item = TypeVar(
    "_Item", PromptItem, TextItem, ThinkingItem, ToolItem, NoticeItem, ErrorItem, SummaryItem, UpdateItem
)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _clip_noted(text: str, limit: int) -> str:
    """``text`` within ``limit``, saying how much was left out and where it all is."""
    if len(text) <= limit:
        return text
    note = "\n… ({:,} more characters: the thread's messages hold all of it)"
    kept = limit - len(note.format(len(text)))  # the note fits in the limit too
    return text[:kept] + note.format(len(text) - kept)


def short_args(args: Any) -> str:
    """A one-line summary of tool arguments: ``path='/a.md', content='Hello…'`` (any JSON a
    model sent: each value read within bounds, :mod:`deepnb.core.call_args`)."""
    parts: list[str] = []
    for key, value in call_args(args).items():
        if len(parts) * 4 > ARGS_PREVIEW:  # the line is full: the rest would be clipped away
            break
        # redacted whole, then clipped: a secret cut first would no longer read as one
        redacted = redact(value if isinstance(value, str) else json_text(value))
        name = _clip(key, 32)
        parts.append(
            f"{name}={_clip(' '.join(redacted.split()), 32)!r}"
            if isinstance(value, str)
            else f"{name}={_clip(redacted, 32)}"
        )
    return _clip(", ".join(parts), ARGS_PREVIEW)


def _full_args(args: Any) -> str:
    return _clip(redact(readable_args(call_args(args))), FULL_LIMIT)  # redacted, then clipped


def _shown_part(part: ContentPart) -> ContentPart:
    """A content part as a card keeps it: its text redacted and clipped; a link or image whose
    address held a secret becomes a note of its redacted text."""
    text = _clip(redact(part["text"]), FULL_LIMIT)
    src = part.get("src")
    if src is not None and redact(src) != src:  # an address (or data) that holds a secret: named only
        return ContentPart(kind="note", text=f"{'resource' if part['kind'] == 'link' else 'image'} {text}")
    shown = ContentPart(kind=part["kind"], text=text)
    if src is not None:
        shown["src"] = src
    return shown


def _no_change(card: ToolItem, sent: str) -> None:
    """A call that did not run, or failed, changed nothing: its card shows the arguments as sent
    (``sent``, one line), not the change they would have made."""
    if "todo_changes" in card:
        del card["todo_changes"]
        card["args"] = sent


def answered_in_tree(label: str) -> str:
    """What a ``task`` card whose subagent answered says in place of the answer, which the
    subagent's node in the tree shows (its transcript ends with it): ``"answered: see
    general-purpose in Subagents"``. The card's full result (opened) still holds it."""
    return f"answered: see {label} in Subagents"


def todo_progress(todos: Sequence[Mapping[str, object]]) -> str:
    """``"Task 2 of 5"`` (the task in progress, or the next pending one), or ``"All 5 done"``."""
    if not todos:
        return ""
    for index, todo in enumerate(todos, start=1):
        if todo.get("status") == "in_progress":
            return f"Task {index} of {len(todos)}"
    for index, todo in enumerate(todos, start=1):
        if todo.get("status") != "completed":
            return f"Task {index} of {len(todos)}"
    return f"All {len(todos)} done"


@dataclass(frozen=True)
class RunSnapshot:
    """One consistent copy of a run's state as views show it: the state's ``version`` and its
    JSON (shared: read it, never change it)."""

    version: int
    state: RunStateJSON


@dataclass
class RunState:
    """The folded state of one run. ``version`` grows with every change."""

    agent: str
    thread_id: str
    prompt: str | None = None
    status: RunStatus = RUNNING
    result: str | None = None
    error: str | None = None
    items: list[TranscriptItem] = field(default_factory=list)
    todos: list[Todo] = field(default_factory=list)
    files_changed: list[str] = field(default_factory=list)
    files_not_written: list[str] = field(default_factory=list)
    """Paths of file calls answered without running (reject, respond, stop): never written."""
    pending: list[PendingRequest] = field(default_factory=list)
    decisions: list[DecisionLogEntry] = field(default_factory=list)
    nodes: dict[str, NodeState] = field(default_factory=dict)
    """The subagent tree, flat: agent path → node (``parent`` and ``children`` link them)."""
    summaries: list[SummaryItem] = field(default_factory=list)
    """The summarization items of the transcript, in order."""
    async_tasks: list[AsyncTaskRow] = field(default_factory=list)
    given: Given = field(default_factory=lambda: Given(skills=[], memory=[], tools={}))
    """What the agents were given: skills ``{name, description, agent}`` and memory files
    ``{path, agent}`` loaded into their prompts, and the tools each agent can call (bounded)."""
    steps: int = 0
    """Model calls of the run, subagents' too (or a graph's node updates)."""
    first_step: int = 0
    """The thread's step before the run (see :func:`deepnb.engine.history.thread_step`)."""
    thread_step: int = 0
    """The thread's step now: ``first_step`` plus the main agent's model calls of the run."""
    tool_calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    tokens_reasoning: int | None = None
    """Of ``tokens_out``, those spent reasoning: ``None`` until a provider reports them."""
    tokens_unreported: int = 0
    """Model calls whose provider reported no usage (their tokens are unknown, not counted as 0)."""
    started_at: float = field(default_factory=lambda: clocks.current().wall())
    finished_at: float | None = None
    waited: float = 0.0
    """Seconds the run spent paused, waiting for decisions or answers: not run time."""
    waiting_since: float | None = None
    """When the current wait began (``None`` while the run runs or once it ended)."""
    _wait_decided_by: set[bool] = field(default_factory=set, repr=False)
    """Who decided during the current wait: ``True`` for a rule (``--auto-approve``, "always
    approve"), ``False`` for a person. A pause only rules answered is run time, not waiting."""
    version: int = 0
    clock: Callable[[], float] = field(default=lambda: clocks.current().wall(), repr=False)
    """When the event being folded happened (seconds since the epoch): the wall clock, or for a
    stream replayed from its start the stream's own times (:mod:`deepnb.core.graphs.stamps`).
    The wall clock is :func:`deepnb.core.clock.current`'s."""
    _next_id: int = field(default=0, repr=False)
    _open_text: dict[str, TextItem] = field(default_factory=dict, repr=False)
    _thinking: dict[str, ThinkingItem] = field(default_factory=dict, repr=False)
    """Each agent's thinking in its current model call, until the call's turn ends it."""
    _tools: dict[str, ToolItem] = field(default_factory=dict, repr=False)
    _call_steps: dict[str, int] = field(default_factory=dict, repr=False)
    """Tool call id → the model call (``steps`` then) that asked for its latest card."""
    _servers: dict[str, str] = field(default_factory=dict, repr=False)
    """Tool name → the MCP server it came from (what the run's ``ToolsListed`` said)."""
    _interrupt_agents: dict[str, str] = field(default_factory=dict, repr=False)
    _node_by_call: dict[str, NodeState] = field(default_factory=dict, repr=False)
    in_state: Callable[[str], bool] | None = field(default=None, repr=False)
    """Whether a path is held in the thread's checkpoint state, where a change persists once the
    main agent's state takes it (``None``: unknown, so a file tool's success counts)."""
    _file_calls: dict[str, str] = field(default_factory=dict, repr=False)
    """Call id of a file-changing tool call → the path it changes (for backends outside state)."""
    _todo_lists: dict[str, list[Todo]] = field(default_factory=dict, repr=False)
    """Each agent's todo list as its last ``write_todos`` call wrote it (to show the next change)."""
    _todo_calls: dict[str, tuple[str, list[Todo] | None, str]] = field(default_factory=dict, repr=False)
    """Call id of a ``write_todos`` call still running → its agent, the list it writes (``None``
    for one the tool refuses), which is the agent's list once the call succeeded (a failed call
    changed nothing), and its arguments in one line (what its card shows should it fail)."""
    _gated: dict[tuple[str, int], str] = field(default_factory=dict, repr=False)
    """(interrupt id, action index) → the call id of the tool card the action gates."""

    @property
    def own_steps(self) -> int:
        """The steps this run made on its thread: the main agent's model calls (or a graph's
        node updates), as its head line, fork chips and ``history`` number them. ``steps``
        counts every model call, subagents' too."""
        return self.thread_step - self.first_step

    @property
    def elapsed(self) -> float:
        """Run time in seconds: from the start to now (or the end), less the time spent waiting."""
        return (self.finished_at or clocks.current().wall()) - self.started_at - self.waited

    def waited_by(self, now: float) -> float:
        """Seconds waited by ``now``: the waits that are over and the one going on."""
        going = max(0.0, now - self.waiting_since) if self.waiting_since is not None else 0.0
        return self.waited + going

    def began_by(self, at: float) -> None:
        """The run began at ``at`` at the latest: a joined stream's first event, which is no
        chunk to fold (the run's metadata, its time queued), says so."""
        if at < self.started_at:
            self.started_at = at
            self.version += 1

    def _end_wait(self, now: float, *, resumed: bool = False) -> None:
        """A wait for decisions is over (the run resumed, or ended): it counts as waited, unless
        the run resumed on rules' decisions alone (nobody waited: the run went on by itself)."""
        by_rules_alone = resumed and self._wait_decided_by == {True}
        if self.waiting_since is not None and not by_rules_alone:
            self.waited += max(0.0, now - self.waiting_since)
        self.waiting_since = None
        self._wait_decided_by.clear()

    def apply(self, event: ev.Event) -> None:
        """Fold one event into the state."""
        handler = getattr(self, f"_on_{type(event).__name__}", None)
        if handler is not None:
            self.started_at = min(self.started_at, self.clock())  # a replay began before it came
            handler(event)
            self.version += 1

    # -- transcript -----------------------------------------------------------------------

    def _fresh_id(self) -> str:
        """The id of the next item added (a tool card, whose id is its call's, counts too)."""
        return f"i{self._next_id + 1}"

    def _add(self, item: _Item) -> _Item:
        self._next_id += 1
        self.items.append(item)
        return item

    def tool_name(self, call_id: str) -> str:
        """The name of the tool a call went to (``"?"`` for a call never seen)."""
        card = self._tools.get(call_id)
        return str(card["name"]) if card is not None else "?"

    def _on_RunStarted(self, event: ev.RunStarted) -> None:
        self.prompt = event.prompt
        self.first_step = self.thread_step = event.first_step
        if event.prompt:
            self._add(
                PromptItem(kind="prompt", agent=event.agent, text=redact(event.prompt), id=self._fresh_id())
            )

    def _on_Steered(self, event: ev.Steered) -> None:
        self._add(
            PromptItem(
                kind="prompt", agent=event.agent, text=redact(event.text), id=self._fresh_id(), steered=True
            )
        )
        self._activity(event.agent, "steered")

    def _on_SteerUndelivered(self, event: ev.SteerUndelivered) -> None:
        count = len(event.texts)
        said = "; ".join(_clip(redact(text), ACTIVITY) for text in event.texts)
        self._add(
            NoticeItem(
                kind="notice",
                level="steer",
                text=(
                    f"{count} message{'' if count == 1 else 's'} given while the run worked did not reach "
                    f"the agent (the run ended first): {said}. Send it with run.follow_up(...)."
                ),
                id=self._fresh_id(),
            )
        )

    def _on_ContextGiven(self, event: ev.ContextGiven) -> None:
        keys = ", ".join(redact(k) for k in event.keys)
        self._add(
            NoticeItem(
                kind="notice",
                level="context",
                text=f"Runtime context given: {keys} (values not shown).",
                id=self._fresh_id(),
            )
        )

    def _on_ThinkingDelta(self, event: ev.ThinkingDelta) -> None:
        self._activity(event.agent, "thinking…")
        block = self._thinking.get(event.agent)
        if block is None:
            block = self._thinking[event.agent] = self._add(
                ThinkingItem(kind="thinking", agent=event.agent, text="", html=None, id=self._fresh_id())
            )
        block["text"] += event.text
        block["html"] = None  # streaming (again, where a model thinks between pieces of its answer)

    def _settle_thinking(self, agent: str, whole: str = "", *, ended: bool = False) -> None:
        """Render an agent's thinking so far (its answer starts, or its turn ended with ``whole``,
        the complete thinking): a view folds it from then on. ``ended`` forgets it."""
        block = self._thinking.pop(agent, None) if ended else self._thinking.get(agent)
        text = whole or (block["text"] if block is not None else "")
        if not text.strip():
            if block is not None:
                self.items.remove(block)
            return
        if block is None:  # a model that did not stream its thinking: it goes before the answer
            block = ThinkingItem(kind="thinking", agent=agent, text="", html=None, id=self._fresh_id())
            self._next_id += 1
            answer = self._open_text.get(agent)
            self.items.insert(self.items.index(answer) if answer is not None else len(self.items), block)
        if block["html"] is None or whole:
            block["text"] = redact(text)
            block["html"] = markdown(block["text"])

    def _on_TextDelta(self, event: ev.TextDelta) -> None:
        self._activity(event.agent, "writing…")
        if event.agent in self._thinking:
            self._settle_thinking(event.agent)
        block = self._open_text.get(event.agent)
        if block is None:
            block = self._add(self._text_block(event.agent))
            self._open_text[event.agent] = block
        block["text"] += event.text

    def _text_block(self, agent: str) -> TextItem:
        """A new text item, empty: ``html`` stays ``None`` while it streams."""
        return TextItem(kind="text", agent=agent, text="", html=None, id=self._fresh_id())

    def _on_ModelTurn(self, event: ev.ModelTurn) -> None:
        self.steps += 1
        self.thread_step += ev.is_thread_step(event)
        self.tokens_in += event.input_tokens
        self.tokens_out += event.output_tokens
        self.tokens_unreported += not event.usage_reported
        if event.reasoning_tokens is not None:
            self.tokens_reasoning = (self.tokens_reasoning or 0) + event.reasoning_tokens
        self._settle_thinking(event.agent, event.thinking, ended=True)
        node = self.nodes.get(event.agent)
        if node is not None:
            node["tokens_in"] += event.input_tokens
            node["tokens_out"] += event.output_tokens
            if not event.usage_reported:
                node["tokens_unreported"] = node.get("tokens_unreported", 0) + 1
            if event.reasoning_tokens is not None:
                node["tokens_reasoning"] = (node.get("tokens_reasoning") or 0) + event.reasoning_tokens
            first_line = next((line for line in event.text.splitlines() if line.strip()), "")
            node["activity"] = _clip(redact(first_line.strip()), ACTIVITY) if first_line else "thinking…"
        block = self._open_text.pop(event.agent, None)
        text = event.text or (block["text"] if block else "")
        if not text.strip():
            if block is not None:
                self.items.remove(block)
            return
        if block is None:
            block = self._add(self._text_block(event.agent))
        block["text"] = redact(text)
        block["html"] = markdown(block["text"])

    def _on_NodeUpdated(self, event: ev.NodeUpdated) -> None:
        self.steps += 1  # a graph that does not speak messages: each node's update is a step
        self.thread_step += 1
        values = redact(json_text(dict(event.values), indent=2))
        self._add(
            UpdateItem(
                kind="update",
                id=self._fresh_id(),
                agent=event.agent,
                node=redact(event.node),
                keys=[redact(str(key)) for key in event.values],
                text=_clip(values, FULL_LIMIT),
            )
        )

    def _on_ToolCallStarted(self, event: ev.ToolCallStarted) -> None:
        card_id = f"tool-{event.call_id}"
        earlier = self._tools.get(event.call_id)
        if earlier is not None:
            same_turn = self._call_steps.get(event.call_id) == self.steps
            if same_turn or earlier["status"] in (RUNNING, WAITING):  # reported again: its one card
                return
            # a later model call reusing the id (some providers number calls per turn): its own card
            taken = {item["id"] for item in self.items}
            fresh = (f"{card_id}-{n}" for n in range(2, len(taken) + 3))
            card_id = next(name for name in fresh if name not in taken)
        self._call_steps[event.call_id] = self.steps
        self.tool_calls += 1
        args = call_args(event.args)  # any JSON the model sent
        path = text_arg(args, "file_path")
        if event.name in FILE_TOOLS and path is not None:
            self._file_calls[event.call_id] = path
        node = self.nodes.get(event.agent)
        if node is not None:
            node["tool_calls"] += 1
            node["activity"] = _clip(f"{event.name}({short_args(args)})", ACTIVITY)
        card = self._tools[event.call_id] = self._add(
            ToolItem(
                kind="tool",
                id=card_id,
                agent=event.agent,
                name=event.name,
                args=short_args(args),
                args_full=_full_args(args),
                status=RUNNING,
                result="",
                result_full="",
            )
        )
        server = self._servers.get(event.name)
        if server:
            card["server"] = server
        todos = list_arg(args, "todos") if event.name == TODOS_TOOL else None
        if todos is not None:  # the tool itself refuses a list it cannot take, and says why
            written = [todo for todo in map(_todo, todos) if todo is not None]
            changes = todo_changes(self._todo_lists.get(event.agent, []), written)
            whole = written if len(written) == len(todos) else None  # once done: the list from now on
            self._todo_calls[event.call_id] = (event.agent, whole, card["args"])
            card["todo_changes"] = changes
            card["args"] = changes_summary(changes, unread=len(todos) - len(written))
        code = text_arg(args, "code") if event.name == EVAL_TOOL else None
        if code is not None:
            kept = _clip(redact(code), FULL_LIMIT)
            card["eval"] = {"code": kept, "code_html": highlight(kept, "javascript")}

    def _on_ToolCallFinished(self, event: ev.ToolCallFinished) -> None:
        content = redact(event.content)
        preview = _clip(" ".join(content.split()), RESULT_PREVIEW)  # redacted, then clipped
        is_error = event.executed and failed(event.name, content, is_error=event.is_error)
        path = self._file_calls.pop(event.call_id, None)
        held = path is not None and self.in_state is not None and self.in_state(path)  # see FilesChanged
        ran = path is not None and event.executed and not is_error  # and said it succeeded
        if path is not None and ran and not held:
            self._listed(self.files_changed, path)
        if path is not None and not event.executed:
            self._listed(self.files_not_written, path)
        task = self._node_by_call.get(event.call_id)
        if task is not None:  # the subagent's answer, as its parent received it
            task["result"], task["result_full"] = preview, _clip(content, FULL_LIMIT)
            if task["status"] in OPEN_NODE:
                self._end_node(task, "error" if is_error else "done")
        node = self.nodes.get(event.agent)
        if node is not None and not event.executed:
            node["calls_declined"] += 1
        elif node is not None and is_error:
            node["calls_failed"] += 1
        if node is not None and node["status"] == RUNNING:
            node["activity"] = _clip(f"{event.name} {'failed' if is_error else 'returned'}", ACTIVITY)
        agent, written, sent = self._todo_calls.pop(event.call_id, (event.agent, None, ""))
        if written is not None and event.executed and not is_error:  # the list the agent has now
            self._todo_lists[agent] = written
        card = self._tools.get(event.call_id)
        if card is None:
            return
        if not event.executed:  # a reject's message or a person's response, in the tool's place
            decided = card.get("decision")
            card["status"] = "responded" if decided and decided["type"] == "respond" else "declined"
        else:
            card["status"] = "error" if is_error else "done"
        card["result"] = preview
        card["result_full"] = _clip_noted(content, FULL_LIMIT)
        if event.parts and event.executed:
            card["parts"] = [_shown_part(part) for part in event.parts]
        if is_error:
            self._failed_card(card, content, sent)
        elif not event.executed:  # declined, or answered in its place: it changed nothing either
            _no_change(card, sent)
        elif task is not None and task["status"] == "done":  # its answer shows once: in the tree
            card["result"] = answered_in_tree(task["label"] or task["name"])
        elif "todo_changes" in card:  # "Updated todo list to [{...}]": the card shows it
            card["result"] = card["result_full"] = content.split(" to [", 1)[0]
        if "eval" in card:
            outcome = parse_eval(content)
            card["eval"] = {
                **card["eval"],
                "stdout": _clip(outcome.stdout, FULL_LIMIT),
                "result": _clip(outcome.result, FULL_LIMIT),
                "error": _clip(outcome.error, FULL_LIMIT),
                "error_type": outcome.error_type,
            }
            if outcome.error:
                card["status"] = "error"

    @staticmethod
    def _failed_card(card: ToolItem, content: str, sent: str) -> None:
        """A failed call's card says what happened: its error, and the arguments as sent, never
        a summary of a change it did not make (a ``write_todos`` card's "3 added, 1 started")."""
        error = error_text(content)
        card["result"] = _clip(" ".join(error.split()), RESULT_PREVIEW)
        card["result_full"] = _clip_noted(error, FULL_LIMIT)
        _no_change(card, sent)

    # -- the subagent tree ----------------------------------------------------------------

    def _activity(self, agent: str, text: str) -> None:
        node = self.nodes.get(agent)
        if node is not None and node["status"] == RUNNING:
            node["activity"] = text

    def _end_node(self, node: NodeState, status: NodeStatus) -> None:
        node["status"] = status
        node["finished_at"] = now = self.clock()
        node["waited"] = round(max(0.0, self.waited_by(now) - node.get("waited_at_start", 0.0)), 1)

    def _on_SubagentStarted(self, event: ev.SubagentStarted) -> None:
        card = self._tools.get(event.call_id)
        if card is not None:
            card["subagent"] = event.path
        node = self.nodes.get(event.path)
        if node is None:
            node = self.nodes[event.path] = NodeState(
                id=event.path,
                parent=event.agent,
                name=event.subagent_type,
                label=redact(event.label) or ev.agent_label(event.path),
                description=_clip(redact(event.description), DESCRIPTION),
                source=cast(NodeSource, event.source),  # the events layer names "task" or "js"
                call_id=event.call_id,
                status=RUNNING,
                started_at=self.clock(),
                finished_at=None,
                waited_at_start=self.waited_by(self.clock()),
                tool_calls=0,
                calls_declined=0,
                calls_failed=0,
                tokens_in=0,
                tokens_out=0,
                activity="starting",
                result="",
                result_full="",
                children=[],
            )
            parent = self.nodes.get(event.agent)
            if parent is not None:
                parent["children"].append(event.path)
            self._node_by_call[event.call_id] = node
        else:  # resumed after an approval, or replayed: the same node runs again
            node["status"], node["finished_at"] = RUNNING, None

    def _on_SubagentFinished(self, event: ev.SubagentFinished) -> None:
        node = self.nodes.get(event.path)
        if node is None or node["status"] not in OPEN_NODE:
            return
        if event.error:
            node["result"] = node["result"] or clip_failure(redact(event.error), PREVIEW_LIMIT)
            self._end_node(node, "error")
        elif event.interrupted:
            node["status"] = WAITING
        elif node["source"] == "js":
            self._end_node(node, "done")

    def _on_Summarized(self, event: ev.Summarized) -> None:
        text = _clip(redact(event.summary), FULL_LIMIT)
        item = SummaryItem(
            kind="summary",
            agent=event.agent,
            messages=event.messages,
            cutoff=event.cutoff,
            tokens_before=event.tokens_before,
            tokens_after=event.tokens_after,
            summary=text,
            summary_html=markdown(text),
            file_path=event.file_path,
            id=self._fresh_id(),
        )
        block = self._open_text.get(event.agent)
        if block is not None:  # the answer this made room for already streams: the card goes first
            self._next_id += 1
            self.items.insert(self.items.index(block), item)
        else:
            self._add(item)
        self.summaries.append(item)
        self._activity(event.agent, "context summarized")

    def _on_AsyncTasksChanged(self, event: ev.AsyncTasksChanged) -> None:
        self.async_tasks = merge_rows(self.async_tasks, event.tasks)  # each update holds the changed tasks

    def _on_TodosChanged(self, event: ev.TodosChanged) -> None:
        if event.agent.count("/") == 0:
            self.todos = [todo for todo in map(_todo, event.todos) if todo is not None]

    def _on_FilesChanged(self, event: ev.FilesChanged) -> None:
        if event.agent != ev.MAIN:  # a subagent's files reach the thread when its task returns
            return
        for path in (*event.written, *event.deleted):
            self._listed(self.files_changed, path)

    @staticmethod
    def _listed(paths: list[str], path: str) -> None:
        """Add ``path`` to a file list once; summarization's history files are not listed."""
        if path not in paths and not is_history(path):
            paths.append(path)

    # -- the end of a run -----------------------------------------------------------------

    def _finish(self, status: RunStatus) -> None:
        self.status = status
        self.finished_at = self.clock()
        self._end_wait(self.finished_at)
        for card in self._tools.values():  # a call still running, or waiting on an approval
            if card["status"] in (RUNNING, WAITING):
                card["status"] = "cancelled" if status == "cancelled" else "interrupted"
        ended: NodeStatus = "cancelled" if status == "cancelled" else "error" if status == "error" else "done"
        for node in self.nodes.values():
            if node["status"] in OPEN_NODE:
                self._end_node(node, ended)
        for agent in list(self._thinking):
            self._settle_thinking(agent, ended=True)
        for block in self._open_text.values():  # text a model was still streaming
            if status in ("error", "cancelled") and block["text"].strip():
                block["cut_off"] = True
                block["text"] = redact(block["text"])
                block["html"] = markdown(block["text"])
        self._open_text.clear()

    def _on_RunFinished(self, event: ev.RunFinished) -> None:
        self.result = event.result
        self.pending = []
        self._finish("done")

    def _on_Interrupted(self, event: ev.Interrupted) -> None:
        for request in event.interrupts:  # the deepest namespace that raised it names the agent
            known = self._interrupt_agents.get(request.id, "")
            if event.agent.count("/") >= known.count("/"):
                self._interrupt_agents[request.id] = event.agent

    def _on_RunPaused(self, event: ev.RunPaused) -> None:
        decided = {
            (p["id"], a["index"]): a["decision"] for p in self.pending for a in p["actions"] if a["decision"]
        }
        answered = {p["id"]: p["answer"] for p in self.pending if p.get("answer") is not None}
        self.pending = [
            _pending(i, self._interrupt_agents.get(i.id, "main"), event.previews, decided)
            if is_approval(i.value)
            else question_entry(
                i.id, self._interrupt_agents.get(i.id, "main"), i.value, answer=answered.get(i.id)
            )
            for i in event.interrupts
        ]
        for card in self._tools.values():
            if card["status"] == RUNNING:
                card["status"] = WAITING
        for raised in event.interrupts:
            self._gate_cards(raised, self._interrupt_agents.get(raised.id, "main"))
        for request in self.pending:
            path = request["agent"]
            while path in self.nodes:  # the subagent that asked, and those waiting on it
                if self.nodes[path]["status"] == RUNNING:
                    self.nodes[path]["status"] = WAITING
                path = self.nodes[path]["parent"]
        self.status = "interrupted"
        self.finished_at = self.clock()
        if self.waiting_since is None:
            self.waiting_since = self.finished_at

    def _gate_cards(self, request: ev.InterruptRequest, agent: str) -> None:
        """Note which waiting tool card each action of an approval gates: the same agent's call
        of that tool with those arguments, not already taken by another action."""
        value = request.value if isinstance(request.value, Mapping) else {}
        taken = set(self._gated.values())
        actions = [a for a in _listed(value.get("action_requests")) if isinstance(a, Mapping)]
        for index, action in enumerate(actions):
            if (request.id, index) in self._gated:
                continue
            full = _full_args(action.get("args"))
            for call_id, card in self._tools.items():
                if (
                    call_id not in taken
                    and card["status"] == WAITING
                    and card["agent"] == agent
                    and card["name"] == action.get("name")
                    and card["args_full"] == full
                ):
                    self._gated[(request.id, index)] = call_id
                    taken.add(call_id)
                    break

    def _proposed_json(self, interrupt_id: str, index: int) -> str | None:
        """The arguments an action proposed, as its card showed them (JSON, redacted)."""
        for request in self.pending:
            for action in request["actions"]:
                if request["id"] == interrupt_id and action["index"] == index:
                    return action["args_json"]
        return None

    def _edited(self, event: ev.DecisionMade, args: dict[str, Any]) -> str:
        """Show an edit on the tool card it gated (the edited arguments, marked edited); return
        the diff from the proposed arguments to the edited ones (``""`` when unknown)."""
        call_id = self._gated.get((event.interrupt_id, event.index))
        card = self._tools.get(call_id) if call_id else None
        if card is not None:
            card["args"], card["args_full"], card["edited"] = short_args(args), _full_args(args), True
        proposed = self._proposed_json(event.interrupt_id, event.index)
        if proposed is None:
            return ""
        try:  # the card's JSON, redacted: its values read as the card shows them
            was = json.loads(proposed)
        except ValueError:
            was = None
        before = readable_args(was, DIFF_SOURCE) if isinstance(was, Mapping) else proposed[:DIFF_SOURCE]
        return args_diff(before, redact(readable_args(args, DIFF_SOURCE)))

    def _on_DecisionMade(self, event: ev.DecisionMade) -> None:
        self._wait_decided_by.add(event.auto)
        edited = event.decision.get("edited_action")
        edited_args = call_args(edited.get("args") if isinstance(edited, Mapping) else None)
        diff = self._edited(event, edited_args) if event.decision.get("type") == "edit" else ""
        entry = DecisionLogEntry(
            at=time.strftime("%Y-%m-%d %H:%M:%S"),
            interrupt_id=event.interrupt_id,
            index=event.index,
            tool=event.tool,
            type=cast(DecisionType, str(event.decision.get("type"))),  # approvals.normalize checked it
            message=redact(str(event.decision.get("message") or "")),
            args=short_args(edited_args),
            auto=event.auto,
        )
        if diff:
            entry["diff"] = diff
        self.decisions.append(entry)
        decided = ActionDecision(
            type=entry["type"], message=entry["message"], args=entry["args"], auto=entry["auto"]
        )
        if entry["type"] in ("reject", "respond"):  # the card it gated says who answered in its place
            call_id = self._gated.get((event.interrupt_id, event.index))
            card = self._tools.get(call_id) if call_id else None
            if card is not None:  # the message as a card line says it: clipped, the log keeps it whole
                card["decision"] = {**decided, "message": _clip(decided["message"], RESULT_PREVIEW)}
        for request in self.pending:
            if request["id"] != event.interrupt_id:
                continue
            actions = request["actions"]
            at = event.index  # actions are listed by index: look there first, then everywhere
            if 0 <= at < len(actions) and actions[at]["index"] == event.index:
                actions[at]["decision"] = decided
                continue
            for action in actions:
                if action["index"] == event.index:
                    action["decision"] = decided

    def _on_InterruptAnswered(self, event: ev.InterruptAnswered) -> None:
        self._wait_decided_by.add(False)
        answer = value_text(event.value)
        entry = DecisionLogEntry(
            at=time.strftime("%Y-%m-%d %H:%M:%S"),
            interrupt_id=event.interrupt_id,
            index=0,
            tool="interrupt",
            type="answer",
            message=answer,
            args="",
            auto=False,
        )
        self.decisions.append(entry)
        for request in self.pending:
            if request["id"] != event.interrupt_id:
                continue
            if request.get("kind") == "question":
                request["answer"] = answer
            for action in request["actions"]:
                if not action["decision"]:
                    action["decision"] = ActionDecision(type="resume", message=answer, args="", auto=False)

    def _on_RunResumed(self, event: ev.RunResumed) -> None:
        self.pending = [p for p in self.pending if p["id"] not in event.interrupt_ids]
        for card in self._tools.values():
            if card["status"] == WAITING:
                card["status"] = RUNNING
        for node in self.nodes.values():
            if node["status"] == WAITING:
                node["status"] = RUNNING
        self.status = RUNNING
        self.finished_at = None
        self._end_wait(self.clock(), resumed=True)

    # -- what the agents were given -----------------------------------------------------

    def _on_PromptLoaded(self, event: ev.PromptLoaded) -> None:
        agent = ev.agent_kind(event.agent)
        given = self.given.copy()  # a new value: the view compares it with what it last sent
        if event.skills is not None:
            skills = [s for s in given["skills"] if s["agent"] != agent]
            skills += [
                GivenSkill(name=redact(name), description=_clip(redact(text), GIVEN_DESCRIPTION), agent=agent)
                for name, text in event.skills
            ]
            given["skills"] = skills[:GIVEN_ENTRIES]
        if event.memory is not None:
            memory = [m for m in given["memory"] if m["agent"] != agent]
            memory += [GivenMemory(path=redact(path), agent=agent) for path in event.memory]
            given["memory"] = memory[:GIVEN_ENTRIES]
        self.given = given

    def _on_ToolsListed(self, event: ev.ToolsListed) -> None:
        tools = {
            redact(agent): [redact(name) for name in names[:GIVEN_ENTRIES]]
            for agent, names in list(event.tools.items())[:GIVEN_ENTRIES]
        }
        self.given = Given(skills=self.given["skills"], memory=self.given["memory"], tools=tools)
        self._servers = {redact(name): redact(server) for name, server in event.servers.items()}

    def _on_RunFailed(self, event: ev.RunFailed) -> None:
        self.error = event.error
        self.pending = []
        for call_id in event.calls:  # the calls that raised: failed, not merely interrupted
            card = self._tools.get(call_id)
            if card is not None and card["status"] == RUNNING:
                card["status"], card["result"] = "error", clip_failure(event.error, PREVIEW_LIMIT)
                card["result_full"] = clip_failure(event.error, FULL_LIMIT)
            self._file_calls.pop(call_id, None)
        self._finish("error")
        # run.error keeps the message whole; the card shows it up to a sentence (deepnb.core.explain)
        self._add(ErrorItem(kind="error", text=clip_failure(event.error), id=self._fresh_id()))

    def _on_RunCancelled(self, event: ev.RunCancelled) -> None:
        undecided = sum(1 for p in self.pending for a in p["actions"] if a["decision"] is None)
        self.pending = []
        self._finish("cancelled")
        withdrawn = (
            f" ({undecided} undecided approval card{'s' if undecided != 1 else ''} withdrawn)"
            if undecided
            else ""
        )
        self._add(
            NoticeItem(
                kind="notice",
                level="cancelled",
                text=f"Run {event.reason}{withdrawn}. The thread keeps everything up to the last step.",
                id=self._fresh_id(),
            )
        )

    # -- projections ----------------------------------------------------------------------

    @property
    def tokens(self) -> Tokens:
        """The run's tokens as reported, with the model calls that reported none kept apart."""
        return Tokens(self.tokens_in, self.tokens_out, self.tokens_unreported)

    def progress(self) -> Progress:
        progress = Progress(
            steps=self.steps,
            step=self.thread_step,
            first_step=self.first_step,
            tool_calls=self.tool_calls,
            tokens_in=self.tokens_in,
            tokens_out=self.tokens_out,
            started_at=self.started_at,
            elapsed=round(self.elapsed, 1),
            todo_progress=todo_progress(self.todos),
            waited=round(self.waited, 1),
            waiting_since=self.waiting_since,
        )
        if self.tokens_reasoning is not None:
            progress["tokens_reasoning"] = self.tokens_reasoning
        if self.tokens_unreported:
            progress["tokens_unreported"] = self.tokens_unreported
        return progress

    @staticmethod
    def public_item(item: TranscriptItem) -> TranscriptItem:
        """A copy of a transcript item as views show it (streaming text redacted)."""
        copy = item.copy()
        if copy["kind"] in ("text", "thinking") and copy.get("html") is None:  # still streaming
            copy["text"] = redact(copy["text"])
        return copy

    def to_json(self) -> RunStateJSON:
        """A JSON-ready copy of everything a view shows."""
        return RunStateJSON(
            agent=self.agent,
            thread_id=self.thread_id,
            status=self.status,
            error=self.error or "",
            items=[self.public_item(item) for item in self.items],
            todos=[todo.copy() for todo in self.todos],
            # sorted: parallel subagents write in any order; a snapshot must not depend on it
            files_changed=sorted(self.files_changed),
            files_not_written=self.not_written(),
            pending=[public_pending(p) for p in self.pending],
            decisions=[d.copy() for d in self.decisions],
            progress=self.progress(),
            tree=[self.public_node(node) for node in self.nodes.values()],
            async_tasks=[task.copy() for task in self.async_tasks],
            given=Given(
                skills=[s.copy() for s in self.given["skills"]],
                memory=[m.copy() for m in self.given["memory"]],
                tools={agent: list(names) for agent, names in self.given["tools"].items()},
            ),
        )

    def not_written(self) -> list[str]:
        """The paths of file calls that never ran, less those written by another call, sorted."""
        return sorted(set(self.files_not_written) - set(self.files_changed))

    @staticmethod
    def public_node(node: NodeState) -> NodeState:
        """A copy of a tree node as views show it."""
        return {**node, "children": list(node["children"])}


def public_pending(request: PendingRequest) -> PendingRequest:
    """A copy of a pending request as views show it (its actions and decisions copied too)."""
    actions: list[PendingAction] = [
        {**a, "decision": a["decision"] and a["decision"].copy()} for a in request["actions"]
    ]
    return {**request, "actions": actions}


def _todo(todo: Any) -> Todo | None:
    """A todo as a model wrote it, or ``None`` when it is not one ``write_todos`` takes (its text
    not text, or a status no todo has): the tool refuses such a list and tells the model why;
    the card and the list show only what they can read."""
    if not isinstance(todo, Mapping):
        return None
    content, status = todo.get("content"), todo.get("status", "pending")
    if not isinstance(content, str) or not isinstance(status, str) or status not in TODO_STATUS_MARK:
        return None
    return Todo(content=content, status=cast(TodoStatus, status))


def _listed(value: Any) -> list[Any]:
    """An interrupt's list (its actions, its review configs), or none when it is not a list."""
    return value if isinstance(value, list) else []


def _pending(
    request: ev.InterruptRequest,
    agent: str,
    previews: Mapping[tuple[str, int], FilePreview],
    decided: Mapping[tuple[str, int], ActionDecision],
) -> PendingRequest:
    """One pending interrupt as a view shows it: its actions, what each would do, and any
    decision already made on it."""
    value = request.value if isinstance(request.value, Mapping) else {}
    configs = {
        c.get("action_name"): [d for d in _listed(c.get("allowed_decisions")) if d in ALL_DECISIONS]
        for c in _listed(value.get("review_configs"))
        if isinstance(c, Mapping) and isinstance(c.get("action_name"), str)
    }
    actions: list[PendingAction] = []
    for index, action in enumerate(
        a for a in _listed(value.get("action_requests")) if isinstance(a, Mapping)
    ):
        name = str(action.get("name", ""))
        args = call_args(action.get("args"))
        args_json, whole = whole_json(args, ARGS_JSON_LIMIT, indent=2)
        preview = previews.get((request.id, index))
        actions.append(
            PendingAction(
                index=index,
                name=name,
                args=short_args(args),
                args_json=redact(args_json),
                description=own_description(redact(str(action.get("description") or "")), name),
                allowed=configs.get(name, list(ALL_DECISIONS)),
                preview=FilePreview(kind=preview["kind"], text=_clip(redact(preview["text"]), FULL_LIMIT))
                if preview
                else None,
                decision=decided.get((request.id, index)),
            )
        )
        if not whole:  # too big or too deep to show whole: its card cannot edit it (Python can)
            actions[-1]["clipped"] = True
    return PendingRequest(id=request.id, agent=agent, actions=actions)
