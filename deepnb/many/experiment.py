"""``deepnb.experiment``: a dataset run by each variant ``epochs`` times, every run scored as it
ends and written to the experiment's log, returned at once (the kernel stays free).

An experiment is a session of sessions like a batch: its runs go through one
:class:`~deepnb.many.batch.Batch`, each on a new thread of its variant's session: at most
``concurrency`` at once in this kernel over all variants, and a served agent's runs handed to its
server, whose job slots and queue decide how many run at once there. Scoring runs on worker
threads, never on the engine loop, at most ``concurrency`` runs scored at once (a judge's model
calls count against it as runs do), and a scorer that raises gives that run's cell an error score
while the rest goes on. Reopened from its log (``deepnb.load_experiment``), an experiment has its
records and no sessions; given the same ``log=`` again, an interrupted experiment runs only what
is not done yet.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime as dt
import math
import numbers
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_futures
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deepnb.core.batch_inputs import BatchInput, check_concurrency
from deepnb.core.displayable import Displayable, LiveDisplayable
from deepnb.core.errors import DeepnbError
from deepnb.core.frames import records_frame, records_parquet
from deepnb.core.loop import wait_until
from deepnb.core.schema import ENDED
from deepnb.core.text.figures import number
from deepnb.core.text.safe_display import safe_display
from deepnb.core.tokens import TOKEN_COLUMNS
from deepnb.engine.tracing.switch import ExperimentSpan, experiment_span
from deepnb.many import inspect_export, log_claims, pricing, provenance, retrying, stats
from deepnb.many import log as logs
from deepnb.many import report as reports
from deepnb.many.batch import WHOLE, Batch
from deepnb.many.datasets import Row, check_given
from deepnb.many.datasets import dataset as read_dataset
from deepnb.many.record import Key, RunRecord, Score
from deepnb.many.scoring import SCORE_TIMEOUT, Scorer, ScoringStopped, named, score
from deepnb.many.variants import build
from deepnb.session.protocol import Session
from deepnb.session.run import Run

if TYPE_CHECKING:
    from deepnb.many.caching import EpochCache

ENDING_SECONDS = 30.0
"""How long a worker waits for an ended run's last reads before recording it."""
COLUMNS = (
    "row",
    "reference",
    "variant",
    "epoch",
    "output",
    "status",
    "tokens_in",
    "tokens_out",
    "tokens_unreported",
    "cost",
    "scoring_cost",
    "latency",
    "thread_id",
    "error",
    "scorer_errors",
)
"""The columns ``to_records()`` has besides the rows' fields and the scores."""
DEFAULT_NAME = "experiment"
KERNEL_CONCURRENCY = 8
"""Runs at once in this kernel when ``concurrency`` is not given."""
SERVED_CONCURRENCY = 100
"""Runs handed to one server at once when ``concurrency`` is not given: the server queues what
its job slots cannot take yet, so this only bounds the streams this kernel holds open."""


@dataclass(frozen=True)
class Plan:
    """What an experiment runs: its rows, variants (label -> what it is), epochs and baseline;
    ``epochs_reducer`` makes each row's one score of its epochs' scores (what the summary's
    figures and the comparison rest on)."""

    name: str
    rows: tuple[Row, ...]
    variants: Mapping[str, str]
    epochs: int
    baseline: str | None
    template: str | None
    epochs_reducer: stats.Reducer = stats.MEAN

    def all_keys(self) -> list[Key]:
        """Every (row, variant, epoch), epochs outermost, so every variant moves on together."""
        return [(row.index, v, e) for e in range(self.epochs) for row in self.rows for v in self.variants]


@dataclass(frozen=True)
class Going:
    """Where an experiment's runs execute and how many go there now: ``where`` is a server's URL
    (``None``: this kernel), ``limit`` how many this kernel lets go there at once."""

    where: str | None
    running: int
    queued: int
    limit: int


class _Runs(Batch):
    """The experiment's batch: input ``i`` runs on the session of its variant. Runs in this
    kernel share ``concurrency``; a served agent's runs count against its server's own limit,
    since there the server's job slots decide how many run at once."""

    def __init__(
        self,
        sessions: list[Session],
        inputs: list[BatchInput],
        *,
        concurrency: int,
        served_concurrency: int,
        retries: retrying.Retries | None = None,
        on_start: Callable[[int, Run], None] | None = None,
        on_starting: Callable[[int], contextlib.AbstractContextManager[None]] | None = None,
        **options: Any,
    ) -> None:
        self._sessions = sessions
        self._served_concurrency = served_concurrency
        self._retries = retries
        self._on_start = on_start
        self._on_starting = on_starting
        super().__init__(sessions[0], inputs, concurrency=concurrency, **options)

    def starting(self, index: int) -> contextlib.AbstractContextManager[None]:
        return super().starting(index) if self._on_starting is None else self._on_starting(index)

    def started(self, index: int, run: Run) -> None:
        if self._on_start is not None:
            self._on_start(index, run)

    def retry_delay(self, index: int, run: Run, attempts: int) -> float | None:
        return (
            None if self._retries is None else self._retries.delay(attempts, getattr(run, "exception", None))
        )

    async def back_off(self, seconds: float) -> None:
        await (self._retries.sleep if self._retries is not None else asyncio.sleep)(seconds)

    def session_for(self, item: BatchInput) -> Session:
        return self._sessions[item.index]

    def group_of(self, item: BatchInput) -> str | None:
        return self._sessions[item.index].served_by

    def limit_of(self, group: Any) -> int:
        return self.concurrency if group is None else self._served_concurrency

    def going(self) -> list[Going]:
        running = self.running_by_group()
        queued = self.queued_by_group()
        groups = [g if isinstance(g, str) else None for g in dict.fromkeys([*running, *queued])]
        return [Going(g, running[g], queued.get(g, 0), self.limit_of(g)) for g in groups]

    def run_at(self, index: int) -> Run | None:
        return self._slots[index].run

    def start_error(self, index: int) -> str | None:
        return self._slots[index].failed_to_start


@safe_display
class Experiment(LiveDisplayable):
    """A dataset run by each variant, scored. ``runs[(row, variant, epoch)]`` is a run (this
    kernel's :class:`~deepnb.session.run.Run`, or the :class:`~deepnb.many.record.RunRecord`
    read from
    the log); ``records`` the ended runs with their scores; ``wait()``, ``stop()``,
    ``to_pandas()``, ``summary()``, ``compare(a, b)``, ``rescore(scorers, replace=False)``,
    ``grade(row, variant, epoch, score)``, ``report(path)``, ``to_inspect(path)``; ``path`` is the log."""

    def __init__(
        self,
        plan: Plan,
        *,
        scorers: Mapping[str, Scorer],
        path: Path,
        records: Mapping[Key, RunRecord] | None = None,
        writer: logs.LogWriter | None = None,
        sessions: Mapping[str, Session] | None = None,
        models: Mapping[str, str | None] | None = None,
        log_format: int = logs.FORMAT,
    ) -> None:
        self.plan = plan
        self.name = plan.name
        self.path = path
        self.scorers: dict[str, Scorer] = dict(scorers)
        self._records: dict[Key, RunRecord] = dict(records or {})
        self._writer = writer
        self._sessions = dict(sessions or {})
        self._models = dict(models or {})
        self._log_format = log_format
        """The format of the log it adds to (an earlier deepnb's log keeps its own)."""
        self._rows = {row.index: row for row in plan.rows}
        self._lock = threading.RLock()
        self._saving = threading.Lock()
        """Held while a record's or a score's change is kept and logged, so the log has them in
        the order they were made (taken before ``_lock``; the engine thread never waits on it)."""
        self._seen: set[int] = set()
        self._spans: dict[int, ExperimentSpan] = {}
        """Each run's trace span while tracing is on, from its first start until it is kept."""
        self._futures: list[Future[None]] = []
        self._kept = 0
        """Runs read, scored and logged (what ``done`` counts, so a listener told at the end of
        the last one's scoring sees the experiment done, before any waiter wakes)."""
        self._pool: ThreadPoolExecutor | None = None
        self._batch: _Runs | None = None
        self._keys: list[Key] = []
        """The keys this kernel runs, in the batch's order (what the log held as done aside)."""
        self._index: dict[Key, int] = {}
        """Each of those keys' place in the batch."""
        self._planned = frozenset(plan.all_keys())
        self._listeners: list[Callable[[], None]] = []
        self.concurrency = KERNEL_CONCURRENCY
        """How many runs are scored at once (the experiment's ``concurrency``): a judge's model
        calls count against it as the runs' do."""
        self.retries: retrying.Retries | None = None
        self.fail_on_error: retrying.ErrorLimit | None = None
        self.failure: str | None = None
        """Why the experiment stopped itself (``fail_on_error=`` reached), in one line."""
        self._errors = 0
        """Runs that failed for good (counted as the batch hears of them)."""
        self._stop_unlogged = False
        """Whether ``fail_on_error`` stopped it and the log does not say so yet."""
        self._lost: set[Key] = set()
        """Runs that ended but could not be logged (the log failed): not kept, not done."""
        self._stopped = False
        self._halt = threading.Event()
        """Set by :meth:`stop`: a scorer still running is given up (its run is not kept)."""
        self.score_timeout: float | None = SCORE_TIMEOUT
        """Seconds each scorer has to score a run (``score_timeout=``); longer is a scorer error."""
        self.cache: EpochCache | None = None
        """The model-call cache (``cache=``), or ``None``."""
        self._claim: log_claims.LogClaim | None = None
        """Its hold on the log while it runs (let go once it is done or stopped)."""
        self._borrowed: log_claims.LogClaim | None = None
        self._borrowers = 0
        """The hold taken while grades or rescoring add to the log when it does not run, and
        how many of them share it."""

    # -- running ----------------------------------------------------------------------------

    def _begin(self, concurrency: int, served_concurrency: int, run_options: Mapping[str, Any]) -> Experiment:
        """Start every run the log does not hold as done (on the engine loop), and score the
        done ones with the scorers they have no score of yet; returns at once."""
        self._keys = [
            key for key in self.plan.all_keys() if self._records.get(key, _NOT_DONE).status != "done"
        ]
        self._index = {key: i for i, key in enumerate(self._keys)}
        self._score_kept()
        if not self._keys:
            self._let_go()
            return self
        inputs = [
            BatchInput(i, self._rows[row].fields, self._rows[row].given)
            for i, (row, _v, _e) in enumerate(self._keys)
        ]
        sessions = [self._sessions[variant] for _row, variant, _e in self._keys]
        self.concurrency = concurrency
        self._pool = self._pool or ThreadPoolExecutor(concurrency, thread_name_prefix="deepnb-scoring")
        self._batch = _Runs(
            sessions,
            inputs,
            concurrency=concurrency,
            served_concurrency=served_concurrency,
            retries=self.retries,
            on_start=self._started if self.cache is not None else None,
            on_starting=self._traced,
            run_options=run_options,
        )
        self._batch.subscribe(self._changed)
        self._batch.begin()
        return self

    @contextlib.contextmanager
    def _traced(self, index: int) -> Iterator[None]:
        """While tracing is on: run ``index``'s span (made at its first attempt) is the parent
        of what its run sends (:mod:`deepnb.engine.tracing`)."""
        span = self._spans.get(index)
        if span is None:
            row, variant, epoch = self._keys[index]
            span = experiment_span(self.name, row, variant, epoch, self._rows[row].given)
            if span is None:
                yield
                return
            self._spans[index] = span
        with span.current():
            yield

    def _end_span(self, index: int, record: RunRecord | None) -> None:
        """End run ``index``'s span with what its record says (once; a run not recorded, say
        stopped while scored, ends it as stopped)."""
        span = self._spans.pop(index, None)
        if span is None:
            return
        if record is None:
            span.finish(status="stopped")
            return
        span.finish(
            status=record.status,
            result=record.result,
            error=record.error,
            scores={name: s.score for name, s in record.scores.items()},
            tokens=(record.tokens_in, record.tokens_out, record.tokens_unreported),
        )

    def _started(self, index: int, run: Run) -> None:
        """A run started (before its first model call): its calls are of its epoch."""
        if self.cache is not None:
            self.cache.assign(run.thread_id, self._keys[index][2])

    def _changed(self, index: int) -> None:
        """A run may have changed (on the engine thread: only hand work to the scorers)."""
        if index == WHOLE:
            for i in range(len(self._keys)):
                self._consider(i)
        else:
            self._consider(index)
        self._notify()

    def _consider(self, index: int) -> None:
        """Record run ``index`` if it has ended (once)."""
        batch = self._batch
        if batch is None:
            return
        run = batch.run_at(index)
        failed = batch.start_error(index)
        if run is None and failed is None:
            return
        if run is not None and (run.status not in ENDED or batch.retrying(index)):
            return
        with self._lock:
            if index in self._seen or self._pool is None:
                return
            self._seen.add(index)
            stop = run is None or run.status == "error"
            if stop:
                stop = self._count_failure(failed if run is None else run.error)
            future = self._pool.submit(self._finish, index, run, failed)
            self._futures.append(future)
        if stop:
            self.stop(reason="stopped: too many runs failed (fail_on_error)")

    def _count_failure(self, error: str | None) -> bool:
        """Count a run that failed for good (under ``_lock``, as the batch hears of it, so no
        further run starts once ``fail_on_error`` is reached); whether that reaches it."""
        self._errors += 1
        limit = self.fail_on_error
        if limit is None or self.failure is not None or not limit.passed(self._errors, len(self._planned)):
            return False
        self.failure = limit.line(self._errors, len(self._planned), error, str(self.path))
        self._stop_unlogged = True
        return True

    def _finish(self, index: int, run: Run | None, failed: str | None) -> None:
        """Read an ended run, score it, keep it and log it (on a scoring thread); then tell the
        listeners, before the future a waiter waits on is done."""
        try:
            self._score_and_keep(index, run, failed)
        finally:
            self._end_span(index, None)
            with self._lock:
                self._kept += 1
            self._notify()

    def _score_and_keep(self, index: int, run: Run | None, failed: str | None) -> None:
        row_index, variant, epoch = self._keys[index]
        row = self._rows[row_index]
        if run is None:
            record = RunRecord(row_index, variant, epoch, row.fields, row.reference, "error", error=failed)
        else:
            record = self._read(run, row, variant, epoch)
        if self._batch is not None:
            record.attempts = max(1, self._batch.attempts(index))
        if record.status == "done":
            span = self._spans.get(index)
            try:
                with span.current() if span is not None else contextlib.nullcontext():  # a judge's calls too
                    record.scores = self._scored(record, self.scorers, halt=self._halt)
            except ScoringStopped:  # stopped while a scorer ran: not kept, the same log runs it again
                return
        self._end_span(index, record)
        with self._saving:  # logged, then kept: a grade given meanwhile is logged after it
            if self._writer is not None:
                try:
                    self._writer.write("run", record.to_json())
                except logs.LogWriteError as exc:
                    self._lost.add(record.key)
                    self._unsaved(exc)
                    return
            with self._lock:
                self._records[record.key] = record
                reason, self._stop_unlogged = (self.failure if self._stop_unlogged else None), False
            if reason is not None and self._writer is not None:
                with contextlib.suppress(logs.LogWriteError):  # the runs' lines are what counts
                    self._writer.write("stopped", {"reason": reason})

    def _unsaved(self, error: logs.LogWriteError) -> None:
        """The log cannot be written: stop at once, saying how many runs it holds (those are
        what reopens); nothing more is kept or reported done."""
        with self._lock:
            if self.failure is not None:
                return
            saved = sum(1 for key in self._records if key in self._planned)
            self.failure = (
                f"{str(error).rstrip('.')}: the experiment stopped with {saved} of its "
                f"{len(self._planned)} runs saved there (deepnb.load_experiment reopens them; the "
                "same log= runs the rest)."
            )
        self.stop(reason="stopped: the experiment's log cannot be written")

    def _score_kept(self) -> None:
        """Score each run kept as done from the log with the scorers it has no score of (a
        scorer added on resuming), on the scoring threads; each one's new scores are logged."""
        with self._lock:
            missing = [
                (record, {n: s for n, s in self.scorers.items() if n not in record.scores})
                for record in self._records.values()
                if record.status == "done" and record.key in self._planned
            ]
            missing = [(record, scorers) for record, scorers in missing if scorers]
            if not missing:
                return
            self._pool = self._pool or ThreadPoolExecutor(
                self.concurrency, thread_name_prefix="deepnb-scoring"
            )
            for record, scorers in missing:
                self._futures.append(self._pool.submit(self._add_scores, record, scorers))

    def _add_scores(self, record: RunRecord, scorers: Mapping[str, Scorer]) -> None:
        try:
            self._keep_scores(record, self._scored(record, scorers, halt=self._halt), replace=False)
        except ScoringStopped:  # stopped meanwhile: the scorer scores it when the log is resumed
            pass
        except logs.LogWriteError as exc:
            self._unsaved(exc)
        finally:
            with self._lock:
                self._kept += 1
            self._notify()

    def _keep_scores(self, record: RunRecord, scores: Mapping[str, Score], *, replace: bool) -> None:
        """Give ``record`` its new ``scores`` (added to its others, or instead of them with
        ``replace``; a person's grade stays either way) and log them."""
        with self._saving:  # nothing else changes a record's scores meanwhile
            graded = {n: s for n, s in record.scores.items() if s.human}
            new = {n: s for n, s in scores.items() if n not in graded}
            kept = {**new, **graded} if replace else {**record.scores, **new}
            line = {"row": record.row, "variant": record.variant, "epoch": record.epoch}
            whole = replace or self._log_format < logs.SCORES_MERGE  # there, a scores line replaces
            written = kept if whole else new
            self._log().write(
                "scores",
                {**line, "scores": {n: s.to_json() for n, s in written.items()}, "replace": whole},
            )
            with self._lock:  # kept once saved
                record.scores = kept

    def _log(self) -> logs.LogWriter:
        """The log's writer (made on first use for an experiment reopened from its log)."""
        with self._lock:
            if self._writer is None or (self._writer.failed is not None and self._batch is None):
                if not self.path.is_file():  # a new file would be a log without its header
                    raise DeepnbError(
                        f"The experiment's log {str(self.path)!r} is gone: nothing can be added to it."
                    )
                self._writer = logs.LogWriter(self.path)
            return self._writer

    @contextlib.contextmanager
    def _writing(self) -> Iterator[None]:
        """Hold the log while adding to it: this experiment's own claim while it runs, else one
        taken for the while (refused, naming the holder, while another experiment runs on it)."""
        with self._lock:
            running = self._claim is not None and not self._claim.done
            if not running:
                if self._borrowed is None:
                    self._borrowed = log_claims.claim(self.path, self.name)
                self._borrowers += 1
        try:
            yield
        finally:
            if not running:
                with self._lock:
                    self._borrowers -= 1
                    if not self._borrowers and self._borrowed is not None:
                        self._borrowed.release()
                        self._borrowed = None

    def _notify(self) -> None:
        for listener in list(self._listeners):
            listener()
        self._let_go()

    def _let_go(self) -> None:
        """Let the log go once nothing runs or is scored any more (another may write it then)."""
        claim = self._claim
        if claim is not None and not claim.done and self.done:
            claim.release()

    def _read(self, run: Run, row: Row, variant: str, epoch: int) -> RunRecord:
        with contextlib.suppress(TimeoutError):  # read what it has; its record says its status
            run.wait(ENDING_SECONDS)
        state = run.state
        status = run.status
        return RunRecord(
            row=row.index,
            variant=variant,
            epoch=epoch,
            inputs=row.fields,
            reference=row.reference,
            status=status,
            result=run.result if status == "done" else None,
            output=logs.jsonable(run.output),
            error=run.error,
            **state.tokens.columns(),
            cost=pricing.cost(self._models.get(variant), state.tokens),
            latency=round(state.elapsed, 3),
            thread_id=run.thread_id,
            messages=_messages(self._sessions[variant], run.thread_id),
            cached=self.cache.hits(run.thread_id) if self.cache is not None else 0,
        )

    def _scored(
        self, record: RunRecord, scorers: Mapping[str, Scorer], *, halt: threading.Event | None = None
    ) -> dict[str, Score]:
        """Each scorer's score of ``record``, each within :attr:`score_timeout`; ``halt`` set
        meanwhile raises :class:`~deepnb.many.scoring.ScoringStopped`."""
        timeout = self.score_timeout
        return {name: score(scorer, record, timeout=timeout, halt=halt) for name, scorer in scorers.items()}

    # -- waiting and stopping ---------------------------------------------------------------

    @property
    def done(self) -> bool:
        """Whether nothing runs, waits in the queue or is being scored (runs waiting for
        approval aside)."""
        batch = self._batch
        if batch is not None:
            if not batch.done:
                return False
            for i in range(len(self._keys)):
                self._consider(i)
        with self._lock:
            return self._kept == len(self._futures)

    def wait(self, timeout: float | None = None) -> Experiment:
        """Block until every run ended and is scored (runs waiting for approval do not hold it
        up); return the experiment. Once ``fail_on_error=`` stopped it, raise that line (what
        ended is in the experiment and its log); once the log could not be written (disk full,
        no permission, its folder removed), raise the line saying so and how many runs it holds."""
        batch = self._batch
        if batch is not None:
            batch.wait(timeout)
            for i in range(len(self._keys)):
                self._consider(i)
        with self._lock:
            futures = list(self._futures)
        finished, pending = wait_futures(futures, timeout)
        if pending:
            raise TimeoutError(f"The experiment is still scoring {len(pending)} run(s); call wait() again.")
        for future in finished:
            future.result()  # a scoring thread's own failure (scorers' are caught) shows here
        if self.failure is not None:
            raise DeepnbError(self.failure)
        return self

    async def wait_async(self, *, poll: float = 0.1) -> Experiment:
        """Await :meth:`wait`'s condition from the kernel's event loop: a change wakes it at once;
        it also wakes every ``poll`` seconds, so a kernel interrupt takes effect."""
        await wait_until(lambda: self.done, self.subscribe, poll=poll)
        return self

    def stop(self, *, reason: str = "stopped") -> Experiment:
        """Stop every run and drop those still queued (what ended stays in the log; the same
        ``log=`` later runs the rest; so does a run whose scorer was still running, given up at
        once). ``reason`` completes "Run …" on each stopped run's notice."""
        self._stopped = True
        self._halt.set()
        if self._batch is not None:
            self._batch.stop(reason=reason)
        return self

    @property
    def status(self) -> str:
        """``running``, ``done``, ``stopped`` (by ``stop()``), or, once ``fail_on_error=`` or a
        log that cannot be written stopped it, the one line saying why (for the log: how many
        runs it holds)."""
        if self.failure is not None:
            return self.failure
        if not self.done:
            return "running"
        return "stopped" if self._stopped else "done"

    def going(self) -> list[Going]:
        """Where runs execute now (this kernel, a server) with how many run there and wait in
        this kernel's queue for it; empty once nothing runs or waits."""
        batch = self._batch
        return [] if batch is None or batch.done else batch.going()

    @property
    def pending(self) -> list[Any]:
        """What the runs waiting for approval ask: every pending request of every one (decide
        them there: the run then goes on, and is scored and logged when it ends)."""
        return self._batch.pending if self._batch is not None else []

    @property
    def waiting(self) -> list[Run]:
        """The runs waiting for approval (or an answer)."""
        return self._batch.waiting if self._batch is not None else []

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener()`` when a run changed or was recorded (often on another thread)."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    # -- what it holds ----------------------------------------------------------------------

    @property
    def variants(self) -> list[str]:
        return list(self.plan.variants)

    @property
    def records(self) -> dict[Key, RunRecord]:
        """Every ended run's record, by (row, variant, epoch)."""
        with self._lock:
            return dict(self._records)

    @property
    def runs(self) -> Mapping[Key, Run | RunRecord | None]:
        """Each (row, variant, epoch): this kernel's run if it has one, else the logged record,
        else ``None`` (queued)."""
        return _RunsView(self)

    def _run_for(self, key: Key) -> Run | RunRecord | None:
        if key not in self._planned:
            raise KeyError(
                f"No run {key!r} in this experiment: keys are (row, variant, epoch), rows 0-"
                f"{len(self.plan.rows) - 1}, variants {', '.join(self.plan.variants)}, "
                f"epochs 0-{self.plan.epochs - 1}."
            )
        batch = self._batch
        if batch is not None and key in self._index:
            run = batch.run_at(self._index[key])
            if run is not None:
                return run
        return self._records.get(key)

    def record_for(self, key: Key) -> RunRecord | None:
        """The record of run ``key`` if it ended."""
        with self._lock:
            return self._records.get(key)

    def status_of(self, key: Key) -> str:
        """``queued``, ``running``, ``interrupted``, ``done``, ``error`` or ``cancelled``
        (``scoring`` while an ended run is being scored, ``retrying`` while a failed one waits
        to run again, ``unsaved`` for one that ended but the log could not take)."""
        record = self._records.get(key)
        batch = self._batch
        index = self._index.get(key) if batch is not None else None
        if batch is not None and index is not None:
            run = batch.run_at(index)
            if run is not None and run.status not in ENDED:
                return run.status
            if run is not None and batch.retrying(index):
                return "retrying"
            if run is not None and record is None and key in self._lost:
                return "unsaved"
            if run is not None and (record is None or record.thread_id != run.thread_id):
                return "scoring"
            if run is None and record is None:
                return "error" if batch.start_error(index) else ("cancelled" if batch.done else "queued")
        return record.status if record is not None else "queued"

    def scorer_names(self) -> list[str]:
        """The scorers' names: the current ones, then any the log's records have besides."""
        names = list(self.scorers)
        for record in self.records.values():
            names += [name for name in record.scores if name not in names]
        return names

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per run: ``row``, the row's fields, ``reference``, ``variant``, ``epoch``,
        ``output`` (the answer), each scorer's score, ``status``, ``tokens_in``,
        ``tokens_out``, ``tokens_unreported``, ``cost``, ``latency``, ``thread_id``, ``error`` and
        ``scorer_errors``. Tokens and cost are ``None`` for a run not yet ended or whose model
        calls reported no usage, and lower bounds where ``tokens_unreported`` is above 0.
        A field named like a column becomes ``input_<name>``; a scorer so named, ``score_<name>``."""
        fixed = COLUMNS
        names = self.scorer_names()
        records = []
        for key in self.plan.all_keys():
            row_index, variant, epoch = key
            row = self._rows[row_index]
            record = self._records.get(key)
            out: dict[str, Any] = {"row": row_index}
            for field, value in row.fields.items():
                out[f"input_{field}" if field in fixed or field in names else field] = value
            out.update(reference=row.reference, variant=variant, epoch=epoch)
            out["output"] = record.result if record else None
            for name in names:
                given = record.scores.get(name) if record else None
                out[f"score_{name}" if name in out or name in fixed else name] = (
                    given.score if given else None
                )
            errors = [f"{n}: {s.error}" for n, s in (record.scores.items() if record else []) if s.error]
            out.update(
                status=self.status_of(key),
                **(record.tokens.columns() if record else dict.fromkeys(TOKEN_COLUMNS)),
                cost=record.cost if record else None,
                scoring_cost=record.scoring_cost if record else None,
                latency=record.latency if record else None,
                thread_id=record.thread_id if record else None,
                error=record.error if record else None,
                scorer_errors="; ".join(errors) or None,
            )
            records.append(out)
        return records

    def to_pandas(self) -> Any:
        """``to_records()`` as a pandas ``DataFrame`` (pandas is optional: one line says how)."""
        return records_frame(self.to_records(), what="experiment")

    def to_parquet(self, path: str | os.PathLike[str]) -> Path:
        """Write ``to_records()`` to a Parquet file, a row per run (pyarrow is optional: one line
        says how to get it); nested values (a structured output, a row's lists) are JSON text."""
        return records_parquet(self.to_records(), path, what="experiment")

    def report(self, path: str | os.PathLike[str]) -> Path:
        """Write the experiment as one self-contained HTML file to ``path`` and return its path:
        the summary, the comparison with the baseline, the matrix with its filters (failures
        only, scorer, variant, status, text search) and every sample's view, opened from disk
        in any browser (no server, no network, no kernel); secrets redacted, every model text
        escaped (:mod:`deepnb.many.report`)."""
        return reports.write(self, path)

    def to_inspect(self, path: str | os.PathLike[str]) -> list[Path]:
        """Write the experiment as Inspect AI eval logs into the folder ``path`` (made if
        missing), one ``.json`` log per variant (an Inspect log is one task run by one model),
        that ``inspect_ai.log.read_eval_log`` reads and ``inspect view`` lists; return their
        paths. Each sample is a run (id, epoch, input, target, output, scores with the scorer's
        comment as explanation, tokens, time); the results are ``summary()``'s means; secrets
        are redacted as in the log (:mod:`deepnb.many.inspect_export`)."""
        return inspect_export.write(self, path)

    # -- judging ----------------------------------------------------------------------------

    def summary(self, *, threshold: float = stats.THRESHOLD) -> Summary:
        """Per variant: each score's mean over the rows (each row's epochs reduced to one score
        by ``epochs_reducer``) with a 95 % interval clustered by row, the rows and runs it rests
        on, pass rate and pass@k (k = epochs), runs, errors, tokens, cost and latency p50 / p95.
        A score passes at ``threshold`` or above."""
        by_variant: dict[str, list[RunRecord]] = {v: [] for v in self.plan.variants}
        for record in self.records.values():
            by_variant.setdefault(record.variant, []).append(record)
        names = self.scorer_names()
        return Summary(
            tuple(
                stats.summarize(
                    v,
                    records,
                    names,
                    epochs=self.plan.epochs,
                    threshold=threshold,
                    reducer=self.plan.epochs_reducer,
                )
                for v, records in by_variant.items()
            ),
            self.plan.epochs,
            _reduced_by(self.plan.epochs_reducer),
            {v: _scoring_cost(records) for v, records in by_variant.items()},
        )

    def comparison_pairs(self) -> list[tuple[str, str]]:
        """``(a, b)`` for each variant ``a`` the view and the report compare with ``b``: the
        baseline, or else the first variant; none for an experiment of one variant."""
        variants = self.variants
        base = self.plan.baseline if self.plan.baseline in variants else None
        base = base if base is not None else (variants[0] if len(variants) > 1 else None)
        return [(a, base) for a in variants if base is not None and a != base]

    def compare(self, a: str, b: str | None = None) -> VariantComparison:
        """``a`` against ``b`` (default: the baseline), paired by row: per scorer wins, losses
        and ties over the rows (each row's epochs reduced to one score by ``epochs_reducer``),
        the mean difference and a paired Wilcoxon signed-rank p; and per scorer the rows where
        the two differ most on it."""
        b = b if b is not None else self.plan.baseline
        if b is None:
            raise DeepnbError(
                "compare(a, b) needs the variant to compare with: name b, or pass baseline= to "
                "the experiment."
            )
        for label in (a, b):
            if label not in self.plan.variants:
                raise DeepnbError(
                    f"No variant {label!r}: the experiment's variants are {', '.join(self.plan.variants)}."
                )
        if a == b:
            raise DeepnbError(f"compare({a!r}, {b!r}) compares a variant with itself: name two variants.")
        records = self.records.values()
        mine = [r for r in records if r.variant == a]
        theirs = [r for r in records if r.variant == b]
        names = self.scorer_names()
        reducer = self.plan.epochs_reducer
        per_scorer = tuple(stats.compare_scorer(mine, theirs, name, reducer) for name in names)
        a_scores = {name: stats.row_scores(mine, name, reducer) for name in names}
        b_scores = {name: stats.row_scores(theirs, name, reducer) for name in names}
        return VariantComparison(
            a,
            b,
            per_scorer,
            tuple(stats.differences(by_row(mine), by_row(theirs), a_scores, b_scores)),
            self.plan.epochs,
            _reduced_by(reducer),
        )

    def rescore(
        self,
        scorers: Iterable[Scorer] | Mapping[str, Scorer] | Scorer | None = None,
        *,
        replace: bool = False,
    ) -> Experiment:
        """Score every done run again without running anything, and log the new scores. With
        ``scorers``, those score (they join the experiment's scorers, replacing any of the same
        name); without, the experiment's own do. Each run keeps its other scorers' scores
        unless ``replace=True``, which drops them and their scorers. A person's grade
        (:meth:`grade`) stays either way: rescoring never overwrites it. At most ``concurrency``
        runs are scored at once (the experiment's; settable on a reopened one:
        ``exp.concurrency = 4``)."""
        chosen = named(scorers) if scorers is not None else dict(self.scorers)
        if not chosen:
            raise DeepnbError(
                "rescore() has no scorer to score with (an experiment reopened from its log has "
                "none): give them, e.g. exp.rescore([deepnb.scorers.exact])."
            )
        self._log()  # a log that is gone says so before any scoring
        with self._writing():
            with self._lock:
                self.scorers = dict(chosen) if replace else {**self.scorers, **chosen}
                done = [record for record in self._records.values() if record.status == "done"]
            with ThreadPoolExecutor(self.concurrency, thread_name_prefix="deepnb-scoring") as pool:
                scored = list(pool.map(lambda r: self._scored(r, chosen), done))
            for record, scores in zip(done, scored, strict=True):
                self._keep_scores(record, scores, replace=replace)
        self._notify()
        return self

    def grade(
        self,
        row: int,
        variant: str,
        epoch: int,
        score: float | bool,
        comment: str | None = None,
        scorer: str = "human",
    ) -> Experiment:
        """A person's grade of run ``(row, variant, epoch)``: ``score`` (a number, or a bool as
        1 or 0) with an optional ``comment``, as ``scorer``'s score (default ``"human"``; a
        scorer's name overrides its score on that run). Written to the log at once and marked
        ``human``; ``summary()`` and ``compare()`` use it, rescoring never overwrites it, and it
        is there when the log is reopened. Works while the experiment runs (on a run that has
        ended) and on one reopened from its log (refused, naming it, while another experiment
        runs on that log)."""
        key: Key = (row, variant, epoch)
        value = _graded_value(score)
        if not isinstance(scorer, str) or not scorer.strip():
            raise DeepnbError(f"scorer= is the name of the score to set (e.g. 'human'), not {scorer!r}.")
        if comment is not None and not isinstance(comment, str):
            raise DeepnbError(f"A grade's comment is text, not a {type(comment).__name__}.")
        if key not in self._planned:
            raise DeepnbError(
                f"No run {key!r} to grade: runs are (row, variant, epoch), rows 0-"
                f"{len(self.plan.rows) - 1}, variants {', '.join(map(repr, self.plan.variants))}, "
                f"epochs 0-{self.plan.epochs - 1}."
            )
        with self._saving:
            record = self.record_for(key)
            if record is None or record.status != "done":
                raise DeepnbError(
                    f"Run {key!r} has no answer to grade (it is {self.status_of(key)}): grade it "
                    "once it is done."
                )
            given = Score(value, comment, human=True)
            line = {"row": row, "variant": variant, "epoch": epoch, "scorer": scorer}
            try:
                writer = self._log()  # a log that is gone says so before it is claimed
                with self._writing():
                    writer.write("grade", {**line, "score": value, "comment": comment})
            except logs.LogWriteError as exc:
                raise DeepnbError(f"{str(exc).rstrip('.')}: the grade is not saved, nor kept.") from None
            with self._lock:
                record.scores = {**record.scores, scorer: given}
        self._notify()
        return self


def _graded_value(score: Any) -> float:
    """A grade's score as a number: a bool as 1 or 0, any finite number; else one line."""
    if isinstance(score, bool):
        return 1.0 if score else 0.0
    if isinstance(score, numbers.Real) and math.isfinite(float(score)):
        return float(score)
    raise DeepnbError(f"A grade's score is a finite number (or True / False), not {score!r}."[:200])


@safe_display
@dataclass(frozen=True, repr=False)  # repr: the renderer's text table
class Summary(Displayable):
    """An experiment's summary: one :class:`~deepnb.many.stats.VariantSummary` per variant."""

    variants: tuple[stats.VariantSummary, ...]
    epochs: int
    reducer: str = "mean"
    """How each row's epochs became its one score (the epoch reducer's name, and a note where a
    reopened log could not rebuild its own)."""
    scoring_costs: Mapping[str, float | None] = dataclasses.field(default_factory=dict)
    """Per variant, what its scorers' model calls (a judge's) cost in US dollars (``None``:
    none priced)."""

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per variant: runs, done, errors, then per scorer ``NAME mean`` (over the
        rows), ``NAME low``, ``NAME high`` (its 95 % interval, clustered by row), ``NAME pass``,
        ``NAME pass@k``, ``NAME errors``, ``NAME rows`` and ``NAME runs`` (what the mean rests
        on: the rows with a score and the scored runs), then tokens (``None``: unknown; a
        lower bound where ``tokens_unreported`` model calls reported none), cost (``None``:
        unknown; a lower bound where ``cost_unknown`` runs have no price or tokens are
        unreported), ``scoring_cost`` (the judge's model calls; ``None``: none priced), latency
        p50 / p95."""
        records = []
        for v in self.variants:
            record: dict[str, Any] = {
                "variant": v.variant,
                "runs": v.runs,
                "done": v.done,
                "errors": v.errors,
            }
            for s in v.scores:
                record[f"{s.scorer} mean"] = s.mean
                record[f"{s.scorer} low"] = s.low
                record[f"{s.scorer} high"] = s.high
                record[f"{s.scorer} pass"] = s.pass_rate
                record[f"{s.scorer} pass@{self.epochs}"] = s.pass_at_k
                record[f"{s.scorer} errors"] = s.errors
                record[f"{s.scorer} rows"] = s.rows
                record[f"{s.scorer} runs"] = s.n
            record.update(
                **v.tokens.columns(),
                cost=v.cost,
                cost_unknown=v.cost_unknown,
                scoring_cost=self.scoring_costs.get(v.variant),
                latency_p50=v.latency_p50,
                latency_p95=v.latency_p95,
            )
            records.append(record)
        return records

    def to_pandas(self) -> Any:
        """``to_records()`` as a pandas ``DataFrame``."""
        return records_frame(self.to_records(), what="summary")

    def to_parquet(self, path: str | os.PathLike[str]) -> Path:
        """Write ``to_records()`` to a Parquet file, a row per variant."""
        return records_parquet(self.to_records(), path, what="summary")


def each_row(epochs: int, reducer: str) -> str:
    """What a row's one score is, in words: its score, or its epochs reduced."""
    return "each row's score" if epochs == 1 else f"each row's {reducer} over its {epochs} epochs"


def paired_by_row(each: str) -> str:
    """A comparison's pairing and test as a phrase, ``each`` saying what a row's score is."""
    return f"paired by row ({each}); Wilcoxon signed-rank over the pairs"


@safe_display
@dataclass(frozen=True, repr=False)  # repr: the renderer's text table
class VariantComparison(Displayable):
    """``a`` against ``b``, paired by row: per scorer, and per scorer the rows where they differ
    most; ``epochs`` and ``reducer`` say how each row's one score was made."""

    a: str
    b: str
    scorers: tuple[stats.ScorerComparison, ...]
    differences: tuple[stats.Difference, ...]
    epochs: int = 1
    reducer: str = "mean"

    @property
    def paired(self) -> str:
        """What the comparison pairs and tests, as a phrase the live view and the report show."""
        return paired_by_row(each_row(self.epochs, self.reducer))

    def table(self) -> tuple[list[str], list[list[str]]]:
        """The comparison per scorer as a table of texts, as the live view and the report show
        it: its column names (scorer, pairs, ``a`` wins, losses, ties, mean difference, p) and a
        row per scorer."""
        columns = ["scorer", "pairs (rows)", f"{self.a} wins", "losses", "ties", "mean difference"]
        columns.append("p (Wilcoxon)")
        rows = [
            [
                s.scorer,
                str(s.pairs),
                str(s.wins),
                str(s.losses),
                str(s.ties),
                number(s.mean_difference),
                number(s.p_value, 3),
            ]
            for s in self.scorers
        ]
        return columns, rows

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per scorer: pairs (the rows both variants have a score for), wins, losses,
        ties, mean difference (a - b), p."""
        return [
            {
                "scorer": s.scorer,
                "pairs": s.pairs,
                "wins": s.wins,
                "losses": s.losses,
                "ties": s.ties,
                "mean_difference": s.mean_difference,
                "p_value": s.p_value,
            }
            for s in self.scorers
        ]


class _RunsView(Mapping[Key, "Run | RunRecord | None"]):
    def __init__(self, experiment: Experiment) -> None:
        self._experiment = experiment

    def __getitem__(self, key: Key) -> Run | RunRecord | None:
        if not (isinstance(key, tuple) and len(key) == 3):
            raise KeyError(f"runs[...] takes (row, variant, epoch), e.g. runs[(0, 'a', 0)], not {key!r}.")
        return self._experiment._run_for(key)

    def __iter__(self) -> Iterator[Key]:
        return iter(self._experiment.plan.all_keys())

    def __len__(self) -> int:
        return len(self._experiment._planned)


_NOT_DONE = RunRecord(-1, "", -1, {}, None, "queued")


def by_row(records: Iterable[RunRecord]) -> dict[int, list[RunRecord]]:
    """Each row's runs (its epochs)."""
    rows: dict[int, list[RunRecord]] = {}
    for record in records:
        rows.setdefault(record.row, []).append(record)
    return rows


def _reduced_by(reducer: stats.Reducer) -> str:
    """The reducer as the summary and the comparison say it: its name, and its note if any."""
    return f"{reducer.name} ({reducer.note})" if reducer.note else reducer.name


def _scoring_cost(records: Iterable[RunRecord]) -> float | None:
    """What the scorers' model calls cost over ``records`` (``None``: none priced)."""
    costs = [cost for record in records if (cost := record.scoring_cost) is not None]
    return sum(costs) if costs else None


def _messages(session: Session, thread_id: str) -> list[dict[str, Any]]:
    """The thread's messages in OpenAI's dict shape (what agentevals and the log take)."""
    try:
        from langchain_core.messages import convert_to_openai_messages  # noqa: PLC0415  # lazy: heavy

        messages = session.state_values(thread_id).get("messages") or []
        converted = convert_to_openai_messages(list(messages))
    except Exception:  # a thread that cannot be read gives its record no messages, not a failure
        return []
    return [dict(m) for m in converted] if isinstance(converted, list) else []


def experiment(
    dataset: Any,
    *,
    variants: Mapping[str, Any] | None = None,
    agent: str | None = None,
    scorers: Iterable[Scorer] | Mapping[str, Scorer] | Scorer | None = (),
    epochs: int = 1,
    epochs_reducer: str | Callable[[list[float]], Any] = "mean",
    concurrency: int | None = None,
    template: str | None = None,
    name: str | None = None,
    log: str | os.PathLike[str] | None = None,
    baseline: str | None = None,
    auto_approve: bool = False,
    namespace: Mapping[str, Any] | None = None,
    retries: int | retrying.Retries | None = None,
    fail_on_error: bool | int | float | None = None,
    cache: bool | str | os.PathLike[str] = False,
    input: str | None = None,
    reference: str | None = None,
    score_timeout: float | None = SCORE_TIMEOUT,
) -> Experiment:
    """Run ``dataset`` by each of ``variants`` (default: ``agent`` as it is) ``epochs`` times,
    scoring each run with ``scorers``; returns the :class:`Experiment` at once. Everything is
    checked first: a mistake is one line and nothing runs. ``concurrency``: how many runs go at
    once in this kernel (default 8); a served agent's runs go to its server as it takes them
    (at most ``concurrency`` at once if given, else 100), where its job slots and queue decide how
    many run at once. ``log``: the JSONL log (default ``.deepnb/experiments/NAME-TIME.jsonl``); a log that
    exists is resumed, its done runs kept and not run again. ``epochs_reducer``: how a row's
    epoch scores become its one score, which the summary's figures and the comparison rest on
    (Inspect's names: ``mean``, ``median``, ``mode``, ``max``, ``pass_at_K``, ``at_least_K``; or a
    function of the list of a row's epoch scores returning its score). ``retries``: how many
    times a run failing with an error that may pass (a rate limit, a timeout, a 5xx) is run
    again, after an exponential backoff (or a :class:`~deepnb.many.retrying.Retries`).
    ``fail_on_error``: ``True``, a count or a fraction of the runs (as Inspect's): once that many
    runs failed, the experiment stops, and ``status`` and ``wait()`` say why in one line.
    ``cache``: ``True`` (under ``.deepnb/cache``) or a folder keeps every model response on disk,
    reused for the same model, parameters, messages and epoch (a re-run after a kernel restart
    too). ``dataset`` is what :func:`deepnb.many.datasets.dataset` reads (or a ``Dataset``);
    ``input`` / ``reference`` name the field each row's input and reference come from, as there.
    ``score_timeout``: seconds each scorer has to score one run (default 300; ``None``: no
    bound); a scorer that takes longer gives that run a scorer error, and ``stop()`` (the
    kernel's interrupt) gives up on a scorer still running at once.
    A row an agent would run with no prompt (no template, no input field) is refused before any
    model call. A resumed log's done runs are scored by any scorer they have no score of; a log
    written with another template, other variants (labels or definitions), other epochs or other
    fields or references for its rows is refused in one line. The experiment claims its log
    while it runs: another experiment on it (in this kernel or another) is refused in one line
    naming it. A log that cannot be written stops the experiment, saying how many runs it holds."""
    if score_timeout is not None and (
        isinstance(score_timeout, bool) or not isinstance(score_timeout, int | float) or not score_timeout > 0
    ):
        raise DeepnbError(
            "score_timeout is the seconds a scorer has per run (a positive number, or None), "
            f"not {score_timeout!r}."
        )
    retry_policy = retrying.retries_of(retries)
    error_limit = retrying.error_limit(fail_on_error)
    model_cache = _cache(cache)
    if isinstance(epochs, bool) or not isinstance(epochs, int) or epochs < 1:
        raise DeepnbError(
            f"epochs must be a whole number of at least 1 (runs per row and variant), not {epochs!r}."
        )
    reduce_with = stats.reducer(epochs_reducer, epochs=epochs)
    limit = KERNEL_CONCURRENCY if concurrency is None else check_concurrency(concurrency)
    served_limit = SERVED_CONCURRENCY if concurrency is None else limit
    data = read_dataset(dataset, input=input, reference=reference)
    rows = data.rows(template)
    chosen = named(scorers)
    built = build(variants, agent, namespace, cache=model_cache)
    check_given(rows, {label: getattr(session, "graph", None) for label, (session, _what) in built.items()})
    if baseline is not None and baseline not in built:
        raise DeepnbError(f"baseline={baseline!r} is not a variant: use one of {', '.join(built)}.")
    title = name or DEFAULT_NAME
    plan = Plan(
        title,
        tuple(rows),
        {label: what for label, (_s, what) in built.items()},
        epochs,
        baseline,
        template,
        reduce_with,
    )
    definitions = {label: provenance.definition(session, what) for label, (session, what) in built.items()}
    path = Path(log) if log is not None else logs.default_path(title)
    claim = log_claims.claim(path, title)
    try:
        made = _made(plan, definitions, chosen, path, data, built)
        made.retries, made.fail_on_error, made.cache = retry_policy, error_limit, model_cache
        made.score_timeout = score_timeout
        made._claim = claim
        return made._begin(limit, served_limit, {"auto_approve": auto_approve} if auto_approve else {})
    except BaseException:
        claim.release()
        raise


def _made(
    plan: Plan,
    definitions: Mapping[str, Any],
    chosen: Mapping[str, Scorer],
    path: Path,
    data: Any,
    built: Mapping[str, tuple[Session, str]],
) -> Experiment:
    """The experiment on its log, once claimed: the log read (to resume) or begun, its rows added."""
    rows = plan.rows
    records: dict[Key, RunRecord] = {}
    logged_rows: set[int] = set()
    log_format = logs.FORMAT
    fresh = not (path.is_file() and path.stat().st_size > 0)
    if not fresh:
        contents = logs.read(path)
        provenance.check_resumable(
            contents,
            variants=plan.variants,
            definitions=definitions,
            epochs=plan.epochs,
            template=plan.template,
            rows=rows,
        )
        records = {key: record for key, record in contents.runs.items() if key[1] in plan.variants}
        log_format = int(contents.header["format"])
        logged_rows = set(contents.rows)
    writer = logs.LogWriter(path)
    if fresh:
        created = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        header = provenance.header(
            name=plan.name,
            created=created,
            variants=plan.variants,
            definitions=definitions,
            scorers=list(chosen),
            epochs=plan.epochs,
            baseline=plan.baseline,
            template=plan.template,
            rows=rows,
            epochs_reducer=plan.epochs_reducer.name,
        )
        header["dataset"] = {**data.mapping, **header["dataset"]}  # how it was read, and its hash
        writer.write("experiment", header)
    for row in rows:
        if row.index not in logged_rows:  # resuming appends only the rows the log has not got
            writer.write("row", {**provenance.row_line(row), **row.logged_extras()})
    sessions = {label: session for label, (session, _what) in built.items()}
    made = Experiment(
        plan,
        scorers=chosen,
        path=path,
        records=records,
        writer=writer,
        sessions=sessions,
        models={label: pricing.model_of(session) for label, session in sessions.items()},
        log_format=log_format,
    )
    return made


def _cache(value: Any) -> EpochCache | None:
    """``cache=`` as the cache its variants' models answer through (``None``: no cache)."""
    if value is None or value is False:
        return None
    from deepnb.many import caching  # noqa: PLC0415  # lazy: it imports langchain_core and langgraph

    folder = caching.cache_folder(value)
    return caching.EpochCache(folder) if folder is not None else None


def load_experiment(path: str | os.PathLike[str]) -> Experiment:
    """An experiment reopened from its log: its rows, variants and every run's record (scores,
    answers, messages), its runs read-only; ``summary()``, ``compare()``, ``rescore()`` and
    ``grade()`` work on it (the last two add to the log)."""
    contents = logs.read(path)
    header = contents.header
    rows = tuple(
        Row(
            index,
            data.get("inputs") or {},
            data.get("reference"),
            data.get("given") or "",
            data.get("id"),
            data.get("reference_type"),
            data.get("metadata") or {},
        )
        for index, data in sorted(contents.rows.items())
    )
    variants = dict(header.get("variants") or {})
    for record in contents.runs.values():
        variants.setdefault(record.variant, "")
    epochs = int(header.get("epochs") or 1)
    plan = Plan(
        str(header.get("name") or DEFAULT_NAME),
        rows,
        variants,
        epochs,
        header.get("baseline"),
        header.get("template"),
        stats.logged_reducer(header.get("epochs_reducer"), epochs=epochs),
    )
    return Experiment(
        plan, scorers={}, path=Path(path), records=contents.runs, log_format=int(header["format"])
    )
