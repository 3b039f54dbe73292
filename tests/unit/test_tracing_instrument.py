"""What deepnb changes in LangChain's instrumentation to keep tracing cheap
(:mod:`deepnb.engine.tracing.instrument`): a graph node's span keeps what the node returned, not
the whole state it was given; a model call's span still has every message it was given, each
serialized (and turned into attributes) once across the thread's calls and anew when it changed."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("openinference.instrumentation.langchain", reason="the trace extra is not installed")

from langchain_core.load import dumpd
from langchain_core.messages import AIMessage, HumanMessage
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import deepnb
from deepnb.engine.tracing import settings, switch
from deepnb.engine.tracing.instrument import Dumps, Flats
from tests.support.agents import scripted, unique
from tests.support.waiting import WAIT


@pytest.fixture(autouse=True)
def tracing_off() -> Iterator[None]:
    switch.turn_off()
    yield
    switch.turn_off()


def test_a_node_span_keeps_what_the_node_returned_and_the_model_call_every_message() -> None:
    memory = InMemorySpanExporter()
    given = settings.settings("http://127.0.0.1:9/v1/traces", project="tests", delay=0.05)
    switch.turn_on(given, exporter=memory)
    turns: list[dict[str, Any]] = [
        {"text": f"Step {i}.", "tool_calls": [{"name": "ls", "args": {"path": "/"}}]} for i in range(5)
    ]
    model = scripted({"main": [{"turns": [*turns, {"text": "Done."}]}]})
    name = unique("nodes")
    run = deepnb.agent(name, model).run("Go")
    assert run.status == "done", run.error
    assert switch.flush(WAIT)
    spans = list(memory.get_finished_spans())
    nodes = [s for s in spans if s.name in ("model", "tools")]
    assert len(nodes) == 11
    for node in nodes:
        attributes = node.attributes or {}
        assert attributes["openinference.span.kind"] == "CHAIN"
        assert "input.value" not in attributes, node.name
        assert "output.value" in attributes, node.name
    outputs = [str((s.attributes or {})["output.value"]) for s in nodes if s.name == "model"]
    assert any("Done." in output for output in outputs)  # what the last model call answered
    (graph,) = [s for s in spans if s.name == name]
    assert "Go" in str((graph.attributes or {})["input.value"])  # the agent's own graph keeps its input
    llms = sorted((s for s in spans if s.name == "ScriptedChatModel"), key=lambda s: s.start_time or 0)
    messages = {k: v for k, v in (llms[-1].attributes or {}).items() if k.startswith("llm.input_messages.")}
    assert {"Go", "Step 0.", "Step 4."} <= set(messages.values())
    assert "input.value" in (llms[-1].attributes or {})


def test_a_message_is_serialized_once_and_again_once_changed() -> None:
    dumps = Dumps(size=2)
    message = AIMessage(content="first")
    once = dumps.of(message)
    assert once == dumpd(message)
    assert dumps.of(message) is once
    message.content = "changed"
    again = dumps.of(message)
    assert again == dumpd(message) and again is not once
    for text in ("a", "b", "c"):
        dumps.of(HumanMessage(content=text))
    assert len(dumps.kept) == 2
    assert dumps.of(message) == dumpd(message)


def test_a_serialized_message_is_turned_into_attributes_once() -> None:
    flats = Flats()
    dumped = dumpd(AIMessage(content="hello", tool_calls=[{"name": "ls", "args": {"path": "/"}, "id": "c1"}]))
    flat = flats.of(dumped)
    assert flats.of(dumped) is flat
    found = dict(flat)
    assert found["message.role"] == "assistant" and found["message.content"] == "hello"
    assert found["message.tool_calls.0.tool_call.function.name"] == "ls"


def test_a_release_without_the_private_helpers_is_traced_as_it_traces(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The instrumentation's message helpers are private: where a release has none, its tracer
    makes its spans itself (only its callbacks inline), and they hold what they held before."""
    from deepnb.engine.tracing import instrument

    monkeypatch.setattr(instrument, "_flatten", None)
    memory = InMemorySpanExporter()
    switch.turn_on(
        settings.settings("http://127.0.0.1:9/v1/traces", project="tests", delay=0.05), exporter=memory
    )
    model = scripted(
        {"main": [{"turns": [{"text": "Step.", "tool_calls": [{"name": "ls", "args": {}}]}, "Done."]}]}
    )
    run = deepnb.agent(unique("plain"), model).run("Go")
    assert run.status == "done", run.error
    assert switch.flush(WAIT)
    spans = list(memory.get_finished_spans())
    llms = sorted((s for s in spans if s.name == "ScriptedChatModel"), key=lambda s: s.start_time or 0)
    messages = {k: v for k, v in (llms[-1].attributes or {}).items() if k.startswith("llm.input_messages.")}
    assert {"Go", "Step."} <= set(messages.values())
    nodes = [s for s in spans if s.name == "model"]
    assert nodes and all("input.value" in (s.attributes or {}) for s in nodes)  # the release's own node spans


def test_the_pinned_release_has_the_helpers_the_changes_use() -> None:
    from deepnb.engine.tracing import instrument

    assert instrument._flatten is not None and instrument._parse_message_data is not None
