"""A batch: one run per input, each on a new thread, at most ``concurrency`` at once.

Batches are sessions of sessions: a :class:`Batch` asks its :class:`~deepnb.session.protocol.Session` to
start runs (``session.start(prompt, new_thread=True)``), local or remote alike, and schedules them
from the runs' own events on the engine loop (:mod:`deepnb.core.loop`): when a run finishes, fails,
stops or pauses for approval, its slot goes to the next input. No thread waits per run, so the
kernel stays free while the batch goes on.

A run waiting for approval gives its slot back (it is counted in ``batch.counts()["interrupted"]``
and its requests are in ``batch.pending``); once decided it goes on at once, even if that makes
more than ``concurrency`` runs for a while. A run that fails does not stop the others; one the
batch is told to run again (:meth:`Batch.retry_delay`, an experiment's ``retries=``) goes back to
the front of its queue after its backoff, its slot free meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import inspect
import os
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deepnb.core import clock as clocks
from deepnb.core import events as ev
from deepnb.core.batch_inputs import BatchInput, check_concurrency, prepare
from deepnb.core.displayable import LiveDisplayable
from deepnb.core.errors import DeepnbError
from deepnb.core.frames import records_frame, records_parquet
from deepnb.core.graphs.inputs import input_for
from deepnb.core.listeners import Listeners
from deepnb.core.loop import call_soon, wait_until
from deepnb.core.schema import ENDED
from deepnb.core.text.safe_display import safe_display
from deepnb.core.tokens import Tokens
from deepnb.engine.approvals import ApprovalRequest
from deepnb.engine.interrupts import PendingInterrupt
from deepnb.session.run import Run

if TYPE_CHECKING:
    from deepnb.session.graph_session import GraphSession
    from deepnb.session.protocol import Session

QUEUED = "queued"
"""The status of an input whose run has not started yet."""
COLUMNS = (
    "status",
    "result",
    "steps",
    "model_calls",
    "tool_calls",
    "tokens_in",
    "tokens_out",
    "tokens_unreported",
    "elapsed",
    "error",
    "thread_id",
)
"""The columns ``to_records()`` gives every input, after its input fields."""
_NOT_RUN_OPTIONS = ("thread", "new_thread", "at", "background")
_SLOT_ENDS = (ev.RunFinished, ev.RunFailed, ev.RunCancelled, ev.RunPaused)
Listener = Callable[[int], None]
WHOLE = -1
"""The index a listener is called with when the batch as a whole changed (nothing runs any more)."""


@dataclasses.dataclass
class _Slot:
    """One input and what became of it."""

    input: BatchInput
    run: Run | None = None
    failed_to_start: str | None = None
    cancelled: bool = False
    attempts: int = 0
    """Runs started for it (more than one where a failed run was run again)."""

    @property
    def status(self) -> str:
        if self.run is not None:
            return self.run.status
        if self.failed_to_start is not None:
            return "error"
        return "cancelled" if self.cancelled else QUEUED


def start(
    session: GraphSession,
    inputs: Iterable[str | Mapping[str, Any]],
    *,
    concurrency: int,
    template: str | None,
    run_options: Mapping[str, Any],
) -> Batch:
    """``session.map``: every input checked against the session's graph (one line, nothing
    started, for the first it cannot take), then one run per input, at most ``concurrency`` at
    once; returns the :class:`Batch` at once."""
    limit = check_concurrency(concurrency)
    prepared = prepare(inputs, template=template)
    for item in prepared:  # every input the graph cannot take, before any run writes a thread
        try:
            input_for(session.graph, item.given, agent=session.name)
        except DeepnbError as exc:
            raise DeepnbError(f"Input {item.index}: {exc}") from None
    check_run_options(session, run_options)
    batch = Batch(session, prepared, concurrency=limit, template=template, run_options=dict(run_options))
    return batch.begin()


def check_run_options(session: Any, options: Mapping[str, Any]) -> None:
    """Refuse options a batch's runs cannot take (each run gets its own new thread)."""
    for name in _NOT_RUN_OPTIONS:
        if name in options:
            raise DeepnbError(f"A batch starts each run on a new thread of its own: {name}= does not apply.")
    accepted = [
        p.name
        for p in inspect.signature(session.start).parameters.values()
        if p.kind is inspect.Parameter.KEYWORD_ONLY and p.name not in _NOT_RUN_OPTIONS
    ]
    for name in options:
        if name not in accepted:
            raise DeepnbError(
                f"A batch's runs take no option {name}= (they take: {', '.join(accepted) or 'none'})."
            )


def output_fields(output: Any) -> dict[str, Any]:
    """A run's structured output as columns: a pydantic model's ``model_dump()``, a dataclass's
    fields, a mapping's keys; any other value as one ``output`` column; ``None`` as none."""
    if output is None:
        return {}
    dump = getattr(output, "model_dump", None)
    if callable(dump) and not isinstance(output, type):
        dumped = dump()
        if isinstance(dumped, Mapping):
            return {str(k): v for k, v in dumped.items()}
    if dataclasses.is_dataclass(output) and not isinstance(output, type):
        return {str(k): v for k, v in dataclasses.asdict(output).items()}
    if isinstance(output, Mapping):
        return {str(k): v for k, v in output.items()}
    return {"output": output}


def _merge(record: dict[str, Any], fields: Mapping[str, Any], prefix: str) -> None:
    """Add ``fields`` to ``record``; a name already there goes in as ``prefix_name``."""
    for name, value in fields.items():
        key = name if name not in record else f"{prefix}_{name}"
        while key in record:
            key = f"{prefix}_{key}"
        record[key] = value


@safe_display
class Batch(LiveDisplayable):
    """Runs of one agent over many inputs (``workbench.map``). ``runs`` and ``results`` are in
    input order; ``wait()`` blocks until none runs or waits in the queue; ``stop()`` stops them
    all; ``to_records()`` / ``to_pandas()`` give one row per input. Displayed, a batch is a live
    grid with a row per input."""

    def __init__(
        self,
        session: Session,
        inputs: list[BatchInput],
        *,
        concurrency: int,
        template: str | None = None,
        run_options: Mapping[str, Any] | None = None,
    ) -> None:
        self.session = session
        self.concurrency = concurrency
        self.template = template
        self.run_options = dict(run_options or {})
        self._clock = clocks.current()
        self.started_at = self._clock.wall()
        self.finished_at: float | None = None
        """When nothing ran or waited in the queue any more (``None`` until then)."""
        self._slots = [_Slot(item) for item in inputs]
        self._queues: dict[Hashable, deque[_Slot]] = {}
        """The inputs not started yet, in order, by the group whose limit they count against."""
        for slot in self._slots:
            self._queues.setdefault(self.group_of(slot.input), deque()).append(slot)
        self._lock = threading.RLock()
        self._settled = threading.Event()
        """Set once nothing runs any more and the listeners have heard it (what ``wait`` waits for)."""
        self._ended = False
        """Whether nothing runs any more (what ``done`` says, and what the listeners read)."""
        self._stopping = False
        self._listeners: Listeners[int] = Listeners()
        self._backing_off: set[asyncio.Future[None]] = set()
        """The backoffs under way (kept, so none is collected before it ends)."""

    # -- starting ---------------------------------------------------------------------------

    def begin(self) -> Batch:
        """Start the first runs (on the engine loop); returns at once."""
        call_soon(self._fill, what="starting a batch's runs")
        return self

    def group_of(self, item: BatchInput) -> Hashable:
        """The group whose limit ``item``'s run counts against: one group, ``concurrency``, for a
        batch of one agent (an experiment's batch groups its runs by where they execute)."""
        return None

    def limit_of(self, group: Hashable) -> int:
        """How many runs of ``group`` go at once."""
        return self.concurrency

    def running_by_group(self) -> Counter[Hashable]:
        """How many runs are running, by group."""
        return Counter(
            self.group_of(slot.input)
            for slot in self._slots
            if slot.run is not None and slot.run.status == "running"
        )

    def queued_by_group(self) -> dict[Hashable, int]:
        """How many inputs wait in the queue, by group."""
        with self._lock:
            return {group: len(queue) for group, queue in self._queues.items() if queue}

    def _queued(self) -> Iterator[_Slot]:
        for queue in self._queues.values():
            yield from queue

    def _fill(self) -> None:
        """Start queued inputs while fewer runs run than their group's limit (on the engine loop,
        so no run's events come before its listener is in place). An input that fails to start
        is heard by the listeners before the next one starts, so one of them can stop the batch."""
        while True:
            started, failed = self._start_some()
            self._update_settled()
            for index in started:
                self._notify(index)
            if not failed:
                return

    def _start_some(self) -> tuple[list[int], bool]:
        """Start queued inputs while there is room, up to the first that fails to start; the
        inputs started (that one last) and whether one failed."""
        started: list[int] = []
        with self._lock:
            running = Counter() if self._stopping else self.running_by_group()
            for group, queue in self._queues.items():
                free = 0 if self._stopping else self.limit_of(group) - running[group]
                while free > 0 and queue:
                    slot = queue.popleft()
                    self._start(slot)
                    started.append(slot.input.index)
                    if slot.run is None:
                        return started, True
                    free -= 1
        return started, False

    def starting(self, index: int) -> contextlib.AbstractContextManager[None]:
        """Around starting input ``index``'s run (each attempt; on the engine loop): nothing
        here; an experiment's batch makes the run's trace span the parent of the run's."""
        return contextlib.nullcontext()

    def started(self, index: int, run: Run) -> None:
        """Input ``index``'s run just started (on the engine loop, before its first step runs):
        nothing here; an experiment's batch tells its cache the run's epoch."""

    def retry_delay(self, index: int, run: Run, attempts: int) -> float | None:
        """Seconds to wait before running input ``index`` again, its run having failed on its
        ``attempts``-th attempt; ``None``: it is not run again (a batch of one agent never is;
        an experiment's ``retries=`` says). Its answer must depend on those alone."""
        return None

    async def back_off(self, seconds: float) -> None:
        """Wait ``seconds`` before running a failed input again (on the engine loop)."""
        await asyncio.sleep(seconds)

    def retrying(self, index: int) -> bool:
        """Whether input ``index``'s run failed and will be run again (its backoff under way)."""
        return self._will_retry(self._slots[index])

    def attempts(self, index: int) -> int:
        """How many runs were started for input ``index``."""
        return self._slots[index].attempts

    def _will_retry(self, slot: _Slot) -> bool:
        run = slot.run
        return (
            not self._stopping
            and run is not None
            and run.status == "error"
            and self.retry_delay(slot.input.index, run, slot.attempts) is not None
        )

    async def _again(self, slot: _Slot, seconds: float) -> None:
        """After the backoff, put a failed input back at the front of its queue."""
        try:
            await self.back_off(seconds)
        finally:
            with self._lock:
                again = self._will_retry(slot)
                if again:
                    slot.run = None
                    self._queues.setdefault(self.group_of(slot.input), deque()).appendleft(slot)
            self._fill()

    def session_for(self, item: BatchInput) -> Session:
        """The session that runs ``item``: the batch's own (an experiment's batch picks each
        run's variant)."""
        return self.session

    def _start(self, slot: _Slot) -> None:
        index = slot.input.index
        session = self.session_for(slot.input)
        chosen = session.selected_thread
        slot.attempts += 1
        try:
            with self.starting(index):
                run = session.start(slot.input.given, new_thread=True, **self.run_options)
        except Exception as exc:  # one input's failure (a bad input, a busy server) is its row's error
            slot.failed_to_start = str(exc) or type(exc).__name__
            return
        slot.run = run
        self.started(index, run)
        use_thread = getattr(session, "use_thread", None)
        if chosen is not None and use_thread is not None and session.selected_thread == run.thread_id:
            use_thread(chosen)  # a batch's threads are its own: the agent's current thread stays

        def on_event(event: ev.Event) -> None:
            if isinstance(event, ev.RunFailed) and self._will_retry(slot):
                delay = self.retry_delay(index, run, slot.attempts) or 0.0
                backoff = asyncio.ensure_future(self._again(slot, delay))  # on the engine loop
                self._backing_off.add(backoff)
                backoff.add_done_callback(self._backing_off.discard)
            if isinstance(event, _SLOT_ENDS):
                call_soon(self._fill, what="starting a batch's next run")
            elif isinstance(event, ev.RunResumed):
                self._update_settled()
            self._notify(index)

        run.subscribe(on_event)
        if run.status != "running":  # ended before its listener was in place
            call_soon(self._fill, what="starting a batch's next run")

    def _update_settled(self) -> None:
        ended = False
        with self._lock:
            busy = any(self._queues.values()) or any(
                slot.run is not None and (slot.run.status == "running" or self._will_retry(slot))
                for slot in self._slots
            )
            if busy:
                self._settled.clear()
                self._ended = False
                self.finished_at = None
            elif not self._ended:
                self.finished_at = self._clock.wall()
                self._ended = ended = True
        if not ended:
            return
        try:
            self._notify(WHOLE)  # before a waiter wakes: its display is brought up to date first
        finally:
            with self._lock:
                if self._ended:  # not resumed meanwhile
                    self._settled.set()

    # -- listeners (the grid view) ----------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(index)`` whenever input ``index``'s row may have changed, and
        ``listener(WHOLE)`` when nothing runs any more (often on the engine thread: keep it quick)."""
        return self._listeners.add(listener)

    def _notify(self, index: int) -> None:
        for listener in self._listeners.now():
            listener(index)

    # -- the contract -----------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._slots)

    @property
    def inputs(self) -> list[BatchInput]:
        """The inputs, in order: each with its fields and what its run is given."""
        return [slot.input for slot in self._slots]

    def input(self, index: int) -> BatchInput:
        """Input ``index`` (without building the list of them all)."""
        return self._slots[index].input

    @property
    def runs(self) -> list[Run | None]:
        """Each input's run, in input order (``None`` while it waits in the queue, or if it never
        started)."""
        return [slot.run for slot in self._slots]

    @property
    def results(self) -> list[str | None]:
        """Each input's answer, in input order (``None`` where its run is not done)."""
        return [
            slot.run.result if slot.run is not None and slot.run.status == "done" else None
            for slot in self._slots
        ]

    @property
    def statuses(self) -> list[str]:
        """Each input's status: ``queued``, ``running``, ``interrupted``, ``done``, ``error`` or
        ``cancelled``."""
        return [slot.status for slot in self._slots]

    def counts(self) -> dict[str, int]:
        """How many inputs are in each status."""
        found = dict.fromkeys((QUEUED, "running", "interrupted", "done", "error", "cancelled"), 0)
        for status in self.statuses:
            found[status] = found.get(status, 0) + 1
        return found

    @property
    def pending(self) -> list[ApprovalRequest | PendingInterrupt]:
        """What the batch's runs waiting for approval ask: every pending request of every one."""
        return [request for run in self.waiting for request in run.pending]

    @property
    def waiting(self) -> list[Run]:
        """The runs waiting for approval (or an answer), in input order."""
        return [slot.run for slot in self._slots if slot.run is not None and slot.run.status == "interrupted"]

    @property
    def done(self) -> bool:
        """Whether nothing runs or waits in the queue (runs waiting for approval aside)."""
        return self._ended

    @property
    def elapsed(self) -> float:
        """Seconds from the start to now, or to when the last run stopped."""
        return (self.finished_at or self._clock.wall()) - self.started_at

    def wait(self, timeout: float | None = None) -> Batch:
        """Block until no run runs and none waits in the queue (runs waiting for approval do not
        hold it up: see ``pending``); return the batch."""
        deadline = None if timeout is None else time.monotonic() + timeout
        if not self._settled.wait(timeout):
            raise TimeoutError(
                f"The batch is still running after {timeout} s ({self._summary()}); "
                "call wait() again or stop()."
            )
        for run in self.runs:  # a run's end is settled a moment after its last event
            if run is not None and run.status in ENDED:
                left = None if deadline is None else max(0.0, deadline - time.monotonic())
                run.wait(left)
        return self

    async def wait_async(self, *, poll: float = 0.1) -> Batch:
        """Await :meth:`wait`'s condition from another event loop (the kernel's): the batch
        settling wakes it at once; it also wakes every ``poll`` seconds, so a kernel interrupt
        takes effect."""

        def listen(wake: Callable[[], None]) -> Callable[[], None]:
            return self.subscribe(lambda _index: wake())

        await wait_until(lambda: self.done, listen, poll=poll)
        return self

    def stop(self, *, reason: str = "stopped") -> Batch:
        """Stop every run (running or waiting for approval) and drop the inputs still queued.
        ``reason`` completes "Run …" on each stopped run's notice (``"interrupted by the kernel"``)."""
        with self._lock:
            self._stopping = True
            dropped = []
            for slot in self._queued():
                slot.cancelled = True
                dropped.append(slot.input.index)
            for queue in self._queues.values():
                queue.clear()
            going = [
                slot.run
                for slot in self._slots
                if slot.run is not None and slot.run.status in ("running", "interrupted")
            ]
        for run in going:
            run.stop(reason=reason)
        self._update_settled()
        for index in dropped:
            self._notify(index)
        return self

    # -- rows -------------------------------------------------------------------------------

    def row(self, index: int) -> dict[str, Any]:
        """Input ``index`` as a row: its status and counters, the answer (or error) and thread."""
        slot = self._slots[index]
        run = slot.run
        if run is None:
            error = slot.failed_to_start
            return {
                "index": index,
                "status": slot.status,
                "result": None,
                "steps": 0,
                "model_calls": 0,
                "tool_calls": 0,
                **Tokens().columns(),
                "elapsed": 0.0,
                "error": error,
                "thread_id": None,
                "waiting": False,
            }
        with run.reading() as state:
            return {
                "index": index,
                "status": state.status,
                "result": state.result if state.status == "done" else None,
                "steps": state.own_steps,
                "model_calls": state.steps,
                "tool_calls": state.tool_calls,
                **state.tokens.columns(),
                "elapsed": round(state.elapsed, 2),
                "error": state.error,
                "thread_id": run.thread_id,
                "waiting": state.status == "interrupted",
            }

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per input, in order: its input fields, then ``status``, ``result``, ``steps``
        (the run's steps, as its head line counts them), ``model_calls`` (subagents' too),
        ``tool_calls``, ``tokens_in``, ``tokens_out``, ``tokens_unreported``, ``elapsed``,
        ``error``, ``thread_id``, then the fields of ``run.output`` where the run has a
        structured output (a pydantic model, a dataclass or a mapping; another value as
        ``output``). An input field named like a column becomes ``input_<name>``; an output field
        named like one before it, ``output_<name>``. Tokens are ``None`` where no model call
        of the run reported usage, and a lower bound where ``tokens_unreported`` (model calls
        that reported none) is above 0."""
        records = []
        for index, slot in enumerate(self._slots):
            row = self.row(index)
            record: dict[str, Any] = {}
            for name, value in slot.input.fields.items():
                record[f"input_{name}" if name in COLUMNS else name] = value
            _merge(record, {name: row[name] for name in COLUMNS}, "batch")
            output = slot.run.output if slot.run is not None and slot.run.status == "done" else None
            _merge(record, output_fields(output), "output")
            records.append(record)
        return records

    def to_pandas(self) -> Any:
        """``to_records()`` as a pandas ``DataFrame`` (pandas is optional: one line says how to get it)."""
        return records_frame(self.to_records(), what="batch")

    def to_parquet(self, path: str | os.PathLike[str]) -> Path:
        """Write ``to_records()`` to a Parquet file (pyarrow is optional: one line says how to get
        it); nested values are JSON text. Returns the path."""
        return records_parquet(self.to_records(), path, what="batch")

    # -- display ----------------------------------------------------------------------------

    def _summary(self) -> str:
        counts = {status: n for status, n in self.counts().items() if n}
        return ", ".join(f"{n} {status}" for status, n in counts.items())

    def __repr__(self) -> str:
        return f"<Batch of {len(self)} runs of agent {self.session.name!r}: {self._summary()}>"
