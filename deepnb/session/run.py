"""The run object: one prompt streaming through an agent on a thread."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import itertools
import logging
import os
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Protocol, TypeVar

from deepnb.core import clock as clocks
from deepnb.core import events as ev
from deepnb.core.call_args import call_args, call_name
from deepnb.core.displayable import LiveDisplayable
from deepnb.core.errors import DeepnbError
from deepnb.core.explain import failure_message
from deepnb.core.failures import contained, failed_tool_calls
from deepnb.core.graphs import streaming
from deepnb.core.graphs.context import context_keys
from deepnb.core.graphs.inputs import output_of, speaks_messages
from deepnb.core.graphs.stamps import event_clock, stream_began
from deepnb.core.handles import AgentHandle
from deepnb.core.listeners import Listeners
from deepnb.core.loop import detached, in_engine_thread, run_sync, submit, wait_until
from deepnb.core.schema import ENDED, FilePreview, RunStatus, Todo
from deepnb.core.text.safe_display import safe_display
from deepnb.core.text.secrets import redact, redact_data
from deepnb.core.text.streamed import StreamRedactor
from deepnb.core.threads.reading import read_history, read_state
from deepnb.engine import steering
from deepnb.engine.anatomy import ListsItsTools, tools_by_agent
from deepnb.engine.approvals import ApprovalRequest, normalize, preview, tool_schema
from deepnb.engine.files.changed import Change, ListingWatch, watch_files
from deepnb.engine.graph_path import GraphPath
from deepnb.engine.history import node_steps, thread_step
from deepnb.engine.interpreter import Interpreter
from deepnb.engine.interrupts import PendingInterrupt, check_answer
from deepnb.engine.mcp import mcp_tools
from deepnb.engine.recording import RECORDED, Recorded, RunLog, model_profile, record
from deepnb.engine.state import RunSnapshot, RunState
from deepnb.engine.timeline import Timeline, TimelineRecord
from deepnb.engine.tracing.switch import run_span
from deepnb.engine.tree import SubagentNode, Summary, build_tree
from deepnb.session.files.changes import FileChange, changes_of
from deepnb.session.files.files import Files
from deepnb.session.files.hold import settled

log = logging.getLogger(__name__)
Listener = Callable[[ev.Event], None]
_ids = itertools.count(1)
KERNEL_INTERRUPT = "interrupted by the kernel"
"""How a run stopped by the kernel's interrupt (Ctrl-C, the ■ button) says why it stopped."""
PENDING_ONLY: Any = object()
"""The input of a run that streams nothing: it reads the thread's checkpoint and shows what waits
for approval there (a run rebuilt after a kernel restart)."""


class Followable(Protocol):
    """What a foreground cell waits on: a run, or several (a comparison)."""

    def wait(self, timeout: float | None = None) -> Any: ...
    def stop(self, *, reason: str = "stopped") -> None: ...


F = TypeVar("F", bound=Followable)


def follow(target: F) -> F:
    """Wait for ``target`` as a foreground cell does: Ctrl-C (a kernel interrupt) stops it, waits
    for it to settle, then propagates."""
    try:
        target.wait()
        return target
    except KeyboardInterrupt:
        target.stop(reason=KERNEL_INTERRUPT)
        target.wait()
        raise


RUN_ENDS = (ev.RunFinished, ev.RunFailed, ev.RunCancelled)
"""The events that end a run (a pause does not: its next model call is still to come)."""


class RunHost(AgentHandle, Protocol):
    """What a run needs of the agent that starts it (:class:`deepnb.session.local.Workbench`): the
    agent itself, the thread claims, and the tools approved without asking."""

    def claim_thread(self, run: Run) -> None: ...

    def release_thread(self, run: Run) -> None: ...

    def always_approved(self, thread_id: str) -> frozenset[str]: ...

    def always_approve(self, thread_id: str, tool: str) -> None: ...

    def start(
        self,
        prompt: str | Mapping[str, Any],
        *,
        thread: str | None = None,
        auto_approve: bool = False,
        context: Mapping[str, Any] | None = None,
    ) -> Run: ...


@safe_display
class Run(LiveDisplayable):
    """A run of an agent on a thread. ``status`` is ``"running"``, ``"interrupted"``, ``"done"``,
    ``"error"`` or ``"cancelled"``; ``wait()`` blocks until it is no longer running. Displayed, a
    run shows a live view (approval cards included) over a static snapshot."""

    def __init__(self, workbench: RunHost, thread_id: str, prompt: str | None) -> None:
        self.id = f"run-{next(_ids)}"
        self.workbench = workbench
        self.thread_id = thread_id
        self.prompt = prompt
        self.state = RunState(  # shown as is: redacted here
            agent=redact(workbench.name), thread_id=redact(thread_id), in_state=self._in_state
        )
        self.auto_approve = False
        self._listeners: Listeners[ev.Event] = Listeners()
        self._context: dict[str, Any] | None = None  # the runtime context, never shown
        self._snapshot: RunSnapshot | None = None
        self._lock = threading.RLock()
        self._done = threading.Event()
        self._future: concurrent.futures.Future[None] | None = None
        self._task: asyncio.Task[None] | None = None
        self._stop_requested = False
        self._stop_reason = "stopped"
        self._routes: Files | None = None
        self._watch: ListingWatch | None = None  # what tools did to files outside the state
        self._translator = ev.EventTranslator(main=ev.MAIN)
        self._redactor = StreamRedactor()
        self._chosen: dict[tuple[str, int], dict[str, Any]] = {}
        self._ready: dict[str, Any] = {}
        """Interrupt id → the value it is resumed with, once it is ready to be sent."""
        self._resuming = False
        self._interrupts: dict[str, ev.InterruptRequest] = {}
        self.checkpoint_before: str | None = None
        """The thread's checkpoint when the run started (``None`` for a new thread)."""
        self.checkpoint_after: str | None = None
        """The thread's checkpoint when the run ended (finished, failed, stopped or paused for
        approval); ``None`` while it runs, or where the checkpointer could not be read."""
        self._fresh_thread = False
        self._timeline = Timeline()
        self._path = GraphPath()
        self._ended: list[Callable[[], None]] = []
        self.output: Any = None
        """Once done: the structured response where the agent has a ``response_format``, the
        final state values for a graph that does not speak messages, else ``None``."""
        self.exception: BaseException | None = None
        """Once failed in this kernel: what was raised (an experiment's ``retries=`` reads its
        type to tell a passing provider error from a bug); ``None`` otherwise."""
        self.log: list[ev.Event] = []
        """The events a recording is made of (:mod:`deepnb.engine.recording`), redacted, in order."""
        self.previous: RunLog | None = None
        """What this kernel kept of the run before this one on its thread (set by the workbench)."""
        self.recording: Recorded | None = None
        """Where :meth:`record` last wrote this run."""
        self.follow_ups: list[Run] = []
        """The later turns of this conversation: the runs :meth:`follow_up` started from this run
        or from one of its follow-ups (a view's box does the same), in order. The newest turn is
        ``follow_ups[-1]``; on a follow-up itself the list stays empty (its first run keeps them)."""
        self._first: Run | None = None  # the run whose follow_ups list this one is in

    # -- the contract -----------------------------------------------------------------------

    @property
    def status(self) -> RunStatus:
        return self.state.status

    @property
    def result(self) -> str | None:
        """The final answer's text, once the run is done."""
        return self.state.result

    @property
    def error(self) -> str | None:
        return self.state.error

    @property
    def todos(self) -> list[Todo]:
        return [t.copy() for t in self.state.todos]

    @property
    def files(self) -> Files:
        """The thread's files (path → text, with ls, glob, grep, write, edit, …), as they stand now."""
        return Files(self.workbench, self.thread_id)

    @property
    def interpreter(self) -> Interpreter:
        """The thread's interpreter state (REPL globals as Python values), read on the host."""
        return Interpreter(self.workbench, self.thread_id)

    def _in_state(self, path: str) -> bool:
        """Whether ``path`` lives in the thread's checkpoint state (for "Files changed")."""
        try:
            if self._routes is None:
                self._routes = Files(self.workbench, self.thread_id)
            return self._routes.known and self._routes.has_history(path)
        except DeepnbError:  # a backend deepnb cannot browse: count the file tools' successes
            return False

    def changes(self) -> list[FileChange]:
        """What this run did to the thread's files: each path it wrote, edited or deleted, with a
        unified diff against the file as it was before the run (where the backend keeps history:
        files in the thread's state do; a folder on disk or a store does not)."""
        after = self.files
        before = Files(self.workbench, self.thread_id, checkpoint_id=self.checkpoint_before)
        with self._lock:
            paths = list(self.state.files_changed)
        return changes_of(paths, before, after, known=self.checkpoint_before is not None)

    def snapshot(self) -> RunSnapshot:
        """The run's state as views show it, taken under the run's lock: one copy per state
        version once the run has ended (a running run's clock moves, so it is copied afresh)."""
        with self._lock:
            cached, state = self._snapshot, self.state
            if cached is not None and cached.version == state.version and state.finished_at is not None:
                return cached
            fresh = RunSnapshot(state.version, state.to_json())
            self._snapshot = fresh if state.finished_at is not None else None
            return fresh

    @contextlib.contextmanager
    def reading(self) -> Iterator[RunState]:
        """The live state, held still while the block reads it: no event is folded in meanwhile
        (a view's patch of what changed). Keep the block short; never wait inside it."""
        with self._lock:
            yield self.state

    @property
    def tree(self) -> SubagentNode:
        """The subagent tree: the main agent at the root, a node per ``task`` call below it."""
        state = self.snapshot().state
        now = clocks.current().wall()
        progress = state["progress"]
        since = progress.get("waiting_since")
        waited = float(progress.get("waited") or 0.0) + (max(0.0, now - since) if since else 0.0)
        return build_tree(
            state["tree"],
            root_name=self.workbench.name,
            root_status=state["status"],
            now=now,
            waited=waited,
            items=state["items"],
        )

    @property
    def summaries(self) -> list[Summary]:
        """The context summarizations of this run, main agent and subagents, in order."""
        with self._lock:
            return [Summary.from_item(item) for item in self.state.summaries]

    @property
    def async_tasks(self) -> list[dict[str, Any]]:
        """The thread's async subagent tasks as last seen (see ``refresh_async_tasks``)."""
        with self._lock:
            return [dict(task) for task in self.state.async_tasks]

    @property
    def done(self) -> bool:
        return self._done.is_set()

    @property
    def pending(self) -> list[ApprovalRequest | PendingInterrupt]:
        """What waits for you, read from the thread's state: each gated tool call (an
        :class:`ApprovalRequest`) and each raw ``interrupt(value)`` (a :class:`PendingInterrupt`)
        not answered yet. Every one has ``resume(value)``."""
        self.refresh()
        with self._lock:
            requests = list(self.state.pending)
        found: list[ApprovalRequest | PendingInterrupt] = []
        for request in requests:
            if request.get("kind") == "question":
                if request.get("answer") is None and request["id"] not in self._ready:
                    value = self._question_value(request["id"], request.get("value"))
                    found.append(PendingInterrupt(self, request["id"], value, request["agent"]))
                continue
            found += [
                ApprovalRequest(
                    self,
                    request["id"],
                    action["index"],
                    action["name"],
                    self._action_args(request["id"], action["index"]),
                    action["description"],
                    tuple(action["allowed"]),
                    request["agent"],
                )
                for action in list(request["actions"])
                if not action["decision"]
            ]
        return found

    def _question_value(self, interrupt_id: str, clipped: Any) -> Any:
        """A raw interrupt's whole value, secrets removed (a view may show it clipped)."""
        request = self._interrupts.get(interrupt_id)
        return clipped if request is None else redact_data(request.value)

    def waits_for_answers(self) -> bool:
        """Whether every interrupt the run waits on is a raw one (a question, not an approval)."""
        with self._lock:
            return bool(self.state.pending) and all(p.get("kind") == "question" for p in self.state.pending)

    def _action_args(self, interrupt_id: str, index: int) -> dict[str, Any]:
        request = self._interrupts.get(interrupt_id)
        actions = (
            request.value.get("action_requests", []) if request and isinstance(request.value, Mapping) else []
        )
        action = actions[index] if isinstance(actions, list) and index < len(actions) else None
        return call_args(action.get("args")) if isinstance(action, Mapping) else {}

    @property
    def decisions(self) -> list[dict[str, Any]]:
        """Every decision made on this run: when, which action, what, and whether a rule made it."""
        return [dict(d) for d in self.state.decisions]

    def steer(self, message: str) -> None:
        """Give the running agent ``message``: it reaches the main agent at its next model call
        (after the decisions, for a run waiting for them), is kept in the thread, and shows in
        the transcript where it was delivered. A message no model call took before the run
        ended is said in the transcript. Refused in one line for a run that ended, and for an
        agent deepnb did not build (an attached graph, a connected server)."""
        if not isinstance(message, str) or not message.strip():
            raise DeepnbError("run.steer takes the message to give the agent: a non-empty string.")
        if self.status not in ("running", "interrupted"):
            raise DeepnbError(
                f"{self.id} has ended ({self.status}): send it with run.follow_up(...) instead."
            )
        if not steering.accepts(self.workbench.graph):
            raise DeepnbError(
                f"Agent {self.workbench.name!r} cannot be steered: deepnb steers the agents it builds "
                "(deepnb.agent, deepnb.toml). Wait for this run, then use run.follow_up(...)."
            )
        steering.put(self.thread_id, message)

    def follow_up(self, prompt: str | Mapping[str, Any], *, auto_approve: bool | None = None) -> Run:
        """Send ``prompt`` on this run's thread, as the next turn of the same conversation (with
        the runtime context this run was given), and return the new run at once; the first run of
        the conversation lists it in :attr:`follow_ups`. Refused in one line while this run still
        runs or waits for decisions: it is that run's thread."""
        if self.status in ("running", "interrupted"):
            what = "runs" if self.status == "running" else "waits for your decisions"
            raise DeepnbError(
                f"{self.id} still {what} on thread {self.thread_id!r}: decide, wait (run.wait()) or "
                "stop it (run.stop()), then follow up."
            )
        later = self.workbench.start(
            prompt,
            thread=self.thread_id,
            auto_approve=self.auto_approve if auto_approve is None else auto_approve,
            context=self._context,
        )
        first = self._first or self
        later._first = first
        first.follow_ups.append(later)
        return later

    @property
    def stopping(self) -> bool:
        """Stop was asked for and the run has not ended yet."""
        return self._stop_requested and not self._done.is_set()

    def wait(self, timeout: float | None = None) -> Run:
        """Block until the run stops (done, interrupted, failed or cancelled); return it."""
        if not self._done.wait(timeout):
            raise TimeoutError(f"{self.id} still running after {timeout} s; call wait() again or stop().")
        return self

    def follow(self) -> Run:
        """Wait for the end as a foreground run does: Ctrl-C (a kernel interrupt) stops the run,
        then propagates."""
        return follow(self)

    async def wait_async(self, *, settled: bool = False, poll: float = 0.1) -> Run:
        """Await the end of the run from another event loop (the kernel's); with ``settled``,
        also wait through approvals until the run is done, failed or cancelled. The run's end
        wakes the waiting loop at once; it also wakes every ``poll`` seconds, so a kernel
        interrupt takes effect."""

        def ended() -> bool:
            return self.done and not (settled and self.status == "interrupted")

        await wait_until(ended, self.when_ended, poll=poll)
        return self

    def stop(self, *, reason: str = "stopped") -> None:
        """Cancel the run; the thread keeps every step up to the last checkpoint. A run waiting
        for approval is abandoned (its thread is free again). ``reason`` completes "Run …" on
        its notice (``"interrupted by the kernel"``)."""
        self._stop_requested = True
        self._stop_reason = reason
        with self._lock:
            if self.status == "interrupted" and not self._resuming:
                waited = "your answer" if self.waits_for_answers() else "approval"
                self.emit(ev.RunCancelled(ev.MAIN, f"{reason} while waiting for {waited}"))
                self.workbench.release_thread(self)
                return
        task = self._task
        if task is not None and not self.done:
            task.get_loop().call_soon_threadsafe(task.cancel, context=detached())

    # -- decisions --------------------------------------------------------------------------

    def decide(
        self,
        interrupt_id: str,
        index: int,
        decision: dict[str, Any],
        *,
        auto: bool = False,
        refresh: bool = True,
    ) -> None:
        """Decide one action of a pending interrupt. Once every action of that interrupt is
        decided, the run resumes in the background (exactly once). ``refresh=False``: the
        caller has just read what is pending (deciding many at once)."""
        if not auto and refresh:
            self.refresh()
        with self._lock:
            if (interrupt_id, index) in self._chosen:
                chosen = self._chosen[(interrupt_id, index)]["type"]
                raise DeepnbError(f"That action was already decided ({chosen}); it is sent once.")
            request = next((p for p in self.state.pending if p["id"] == interrupt_id), None)
            if request is None or self.status in ENDED:
                raise DeepnbError(
                    f"{self.id} is no longer waiting on that approval (it is {self.status}): "
                    "nothing was sent. %deepagent approvals shows what is pending now."
                )
            action = next((a for a in request["actions"] if a["index"] == index), None)
            if action is None:
                raise DeepnbError(f"That interrupt has no action {index}.")
            if action["decision"]:
                raise DeepnbError(f"{action['name']} was already decided ({action['decision']['type']}).")
            normalized = normalize(
                decision,
                tool=action["name"],
                allowed=action["allowed"],
                schema=tool_schema(self.workbench.graph, action["name"]),
            )
            self._chosen[(interrupt_id, index)] = normalized
            self.emit(
                ev.DecisionMade(request["agent"], interrupt_id, index, action["name"], normalized, auto)
            )
            # from the last: decided in order (Approve all), the first undecided is found at once
            if all((interrupt_id, a["index"]) in self._chosen for a in reversed(request["actions"])):
                decisions = [self._chosen[(interrupt_id, a["index"])] for a in request["actions"]]
                self._ready[interrupt_id] = {"decisions": decisions}
                if self.status == "interrupted" and not self._resuming:
                    self._resume()

    def answer(self, interrupt_id: str, value: Any) -> None:
        """Resume one pending interrupt with ``value`` (any JSON-able value: what ``interrupt()``
        returns in the graph). Others pending at the same time keep waiting."""
        value = check_answer(value)
        self.refresh()
        with self._lock:
            request = next((p for p in self.state.pending if p["id"] == interrupt_id), None)
            if request is None or self.status not in ("interrupted", "running"):
                raise DeepnbError(
                    f"{self.id} is no longer waiting on that interrupt (it is {self.status}): "
                    "nothing was sent. %deepagent approvals shows what is pending now."
                )
            if interrupt_id in self._ready or request.get("answer") is not None:
                raise DeepnbError("That interrupt was already answered; an answer is sent once.")
            for action in request["actions"]:
                self._chosen.setdefault((interrupt_id, action["index"]), {"type": "resume"})
            self._ready[interrupt_id] = value
            self.emit(ev.InterruptAnswered(request["agent"], interrupt_id, value))
            if self.status == "interrupted" and not self._resuming:
                self._resume()

    def refresh(self) -> Run:
        """Read the thread's state: a run waiting on interrupts that were answered elsewhere (another
        ``graph.invoke(Command(resume=...))``) takes what the thread holds now: the interrupts
        still pending there, or the end of the run (the thread is free again)."""
        if self._future is None or self.status != "interrupted" or self._resuming or in_engine_thread():
            return self  # never streamed (nothing of the thread to read), or busy
        config = {"configurable": {"thread_id": self.thread_id}}
        try:
            snapshot = run_sync(read_state(self.workbench.graph, config, agent=self.workbench.name))
        except Exception:  # the checkpointer is unreachable: what deepnb last saw stands
            log.debug("deepnb: could not read thread %s for %s", self.thread_id, self.id, exc_info=True)
            return self
        interrupts = tuple(ev.InterruptRequest(id=str(i.id), value=i.value) for i in snapshot.interrupts)
        with self._lock:
            if self.status != "interrupted" or self._resuming:
                return self
            known = [p["id"] for p in self.state.pending]
            if sorted(known) == sorted(i.id for i in interrupts):
                return self
            gone = tuple(i for i in known if i not in {r.id for r in interrupts})
            self.emit(ev.RunResumed(ev.MAIN, gone))
            if interrupts:
                self._interrupts = {i.id: i for i in interrupts}
                self.emit(ev.RunPaused(ev.MAIN, interrupts, _previews(interrupts, snapshot.values)))
                return self
            if snapshot.next:
                self.emit(ev.RunCancelled(ev.MAIN, "answered outside deepnb; the thread goes on there"))
            else:
                self.emit(ev.RunFinished(ev.MAIN, _final_answer(snapshot.values)))
        self.workbench.release_thread(self)
        return self

    def _resume(self) -> None:
        from langgraph.types import Command  # noqa: PLC0415  # lazy: langgraph is heavy to import

        ready, self._ready = self._ready, {}
        self._resuming = True
        self._done.clear()
        self.workbench.claim_thread(self)
        self.emit(ev.RunResumed(ev.MAIN, tuple(ready)))
        self._future = submit(self._traced(self.workbench.graph, Command(resume=ready), first=False))

    def _auto_decide(self, interrupts: tuple[ev.InterruptRequest, ...]) -> None:
        """Approve what ``--auto-approve`` or an "always approve" rule covers."""
        always = self.workbench.always_approved(self.thread_id)
        for request in interrupts:
            actions = request.value.get("action_requests", []) if isinstance(request.value, Mapping) else []
            for index, action in enumerate(actions):
                if (request.id, index) not in self._chosen and (
                    self.auto_approve or action.get("name") in always
                ):
                    self.decide(request.id, index, {"type": "approve"}, auto=True)

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(event)`` for each event from now on (on the engine thread)."""
        return self._listeners.add(listener)

    def record(self, path: str | os.PathLike[str], *, force: bool = False, delay: float = 0.0) -> Recorded:
        """Write this run (and the runs before it on its thread) as a replay script at ``path``
        (``.yaml``), which ``-m scripted:PATH`` replays offline; a path that exists is refused
        unless ``force``; ``delay`` paces the replay's tokens (seconds). See
        :mod:`deepnb.engine.recording`."""
        profile = model_profile(self.workbench)
        name = self.workbench.name
        self.recording = record(self, path, force=force, agent=name, profile=profile, delay=delay)
        return self.recording

    # -- driving ----------------------------------------------------------------------------

    def start(
        self,
        graph: Any,
        graph_input: Any,
        *,
        auto_approve: bool = False,
        fresh_thread: bool = False,
        context: dict[str, Any] | None = None,
    ) -> Run:
        """Start streaming on the engine loop; returns at once. A ``fresh_thread`` (one just
        made) has no state to read first, which saves a round trip on a server. ``context`` is
        the runtime context every step of the run gets (checked already: see
        :mod:`deepnb.core.graphs.context`); the view shows its keys, never its values."""
        self.auto_approve = auto_approve
        self._context = context
        self._fresh_thread = fresh_thread
        self._translator.node_updates = not speaks_messages(graph)  # its nodes' updates are its story
        self._future = submit(self._traced(graph, graph_input))
        return self

    def emit(self, event: ev.Event) -> None:
        """Fold ``event`` into the state and pass it to the listeners, secrets redacted first:
        everything downstream (state, views, snapshots, magics) sees only the redacted event. Of
        streamed text, what could still become a secret waits for the next pieces (or the end of
        its stream): see :mod:`deepnb.core.text.streamed`."""
        if isinstance(event, RUN_ENDS):
            left = steering.take(self.thread_id)  # given while it worked, taken by no model call
            if left:
                self.emit(ev.SteerUndelivered(ev.MAIN, tuple(left)))
        with self._lock:
            events = self._redactor.feed(event)
            for redacted in events:
                self._timeline.note(redacted, self.state.clock())
                self._path.note(redacted)
                self.state.apply(redacted)
                if isinstance(redacted, RECORDED):
                    self.log.append(redacted)
            listeners = self._listeners.now()
        for redacted in events:
            for listener in listeners:  # a listener's failure, whatever it raises, is not the run's
                contained(listener, redacted, what=f"a run listener on {type(redacted).__name__}")

    @property
    def timeline(self) -> list[TimelineRecord]:
        """One record per model call and per tool call: ``kind``, ``agent`` (path),
        ``agent_name``, ``name`` (the tool), ``start`` and ``end`` (seconds from the run's start),
        ``latency``, ``tokens_in``/``tokens_out`` (model calls), and for the main agent's model
        calls the thread's ``step`` each is (what ``history`` lists; fork there:
        ``%deepagent fork --at STEP``)."""
        with self._lock:
            return self._timeline.records()

    @property
    def graph_path(self) -> dict[str, Any]:
        """The run's path through its agent's graph (``bench.draw_graph()`` names its nodes):
        ``active`` (the nodes running now), ``visits`` (node → times it ran), ``edges``
        (``[source, target, times]`` it went along), ``tools`` (the tools running now, by the
        node that runs them) and ``failed`` (the node that raised, or ``None``)."""
        with self._lock:
            return self._path.to_dict()

    @property
    def graph_path_version(self) -> int:
        """Changes whenever the graph path does."""
        return self._path.version

    @property
    def timeline_version(self) -> int:
        """Changes whenever the timeline does (a call came or ended)."""
        return self._timeline.version

    def when_ended(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback`` (on the engine's thread) each time the run stops running: it ended
        or paused, the checkpoint it ended at known. Returns what removes it. A run that stops
        while this is added either calls it or is :attr:`done` once this returns: so add it,
        then act on a run that is done already (``if run.done: callback()``)."""
        with self._lock:
            self._ended.append(callback)

        def remove() -> None:
            with self._lock, contextlib.suppress(ValueError):
                self._ended.remove(callback)

        return remove

    async def _thread_step(self, graph: Any, config: Mapping[str, Any], values: Mapping[str, Any]) -> int:
        """The thread's step before this run: its model calls, or for a graph without messages
        its node updates, counted from its history (:func:`deepnb.engine.history.node_steps`)."""
        if isinstance(values.get("messages"), list):
            return thread_step(values)
        snapshots = await read_history(graph, config, agent=self.workbench.name)
        return node_steps(snapshots)[0] if snapshots else 0

    async def _traced(self, graph: Any, graph_input: Any, *, first: bool = True) -> None:
        """:meth:`_drive` inside this stretch's trace span, so the graph's spans nest in it
        (nothing while tracing is off: :mod:`deepnb.engine.tracing`)."""
        with run_span(self, resumed=not first):
            await self._drive(graph, graph_input, first=first)

    async def _drive(self, graph: Any, graph_input: Any, *, first: bool = True) -> None:
        self._task = asyncio.current_task()
        with self._lock:
            self.state.clock = event_clock(graph, self.thread_id)
        config = {"configurable": {"thread_id": self.thread_id}, "recursion_limit": 10_000}
        paused = False
        try:  # everything, the first read of the thread included, ends in a final status
            await settled(self.workbench, self.thread_id)  # a notebook write on its way lands first
            if first:
                values: Mapping[str, Any] = {}
                step = 0
                if not self._fresh_thread:
                    before = await read_state(graph, config, agent=self.workbench.name)
                    configurable = (before.config or {}).get("configurable", {})
                    self.checkpoint_before = configurable.get("checkpoint_id")
                    values = before.values or {}
                    self._translator.thread_held(values.get("messages"))
                    step = await self._thread_step(graph, config, values)
                self.emit(ev.RunStarted(ev.MAIN, self.thread_id, self.prompt, step))
                if self._context:
                    self.emit(ev.ContextGiven(ev.MAIN, context_keys(self._context)))
                await self._announce_given(graph, values)
            if self._stop_requested:
                raise asyncio.CancelledError
            watch = await self._watching(graph)
            while True:
                if graph_input is not PENDING_ONLY:
                    began: float | None = None
                    async for chunk in streaming.chunks(graph, graph_input, config, context=self._context):
                        if began is None and (began := stream_began(graph, self.thread_id)) is not None:
                            with self._lock:
                                self.state.began_by(began)
                        for event in self._translator.translate(chunk):
                            self.emit(event)
                            if isinstance(event, ev.ToolCallFinished) and event.executed:
                                self._files_touched(await watch.after_tool(event.name))
                    for event in self._translator.finish():
                        self.emit(event)
                    self._files_touched(await watch.check())
                snapshot = await read_state(graph, config, agent=self.workbench.name)
                if snapshot.values.get("async_tasks"):  # the whole list, not only this run's changes
                    self.emit(ev.AsyncTasksChanged(ev.MAIN, snapshot.values["async_tasks"]))
                interrupts = tuple(
                    ev.InterruptRequest(id=str(i.id), value=i.value) for i in snapshot.interrupts
                )
                if not interrupts:
                    self.output = output_of(graph, snapshot.values)
                    self.emit(ev.RunFinished(ev.MAIN, _final_answer(snapshot.values)))
                    break
                with self._lock:  # the driver resumes what is ready; decide() only records
                    self._resuming = True
                    self._interrupts = {i.id: i for i in interrupts}
                    self.emit(ev.RunPaused(ev.MAIN, interrupts, _previews(interrupts, snapshot.values)))
                    self._auto_decide(interrupts)
                    ready = {i.id: self._ready.pop(i.id) for i in interrupts if i.id in self._ready}
                    if not ready:
                        self._resuming = False
                        paused = True
                        break
                    from langgraph.types import Command  # noqa: PLC0415  # lazy: langgraph is heavy to import

                    self._resuming = True
                    self.emit(ev.RunResumed(ev.MAIN, tuple(ready)))
                graph_input = Command(resume=ready)
        except asyncio.CancelledError:
            self.emit(ev.RunCancelled(ev.MAIN, self._stop_reason))
        except BaseException as exc:  # a model or tool failure, or code that exits: shown, never raised
            self.exception = exc
            calls = failed_tool_calls(exc)
            with self._lock:
                tools = tuple(dict.fromkeys(self.state.tool_name(c) for c in calls))
            self.emit(ev.RunFailed(ev.MAIN, failure_message(exc, tools=tools), calls))
        finally:
            self._resuming = False
            await self._read_end(graph, config)
            if not paused:
                self.workbench.release_thread(self)
            with self._lock:  # a callback added from here on finds the run done: see when_ended
                ended = list(self._ended)
                self._done.set()
            for callback in ended:
                contained(callback, what="a run's end callback")

    async def _watching(self, graph: Any) -> ListingWatch:
        """The watch over the agent's files outside its thread's state, listed afresh: on a
        resume, what changed while the run waited is not the run's doing."""
        if self._watch is None:
            self._watch = watch_files(self.workbench.file_setup.backend, graph, self.thread_id)
        await self._watch.begin()
        return self._watch

    def _files_touched(self, change: Change) -> None:
        """Report what a tool (``execute``, a tool of the user's) did to files outside the
        thread's state, as the state's own file changes are reported."""
        if change:
            self.emit(ev.FilesChanged(ev.MAIN, written=change.written, deleted=change.deleted))

    async def _read_end(self, graph: Any, config: Mapping[str, Any]) -> None:
        """Read the checkpoint the run ended at. A failed read, or a Stop while it is read,
        leaves it unknown; the run ends all the same."""
        try:
            self.checkpoint_after = await _latest_checkpoint(graph, config)
        except (Exception, asyncio.CancelledError):
            log.debug("deepnb: could not read where %s ended", self.id, exc_info=True)

    async def _announce_given(self, graph: Any, values: Mapping[str, Any]) -> None:
        """Say what the agents were given: the tools each can call (read from the graph, or
        from the server it is served by), and the skills and memory files an earlier run of the
        thread loaded (loaded once per thread; a first run reports them as they load)."""
        try:
            tools = await graph.listed_tools() if isinstance(graph, ListsItsTools) else tools_by_agent(graph)
        except Exception:  # reading the graph is best effort: a run never fails for it
            log.debug("deepnb: could not read the tools of %s", self.workbench.name, exc_info=True)
            tools = {}
        if tools:
            self.emit(ev.ToolsListed(ev.MAIN, tools, mcp_tools(graph)))
        loaded = ev.prompt_loaded(ev.MAIN, values)
        if loaded is not None:
            self.emit(loaded)

    # -- display ----------------------------------------------------------------------------

    def __repr__(self) -> str:
        result = self.result or self.error or ""
        result = result if len(result) <= 60 else result[:59] + "…"
        return (
            f"<Run {self.id} agent={self.workbench.name!r} thread={self.thread_id!r} "
            f"status={self.status!r} steps={self.state.steps}" + (f" {result!r}" if result else "") + ">"
        )


async def _latest_checkpoint(graph: Any, config: Mapping[str, Any]) -> str | None:
    """The id of the thread's latest checkpoint, or ``None`` where there is none."""
    snapshot = await read_state(graph, config)
    configurable = (snapshot.config or {}).get("configurable", {}) if snapshot is not None else {}
    return configurable.get("checkpoint_id")


def _previews(
    interrupts: tuple[ev.InterruptRequest, ...], values: Mapping[str, Any]
) -> dict[tuple[str, int], FilePreview]:
    files = values.get("files") or {}
    found_previews: dict[tuple[str, int], FilePreview] = {}
    for request in interrupts:
        actions = request.value.get("action_requests", []) if isinstance(request.value, Mapping) else []
        for index, action in enumerate(actions if isinstance(actions, list) else ()):
            if not isinstance(action, Mapping):
                continue
            found = preview(call_name(action), action.get("args"), files)
            if found:
                found_previews[(request.id, index)] = found
    return found_previews


def _final_answer(values: Mapping[str, Any]) -> str:
    for message in reversed(values.get("messages") or []):
        if getattr(message, "type", None) == "ai":
            return ev.message_text(message.content)
    return ""
