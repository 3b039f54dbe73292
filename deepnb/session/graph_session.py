"""What every workbench is: a :class:`deepnb.session.protocol.Session` that drives a LangGraph
graph's threads — runs, approvals, state, files, history, forks — through the graph's own API
(``astream``, ``aget_state``, ``aupdate_state``), whether the graph is compiled in this kernel
(:class:`deepnb.session.local.Workbench`) or served (:class:`deepnb.session.remote.workbench.
RemoteWorkbench`, whose graph speaks to a server). Each kind says where its threads are listed
from, how a thread is deleted, and what it cannot do."""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, cast

from deepnb.core.errors import DeepnbError
from deepnb.core.graphs.context import context_for
from deepnb.core.graphs.inputs import input_for, input_line
from deepnb.core.graphs.updates import FILES, check_update, holds_file_data, state_keys
from deepnb.core.loop import in_engine_thread, run_sync
from deepnb.core.schema import ENDED
from deepnb.core.threads import locks as thread_locks
from deepnb.core.threads.reading import read_history, read_state
from deepnb.engine.anatomy import Anatomy
from deepnb.engine.approvals import ApprovalRequest
from deepnb.engine.files.setup import FileSetup
from deepnb.engine.files.sources import file_data
from deepnb.engine.graph_shape import GraphDrawing, GraphShape, read_shape
from deepnb.engine.history import (
    FORK_NODE,
    FORKED_AT,
    INPUT,
    START,
    as_node,
    pick,
    step_before,
    steps_of,
)
from deepnb.engine.mcp import McpServer
from deepnb.engine.recording import kept
from deepnb.engine.spec import AgentSpec
from deepnb.engine.step_state import StateDiff, StepState, clip, diff_values
from deepnb.engine.tree import SubagentNode, tree_from_messages
from deepnb.session import claims
from deepnb.session.files.files import Files
from deepnb.session.protocol import History, ThreadInfo
from deepnb.session.run import PENDING_ONLY, Run

if TYPE_CHECKING:
    from deepnb.many.batch import Batch

STOPPING_WAIT = 5.0
"""Seconds a new run waits for a run told to stop on its thread to end (see ``start``)."""
ENDING_SECONDS = 10.0
"""How long a run that has ended may take to read its last checkpoints and let go of its thread."""


def new_thread_id() -> str:
    return uuid.uuid4().hex[:12]


class GraphSession(ABC):
    """An agent with threads, driven through its graph. ``run()`` sends it a prompt.

    ``spec``, ``checkpointer`` and ``extensions`` are what this kernel built it from: ``None``
    for an agent served elsewhere or attached as a compiled graph (``spec``)."""

    spec: AgentSpec | None = None
    checkpointer: Any = None
    extensions: Any = None
    """The extension registrations the agent was built with (``deepnb.extensions.hosting.Applied``)."""

    def __init__(
        self,
        name: str,
        graph: Any,
        *,
        database: Any,
        label: str,
        origin: str | None = None,
        context: Mapping[str, Any] | None = None,
    ) -> None:
        self.name = name
        self.graph = graph
        self.label = label
        self.origin = origin
        """Where the agent is defined: its config file (``deepnb.toml``, ``pyproject.toml``) or its
        server, if any."""
        self.context: dict[str, Any] | None = dict(context) if context else None
        """The agent's own runtime context (``deepnb.agent(context=...)``, a ``context`` table in
        ``deepnb.toml``): every run gets it, under what the run is given (``start(context=)``)."""
        self.database = database
        """Which database holds the threads: runs on one thread of it are one at a time, whatever
        agent starts them (:mod:`deepnb.session.claims`)."""
        self._current_thread: str | None = None
        self._latest: dict[str, Run] = {}
        self._always: dict[str, set[str]] = {}
        self._lock = threading.Lock()

    @property
    @abstractmethod
    def file_setup(self) -> FileSetup:
        """Where the agent's files live, and its memory and skills."""

    # -- threads ----------------------------------------------------------------------------

    @property
    def _active(self) -> dict[str, Run]:
        """The runs holding threads of this workbench's database now, by thread id."""
        return cast(dict[str, Run], claims.held(self.database))

    @property
    def served_by(self) -> str | None:
        """``None``: the agent's runs execute in this kernel."""
        return None

    @property
    @abstractmethod
    def cannot_rebuild(self) -> str | None:
        """Why this agent cannot be built again with another model or options (``None``: it can)."""

    @property
    @abstractmethod
    def how_to_change(self) -> str:
        """What to do instead, where :attr:`cannot_rebuild` says why not."""

    @property
    def declared_spec(self) -> AgentSpec | None:
        """The spec as written, before extensions added to it (``None``: not built here)."""
        return None if self.spec is None else (self.spec.declared or self.spec)

    @property
    def current_thread(self) -> str:
        """The thread runs go to by default: the one chosen in this kernel (``-t``, ``--new``, a
        run), else a new one."""
        if self._current_thread is None:
            self._current_thread = self.fresh_thread_id()
        return self._current_thread

    @property
    def selected_thread(self) -> str | None:
        """The thread runs go to by default, if one is chosen yet (``current_thread`` chooses)."""
        return self._current_thread

    def fresh_thread_id(self) -> str:
        """An id for a new thread (a server may want its own kind of id)."""
        return new_thread_id()

    def use_thread(self, thread_id: str) -> str:
        self._current_thread = thread_id
        return thread_id

    def new_thread(self) -> str:
        """Start a fresh thread and make it the current one."""
        return self.use_thread(self.fresh_thread_id())

    @abstractmethod
    def threads(self) -> list[ThreadInfo]:
        """This agent's threads, the most recently updated first."""

    def read_state(self, thread_id: str) -> Any:
        """The thread's ``StateSnapshot``, or one line (:class:`UnreadableThread`) where its
        checkpoint cannot be loaded."""
        config = {"configurable": {"thread_id": thread_id}}
        return run_sync(read_state(self.graph, config, agent=self.name))

    def state_values(self, thread_id: str | None = None) -> Mapping[str, Any]:
        """The thread's current state values (``messages``, ``todos``, ``files``, …)."""
        return self.read_state(thread_id or self.current_thread).values or {}

    def files(self, thread_id: str | None = None) -> Files:
        """The thread's files: a mapping of path → text with ls, glob, grep, write, edit, …"""
        return Files(self, thread_id or self.current_thread)

    def todos(self, thread_id: str | None = None) -> list[dict[str, str]]:
        return [dict(t) for t in self.state_values(thread_id).get("todos") or []]

    @abstractmethod
    def inspect(self) -> Anatomy:
        """The agent's anatomy (middleware, tools, interrupt rules, backend, model), or one line
        saying where to read it."""

    @abstractmethod
    def mcp(self) -> list[McpServer]:
        """The MCP servers the agent was built with, or one line saying where to list them."""

    # -- runs -------------------------------------------------------------------------------

    def latest_run(self, thread_id: str | None = None) -> Run | None:
        """The newest run this kernel started (or resumed) on the thread, whatever its status."""
        with self._lock:
            return self._latest.get(thread_id or self.current_thread)

    def tree(self, thread_id: str | None = None) -> SubagentNode:
        """The subagent tree of the thread's latest run; after a restart, the top-level ``task``
        calls read back from the thread's messages."""
        thread = thread_id or self.current_thread
        run = self.latest_run(thread)
        if run is not None:
            return run.tree
        if thread not in {info.thread_id for info in self.threads()}:
            raise DeepnbError(
                f"Agent {self.name!r} has no thread {thread!r}: %deepagent threads lists its threads."
            )
        return tree_from_messages(self.state_values(thread).get("messages") or [], root_name=self.name)

    def active_run(self, thread_id: str | None = None) -> Run | None:
        """The run holding the thread now, started by this agent or another on its database. A
        run waiting on interrupts is checked against the thread's state first: answered
        elsewhere, it holds the thread no more."""
        run = cast(Run | None, claims.holder(self.database, thread_id or self.current_thread))
        if run is not None and run.status == "interrupted":
            run.refresh()
            run = cast(Run | None, claims.holder(self.database, thread_id or self.current_thread))
        elif run is not None and run.status in ENDED and not in_engine_thread():
            # It has ended and reads its last checkpoints before it lets go: a moment, then free.
            run.wait(ENDING_SECONDS)
            run = cast(Run | None, claims.holder(self.database, thread_id or self.current_thread))
        return run

    def start(
        self,
        prompt: str | Mapping[str, Any],
        *,
        thread: str | None = None,
        new_thread: bool = False,
        auto_approve: bool = False,
        at: int | str | None = None,
        context: Mapping[str, Any] | None = None,
    ) -> Run:
        """Start a run on a thread and return at once. One run per thread at a time. ``prompt``
        is a prompt, or a dict of input keys for a graph that does not speak messages. With
        ``at`` (a step number or a checkpoint id) the run goes on a new thread forked from
        ``thread`` (default: the current one) at that step; the original thread is untouched."""
        if thread:
            self.check_thread(thread)
        if new_thread and thread:
            raise DeepnbError("Use either -t THREAD or --new, not both.")
        if at is not None and new_thread:
            raise DeepnbError("Use either --at STEP or --new, not both (--at forks a thread that has steps).")
        checked = input_for(self.graph, prompt, agent=self.name)  # one a graph cannot take: one line
        given = context_for(self.graph, self._merged_context(context), agent=self.name)
        if at is not None:
            thread = self.fork(thread or self.current_thread, at)
        fresh = new_thread or (not thread and self.selected_thread is None)  # nothing to read yet
        thread_id = self.fresh_thread_id() if new_thread else (thread or self.current_thread)
        run = Run(self, thread_id, input_line(prompt))
        self.active_run(thread_id)  # a run whose interrupts were answered elsewhere lets go
        busy = self._claim_after_stop(run)
        if busy is not run:
            holder = busy.workbench.name
            if busy.status == "interrupted":
                asks = busy.waits_for_answers()
                raise DeepnbError(
                    f"Thread {thread_id!r} of agent {holder!r} is waiting for your "
                    f"{'answer' if asks else 'approval'} ({busy.id}): "
                    f"{'answer' if asks else 'decide'} on its cards (or %deepagent approvals), "
                    "stop it with %deepagent stop, or start another thread with --new."
                )
            raise DeepnbError(
                f"Thread {thread_id!r} of agent {holder!r} is already running ({busy.id}). "
                "Wait for it, stop it with %deepagent stop, or start another thread with --new."
            )
        with self._lock:
            run.previous = kept(self._latest.get(thread_id))  # a recording replays the thread's runs
            self._latest[thread_id] = run
        try:
            graph_input = (  # a fork takes the prompt as it is, never as "go on with the same one"
                checked if at is not None else self._continued(thread_id, prompt, checked, fresh=fresh)
            )
            run.start(self.graph, graph_input, auto_approve=auto_approve, fresh_thread=fresh, context=given)
        except BaseException:
            self.release_thread(run)
            raise
        self.use_thread(thread_id)
        return run

    def _claim_after_stop(self, run: Run) -> Run:
        """Take ``run``'s thread (see :func:`claims.claim`); a run holding it that was just told
        to stop (Stop, then the next cell at once) is given :data:`STOPPING_WAIT` seconds to end
        first, instead of refusing the new run."""
        deadline = time.monotonic() + STOPPING_WAIT
        while True:
            busy = claims.claim(self.database, run)
            if busy is run or not getattr(busy, "stopping", False) or time.monotonic() >= deadline:
                return busy
            if in_engine_thread():  # its end runs on this thread: waiting would hold it up
                return busy
            with contextlib.suppress(TimeoutError):
                busy.wait(max(0.0, deadline - time.monotonic()))
            time.sleep(0.01)  # its end releases the thread just after

    def _merged_context(self, context: Mapping[str, Any] | None) -> dict[str, Any] | None:
        """The agent's own runtime context (its ``deepnb.toml`` table), with ``context``'s keys
        over it; ``None`` where neither gives one."""
        if context is not None and not isinstance(context, Mapping):
            raise DeepnbError(f"Runtime context is a dict of keys, not a {type(context).__name__}.")
        if not self.context and context is None:
            return None
        return {**(self.context or {}), **(context or {})}

    def _own_context(self) -> dict[str, Any] | None:
        """The context a run rebuilt from the thread goes on with (after a restart, a resume):
        the agent's own, since the one a run was given is kept nowhere."""
        return context_for(self.graph, self._merged_context(None), agent=self.name)

    def run(self, prompt: str | Mapping[str, Any], *, background: bool = False, **options: Any) -> Run:
        """Run ``prompt`` (or a dict of input keys); wait for the end unless ``background``.
        Ctrl-C stops the run."""
        run = self.start(prompt, **options)
        return run if background else run.follow()

    def map(
        self,
        inputs: Iterable[str | Mapping[str, Any]],
        *,
        concurrency: int = 4,
        template: str | None = None,
        **run_options: Any,
    ) -> Batch:
        """Start one run per input, each on a new thread, at most ``concurrency`` at once, and
        return the :class:`~deepnb.many.batch.Batch` at once. Inputs are prompts or dicts; with a
        ``template`` (``"Summarize {title}"``) each dict's fields fill it (a string fills
        ``{input}``), without one a dict is the graph's input. ``run_options`` go to each run
        (``auto_approve=True``). Bad input raises one line and starts nothing."""
        from deepnb.many.batch import start  # noqa: PLC0415  # the one call up: a batch is a session of sessions

        return start(self, inputs, concurrency=concurrency, template=template, run_options=run_options)

    def _continued(
        self, thread_id: str, prompt: str | Mapping[str, Any], checked: dict[str, Any], *, fresh: bool = False
    ) -> dict[str, Any] | None:
        """The graph input (``checked``: the prompt or dict as the graph takes it), or ``None`` to
        continue a failed or stopped run of the same prompt from its last checkpoint (never on a
        ``fresh`` thread: it has none)."""
        if not isinstance(prompt, str) or fresh:
            return checked
        snapshot = self.read_state(thread_id)
        if snapshot.next and not snapshot.interrupts:
            humans = [m for m in snapshot.values.get("messages", []) if getattr(m, "type", "") == "human"]
            if humans and humans[-1].content == prompt:
                return None
        return checked

    def always_approved(self, thread_id: str) -> frozenset[str]:
        """Tools approved without asking on this thread ("always approve" on a card)."""
        with self._lock:
            return frozenset(self._always.get(thread_id, ()))

    def always_approve(self, thread_id: str, tool: str) -> None:
        with self._lock:
            self._always.setdefault(thread_id, set()).add(tool)

    def pending_run(self, thread_id: str | None = None) -> Run:
        """The run waiting for approval on a thread: the one in memory, or, after a kernel
        restart, a run rebuilt from the thread's checkpoint with its pending interrupts."""
        thread_id = thread_id or self.current_thread
        if self.active_run(thread_id) is None:  # a run whose interrupts were answered elsewhere lets go
            self.read_state(thread_id)  # a thread that cannot be read: its one line, no run
        run, fresh = self._claimed(thread_id)
        if not fresh:
            return run
        run.start(self.graph, PENDING_ONLY, context=self._own_context())
        run.wait()
        if run.status != "interrupted":
            raise DeepnbError(
                f"Nothing on thread {thread_id!r} of agent {self.name!r} is waiting for approval."
            )
        return run

    def resume(self, thread_id: str | None = None, *, decisions: list[dict[str, Any]] | None = None) -> Run:
        """Continue a thread: the run waiting for approval if there is one, else the failed or
        stopped run, from its last checkpoint (in the background). ``decisions`` (one per pending
        request, in ``run.pending`` order: ``{"type": "approve"}``, ``{"type": "reject",
        "message": ...}``, …; for a raw interrupt, the value it is resumed with) decide the
        waiting run's requests."""
        run = self._continue(thread_id or self.current_thread)
        if decisions is not None:
            pending = run.pending
            if run.status != "interrupted" or len(decisions) != len(pending):
                raise DeepnbError(
                    f"{run.id} waits for {len(pending)} decision(s), not {len(decisions)}: give one per "
                    "request of run.pending, in order."
                )
            for request, decision in zip(pending, decisions, strict=True):
                if isinstance(request, ApprovalRequest):
                    run.decide(request.interrupt_id, request.index, decision)
                else:
                    request.resume(decision)
        return run

    def stop(self, thread_id: str | None = None) -> Run:
        """Stop the run holding a thread (running, or waiting for approval) and return it."""
        thread = thread_id or self.current_thread
        run = self.active_run(thread)
        if run is None:
            raise DeepnbError(f"Nothing is running on thread {thread!r} of agent {self.name!r}.")
        run.stop()
        return run

    def history(self, thread_id: str | None = None) -> History:
        """The thread's checkpoints, the newest first: each with the step it belongs to (what
        ``fork`` and ``--at`` take), the agent and node that wrote it and what changed (a
        message, a tool call, todos, files); drawn as one row per step. An unknown thread has
        none."""
        thread = thread_id or self.current_thread
        return History.of(self._snapshots(thread), thread=thread, agent=self.name, session=self)

    def _snapshots(self, thread_id: str) -> list[Any]:
        config = {"configurable": {"thread_id": thread_id}}
        return run_sync(read_history(self.graph, config, agent=self.name))

    def fork(self, thread_id: str, at: int | str, update: Mapping[str, Any] | None = None) -> str:
        """A new thread whose state is ``thread_id``'s at step ``at`` (a step number or a
        checkpoint id), with the same nodes to run next, so a run there goes on from that step;
        returns its id. The original thread is untouched.

        ``update`` (a dict of state keys) is then written into the fork as the node that wrote
        that step would have written it (LangGraph's ``update_state(..., as_node=...)``: each
        key through its reducer, and what runs next decided again), so ``resume`` or a new
        prompt goes on from the edited state. Files may be given as text:
        ``update={"files": {"/notes.md": "text"}}`` (``None`` deletes one). A key the state
        does not have, or a value its key or reducer cannot take, is refused in one line and
        nothing is forked."""
        self.check_thread(thread_id)
        snapshots = self._snapshots(thread_id)
        index = pick(snapshots, at, thread=thread_id, agent=self.name)
        target = snapshots[index]
        values = dict(target.values or {})
        if update is not None:
            known = self._state_keys()
            keys = None if known is None else sorted(set(known) | set(values))
            check_update(self.graph, update, keys=keys, agent=self.name)
            update = self._with_file_data(update, values)
        new = self._new_fork_thread(thread_id)
        step = steps_of(snapshots)[index]  # said in its metadata: a graph without messages has no other
        node = as_node(snapshots, index)
        config = {"configurable": {"thread_id": new}, "metadata": {FORKED_AT: step, FORK_NODE: node}}
        if node == START and as_node(snapshots, index + 1) != INPUT:  # a later run's first step:
            # the start node writes only the input keys, so the rest goes in first, as the node
            # that ended the run before
            before = as_node(snapshots, index + 1)
            first = {**config, "metadata": {FORKED_AT: step, FORK_NODE: before}}
            run_sync(self.graph.aupdate_state(first, values, as_node=before))
        run_sync(self.graph.aupdate_state(config, values, as_node=node))
        made = self.read_state(new)
        if tuple(made.next or ()) != tuple(target.next or ()) or made.values != values:
            self._discard_thread(new)  # never a fork that would differ
            raise DeepnbError(
                f"Step {at} of thread {thread_id!r} cannot be copied exactly (its state or what runs next "
                "would differ): fork at the step after it (%deepagent history lists them)."
            )
        if update:
            self._apply_update(new, config, update, node)
        return new

    def _state_keys(self) -> list[str] | None:
        """The keys of the agent's state (``None``: it does not say)."""
        return state_keys(self.graph)

    def _with_file_data(self, update: Mapping[str, Any], values: Mapping[str, Any]) -> dict[str, Any]:
        """``update`` with each file given as text (or bytes) made the file dict deepagents keeps
        in its state, where the state's files are such dicts."""
        files = update.get(FILES)
        if not isinstance(files, Mapping) or not holds_file_data(self.graph, values.get(FILES)):
            return dict(update)
        current = values.get(FILES) if isinstance(values.get(FILES), Mapping) else {}
        assert isinstance(current, Mapping)
        made = {
            path: file_data(data, current.get(path)) if isinstance(data, str | bytes) else data
            for path, data in files.items()
        }
        return {**update, FILES: made}

    def _apply_update(
        self, thread: str, config: dict[str, Any], update: Mapping[str, Any], node: str
    ) -> None:
        """Write ``update`` into the fork ``thread`` as ``node``; a reducer that refuses it
        deletes the fork and says which key, in one line."""
        try:
            run_sync(self.graph.aupdate_state(config, dict(update), as_node=node))
        except DeepnbError:
            self._discard_thread(thread)
            raise
        except Exception as exc:
            key = self._refused_key(config, update, node) if len(update) > 1 else next(iter(update))
            self._discard_thread(thread)
            reason = clip(" ".join(f"{type(exc).__name__}: {exc}".split()), 160)
            raise DeepnbError(
                f"Agent {self.name!r}'s state cannot take the update's {key!r}: its reducer refused it "
                f"({reason}). Give a value of the shape that key's updates take; nothing was forked."
            ) from None

    def _refused_key(self, config: dict[str, Any], update: Mapping[str, Any], node: str) -> str:
        """The first key of ``update`` the fork's state refuses alone (on a fork being deleted)."""
        for key, value in update.items():
            try:
                run_sync(self.graph.aupdate_state(config, {key: value}, as_node=node))
            except Exception:  # this one: its reducer cannot take it
                return key
        return ", ".join(update)

    def draw_graph(self, xray: bool | int = True) -> GraphDrawing:
        """The agent's graph, drawn: its nodes and edges as LangGraph draws them
        (``get_graph(xray=...)``: middleware hooks, model, tools, and with ``xray`` the nodes of
        its subgraphs), each subagent as a nested cluster, conditional edges dashed. Shows as an
        SVG diagram (kept in a saved notebook) and, as text, its nodes and edges; ``.shape``
        holds them as data."""
        shape, source, notes = self._graph_shape(xray)
        return GraphDrawing(self.name, shape, xray, source, notes)

    def _graph_shape(self, xray: bool | int) -> tuple[GraphShape, str, tuple[str, ...]]:
        """The graph's shape, where it was read, and notes on what it leaves out."""
        return read_shape(self.graph, xray=xray), "this kernel", ()

    def state(self, thread_id: str | None = None, at: int | str | None = None) -> StepState:
        """The thread's state values as they were at step ``at`` (a step number, as history
        numbers them, or a checkpoint id; ``None``: now): messages, todos, files, the
        structured response and the graph's other keys."""
        thread = thread_id or self.current_thread
        self.check_thread(thread)
        snapshots = self._snapshots(thread)
        index = self._located(snapshots, at, thread)
        return self._step_state(snapshots, index, thread, at)

    def diff(self, thread_id: str | None, a: int | str, b: int | str | None = None) -> StateDiff:
        """What changed in the thread's state from step ``a`` to step ``b`` (step numbers or
        checkpoint ids; ``0``: the empty state the thread began from): messages added, removed
        or changed, todos, files (a line diff each) and the other keys. Without ``b``: what step
        ``a`` did, from the step before it (or, for a checkpoint id, the checkpoint before)."""
        thread = thread_id or self.current_thread
        self.check_thread(thread)
        snapshots = self._snapshots(thread)
        if b is None:
            after = self._located(snapshots, a, thread)
            before = step_before(snapshots, a, after)
            labels = (self._label(snapshots, before), self._label(snapshots, after, a))
        else:
            before = None if str(a).strip() == "0" else self._located(snapshots, a, thread)
            after = self._located(snapshots, b, thread)
            labels = (self._label(snapshots, before, a), self._label(snapshots, after, b))
        old = (snapshots[before].values or {}) if before is not None else {}
        return diff_values(old, snapshots[after].values or {}, thread=thread, agent=self.name, labels=labels)

    def _located(self, snapshots: list[Any], at: int | str | None, thread: str) -> int:
        if at is None:
            if not snapshots:
                raise DeepnbError(
                    f"Agent {self.name!r} has no thread {thread!r}: %deepagent threads lists its threads."
                )
            return 0
        return pick(snapshots, at, thread=thread, agent=self.name, reading=True)

    @staticmethod
    def _label(snapshots: list[Any], index: int | None, at: int | str | None = None) -> str:
        """``step 3``, ``checkpoint 1f0… (step 3)``, or ``the start`` (``index`` ``None``)."""
        if index is None:
            return "the start"
        step = steps_of(snapshots)[index]
        if at is not None and not str(at).strip().lstrip("-").isdigit():
            return f"checkpoint {str(at).strip()} (step {step})"
        return f"step {step}"

    def _step_state(self, snapshots: list[Any], index: int, thread: str, at: int | str | None) -> StepState:
        snapshot = snapshots[index]
        wanted: int | str | None = at
        if at is not None and str(at).strip().lstrip("-").isdigit():
            wanted = int(str(at).strip())
        return StepState(
            thread=thread,
            agent=self.name,
            step=steps_of(snapshots)[index],
            checkpoint_id=str((snapshot.config or {}).get("configurable", {}).get("checkpoint_id", "")),
            created_at=str(snapshot.created_at or ""),
            next=tuple(snapshot.next or ()),
            values=dict(snapshot.values or {}),
            at=wanted,
        )

    def _new_fork_thread(self, thread_id: str) -> str:
        """The id of the thread a fork of ``thread_id`` is written to (a server makes it first)."""
        return self.fresh_thread_id()

    @abstractmethod
    def _discard_thread(self, thread_id: str) -> None:
        """Delete a thread deepnb just made (a fork that could not be copied exactly)."""

    def _continue(self, thread_id: str) -> Run:
        active = self.active_run(thread_id)
        if active is not None:
            return active
        snapshot = self.read_state(thread_id)
        if snapshot.interrupts:
            return self.pending_run(thread_id)
        if not snapshot.next:
            # a run in another kernel may hold the thread before its first step is written: it
            # says so rather than that nothing is left to resume
            with claims.across_kernels(self.database, thread_id, advice=thread_locks.START_ADVICE):
                pass
            raise DeepnbError(
                f"Thread {thread_id!r} of agent {self.name!r} has nothing to resume: its last run ended. "
                "Send a new task in a %%deepagent cell."
            )
        run, fresh = self._claimed(thread_id)
        return run.start(self.graph, None, context=self._own_context()) if fresh else run

    def _claimed(self, thread_id: str, prompt: str | None = None) -> tuple[Run, bool]:
        """A new run holding ``thread_id`` and ``True``, or the run already holding it and
        ``False``."""
        run = Run(self, thread_id, prompt)
        held = claims.claim(self.database, run)
        if held is not run:
            return held, False
        with self._lock:
            self._latest[thread_id] = run
        return run, True

    def check_thread(self, thread_id: str) -> None:
        """One line unless ``thread_id`` can be a thread of this agent (here any id can)."""
        return None

    def claim_thread(self, run: Run) -> None:
        """``run`` holds its thread again (it resumes after approval)."""
        claims.claim(self.database, run, force=True)
        with self._lock:
            self._latest[run.thread_id] = run

    def release_thread(self, run: Run) -> None:
        """``run`` no longer holds its thread (it ended, or was abandoned at an approval)."""
        claims.release(self.database, run)

    def carry_over(self, previous: GraphSession) -> None:
        """Go on where ``previous`` (the agent this one replaces, on the same threads) was: its
        current thread, and its lock."""
        self._current_thread = previous._current_thread
        self._lock = previous._lock
