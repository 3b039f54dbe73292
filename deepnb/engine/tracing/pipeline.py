"""The OpenTelemetry side of tracing, built once tracing is turned on.

LangChain's own runs (the graph, its nodes, every model and tool call, a subagent's graph inside
its ``task`` call) become spans through ``openinference-instrumentation-langchain``; deepnb adds
only what that has nothing for (its runs, decisions, experiment runs: :mod:`.switch`). Ended
spans wait in a bounded queue (:class:`BoundedProcessor`; one more beyond it is dropped and
counted) and a background thread sends them in batches (:class:`RedactingExporter`: each export
bounded by the settings' ``timeout``, secrets redacted and long values cut first). A collector
that is down, slow or not a collector at all costs a run nothing: it only counts as failed.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from openinference.semconv.resource import ResourceAttributes
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import Event, ReadableSpan, SpanLimits, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.trace import Status, Tracer

from deepnb.core.text.secrets import open_tail, redact
from deepnb.engine.tracing.instrument import instrument
from deepnb.engine.tracing.settings import TraceSettings

log = logging.getLogger("deepnb")
QUIET_LOGGERS = ("opentelemetry.exporter.otlp.proto.http", "opentelemetry.sdk._shared_internal")
"""The exporter's and the batch processor's loggers: what they say of a collector that is down
is counted and shown by ``%deepagent trace status``, not printed into every cell's output."""
CUTTING_LOGGER = "opentelemetry.attributes"
"""Where the SDK logs each value it cuts to ``max_value``: deepnb cuts them on purpose, so only
its errors are let through."""
MAX_ATTRIBUTES = 100_000
"""Attributes a span may hold. The SDK's default, 128, drops a span's *oldest* attributes beyond
it (its kind, input and output first) and logs each drop: a model call late in a long thread has
an attribute or more per message it was given."""


@dataclass
class Counts:
    """What became of the spans: ``queued`` (handed to the queue), ``taken`` (handed to an
    export), ``exported`` (the collector took them), ``failed`` (an export the collector did not
    take: down, slow, refusing), ``dropped`` (the queue was full) and the last failure said."""

    queued: int = 0
    taken: int = 0
    exported: int = 0
    failed: int = 0
    dropped: int = 0
    last_error: str | None = None
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def waiting(self) -> int:
        """Spans in the queue or in an export under way."""
        with self.lock:
            return self.queued - self.exported - self.failed

    def error(self, text: str) -> None:
        with self.lock:
            self.last_error = redact(text)[:300]


class _Noted(logging.Handler):
    """Keeps what the quiet loggers say as the last error instead of printing it."""

    def __init__(self, counts: Counts) -> None:
        super().__init__(logging.WARNING)
        self.counts = counts

    def emit(self, record: logging.LogRecord) -> None:
        self.counts.error(record.getMessage())


def cut(text: str, limit: int) -> str:
    """``text`` redacted and at most ``limit`` characters, with a note where it was cut. The SDK
    already cut a longer value to ``limit`` as it was set (:class:`Pipeline`'s span limits), so
    a text of exactly ``limit`` characters may end inside a secret: its end that could be the
    start of one (:func:`~deepnb.core.text.secrets.open_tail`) is cut off before redacting."""
    if len(text) >= limit:
        kept = text[:limit]
        return redact(kept[: open_tail(kept)]) + "… [cut]"
    return redact(text)


def _value(value: Any, limit: int) -> Any:
    if isinstance(value, str):
        return cut(value, limit)
    if isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
        return tuple(cut(v, limit) if isinstance(v, str) else v for v in value)
    return value


def _texts(attributes: Mapping[str, Any]) -> Iterator[str]:
    for key, value in attributes.items():
        yield str(key)
        if isinstance(value, str):
            yield value
        elif isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
            yield from (v for v in value if isinstance(v, str))


def _attributes(attributes: Mapping[str, Any] | None, limit: int) -> dict[str, Any]:
    """``attributes`` cleaned (:func:`cut`). A model call's span has an attribute per message it
    was given: their texts are first looked at joined (no secret form, key or bearer token holds
    a NUL), and only where that finds something, or a value was cut, one by one."""
    attributes = attributes or {}
    texts = list(_texts(attributes))
    joined = "\0".join(texts)
    if max(map(len, texts), default=0) < limit and redact(joined) == joined:
        return {str(k): v for k, v in attributes.items()}
    return {redact(str(k)): _value(v, limit) for k, v in attributes.items()}


KIND = "openinference.span.kind"
_HOOK = re.compile(r"\.(before|after)_(agent|model)$")


def _agent_name(attributes: Mapping[str, Any]) -> str | None:
    metadata = attributes.get("metadata")
    if not isinstance(metadata, str) or "lc_agent_name" not in metadata:
        return None
    with contextlib.suppress(ValueError):
        found = json.loads(metadata)
        if isinstance(found, dict) and isinstance(found.get("lc_agent_name"), str):
            return str(found["lc_agent_name"])
    return None


def kind_of(name: str, attributes: Mapping[str, Any]) -> str | None:
    """The span kind a span of LangChain's instrumentation should have: it calls a span
    ``AGENT`` when ``agent`` is in its name, so a middleware hook (``X.before_agent``) is one and a
    deep agent's own graph (or a subagent's, named ``general-purpose``) is not. Here an agent's
    graph (its name the ``lc_agent_name`` LangChain gives it) is ``AGENT`` and a hook ``CHAIN``."""
    kind = attributes.get(KIND)
    if kind == "CHAIN" and _agent_name(attributes) == name:
        return "AGENT"
    if kind == "AGENT" and _HOOK.search(name):
        return "CHAIN"
    return kind if isinstance(kind, str) else None


def cleaned(span: ReadableSpan, limit: int) -> ReadableSpan:
    """``span`` as it may leave the kernel: every text in its name, attributes, events and
    status redacted as notebook outputs are, each value at most ``limit`` characters; an
    agent's graph and a middleware hook of the right kind (:func:`kind_of`)."""
    events = [Event(redact(e.name), _attributes(e.attributes, limit), e.timestamp) for e in span.events]
    attributes = _attributes(span.attributes, limit)
    kind = kind_of(span.name, span.attributes or {})
    if kind is not None:
        attributes[KIND] = kind
    status = span.status
    if status.description:
        status = Status(status.status_code, cut(status.description, limit))
    return ReadableSpan(
        name=redact(span.name),
        context=span.context,
        parent=span.parent,
        resource=span.resource,
        attributes=attributes,
        events=events,
        links=span.links,
        kind=span.kind,
        status=status,
        start_time=span.start_time,
        end_time=span.end_time,
        instrumentation_scope=span.instrumentation_scope,
    )


class RedactingExporter(SpanExporter):
    """Sends spans through ``inner`` (the OTLP exporter, or any other) once cleaned
    (:func:`cleaned`), and counts what the collector took and what it did not. It never raises."""

    def __init__(self, inner: SpanExporter, counts: Counts, *, limit: int) -> None:
        self.inner = inner
        self.counts = counts
        self.limit = limit

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        with self.counts.lock:
            self.counts.taken += len(spans)
        try:
            result = self.inner.export([cleaned(span, self.limit) for span in spans])
        except Exception as exc:  # an exporter's failure is a count, never the run's
            result = SpanExportResult.FAILURE
            self.counts.error(f"{type(exc).__name__}: {exc}")
        with self.counts.lock:
            if result is SpanExportResult.SUCCESS:
                self.counts.exported += len(spans)
            else:
                self.counts.failed += len(spans)
        if result is not SpanExportResult.SUCCESS and self.counts.last_error is None:
            self.counts.error("the collector did not take an export")
        return result

    def shutdown(self) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self.inner.force_flush(timeout_millis)


class BoundedProcessor(BatchSpanProcessor):
    """A batch processor whose queue holds at most ``limit`` spans not yet handed to an export:
    a span beyond that is dropped and counted (the SDK's own queue never fills, so it never
    drops one uncounted). Ending a span only appends it: nothing here waits on the network."""

    def __init__(self, exporter: RedactingExporter, settings: TraceSettings) -> None:
        super().__init__(
            exporter,
            max_queue_size=settings.queue,
            schedule_delay_millis=settings.delay * 1000,
            max_export_batch_size=min(512, settings.queue),
            export_timeout_millis=settings.timeout * 1000,
        )
        self.counts = exporter.counts
        self.limit = settings.queue

    def on_end(self, span: ReadableSpan) -> None:
        if span.context is None or not span.context.trace_flags.sampled:
            return
        with self.counts.lock:
            if self.counts.queued - self.counts.taken >= self.limit:
                self.counts.dropped += 1
                return
            self.counts.queued += 1
        super().on_end(span)


class Pipeline:
    """Tracing, on: the tracer provider (its resource names the project), the bounded batch
    processor, the redacting exporter, and LangChain instrumented to them."""

    def __init__(self, settings: TraceSettings, exporter: SpanExporter | None = None) -> None:
        self.settings = settings
        self.counts = Counts()
        inner = exporter or OTLPSpanExporter(
            endpoint=settings.endpoint, headers=dict(settings.headers), timeout=settings.timeout
        )
        self.exporter = RedactingExporter(inner, self.counts, limit=settings.max_value)
        resource = Resource.create(
            {"service.name": "deepnb", ResourceAttributes.PROJECT_NAME: settings.project}
        )
        limits = SpanLimits(max_span_attributes=MAX_ATTRIBUTES, max_span_attribute_length=settings.max_value)
        self.provider = TracerProvider(resource=resource, span_limits=limits, shutdown_on_exit=False)
        self.processor = BoundedProcessor(self.exporter, settings)
        self.provider.add_span_processor(self.processor)
        self.tracer: Tracer = self.provider.get_tracer("deepnb")
        self._quiet()
        self.instrumentor = instrument(self.provider)

    def _quiet(self) -> None:
        logging.getLogger(CUTTING_LOGGER).setLevel(logging.ERROR)
        handler = _Noted(self.counts)
        for name in QUIET_LOGGERS:
            logger = logging.getLogger(name)
            for old in [h for h in logger.handlers if isinstance(h, _Noted)]:
                logger.removeHandler(old)
            logger.addHandler(handler)
            logger.propagate = False

    def flush(self, timeout: float) -> bool:
        """Send what waits, waiting at most ``timeout`` seconds; whether all of it was handed on."""
        done = threading.Event()
        result: list[bool] = []

        def flush() -> None:
            result.append(self.provider.force_flush())
            done.set()

        threading.Thread(target=flush, name="deepnb-trace-flush", daemon=True).start()
        return done.wait(timeout) and all(result)

    def stop(self, wait: float) -> None:
        """Stop instrumenting at once; what waits gets one last export on a thread of its own,
        waited for at most ``wait`` seconds (a collector that is down never holds this up)."""
        self.instrumentor.uninstrument()
        closing = threading.Thread(target=self.provider.shutdown, name="deepnb-trace-shutdown", daemon=True)
        closing.start()
        closing.join(wait)
