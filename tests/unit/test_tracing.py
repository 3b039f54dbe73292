"""Traces over OpenTelemetry (``deepnb.trace``), read back from the SDK's in-memory exporter: a
deep agent's run as one trace (its stretches around a pause, the graph, model, tool and
subagent spans inside, each decision), the kinds and token counts, an experiment's run spans
with their row, variant, epoch and scores; secrets redacted and long values cut before export;
a collector that never answers or a full queue costs the run nothing and is counted; off unless
asked; the ``[trace]`` table and ``%deepagent trace``."""

from __future__ import annotations

import json
import socket
import socketserver
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openinference.instrumentation.langchain", reason="the trace extra is not installed")

from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import deepnb
from deepnb.core import project, trust
from deepnb.core.errors import DeepnbError
from deepnb.engine.tracing import settings, switch
from deepnb.magics import parser
from deepnb.magics.commands import project as project_commands
from deepnb.magics.subcommands import SUBCOMMANDS
from tests.support.agents import scripted, unique
from tests.support.traced_experiment import traced_experiment
from tests.support.waiting import WAIT

GATED = {"write_file": True, "edit_file": True}
SECRET = "tr4ce-s3cret-value-0042"
KEY_SHAPED = "sk-" + "a1B2c3D4e5F6g7H8i9J0k"


@pytest.fixture(autouse=True)
def tracing_off() -> Iterator[None]:
    """Each test starts with tracing off and the project's [trace] read, and leaves it so."""
    switch.turn_off()
    yield
    switch.turn_off()


def on(exporter: SpanExporter, **options: Any) -> switch.TraceStatus:
    given = settings.settings("http://127.0.0.1:9/v1/traces", project="tests", delay=0.05, **options)
    return switch.turn_on(given, exporter=exporter)


def spans_of(memory: InMemorySpanExporter) -> list[ReadableSpan]:
    assert switch.flush(WAIT), "the spans were not handed on"
    return list(memory.get_finished_spans())


def kind(span: ReadableSpan) -> str:
    return str((span.attributes or {}).get("openinference.span.kind"))


def parent_of(span: ReadableSpan, spans: Sequence[ReadableSpan]) -> ReadableSpan | None:
    if span.parent is None:
        return None
    return next((s for s in spans if s.context.span_id == span.parent.span_id), None)


def ancestors(span: ReadableSpan, spans: Sequence[ReadableSpan]) -> list[ReadableSpan]:
    found = []
    while (span := parent_of(span, spans)) is not None:  # type: ignore[assignment]
        found.append(span)
    return found


def texts(span: ReadableSpan) -> list[str]:
    """Every text a span carries: its name, attribute values, events, status."""
    found = [span.name, span.status.description or ""]
    for attributes in [span.attributes or {}, *[e.attributes or {} for e in span.events]]:
        for value in attributes.values():
            found += [v for v in (value if isinstance(value, tuple) else (value,)) if isinstance(v, str)]
    return found + [e.name for e in span.events]


# -- a deep agent's run -----------------------------------------------------------------------------


def test_a_run_with_subagents_and_approvals_is_one_trace_of_the_right_kinds() -> None:
    memory = InMemorySpanExporter()
    on(memory)
    bench = deepnb.agent(unique("traced"), "demo:approvals", interrupt_on=GATED)
    run = bench.run("Plan the launch")
    decided = 0
    while run.status == "interrupted":
        for pending in run.pending:
            pending.approve()
            decided += 1
        run.wait(WAIT)
    assert run.status == "done", run.error
    spans = spans_of(memory)

    (root,) = [s for s in spans if s.parent is None]
    assert {s.context.trace_id for s in spans} == {root.context.trace_id}  # one trace, resumes included
    assert (root.name, kind(root)) == (f"run: {bench.name}", "AGENT")
    assert root.attributes["input.value"] == "Plan the launch"
    assert root.attributes["session.id"] == run.thread_id
    resumes = [s for s in spans if s.name == f"resume: {bench.name}"]
    assert resumes and all(parent_of(s, spans) is root for s in resumes)
    assert resumes[-1].attributes["output.value"] == run.result
    assert [e.name for e in root.events].count("interrupt") == 1

    decisions = [s for s in spans if kind(s) == "DECISION"]
    assert len(decisions) == decided
    assert {s.attributes["decision.type"] for s in decisions} == {"approve"}
    assert {s.attributes["tool.name"] for s in decisions} == {"write_file", "edit_file"}

    assert {"AGENT", "CHAIN", "LLM", "TOOL", "DECISION"} <= {kind(s) for s in spans}
    graphs = [s for s in spans if s.name == bench.name]
    assert graphs and {kind(s) for s in graphs} == {"AGENT"}
    hooks = [s for s in spans if s.name.endswith((".before_agent", ".after_agent", ".after_model"))]
    assert hooks and {kind(s) for s in hooks} == {"CHAIN"}
    subagents = [s for s in spans if s.name == "general-purpose"]
    assert len(subagents) >= 2
    for subagent in subagents:  # a subagent's graph is an agent inside its task call, inside the run
        assert kind(subagent) == "AGENT"
        assert parent_of(subagent, spans).name == "task"
        assert kind(parent_of(subagent, spans)) == "TOOL"
    writes = [s for s in spans if s.name == "write_file"]
    assert writes and {kind(s) for s in writes} == {"TOOL"}
    assert any(s in subagents for w in writes for s in ancestors(w, spans))  # a subagent's tool call too

    # Token counts: each model call's, as the run's own timeline counted them.
    calls = [r for r in run.timeline if r["kind"] == "model"]
    llms = [s for s in spans if kind(s) == "LLM"]
    assert len(llms) == len(calls)
    assert sum(s.attributes["llm.token_count.prompt"] for s in llms) == sum(r["tokens_in"] for r in calls)
    assert sum(s.attributes["llm.token_count.completion"] for s in llms) == sum(
        r["tokens_out"] for r in calls
    )


def test_a_model_call_late_in_a_long_thread_keeps_its_kind_and_tokens() -> None:
    """Its span has attributes for each of the many messages it was given: none of what says
    what it is (its kind, its token counts, its input) is dropped to make room for them."""
    memory = InMemorySpanExporter()
    on(memory)
    turns: list[dict[str, Any]] = [
        {"text": f"Step {i}.", "tool_calls": [{"name": "ls", "args": {"path": "/"}}]} for i in range(60)
    ]
    model = scripted({"main": [{"turns": [*turns, {"text": "Done."}]}]})
    run = deepnb.agent(unique("long"), model).run("Go")
    assert run.status == "done", run.error
    llms = [s for s in spans_of(memory) if s.name == "ScriptedChatModel"]
    assert len(llms) == 61
    last = max(llms, key=lambda s: s.start_time)
    assert len(last.attributes) > 128  # more than the SDK keeps by default
    assert all(kind(s) == "LLM" and "llm.token_count.prompt" in s.attributes for s in llms)
    given = {k: v for k, v in last.attributes.items() if k.startswith("llm.input_messages.")}
    assert "Go" in given.values() and "Step 0." in given.values() and "Step 59." in given.values()


def test_a_failed_run_is_an_error_span() -> None:
    memory = InMemorySpanExporter()
    on(memory)
    model = scripted({"main": [{"match": ".*", "turns": [{"error": "the model broke"}]}]})
    run = deepnb.agent(unique("failing"), model).run("Go")
    assert run.status == "error"
    (root,) = [s for s in spans_of(memory) if s.parent is None]
    assert root.status.status_code.name == "ERROR"
    assert "the model broke" in (root.status.description or "")
    assert root.attributes["run.status"] == "error"


def test_off_unless_asked() -> None:
    assert not switch.status().on
    assert "Tracing is off" in repr(switch.status())
    memory = InMemorySpanExporter()
    model = scripted({"main": [{"match": ".*", "turns": [{"text": "Done."}]}]})
    assert deepnb.agent(unique("untraced"), model).run("Go").status == "done"
    assert memory.get_finished_spans() == ()
    assert switch.active() is None


# -- what leaves the kernel -------------------------------------------------------------------------


def test_secrets_are_redacted_and_a_huge_value_is_cut_never_dropped(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("TRACE_TEST_API_KEY", SECRET)
    huge = "x" * 1_000_000
    memory = InMemorySpanExporter()
    on(memory, max_value=4096)
    answer = f"The key is {SECRET}, the other {KEY_SHAPED}. {huge}"
    model = scripted({"main": [{"match": ".*", "turns": [{"text": answer}]}]})
    run = deepnb.agent(unique("secret"), model).run(f"Say {SECRET} and {KEY_SHAPED}")
    assert run.status == "done", run.error
    spans = spans_of(memory)
    assert spans
    for span in spans:
        for text in texts(span):
            assert SECRET not in text and KEY_SHAPED not in text, span.name
            assert len(text) <= 4096 + 40, (span.name, len(text))
    (llm,) = [s for s in spans if kind(s) == "LLM"]
    output = llm.attributes["llm.output_messages.0.message.content"]
    assert output.startswith("The key is [redacted], the other [redacted]. xxx")
    assert output.endswith("x… [cut]") and len(output) < 4096
    assert switch.status().dropped == 0
    said = [r.getMessage() for r in caplog.records if r.name.startswith("opentelemetry")]
    assert said == []  # cut on purpose: nothing said in the cell


class _Counting(SpanProcessor):
    """Counts every span that ends, whatever becomes of it afterwards."""

    def __init__(self) -> None:
        self.ended = 0
        self.lock = threading.Lock()

    def on_end(self, span: ReadableSpan) -> None:
        with self.lock:
            self.ended += 1


class _Stuck(SpanExporter):
    """A collector that does not answer until it is let go."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()
        self.spans: list[ReadableSpan] = []

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.entered.set()
        self.release.wait(WAIT)
        self.spans += spans
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        self.release.set()


def test_a_stuck_collector_never_holds_a_run_up_and_a_full_queue_drops_counted_spans() -> None:
    stuck = _Stuck()
    on(stuck, queue=4)
    counting = _Counting()
    switch.active().provider.add_span_processor(counting)
    model = scripted({"main": [{"match": ".*", "turns": [{"text": "One."}]}]})
    bench = deepnb.agent(unique("stuck"), model)
    first = bench.run("Go")
    assert first.status == "done"
    assert stuck.entered.wait(WAIT)  # an export is under way and does not come back...
    runs = [bench.run(f"Go {i}") for i in range(3)]  # ...yet each run ends
    assert [r.status for r in runs] == ["done"] * 3
    status = switch.status()
    assert status.dropped > 0
    stuck.release.set()
    assert switch.flush(WAIT)
    status = switch.status()
    with counting.lock:
        ended = counting.ended
    assert status.exported == len(stuck.spans)
    assert status.exported + status.dropped == ended  # every span is either sent or counted dropped
    assert (status.waiting, status.failed) == (0, 0)
    assert f"{status.dropped} dropped ({status.dropped} with the queue full" in repr(status)


def test_a_collector_that_never_answers_counts_failed_spans_and_says_why() -> None:
    with socket.socket() as server:  # accepts connections (the kernel's backlog) and never answers
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        port = server.getsockname()[1]
        switch.turn_on(
            settings.settings(f"http://127.0.0.1:{port}", project="tests", timeout=0.5, delay=0.05)
        )
        model = scripted({"main": [{"match": ".*", "turns": [{"text": "Fine."}]}]})
        run = deepnb.agent(unique("hung"), model).run("Go")
        assert run.status == "done"
        assert switch.flush(WAIT)
        status = switch.status()
    assert status.exported == 0 and status.failed > 0 and status.waiting == 0
    assert status.last_error
    assert f"{status.failed} the collector did not take" in repr(status)
    assert status.endpoint == f"http://127.0.0.1:{port}/v1/traces"


class _Hostile(socketserver.BaseRequestHandler):
    """A collector gone wrong: answers 500, or speaks TLS on the port (a TLS alert, then closes)."""

    def handle(self) -> None:
        self.request.recv(65536)
        if self.server.mode == "500":  # type: ignore[attr-defined]
            self.request.sendall(b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 4\r\n\r\nboom")
        else:
            self.request.sendall(bytes.fromhex("15030100020228"))


@pytest.mark.parametrize("mode", ["500", "tls", "refused"])
def test_a_collector_that_fails_or_refuses_costs_the_run_nothing(mode: str) -> None:
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Hostile)
    server.mode = mode  # type: ignore[attr-defined]
    port = server.server_address[1]
    if mode == "refused":
        server.server_close()  # nothing listens there any more
    else:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        switch.turn_on(settings.settings(f"http://127.0.0.1:{port}", timeout=0.5, delay=0.05))
        model = scripted({"main": [{"match": ".*", "turns": [{"text": "Fine."}]}]})
        run = deepnb.agent(unique(f"collector-{mode}"), model).run("Go")
        assert run.status == "done"
        assert switch.flush(WAIT)
        status = switch.status()
    finally:
        if mode != "refused":
            server.shutdown()
            server.server_close()
    assert (status.exported, status.dropped, status.waiting) == (0, 0, 0)
    assert status.failed > 0 and status.last_error


def test_interpreter_evals_are_tool_spans_and_a_summarization_is_an_event() -> None:
    pytest.importorskip("langchain_quickjs", reason="the interpreter extra is not installed")
    memory = InMemorySpanExporter()
    on(memory)
    run = deepnb.agent(unique("js"), "demo:interpreter", interpreter={"ptc": ["write_file"]}).run("Tides")
    long = deepnb.agent(unique("long"), "demo:research").run("Research tide pools")
    assert (run.status, long.status) == ("done", "done")
    spans = spans_of(memory)
    evals = [s for s in spans if s.name == "eval"]
    assert len(evals) == sum(1 for r in run.timeline if r["kind"] == "tool" and r["name"] == "eval")
    assert evals and {kind(s) for s in evals} == {"TOOL"}
    (root,) = [s for s in spans if s.name == f"run: {long.workbench.name}"]
    summarized = [e for e in root.events if e.name == "summarization"]
    assert len(summarized) == len(long.summaries) == 1
    assert summarized[0].attributes["tokens_before"] > summarized[0].attributes["tokens_after"]


# -- experiments ------------------------------------------------------------------------------------


def test_each_experiment_run_is_a_span_with_its_row_variant_epoch_and_scores(tmp_path: Path) -> None:
    memory = InMemorySpanExporter()
    on(memory)
    experiment = traced_experiment(tmp_path, "traced")
    spans = spans_of(memory)
    runs = [s for s in spans if "experiment.row" in (s.attributes or {})]
    records = experiment.records
    assert len(runs) == len(records) == 8
    for span in runs:
        a = span.attributes
        key = (a["experiment.row"], a["experiment.variant"], a["experiment.epoch"])
        record = records[key]
        assert span.parent is None and kind(span) == "CHAIN"
        assert a["experiment.name"] == "traced"
        assert a["experiment.scores.exact"] == record.scores["exact"].score
        assert a["output.value"] == record.result
        assert json.loads(a["metadata"])["variant"] == key[1]
        inside = [s for s in spans if s.context.trace_id == span.context.trace_id and s is not span]
        (run_span,) = [s for s in inside if s.name.startswith("run: ")]
        assert parent_of(run_span, spans) is span
        llms = [s for s in inside if kind(s) == "LLM"]
        assert llms and all(json.loads(s.attributes["metadata"])["row"] == key[0] for s in llms)


# -- asking for it ----------------------------------------------------------------------------------


@pytest.fixture
def proj(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    monkeypatch.setenv(project.HOME_ENV, str(tmp_path / "home"))
    monkeypatch.chdir(root)
    return root


def test_the_trace_table_counts_only_in_a_trusted_project(
    proj: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLLECTOR_TOKEN", SECRET)
    (proj / "deepnb.toml").write_text(
        '[trace]\nendpoint = "http://127.0.0.1:9"\nproject = "team"\ntimeout = 1\n'
        'headers = { authorization = "Bearer ${COLLECTOR_TOKEN}" }\n',
        encoding="utf-8",
    )
    found = settings.configured()
    assert found.settings is None
    assert (
        found.note
        == f"deepnb.toml [trace] waits for trust — run %deepagent trust {proj} if you trust this project."
    )
    with pytest.raises(DeepnbError, match="waits for trust"):
        deepnb.trace()

    trust.trust(proj)
    found = settings.configured()
    assert found.settings is not None
    assert (found.settings.endpoint, found.settings.project) == ("http://127.0.0.1:9/v1/traces", "team")
    assert found.settings.headers == {"authorization": f"Bearer {SECRET}"}
    assert SECRET not in repr(found.settings)
    status = deepnb.trace(timeout=0.5)  # a keyword given: the table is not read
    assert status.on and status.project == "deepnb"
    status = deepnb.trace()
    assert (status.on, status.project, status.source) == (True, "team", "deepnb.toml [trace]")
    assert not deepnb.trace(enabled=False).on


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('[trace]\nendpont = "x"\n', "deepnb.toml [trace]: unknown key(s) endpont: use enabled, endpoint,"),
        ('[trace]\nendpoint = "grpc://h:4317"\n', "is not an http(s) URL"),
        ("[trace]\nqueue = 0\n", "queue must be at least 1"),
        ("[trace]\ntimeout = 'slow'\n", "timeout must be a number"),
        ('[trace]\nheaders = { x = "${NOT_SET_ANYWHERE}" }\n', "names ${NOT_SET_ANYWHERE}, which is not set"),
        ("trace = 3\n", "must be a table"),
    ],
)
def test_a_mistake_in_the_table_is_one_line(proj: Path, table: str, message: str) -> None:
    (proj / "deepnb.toml").write_text(table, encoding="utf-8")
    trust.trust(proj)
    with pytest.raises(DeepnbError) as raised:
        settings.configured()
    assert message in str(raised.value) and "\n" not in str(raised.value)
    switch._checked = False  # the first run reads it: said in the status, never raised into a run
    assert message in (switch.status().note or "")
    assert switch.active() is None


def test_enabled_false_keeps_it_off(proj: Path) -> None:
    (proj / "deepnb.toml").write_text("[trace]\nenabled = false\n", encoding="utf-8")
    trust.trust(proj)
    switch._checked = False
    assert switch.active() is None
    assert switch.status().note == "deepnb.toml [trace] has enabled = false."


def test_the_magic_turns_it_on_and_off_and_says_its_status(proj: Path) -> None:
    def trace(line: str) -> str:
        return repr(project_commands.trace(parser.parse(SUBCOMMANDS["trace"], line), {}))

    assert trace("status").startswith("Tracing is off")
    said = trace("on --endpoint http://127.0.0.1:9 --project mine")
    assert said.startswith(
        "Tracing to http://127.0.0.1:9/v1/traces, project 'mine' (from %deepagent trace on)."
    )
    assert "Spans: 0 exported, 0 waiting, 0 dropped" in trace("")
    assert trace("off").startswith("Tracing is off; it sent to http://127.0.0.1:9/v1/traces")
    for line, message in [
        ("maybe", "%deepagent trace takes on, off or status, not 'maybe'."),
        ("status --project x", "--endpoint and --project go with on"),
    ]:
        with pytest.raises(DeepnbError, match=message):
            trace(line)


def test_without_the_trace_extra_one_line_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "deepnb.engine.tracing.pipeline")
    monkeypatch.setitem(sys.modules, "openinference.instrumentation.langchain", None)
    with pytest.raises(DeepnbError) as raised:
        deepnb.trace("http://127.0.0.1:9")
    line = str(raised.value)
    assert line.startswith("Tracing: deepnb's 'trace' extra is needed (importing it failed: ")
    assert line.endswith("run pip install 'deepnb[trace]', then restart the kernel.") and "\n" not in line
    assert not switch.status().on
