"""The session protocol: what the magics, the views and batches ask of an agent, whatever runs it,
and the data it answers with (:class:`Checkpoint`, :class:`ThreadInfo`).

The local :class:`~deepnb.session.local.Workbench` (an agent compiled in this kernel) and the
remote one (:mod:`deepnb.session.remote`, an agent on an Agent Server) implement it. Code that only
needs a session is typed with :class:`Session`, never with ``Workbench``, so both kinds work
wherever one does. ``tests/unit/test_session_protocol.py`` checks that the workbenches' methods
keep these signatures.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from deepnb.core.displayable import Displayable
from deepnb.engine.history import (
    described,
    fork_points,
    graph_step,
    in_words,
    open_calls,
    pairs,
    steps_of,
)

if TYPE_CHECKING:  # what the protocol's methods return, which its sessions make
    from deepnb.engine.graph_shape import GraphDrawing
    from deepnb.engine.step_state import StateDiff, StepState
    from deepnb.engine.tree import SubagentNode
    from deepnb.many.batch import Batch  # a batch is a session of sessions: deepnb.many sits above
    from deepnb.session.files.files import Files
    from deepnb.session.run import Run  # the protocol names it; its sessions make it

__all__ = ["Checkpoint", "History", "Session", "Step", "ThreadInfo"]


@dataclass(frozen=True)
class Checkpoint:
    """A checkpoint of a thread's history: its id, the thread's step it belongs to (the main
    agent's model calls by then, or a graph's node updates where it has no messages: what
    ``--at`` takes), when it was saved, which nodes were to
    run next (empty once the run ended), the agent and node(s) that wrote it, what changed since
    the one before (:func:`deepnb.engine.history.changes`), LangGraph's own step counter
    (``graph_step``), and the tool calls it holds before their results (``waiting``)."""

    checkpoint_id: str
    step: int
    created_at: str
    next: tuple[str, ...]
    agent: str = ""
    node: str = ""
    changes: tuple[str, ...] = ()
    graph_step: int = 0
    waiting: tuple[str, ...] = ()

    @classmethod
    def of(cls, snapshot: Any, older: Any | None = None, *, step: int) -> Checkpoint:
        """A LangGraph ``StateSnapshot`` as a history entry; ``older``, the snapshot before it,
        says what changed; ``step``: the thread's step there
        (:func:`deepnb.engine.history.steps_of`)."""
        configurable = (snapshot.config or {}).get("configurable", {})
        agent, node, changed = described(snapshot, older)
        return cls(
            checkpoint_id=str(configurable.get("checkpoint_id", "")),
            step=step,
            created_at=str(snapshot.created_at or ""),
            next=tuple(snapshot.next or ()),
            agent=agent,
            node=node,
            changes=changed,
            graph_step=graph_step(snapshot),
            waiting=open_calls(snapshot.values) if snapshot.next else (),
        )


@dataclass(frozen=True)
class Step:
    """One step of a thread, as ``%deepagent history`` lists it: its number (what ``--at``
    takes), what it did in words, and the checkpoint ``--at`` forks at (when it was saved, and
    the tool calls it holds before their results: a run from there runs them first)."""

    step: int
    did: str
    checkpoint_id: str
    created_at: str
    waiting: tuple[str, ...] = ()


class History(Displayable, list[Checkpoint]):
    """A thread's checkpoints, the newest first (a list of :class:`Checkpoint`). It shows as its
    :attr:`steps`, one row each; ``with_nodes()`` shows every checkpoint with the node that
    wrote it. ``fork_at`` maps each step to the checkpoint ``--at STEP`` forks at."""

    def __init__(
        self,
        checkpoints: Iterable[Checkpoint] = (),
        *,
        thread: str = "",
        agent: str = "",
        session: Session | None = None,
    ) -> None:
        super().__init__(checkpoints)
        self.thread, self.agent = thread, agent
        self.session = session
        """The session it was read from (``None``: none to read its steps' states from); shown
        live, each step opens the state it left and what it changed."""
        self.fork_at: dict[int, str] = {}
        self.nodes = False
        """Whether it shows every checkpoint (``with_nodes()``) rather than the steps."""

    @classmethod
    def of(cls, snapshots: list[Any], *, thread: str, agent: str, session: Session | None = None) -> History:
        """The history of ``snapshots`` (LangGraph ``StateSnapshot``s, the newest first), read
        from ``session``."""
        steps = steps_of(snapshots)
        made = cls(
            (
                Checkpoint.of(s, older, step=step)
                for (s, older), step in zip(pairs(snapshots), steps, strict=True)
            ),
            thread=thread,
            agent=agent,
            session=session,
        )
        made.fork_at = {
            step: made[index].checkpoint_id for step, index in sorted(fork_points(snapshots).items())
        }
        return made

    @property
    def steps(self) -> list[Step]:
        """One row per step, the first first: what it did (its prompt, what the model said, the
        tools it called, files and todos), from the checkpoints since the step before."""
        oldest_first = list(reversed(self))
        where = {c.checkpoint_id: i for i, c in enumerate(oldest_first)}
        rows, begin = [], 0
        for step, checkpoint_id in self.fork_at.items():
            end = where[checkpoint_id]
            span = oldest_first[begin : end + 1]
            at = oldest_first[end]
            did = in_words([change for c in span for change in c.changes], at.waiting)
            rows.append(Step(step, did, checkpoint_id, at.created_at, at.waiting))
            begin = end + 1
        return rows

    def with_nodes(self) -> History:
        """The same history, drawn as every checkpoint with the node that wrote it."""
        copy = History(self, thread=self.thread, agent=self.agent, session=self.session)
        copy.fork_at, copy.nodes = dict(self.fork_at), True
        return copy


@dataclass(frozen=True)
class ThreadInfo:
    """A thread of a workbench: its id, when it last changed, and how many steps it holds (the
    model's turns over all its runs, each a "step" of the run view). ``unreadable`` says why a
    thread whose checkpoint cannot be loaded is listed without them (``""``: it reads fine)."""

    thread_id: str
    updated_at: str
    steps: int
    unreadable: str = ""


@runtime_checkable
class Session(Protocol):
    """An agent with threads: it starts runs, resumes and stops them, and reads its threads."""

    @property
    def name(self) -> str:
        """The name the agent is registered under (``-a NAME``)."""
        ...

    @property
    def label(self) -> str:
        """What the agent is, in a few words (its model, or its graph's class)."""
        ...

    @property
    def served_by(self) -> str | None:
        """The server the agent's runs execute on (its URL without credentials), or ``None`` when
        they run in this kernel: a server's job slots and queue decide how many run at once."""
        ...

    @property
    def current_thread(self) -> str:
        """The thread runs go to by default."""
        ...

    @property
    def selected_thread(self) -> str | None:
        """The current thread if one is chosen yet (reading it never chooses one)."""
        ...

    def new_thread(self) -> str:
        """Start a fresh thread and make it the current one."""
        ...

    def threads(self) -> list[ThreadInfo]:
        """The agent's threads, the most recently updated first."""
        ...

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
        """Start a run on a thread and return at once; one run per thread at a time. ``prompt``
        is a prompt, or a dict of input keys for a graph that does not speak messages. With
        ``at`` (a step number or a checkpoint id) it runs on a new thread forked from ``thread``
        (or the current one) at that step, the original untouched. ``context``: the runtime
        context (user ids, roles, connections), passed at each step and never shown to the
        model, over the agent's own (``deepnb.toml``'s ``context`` table)."""
        ...

    def run(self, prompt: str | Mapping[str, Any], *, background: bool = False, **options: Any) -> Run:
        """Run ``prompt`` (or a dict of input keys, for a graph that does not speak messages);
        wait for the end unless ``background``."""
        ...

    def map(
        self,
        inputs: Iterable[str | Mapping[str, Any]],
        *,
        concurrency: int = 4,
        template: str | None = None,
        **run_options: Any,
    ) -> Batch:
        """Start one run per input (a prompt, or a dict: its fields fill ``template``, or without
        one it is the graph's input), each on a new thread, at most ``concurrency`` at once;
        return the :class:`~deepnb.many.batch.Batch` at once."""
        ...

    def resume(self, thread_id: str | None = None, *, decisions: list[dict[str, Any]] | None = None) -> Run:
        """Continue a thread: the run waiting for approval (decided with ``decisions``, one per
        pending request, if given), else the failed or stopped run."""
        ...

    def stop(self, thread_id: str | None = None) -> Run:
        """Stop the run holding a thread and return it."""
        ...

    def pending_run(self, thread_id: str | None = None) -> Run:
        """The run waiting for approval on a thread."""
        ...

    def active_run(self, thread_id: str | None = None) -> Run | None:
        """The run holding a thread now, if any."""
        ...

    def latest_run(self, thread_id: str | None = None) -> Run | None:
        """The newest run this kernel started (or resumed) on a thread."""
        ...

    def state_values(self, thread_id: str | None = None) -> Mapping[str, Any]:
        """A thread's current state values (``messages``, ``todos``, ``files``, …)."""
        ...

    def todos(self, thread_id: str | None = None) -> list[dict[str, str]]:
        """A thread's todo list."""
        ...

    def tree(self, thread_id: str | None = None) -> SubagentNode:
        """The subagent tree of a thread's latest run."""
        ...

    def history(self, thread_id: str | None = None) -> History:
        """A thread's checkpoints, the newest first, each with the step it belongs to, the agent
        and node that wrote it and what changed; drawn as one row per step."""
        ...

    def fork(self, thread_id: str, at: int | str, update: Mapping[str, Any] | None = None) -> str:
        """A new thread from ``thread_id``'s state at step ``at`` (a step number or a checkpoint
        id), the same nodes to run next; returns its id. The original thread is untouched.
        ``update`` (a dict of state keys; files may be text) is written into the fork as the
        step's node would have written it."""
        ...

    def draw_graph(self, xray: bool | int = True) -> GraphDrawing:
        """The agent's graph drawn (nodes, edges, subagents as nested clusters): an SVG diagram
        and, as text, its nodes and edges."""
        ...

    def state(self, thread_id: str | None = None, at: int | str | None = None) -> StepState:
        """A thread's state values at step ``at`` (a step number or a checkpoint id; ``None``:
        now)."""
        ...

    def diff(self, thread_id: str | None, a: int | str, b: int | str | None = None) -> StateDiff:
        """What changed in a thread's state from step ``a`` to step ``b`` (without ``b``: what
        step ``a`` did)."""
        ...

    def files(self, thread_id: str | None = None) -> Files:
        """A thread's files: a mapping of path → text with ls, glob, grep, write, edit, …"""
        ...
