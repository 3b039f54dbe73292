"""LangChain's instrumentation, set to cost a run little: ``openinference-instrumentation-langchain``
as it is, with these changes made to the tracer it adds to every callback manager.

- Its callbacks run inline, as LangChain's own tracer's do (``run_inline``): otherwise each of a
  run's thousands of callbacks (a start, an end, each streamed token) is handed to a thread pool
  and awaited, and the run's thread waits for a thread switch every time.
- A model call's messages are serialized once each (:class:`Dumps`), not once per call they are
  given to: a long thread's every call is given all of them again.
- Each of those messages is turned into a model call span's ``llm.input_messages.N.*``
  attributes once too (:class:`Flats`), by the instrumentation's own functions; the span gets the
  same attributes as before.
- A graph node's span (``model``, ``tools``, ``X.before_model``: a chain whose name is the node
  LangGraph runs it as) keeps what the node returned (``output.value``), not the graph's whole
  state it was given: serializing that each step costs a long thread more the longer it gets,
  and the messages in it are on the model call's span inside the node anyway.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

from langchain_core.load import dumpd
from openinference.instrumentation.langchain import LangChainInstrumentor
from openinference.semconv.trace import SpanAttributes
from opentelemetry.sdk.trace import TracerProvider

try:  # the instrumentation's own helpers, private: a release without them is traced as it traces
    from openinference.instrumentation.langchain._tracer import _flatten, _parse_message_data
except ImportError:  # pragma: no cover - the pinned release has them (tests/unit/test_tracing_instrument.py)
    _flatten = _parse_message_data = None  # type: ignore[assignment]

NODE = "langgraph_node"
"""The metadata key LangGraph gives what runs inside a node: the node's name."""


def is_node(run: Any) -> bool:
    """Whether ``run`` (a LangChain tracer's run) is a graph node's own chain: its name is the
    node's. An agent's graph, a tool or a model call inside the node is not."""
    if getattr(run, "run_type", None) != "chain":
        return False
    extra = getattr(run, "extra", None)
    metadata = extra.get("metadata") if isinstance(extra, Mapping) else None
    return isinstance(metadata, Mapping) and metadata.get(NODE) == run.name


class Dumps:
    """Each message as LangChain's tracer serializes it (``dumpd``), kept for the ``size`` messages
    seen last. A message is taken as the one kept while it is the same object with the same
    field values (a field set anew is seen; a list or dict changed in place inside it is not:
    LangGraph's state is not changed so, a node returns new messages)."""

    def __init__(self, size: int = 8192) -> None:
        self.size = size
        self.kept: OrderedDict[int, tuple[Any, tuple[int, ...], dict[str, Any]]] = OrderedDict()
        self.lock = threading.Lock()  # model calls may start on several threads at once

    def of(self, message: Any) -> dict[str, Any]:
        """``dumpd(message)``, serialized anew only if not kept."""
        if not hasattr(message, "__dict__"):
            return dict(dumpd(message))
        fields = tuple(map(id, vars(message).values()))
        with self.lock:
            kept = self.kept.get(id(message))
            if kept is not None and kept[0] is message and kept[1] == fields:
                self.kept.move_to_end(id(message))
                return kept[2]
        dumped: dict[str, Any] = dumpd(message)
        with self.lock:  # the message is kept alive with it, so its id stays its own
            self.kept[id(message)] = (message, fields, dumped)
            if len(self.kept) > self.size:
                self.kept.popitem(last=False)
        return dumped


class Flats:
    """Each serialized message (one :class:`Dumps` keeps) as the attributes a model call's span
    gives it, without the ``llm.input_messages.N.`` before each name; kept for the ``size``
    seen last."""

    def __init__(self, size: int = 8192) -> None:
        self.size = size
        self.kept: OrderedDict[int, tuple[Any, tuple[tuple[str, Any], ...]]] = OrderedDict()
        self.lock = threading.Lock()

    def of(self, dumped: Any) -> tuple[tuple[str, Any], ...]:
        """The attributes of ``dumped``, a message as ``dumpd`` left it (never changed after)."""
        with self.lock:
            kept = self.kept.get(id(dumped))
            if kept is not None and kept[0] is dumped:
                self.kept.move_to_end(id(dumped))
                return kept[1]
        assert _flatten is not None and _parse_message_data is not None  # instrument() checked
        flat = tuple(_flatten(dict(_parse_message_data(dumped)).items()))
        with self.lock:
            self.kept[id(dumped)] = (dumped, flat)
            if len(self.kept) > self.size:
                self.kept.popitem(last=False)
        return flat


class _Given(dict[str, Any]):
    """A model call's inputs whose messages the instrumentation does not turn into attributes
    itself (``get``), having been given them (:func:`_ending`); its ``input.value`` is the same."""

    def get(self, key: str, default: Any = None) -> Any:
        return default if key == "messages" else super().get(key, default)


def _starting(start: Callable[..., Any], dumps: Dumps) -> Callable[..., Any]:
    def on_chat_model_start(serialized: Any, messages: list[list[Any]], **kwargs: Any) -> Any:
        run = start(serialized, [[] for _ in messages], **kwargs)
        run.inputs = {"messages": [[dumps.of(m) for m in batch] for batch in messages]}
        return run

    return on_chat_model_start


def _messages(run: Any, spans: Any, flats: Flats) -> None:
    batches = run.inputs.get("messages") if isinstance(run.inputs, dict) else None
    span = spans.get(run.id)
    if not batches or not isinstance(batches[0], list) or span is None or not span.is_recording():
        return
    name = SpanAttributes.LLM_INPUT_MESSAGES
    span.set_attributes(
        {f"{name}.{i}.{key}": value for i, given in enumerate(batches[0]) for key, value in flats.of(given)}
    )
    run.inputs = _Given(run.inputs)


def _ending(end: Callable[[Any], None], spans: Any, flats: Flats) -> Callable[[Any], None]:
    def end_trace(run: Any) -> None:
        if is_node(run):
            run.inputs = {}  # the tracer's own record of the run, dropped right after
        elif getattr(run, "run_type", None) == "llm":
            _messages(run, spans, flats)
        end(run)

    return end_trace


def changeable(tracer: Any) -> bool:
    """Whether ``tracer`` (and the instrumentation's release) has what the changes to its
    messages and node spans reach for; a release that has not is left to make its spans itself,
    only with its callbacks inline."""
    private = ("_end_trace", "_spans_by_run", "on_chat_model_start")
    return (
        _flatten is not None and _parse_message_data is not None and all(hasattr(tracer, n) for n in private)
    )


def instrument(provider: TracerProvider) -> LangChainInstrumentor:
    """LangChain instrumented to ``provider``, its tracer changed as the module says."""
    instrumentor = LangChainInstrumentor()
    instrumentor.instrument(tracer_provider=provider, skip_dep_check=True)
    tracer = getattr(instrumentor, "_tracer", None)
    if tracer is not None:
        tracer.run_inline = True
        if changeable(tracer):
            tracer.on_chat_model_start = _starting(tracer.on_chat_model_start, Dumps())
            tracer._end_trace = _ending(tracer._end_trace, tracer._spans_by_run, Flats())
    return instrumentor
