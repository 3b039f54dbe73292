"""Tracing on and off, its status, and the spans deepnb adds to what LangChain's instrumentation
gives: a run (an ``AGENT`` span per stretch of it: the start, then each resume after a pause,
with the pause's interrupts as events), each decision on an interrupt (a ``DECISION`` span), a
summarization (an event), and an experiment's run (a ``CHAIN`` span with its row, variant,
epoch and scores, the run's spans inside it).

Off unless asked: by ``deepnb.trace(...)``, ``%deepagent trace on``, or a ``[trace]`` table in a
trusted project's ``deepnb.toml`` (read once, at the first run). While off, every function here
returns at once and imports no tracing library.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import threading
import weakref
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from deepnb.core import events as ev
from deepnb.core.errors import DeepnbError
from deepnb.core.extras import require
from deepnb.core.text.safe_display import safe_display
from deepnb.engine.tracing.settings import TraceSettings, configured, settings

if TYPE_CHECKING:
    from opentelemetry.sdk.trace.export import SpanExporter
    from opentelemetry.trace import Span

    from deepnb.engine.tracing.pipeline import Pipeline

log = logging.getLogger("deepnb")
STOP_WAIT = 2.0
"""Seconds turning tracing off waits for the last export (it goes on in the background)."""
EXIT_WAIT = 5.0
"""Seconds the interpreter's exit waits for the spans still waiting to be sent."""
RUN_ENDS = (ev.RunFinished, ev.RunFailed, ev.RunCancelled)

_lock = threading.RLock()
_pipeline: Pipeline | None = None
_checked = False  # the project's [trace] table has been read (or tracing was set by hand)
_note: str | None = None
_exit_hooked = False


# -- on, off, status ------------------------------------------------------------------------------


def _build(settings: TraceSettings, exporter: SpanExporter | None) -> Pipeline:
    # a package of the extra missing (or at a version it excludes) is one line naming the fix
    require("trace", "opentelemetry.sdk.trace", what="Tracing")
    require("trace", "opentelemetry.exporter.otlp.proto.http.trace_exporter", what="Tracing")
    require("trace", "openinference.instrumentation.langchain", what="Tracing")
    from deepnb.engine.tracing.pipeline import Pipeline  # noqa: PLC0415  # lazy: the optional trace extra

    return Pipeline(settings, exporter)


def turn_on(settings: TraceSettings, *, exporter: SpanExporter | None = None) -> TraceStatus:
    """Send every run's spans as ``settings`` say from now on (replacing tracing already on);
    ``exporter``: send through it instead of OTLP (tests use the SDK's in-memory one)."""
    global _pipeline, _checked, _note, _exit_hooked
    with _lock:
        old, _pipeline = _pipeline, None
        if old is not None:
            old.stop(STOP_WAIT)
        _pipeline = _build(settings, exporter)
        _checked, _note = True, None
        if not _exit_hooked:
            atexit.register(_at_exit)
            _exit_hooked = True
    return status()


def _at_exit() -> None:
    """At the interpreter's exit (a script, ``deepnb eval``): send what waits, within bounds."""
    pipeline = _pipeline
    if pipeline is not None:
        pipeline.stop(EXIT_WAIT)


def trace(
    endpoint: str | None = None,
    *,
    headers: Mapping[str, Any] | None = None,
    project: str | None = None,
    enabled: bool = True,
    source: str = "deepnb.trace()",
    **options: Any,
) -> TraceStatus:
    """``deepnb.trace(...)``: on with what is given; with nothing given, as the project's
    ``[trace]`` table says where it has one (else the standard ``OTEL_EXPORTER_OTLP_*``
    variables, else Phoenix on this machine); ``enabled=False`` turns it off."""
    if not enabled:
        return turn_off()
    unknown = sorted(set(options) - {"timeout", "queue", "delay", "max_value"})
    if unknown:
        raise DeepnbError(
            f"deepnb.trace() takes no {', '.join(unknown)}: use endpoint, headers, project, timeout, "
            "queue, delay, max_value or enabled."
        )
    if endpoint is None and headers is None and project is None and not options:
        found = configured()
        if found.settings is not None:
            return turn_on(found.settings)
        if found.untrusted and found.note:
            raise DeepnbError(found.note)
    return turn_on(settings(endpoint, headers=headers, project=project, source=source, **options))


def turn_off() -> TraceStatus:
    """Stop tracing (what waits gets one last export, in the background); the status after."""
    global _pipeline, _checked, _note
    with _lock:
        pipeline, _pipeline, _checked = _pipeline, None, True
        _note = None
    if pipeline is not None:
        pipeline.stop(STOP_WAIT)
        return TraceStatus.of(pipeline, on=False)
    return status()


def _check_config() -> None:
    """Read the project's ``[trace]`` table once; a mistake in it is said once (and by the
    status), never raised into a run."""
    global _checked, _note
    with _lock:
        if _checked:
            return
        _checked = True
        try:
            found = configured()
            if found.settings is not None:
                turn_on(found.settings)
            else:
                _note = found.note
        except DeepnbError as exc:
            _note = f"Tracing is off: {exc}"
            log.warning("deepnb: %s", _note)


def active() -> Pipeline | None:
    """The pipeline while tracing is on, else ``None`` (the project's ``[trace]`` read first)."""
    if not _checked:
        _check_config()
    return _pipeline


def flush(timeout: float = 10.0) -> bool:
    """Send every span that waits now, waiting at most ``timeout`` seconds; whether all went
    to the exporter (``True`` while tracing is off: nothing waits)."""
    pipeline = _pipeline
    return True if pipeline is None else pipeline.flush(timeout)


@safe_display
@dataclass(frozen=True)
class TraceStatus:
    """Where spans go and what became of them: ``exported`` (the collector took them),
    ``dropped`` (the queue was full), ``failed`` (an export the collector did not take),
    ``waiting`` (queued or being sent), ``last_error``; ``note`` says why tracing is off where
    there is a reason (a ``[trace]`` table waiting for trust)."""

    on: bool
    endpoint: str | None = None
    project: str | None = None
    source: str | None = None
    exported: int = 0
    dropped: int = 0
    failed: int = 0
    waiting: int = 0
    last_error: str | None = None
    note: str | None = None

    @classmethod
    def of(cls, pipeline: Pipeline, *, on: bool = True) -> TraceStatus:
        counts = pipeline.counts
        with counts.lock:
            numbers = (counts.exported, counts.dropped, counts.failed, counts.last_error)
        s = pipeline.settings
        return cls(on, s.endpoint, s.project, s.source, *numbers[:3], counts.waiting, numbers[3])

    def flush(self, timeout: float = 10.0) -> TraceStatus:
        """Send every span that waits now (waiting at most ``timeout`` seconds), then the status:
        what a script calls before it ends, or a test before it reads the collector."""
        flush(timeout)
        return status()

    def __repr__(self) -> str:
        if self.endpoint is None:
            return (
                self.note
                or "Tracing is off: %deepagent trace on (or deepnb.trace(endpoint=...)) turns it on."
            )
        head = "Tracing to" if self.on else "Tracing is off; it sent to"
        lines = [
            f"{head} {self.endpoint}, project {self.project!r} (from {self.source}).",
            f"Spans: {self.exported} exported, {self.waiting} waiting, {self.dropped + self.failed} dropped "
            f"({self.dropped} with the queue full, {self.failed} the collector did not take).",
        ]
        if self.last_error:
            lines.append(f"Last export error: {self.last_error}")
        return "\n".join(lines)


def status() -> TraceStatus:
    """Tracing's status now."""
    active()
    pipeline = _pipeline
    if pipeline is None:
        return TraceStatus(False, note=_note)
    return TraceStatus.of(pipeline)


# -- the spans deepnb adds ------------------------------------------------------------------------


class TracedRun(Protocol):
    """What a run span reads of a run (:class:`deepnb.session.run.Run`)."""

    id: str
    thread_id: str
    prompt: str | None

    @property
    def workbench(self) -> Any: ...

    @property
    def status(self) -> str: ...

    @property
    def result(self) -> str | None: ...

    @property
    def error(self) -> str | None: ...

    def subscribe(self, listener: Callable[[ev.Event], None]) -> Callable[[], None]: ...


def _kind(kind: str) -> dict[str, str]:
    return {"openinference.span.kind": kind}


def _json(value: Any) -> str:
    return json.dumps(value, default=str, ensure_ascii=False)


def _action_names(request: ev.InterruptRequest) -> tuple[str, ...]:
    value = request.value
    actions = value.get("action_requests") if isinstance(value, Mapping) else None
    if not isinstance(actions, list):
        return ()
    return tuple(str(a.get("name")) for a in actions if isinstance(a, Mapping) and a.get("name"))


class _RunTrace:
    """A run's spans: one per stretch it runs, and one per decision made while it waits."""

    def __init__(self, pipeline: Pipeline, run: TracedRun) -> None:
        self.pipeline = pipeline
        self.run = run
        self.agent = str(getattr(run.workbench, "name", "agent"))
        self.lock = threading.Lock()
        self.open: Span | None = None
        self.first: Span | None = None
        self.last: Span | None = None
        self.unsubscribe = run.subscribe(self.on_event)

    def begin(self, *, resumed: bool) -> Span:
        from opentelemetry.trace import set_span_in_context  # noqa: PLC0415  # lazy: tracing is on here

        attributes: dict[str, Any] = {
            **_kind("AGENT"),
            "agent.name": self.agent,
            "session.id": self.run.thread_id,
            "metadata": _json({"run": self.run.id, "agent": self.agent, "thread": self.run.thread_id}),
            "run.id": self.run.id,
        }
        if not resumed and self.run.prompt is not None:
            attributes.update({"input.value": self.run.prompt, "input.mime_type": "text/plain"})
        name = f"{'resume' if resumed else 'run'}: {self.agent}"
        with self.lock:  # a resume goes in the run's trace, under its first stretch
            first = self.first if resumed else None
        parent = None if first is None else set_span_in_context(first)
        span = self.pipeline.tracer.start_span(name, context=parent, attributes=attributes)
        with self.lock:
            self.open = span
            self.first = self.first or span
        return span

    def end(self) -> bool:
        """End the open stretch's span, if it is still open; whether the run is over (not paused).
        A run's end ends it from its ending event, before anyone waiting on the run is woken."""
        from opentelemetry.trace import Status, StatusCode  # noqa: PLC0415  # lazy: tracing is on here

        with self.lock:
            span, self.open = self.open, None
        status = self.run.status
        over = status != "interrupted"
        if span is None:
            return over
        span.set_attribute("run.status", status)
        if status == "done":
            if self.run.result is not None:
                span.set_attributes({"output.value": self.run.result, "output.mime_type": "text/plain"})
            span.set_status(Status(StatusCode.OK))
        elif status == "error":
            span.set_status(Status(StatusCode.ERROR, self.run.error or "failed"))
        elif status == "interrupted":
            span.set_status(Status(StatusCode.OK))
        span.end()
        with self.lock:
            self.last = span
        if over:
            self.unsubscribe()
        return over

    def on_event(self, event: ev.Event) -> None:
        with self.lock:
            open_span, parent = self.open, self.open or self.last
        if isinstance(event, RUN_ENDS):
            self.end()
        elif isinstance(event, ev.RunPaused) and open_span is not None:
            for request in event.interrupts:
                open_span.add_event(
                    "interrupt", {"interrupt.id": request.id, "interrupt.tools": _action_names(request)}
                )
        elif isinstance(event, ev.Summarized) and open_span is not None:
            found: dict[str, str | int | None] = {
                "agent": event.agent,
                "cutoff": event.cutoff,
                "messages": event.messages,
            }
            found |= {"tokens_before": event.tokens_before, "tokens_after": event.tokens_after}
            open_span.add_event("summarization", {k: v for k, v in found.items() if v is not None})
        elif isinstance(event, ev.DecisionMade | ev.InterruptAnswered) and parent is not None:
            self.decision(event, parent)

    def decision(self, event: ev.DecisionMade | ev.InterruptAnswered, parent: Span) -> None:
        from opentelemetry.trace import set_span_in_context  # noqa: PLC0415  # lazy: tracing is on here

        attributes: dict[str, str | bool]
        if isinstance(event, ev.DecisionMade):
            kind = str(event.decision.get("type", "decision"))
            name = f"decision: {event.tool}"
            attributes = {
                "tool.name": event.tool,
                "input.value": _json(
                    {"tool": event.tool, "interrupt": event.interrupt_id, "action": event.index}
                ),
                "output.value": _json(dict(event.decision)),
                "decision.type": kind,
                "decision.auto": event.auto,
            }
        else:
            name = "answer"
            attributes = {
                "input.value": _json({"interrupt": event.interrupt_id}),
                "output.value": _json(event.value),
            }
            attributes["decision.type"] = "answer"
        attributes |= {"input.mime_type": "application/json", "output.mime_type": "application/json"}
        attributes |= {"interrupt.id": event.interrupt_id, "session.id": self.run.thread_id}
        span = self.pipeline.tracer.start_span(
            name, context=set_span_in_context(parent), attributes={**_kind("DECISION"), **attributes}
        )
        span.end()


_runs: weakref.WeakKeyDictionary[Any, _RunTrace] = weakref.WeakKeyDictionary()


@contextlib.contextmanager
def run_span(run: TracedRun, *, resumed: bool = False) -> Iterator[None]:
    """Around one stretch of ``run`` (on the engine loop, inside the run's task): its span is the
    current one, so the graph's own spans nest in it. Nothing while tracing is off."""
    pipeline = active()
    if pipeline is None:
        yield
        return
    from opentelemetry import context, trace  # noqa: PLC0415  # lazy: tracing is on here

    with _lock:
        traced = _runs.get(run)
        if traced is None or traced.pipeline is not pipeline:
            traced = _runs[run] = _RunTrace(pipeline, run)
    span = traced.begin(resumed=resumed)
    token = context.attach(trace.set_span_in_context(span))
    try:
        yield
    finally:
        context.detach(token)
        if traced.end():
            with _lock:
                _runs.pop(run, None)


class ExperimentSpan:
    """One experiment run's span (``row``, ``variant``, ``epoch``): :meth:`current` makes it the
    parent of what starts inside (the run, its graph, a judge's calls), and puts the three on
    those spans' ``metadata`` too; :meth:`finish` ends it with the run's answer and scores."""

    def __init__(
        self, pipeline: Pipeline, experiment: str, row: int, variant: str, epoch: int, given: Any
    ) -> None:
        self.pipeline = pipeline
        self.metadata = {"experiment": experiment, "row": row, "variant": variant, "epoch": epoch}
        attributes: dict[str, Any] = {
            **_kind("CHAIN"),
            "metadata": _json(self.metadata),
            "experiment.name": experiment,
            "experiment.row": row,
            "experiment.variant": variant,
            "experiment.epoch": epoch,
            "input.value": given if isinstance(given, str) else _json(given),
            "input.mime_type": "text/plain" if isinstance(given, str) else "application/json",
        }
        name = f"{experiment}: row {row}, {variant}, epoch {epoch}"
        self.span = pipeline.tracer.start_span(name, attributes=attributes)
        self._ended = False

    @contextlib.contextmanager
    def current(self) -> Iterator[None]:
        from openinference.instrumentation import using_metadata  # noqa: PLC0415  # lazy: tracing is on here
        from opentelemetry import context, trace  # noqa: PLC0415  # lazy: tracing is on here

        token = context.attach(trace.set_span_in_context(self.span))
        try:
            with using_metadata(self.metadata):
                yield
        finally:
            context.detach(token)

    def finish(
        self,
        *,
        status: str,
        result: str | None = None,
        error: str | None = None,
        scores: Mapping[str, float | None] | None = None,
        tokens: tuple[int | None, int | None, int] = (None, None, 0),
    ) -> None:
        """End the span (once) with the run's status, answer or error, and each scorer's score.
        ``tokens``: input and output tokens (``None``: unknown) and how many model calls reported
        none; the span says that count too, so a sum over the others reads as a lower bound."""
        from opentelemetry.trace import Status, StatusCode  # noqa: PLC0415  # lazy: tracing is on here

        if self._ended:
            return
        self._ended = True
        span = self.span
        span.set_attribute("experiment.status", status)
        if result is not None:
            span.set_attributes({"output.value": result, "output.mime_type": "text/plain"})
        for name, value in (scores or {}).items():
            if value is not None:
                span.set_attribute(f"experiment.scores.{name}", float(value))
        if scores:
            span.set_attribute("metadata", _json({**self.metadata, "scores": dict(scores)}))
        tokens_in, tokens_out, unreported = tokens
        if tokens_in is not None and tokens_out is not None:
            span.set_attributes(
                {"experiment.tokens.prompt": tokens_in, "experiment.tokens.completion": tokens_out}
            )
        span.set_attribute("experiment.tokens.unreported", unreported)
        if status == "error":
            span.set_status(Status(StatusCode.ERROR, error or "failed"))
        else:
            span.set_status(Status(StatusCode.OK))
        span.end()


def experiment_span(experiment: str, row: int, variant: str, epoch: int, given: Any) -> ExperimentSpan | None:
    """A span for one experiment run, or ``None`` while tracing is off."""
    pipeline = active()
    if pipeline is None:
        return None
    return ExperimentSpan(pipeline, experiment, row, variant, epoch, given)
