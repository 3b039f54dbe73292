"""The contract of everything that leaves the engine: the shapes of a run's state as views, the
saved snapshot and the front-end receive it, the statuses each part can have, and the labels and
marks those statuses are drawn with.

The engine builds these (:mod:`deepnb.engine.state`, :mod:`deepnb.engine.async_tasks`, the file view's
replies);
the views and :mod:`deepnb.engine.tree` read them. The front-end's TypeScript types are generated from
this module (``python -m deepnb.core.schema_ts`` writes ``widgets/src/schema.ts``) and a test fails
when the two differ, so change the contract here and regenerate.

Every value is JSON-ready: strings, numbers, booleans, ``None``, lists and these dicts.
"""

# No ``from __future__ import annotations`` here: on Python 3.11 a TypedDict whose annotations
# are strings counts its ``NotRequired`` keys as required, and the TypeScript mirror reads them.

from collections.abc import Mapping
from typing import Any, Final, Literal, NotRequired, TypeAlias, TypedDict, get_args

# -- statuses --------------------------------------------------------------------------------

RunStatus: TypeAlias = Literal["running", "interrupted", "done", "error", "cancelled"]
"""A run: streaming, waiting for decisions, finished, failed, or stopped."""
ToolStatus: TypeAlias = Literal[
    "running", "waiting", "done", "declined", "responded", "error", "interrupted", "cancelled"
]
"""A tool call's card: ``waiting`` while its run waits for a decision, ``interrupted`` when the run
ended (paused for good or failed elsewhere) before the call returned, ``cancelled`` when it was
stopped."""
NodeStatus: TypeAlias = Literal["running", "waiting", "done", "error", "cancelled"]
"""An agent of the subagent tree (``waiting``: for a decision, its own or a subagent's)."""
TodoStatus: TypeAlias = Literal["pending", "in_progress", "completed"]
"""A todo of ``write_todos``."""
DecisionType: TypeAlias = Literal["approve", "edit", "reject", "respond"]
"""What a human-in-the-loop decision does with a gated tool call."""
AnswerType: TypeAlias = Literal["answer", "resume"]
"""An interrupt answered whole with ``resume(value)``: ``answer`` in the decision log (tool
``interrupt``), ``resume`` on the actions of an approval answered that way."""
DecisionMade: TypeAlias = Literal[DecisionType, AnswerType]
"""A decision as a card and the decision log record it: one of a gated tool call's, or an
interrupt answered whole."""
PendingKind: TypeAlias = Literal["question"]
"""A pending request that is not an approval: a raw ``interrupt(value)``."""
AsyncTaskStatus: TypeAlias = Literal[
    "pending", "running", "waiting", "success", "error", "timeout", "cancelled", "interrupted"
]
"""An async subagent task, as deepagents and its server report it (``interrupted`` is what older
deepagents stored for ``cancelled``). A row carries the server's text as it is (see
:class:`AsyncTaskRow`), so a status not listed here is shown, not refused."""
NoticeLevel: TypeAlias = Literal["cancelled", "collapsed", "context", "steer"]
"""A notice in the transcript: the run was stopped, items were folded behind it, the run was
given runtime context (its keys), or messages given while it worked never reached the agent."""
NodeSource: TypeAlias = Literal["task", "js"]
"""What started a subagent: the ``task`` tool, or a JS ``task()`` from the interpreter."""
PreviewKind: TypeAlias = Literal["content", "diff"]
"""What an approval card previews: the content ``write_file`` writes, or ``edit_file``'s diff."""
FileKind: TypeAlias = Literal["markdown", "code", "table", "image", "binary"]
"""How a file is rendered for the file viewer."""
ChangeKind: TypeAlias = Literal["added", "modified", "deleted"]
"""What a run did to a file."""
TodoChangeKind: TypeAlias = Literal["added", "started", "completed", "reopened", "removed"]
"""What a ``write_todos`` call did to one todo."""
BookkeepingTool: TypeAlias = Literal["write_todos", "ls", "read_file", "glob", "grep"]
"""The tools that keep the agent's books (plan, look around, read) rather than do its work: the
run view's "Hide bookkeeping" filter hides their cards."""
ItemKind: TypeAlias = Literal["prompt", "text", "thinking", "tool", "notice", "error", "summary", "update"]
"""The kinds of transcript item."""

RUNNING: Final = "running"
"""The status a run, a tool call and a subagent start in (all three status sets have it)."""
WAITING: Final = "waiting"
"""A tool call's or subagent's status while its run waits for a decision."""
ENDED: Final[frozenset[RunStatus]] = frozenset({"done", "error", "cancelled"})
"""The statuses of a run that will not change again."""
OPEN_NODE: Final[frozenset[NodeStatus]] = frozenset({"running", "waiting"})
"""The statuses of a subagent that has not ended."""
BOOKKEEPING_TOOLS: Final[frozenset[BookkeepingTool]] = frozenset(get_args(BookkeepingTool))
"""The bookkeeping tools, as a set (see :data:`BookkeepingTool`)."""

# -- how statuses are drawn (Python's snapshots and the front-end use these same tables) --------

RUN_STATUS_LABEL: Final[Mapping[RunStatus, str]] = {
    "running": "running",
    "interrupted": "waiting for your approval",
    "done": "done",
    "error": "failed",
    "cancelled": "stopped",
}
"""A run's status in words (the status pill, a snapshot's head line)."""
RUN_STATUS_SAID: Final[Mapping[RunStatus, str]] = {
    "interrupted": "The run is waiting for you.",
    "done": "The run finished.",
    "error": "The run failed.",
    "cancelled": "The run was stopped.",
}
"""What the run view's live region says when the run comes to each status (read aloud by screen
readers; a run that resumes is said apart)."""
TOOL_STATUS_MARK: Final[Mapping[ToolStatus, str]] = {
    "done": "✓",
    "declined": "⊘",
    "responded": "↩",
    "error": "✗",
    "waiting": "‖",
    "cancelled": "■",
    "interrupted": "■",
}
"""The mark a tool card shows for its status (a running card shows none: it spins). ``declined``:
the tool never ran, its result is what was given in its place (a reject's message, a call
patched as cancelled); ``responded``: the tool never ran, a person's response (a respond decision)
is its result."""
NODE_STATUS_MARK: Final[Mapping[NodeStatus, str]] = {
    "running": "◐",
    "waiting": "‖",
    "done": "✓",
    "error": "✗",
    "cancelled": "■",
}
"""The mark of a subagent in the text and HTML tree."""
NODE_STATUS_LABEL: Final[Mapping[NodeStatus, str]] = {
    "running": "running",
    "waiting": "waiting for approval",
    "done": "✓ done",
    "error": "✗ error",
    "cancelled": "■ cancelled",
}
"""A subagent's status as the live tree shows it."""
TODO_STATUS_MARK: Final[Mapping[TodoStatus, str]] = {"pending": "○", "in_progress": "◐", "completed": "✓"}
"""The mark of a todo."""
TODO_CHANGE_MARK: Final[Mapping[TodoChangeKind, str]] = {
    "added": "+",
    "started": "◐",
    "completed": "✓",
    "reopened": "○",
    "removed": "−",
}
"""The mark of a todo change on a ``write_todos`` card."""
TODO_CHANGE_LABEL: Final[Mapping[TodoChangeKind, str]] = {
    "added": "added",
    "started": "started",
    "completed": "done",
    "reopened": "reopened",
    "removed": "removed",
}
"""A todo change in words, as a ``write_todos`` card sums them up ("2 added, 1 done")."""
TODO_INTERRUPTED_MARK: Final[str] = "⊘"
"""The mark of a todo a stopped or failed run left in progress: drawn as interrupted."""
BROKEN_OFF: Final[frozenset[RunStatus]] = frozenset({"error", "cancelled"})
"""Runs that ended before they finished (failed or stopped): their in-progress todos are interrupted."""
DECISION_LABEL: Final[Mapping[DecisionMade, str]] = {
    "approve": "✓ approved",
    "edit": "✎ edited",
    "reject": "✗ rejected",
    "respond": "↩ responded",
    "answer": "↩ answered",
    "resume": "↩ resumed",
}
"""A decision as an approval card and the decision log show it."""
FILE_KIND_LABEL: Final[Mapping[FileKind, str]] = {
    "markdown": "Markdown",
    "code": "code",
    "table": "table",
    "image": "image",
    "binary": "binary",
}
"""A rendered file's kind as the file viewer names it."""
CHANGE_KIND_MARK: Final[Mapping[ChangeKind, str]] = {"added": "+", "modified": "~", "deleted": "−"}
"""The mark of a file change in the file view's "Changed in this run" tab."""


def shown_as(table: Mapping[Any, str], status: object, default: str) -> str:
    """``table``'s text for ``status``, or ``default`` for one it does not list: a status read from
    outside the engine (a checkpoint, a saved state) may be any string."""
    return table.get(status, default)


# -- the transcript ------------------------------------------------------------------------------


class PromptItem(TypedDict):
    """The task the run was given (secrets redacted); ``steered`` marks a message given while the
    run worked (``run.steer``), placed where its model call took it."""

    kind: Literal["prompt"]
    id: str
    agent: str
    text: str
    steered: NotRequired[bool]


class TextItem(TypedDict):
    """An agent's text: ``html`` is ``None`` while it streams, then its Markdown rendered.
    ``cut_off``: the run failed or was stopped while the text streamed, so it is what the model
    had said by then, not an answer it finished."""

    kind: Literal["text"]
    id: str
    agent: str
    text: str
    html: str | None
    cut_off: NotRequired[bool]


CUT_OFF_NOTE: Final = "cut off: the run ended before this text did"
"""What a text the run ended in the middle of says under it."""


class ThinkingItem(TypedDict):
    """What an agent's model thought before it answered (Anthropic thinking, OpenAI reasoning
    summaries): ``html`` is ``None`` while it streams, then its Markdown rendered. Shown folded
    once the answer starts; never part of the run's result."""

    kind: Literal["thinking"]
    id: str
    agent: str
    text: str
    html: str | None


class EvalCard(TypedDict):
    """The interpreter's ``eval`` call on a tool card: its code, then what it printed and returned."""

    code: str
    code_html: str
    stdout: NotRequired[str]
    result: NotRequired[str]
    error: NotRequired[str]
    error_type: NotRequired[str]


ContentKind: TypeAlias = Literal["text", "image", "link", "note"]
"""A part of a tool's result: a text block, an image shown as one, a resource's link, or a line
saying what was left out (an image of a type or size a card does not show, a file, a resource
whose address is no web link)."""


class ContentPart(TypedDict):
    """One content block of a tool's result (an MCP server's text, image, resource), by kind.
    ``text`` is the block's text, or for an image, link and note what it is; ``src`` is an
    image's ``data:`` URI (PNG, JPEG, GIF or WebP, bounded) or a link's ``http(s)`` address."""

    kind: ContentKind
    text: str
    src: NotRequired[str]


class TodoChange(TypedDict):
    """One todo a ``write_todos`` call changed, and how."""

    change: TodoChangeKind
    content: str


class ActionDecision(TypedDict):
    """A decision already made on an action of a pending request."""

    type: DecisionMade
    message: str
    args: str
    auto: bool


class ToolItem(TypedDict):
    """A tool call's card. ``args`` is a one-line summary, ``args_full`` the JSON (both redacted and
    clipped); ``subagent`` is the path of the subagent a ``task`` call started; ``clipped`` says a
    view shortened the card to fit its message budget; ``edited`` says a person edited the
    arguments before approving them (``args`` and ``args_full`` are the edited ones); ``server``
    names the MCP server a tool came from; ``decision`` is the reject or respond that answered the
    call in the tool's place (the card says who, and with what). A ``write_todos`` card carries
    ``todo_changes`` (what it added, started, ticked, removed) and sums them up in ``args``; its
    result, the list's repr, is not kept. A result of several content blocks (an MCP tool's
    texts, images, resources) carries them as ``parts``, each shown by its kind."""

    kind: Literal["tool"]
    id: str
    agent: str
    name: str
    args: str
    args_full: str
    status: ToolStatus
    result: str
    result_full: str
    eval: NotRequired[EvalCard]
    subagent: NotRequired[str]
    clipped: NotRequired[bool]
    edited: NotRequired[bool]
    server: NotRequired[str]
    decision: NotRequired[ActionDecision]
    todo_changes: NotRequired[list[TodoChange]]
    parts: NotRequired[list[ContentPart]]


class NoticeItem(TypedDict):
    """A line about the run itself: it was stopped, or (``level="collapsed"``) ``hidden`` items
    were folded behind it; ``expand`` says the live view can fetch them."""

    kind: Literal["notice"]
    id: str
    level: NoticeLevel
    text: str
    agent: NotRequired[str]
    hidden: NotRequired[int]
    expand: NotRequired[bool]


class ErrorItem(TypedDict):
    """Why the run failed (secrets removed)."""

    kind: Literal["error"]
    id: str
    text: str


class SummaryItem(TypedDict):
    """A context summarization (see :class:`deepnb.engine.tree.Summary` for the fields)."""

    kind: Literal["summary"]
    id: str
    agent: str
    messages: int | None
    cutoff: int
    tokens_before: int | None
    tokens_after: int | None
    summary: str
    summary_html: str
    file_path: str | None


class UpdateItem(TypedDict):
    """A node's state update, in a graph that does not speak messages: ``node`` is its name,
    ``keys`` the state keys it updated, ``text`` the update as JSON (redacted and clipped)."""

    kind: Literal["update"]
    id: str
    agent: str
    node: str
    keys: list[str]
    text: str


TranscriptItem: TypeAlias = (
    PromptItem | TextItem | ThinkingItem | ToolItem | NoticeItem | ErrorItem | SummaryItem | UpdateItem
)
"""One transcript item; ``kind`` tells which."""

# -- todos, progress, the subagent tree -------------------------------------------------------


class Todo(TypedDict):
    content: str
    status: TodoStatus


class Progress(TypedDict):
    """The run's counters; ``todo_progress`` is ``"Task 2 of 5"``, ``"All 5 done"`` or ``""``.
    ``elapsed`` is run time: the seconds spent waiting for decisions or answers are not in it but
    in ``waited``; ``waiting_since`` is when the current wait began (epoch seconds), ``None``
    while the run runs or once it ended."""

    steps: int
    """Model calls of the run, subagents' too (or a graph's node updates)."""
    step: NotRequired[int]
    """The thread's step now: what the fork chips, the timeline, ``history`` and ``--at`` say."""
    first_step: NotRequired[int]
    """The thread's step before the run (its own steps are ``first_step + 1`` … ``step``)."""
    tool_calls: int
    tokens_in: int
    tokens_out: int
    started_at: float
    elapsed: float
    todo_progress: str
    waited: NotRequired[float]
    waiting_since: NotRequired[float | None]
    tokens_reasoning: NotRequired[int | None]
    """Of ``tokens_out``, those spent reasoning (``None`` where no provider reported them)."""
    tokens_unreported: NotRequired[int]
    """Model calls whose provider reported no usage: their tokens are unknown, not in the counts."""


class NodeState(TypedDict):
    """One subagent of the tree, flat: ``id`` is its agent path, ``parent`` its parent's path
    (``"main"`` for the main agent, which has no node), ``children`` its children's paths.
    ``tool_calls`` and the tokens count the node's own calls, not its children's; of those,
    ``calls_declined`` were answered without running (reject, respond) and ``calls_failed`` failed."""

    id: str
    parent: str
    name: str
    label: str
    description: str
    source: NodeSource
    call_id: str
    status: NodeStatus
    started_at: float
    finished_at: float | None
    waited_at_start: NotRequired[float]
    """The run's seconds waited (for decisions or answers) when the node started."""
    waited: NotRequired[float]
    """Seconds the run waited while the node ran (once it ended): not in its duration."""
    tool_calls: int
    calls_declined: int
    calls_failed: int
    tokens_in: int
    tokens_out: int
    activity: str
    result: str
    result_full: str
    children: list[str]
    tokens_reasoning: NotRequired[int | None]
    tokens_unreported: NotRequired[int]


# -- pending requests and decisions -------------------------------------------------------------


class FilePreview(TypedDict):
    kind: PreviewKind
    text: str


class PendingAction(TypedDict):
    """One gated tool call of a pending request: what it would run (``args`` one line,
    ``args_json`` in full, both redacted), the decisions it allows, and any already made.
    ``clipped`` says a view shortened its arguments to fit, so its card cannot edit them."""

    index: int
    name: str
    args: str
    args_json: str
    description: str
    allowed: list[DecisionType]
    preview: FilePreview | None
    decision: ActionDecision | None
    clipped: NotRequired[bool]


class PendingRequest(TypedDict):
    """An interrupt waiting for an answer, raised by ``agent``. A human-in-the-loop request lists
    its gated tool calls in ``actions``; any other interrupt has none and is a ``question``: its
    ``value`` (JSON data, redacted; ``None`` when too long to show whole), ``value_json`` (its
    JSON text, clipped) and ``answer`` (one line, once answered)."""

    id: str
    agent: str
    actions: list[PendingAction]
    kind: NotRequired[PendingKind]
    value: NotRequired[Any]
    value_json: NotRequired[str]
    answer: NotRequired[str | None]


class DecisionLogEntry(TypedDict):
    """One decision as the decision log records it (``auto``: by an "always approve" rule; ``diff``:
    an edit's unified diff from the proposed arguments to the approved ones, as JSON lines)."""

    at: str
    interrupt_id: str
    index: int
    tool: str
    type: DecisionMade
    message: str
    args: str
    auto: bool
    diff: NotRequired[str]


# -- async subagent tasks ---------------------------------------------------------------------


class AsyncTaskRow(TypedDict):
    """A thread's async subagent task. Every field is the server's text (``""`` when missing);
    ``status`` is usually an :data:`AsyncTaskStatus`."""

    task_id: str
    agent_name: str
    thread_id: str
    run_id: str
    status: str
    created_at: str
    last_checked_at: str
    last_updated_at: str


# -- what the agents were given ------------------------------------------------------------------


class GivenSkill(TypedDict):
    """A skill loaded into an agent's prompt (``agent``: ``"main"`` or a subagent's name)."""

    name: str
    description: str
    agent: str


class GivenMemory(TypedDict):
    """A memory file loaded into an agent's prompt."""

    path: str
    agent: str


class Given(TypedDict):
    """What the agents of a run were given: skills and memory files in their prompts, and the
    tools each agent (``"main"`` or a subagent's name) can call."""

    skills: list[GivenSkill]
    memory: list[GivenMemory]
    tools: dict[str, list[str]]


# -- the run state --------------------------------------------------------------------------------


class RunStateJSON(TypedDict):
    """Everything a view shows of a run (:meth:`deepnb.engine.state.RunState.to_json`); the run view's
    synced traits carry these fields (bounded to their budgets)."""

    agent: str
    thread_id: str
    status: RunStatus
    error: str
    items: list[TranscriptItem]
    todos: list[Todo]
    files_changed: list[str]
    files_not_written: list[str]
    pending: list[PendingRequest]
    decisions: list[DecisionLogEntry]
    progress: Progress
    tree: list[NodeState]
    async_tasks: list[AsyncTaskRow]
    given: Given


class LiveState(TypedDict, total=False):
    """The fields of a run's state a live patch may carry (those that changed)."""

    status: RunStatus
    error: str
    todos: list[Todo]
    progress: Progress
    files_changed: list[str]
    files_not_written: list[str]
    async_tasks: list[AsyncTaskRow]
    given: Given
    pending: list[PendingRequest]
    decisions: list[DecisionLogEntry]


class RunPatch(TypedDict):
    """A live update of the run view: the changed ``state`` fields, the transcript items to add or
    replace (``upsert``), the new order of the items (``ids``) or the ids appended to it
    (``append_ids``), and the tree nodes that changed."""

    type: Literal["patch"]
    state: LiveState
    upsert: list[TranscriptItem]
    ids: NotRequired[list[str]]
    append_ids: NotRequired[list[str]]
    nodes: NotRequired[list[NodeState]]


# -- files -------------------------------------------------------------------------------------


class FileEntry(TypedDict):
    """A file or folder of a thread's files (folders' paths end with ``/``); ``mount`` names the
    backend mounted at a folder, ``writable`` whether the view may save the file now."""

    path: str
    name: str
    is_dir: bool
    size: int | None
    modified_at: str | None
    mount: str | None
    writable: bool


class ListingReply(TypedDict):
    """A page of a folder's entries (``ls``)."""

    type: Literal["listing"]
    seq: str | int | None
    path: str
    entries: list[FileEntry]
    offset: int
    total: int
    error: str


class FileReply(TypedDict):
    """A file rendered for the viewer (``open``); ``kind`` is ``""`` when it could not be read.
    ``text`` is set when the file can be edited; ``readonly`` says why it cannot."""

    type: Literal["file"]
    seq: NotRequired[str | int | None]
    path: str
    kind: FileKind | Literal[""]
    html: str
    text: str
    size: int
    modified_at: str | None
    writable: bool
    editable: bool
    readonly: str
    error: str


class PathMatch(TypedDict):
    """A search result: a path (glob), or a line of a file (grep)."""

    path: str
    line: NotRequired[int]
    text: NotRequired[str]


class ResultsReply(TypedDict):
    """Files found by a glob pattern or a text search (``search``)."""

    type: Literal["results"]
    seq: str | int | None
    mode: Literal["glob", "grep"]
    query: str
    path: str
    results: list[PathMatch]
    total: int
    capped: bool
    error: str


class SavedReply(TypedDict):
    """The editor's text written (``save``), and the file rendered again."""

    type: Literal["saved"]
    seq: str | int | None
    path: str
    file: FileReply | None
    error: str


class BlobReply(TypedDict):
    """A file's bytes, base64-encoded, for the browser to save (``download``)."""

    type: Literal["blob"]
    seq: str | int | None
    path: str
    name: str
    mime: str
    size: int
    base64: str
    error: str


class FileChangeRow(TypedDict):
    """What a run did to one file: a unified diff (secrets removed), ``clipped`` when shortened."""

    path: str
    kind: ChangeKind
    diff: str
    clipped: bool


class ChangesReply(TypedDict):
    """What the followed run changed (``changes``)."""

    type: Literal["changes"]
    seq: str | int | None
    run_id: str
    status: RunStatus | Literal[""]
    changes: list[FileChangeRow]
    error: str


class ChangedMessage(TypedDict):
    """Sent unasked while a run writes files: the paths to look at again (``["/"]``: all)."""

    type: Literal["changed"]
    paths: list[str]


class RefusedReply(TypedDict):
    """A request refused before anything was done: ``type`` is the reply its kind would get
    (``"refused"`` for an unknown kind), ``error`` says why."""

    type: str
    seq: str | int | None
    error: str


FilesReply: TypeAlias = (
    ListingReply | FileReply | ResultsReply | SavedReply | BlobReply | ChangesReply | RefusedReply
)
"""A reply of the file view to one of its front-end's requests (each echoes the request's ``seq``;
``error`` is ``""`` or what went wrong)."""


class PeekedFile(TypedDict):
    """A file of the thread for the run view's file panel (escaped, secrets removed)."""

    type: Literal["file"]
    path: str
    text: str
    html: str
    error: str


# -- the run view's box: follow-ups and steering --------------------------------------------------


class EarlierTurn(TypedDict):
    """A turn of the conversation above the one a run view streams, once a follow-up from its
    box moved the view on: what it was asked (``prompt``, secrets redacted), how it ended
    (``status``, and ``head``: its one line of steps, tool calls and time), its final answer
    (``answer_html``: the Markdown rendered and escaped, ``""`` where there is none or it did not
    fit) and its ``error``."""

    run_id: str
    prompt: str
    status: RunStatus
    head: str
    answer_html: str
    error: str


class ComposedReply(TypedDict):
    """The answer to the run view's box: ``kind`` is what it sent (a follow-up, or a message to
    steer the running agent), ``error`` why it was refused (``""``: it went through)."""

    type: Literal["composed"]
    kind: Literal["follow_up", "steer"]
    error: str
