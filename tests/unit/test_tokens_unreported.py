"""Tokens a provider did not report are unknown, never 0, wherever a count is shown or exported.

Two chat models stand for the providers: ``Silent`` reports no usage at all (its runs' tokens are
unknown), ``Partly`` reports it on its second call only (its runs' tokens are a lower bound). The
tables below list every place deepnb shows a count of tokens (``VIEWS``) or exports one
(``EXPORTS``); ``test_every_module_that_counts_tokens_is_listed`` fails when a module starts to
count tokens without a line here."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult

import deepnb
from deepnb.core.extras import MissingExtra
from deepnb.core.tokens import Tokens
from deepnb.engine.tracing import switch as tracing
from deepnb.engine.tracing.settings import settings
from deepnb.many.report import summary_section
from deepnb.many.report_data import sample_data
from deepnb.views.batch.batch_rows import batch_html, batch_text, grid_row
from deepnb.views.compare_view import comparison_table_html, comparison_table_text
from deepnb.views.experiment.experiment_view import record_html, summary_html, summary_text
from deepnb.views.experiment.sample import sample_state
from deepnb.views.output import run_snapshot
from deepnb.views.run.timeline_view import timeline_html, timeline_lines
from deepnb.views.run.tokens import cost_words, token_cells, token_pair, tokens_words
from tests.support.agents import unique
from tests.support.waiting import WAIT

try:
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
except ImportError:  # the trace extra is not installed (the floors' virtualenv)
    InMemorySpanExporter = None

REPORTED = {"input_tokens": 7, "output_tokens": 3, "total_tokens": 10}
"""What ``Partly``'s second call reports."""


class _Model(BaseChatModel):
    def bind_tools(self, tools: Any, **kwargs: Any) -> _Model:
        return self

    @property
    def _llm_type(self) -> str:
        return "usage-test"


class Silent(_Model):
    """Answers at once and reports no usage (as some local servers and older clients do)."""

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content="Silent answer."))])


class Partly(_Model):
    """Lists the files first (reporting no usage), then answers (reporting it)."""

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        if isinstance(messages[-1], ToolMessage):
            message = AIMessage(content="Partly answer.", usage_metadata=REPORTED)  # type: ignore[arg-type]
        else:
            call = {"name": "ls", "args": {"path": "/"}, "id": f"ls-{len(messages)}", "type": "tool_call"}
            message = AIMessage(content="", tool_calls=[call])
        return ChatResult(generations=[ChatGeneration(message=message)])


MODELS: dict[str, Callable[[], BaseChatModel]] = {"silent": Silent, "partly": Partly}


class Subjects:
    """For each model: a run, a batch of two runs, and the comparison and experiment of both."""

    def __init__(self, tmp: Path) -> None:
        self.runs: dict[str, Any] = {}
        self.batches: dict[str, Any] = {}
        for kind, model in MODELS.items():
            bench = deepnb.agent(unique(f"tokens-{kind}"), model())
            self.runs[kind] = bench.run("Go")
            self.batches[kind] = bench.map(["one", "two"], concurrency=2).wait(WAIT)
        base = deepnb.agent(unique("tokens-base"), Silent())
        self.comparison = deepnb.compare("Go", models={k: m() for k, m in MODELS.items()}, agent=base.name)
        self.comparison.wait(WAIT)
        self.log = tmp / "experiment.jsonl"
        self.spans = InMemorySpanExporter() if InMemorySpanExporter is not None else None
        if self.spans is not None:
            try:
                tracing.turn_on(settings("http://127.0.0.1:9/v1/traces", delay=0.05), exporter=self.spans)
            except MissingExtra:  # OpenTelemetry is there, but not the rest of the trace extra
                self.spans = None
        try:
            self.experiment = deepnb.experiment(
                ["q0", "q1"],
                agent=base.name,
                variants={kind: {"model": model()} for kind, model in MODELS.items()},
                log=self.log,
            ).wait(WAIT)
            assert self.spans is None or tracing.flush(WAIT), "the spans were not handed on"
        finally:
            tracing.turn_off()
        for run in [*self.runs.values(), *self.comparison.runs.values()]:
            assert run.status == "done", run.error


@pytest.fixture(scope="module")
def subjects(tmp_path_factory: pytest.TempPathFactory) -> Subjects:
    return Subjects(tmp_path_factory.mktemp("tokens"))


def _records(records: list[dict[str, Any]], key: str, kind: str) -> list[dict[str, Any]]:
    return [r for r in records if r[key] == kind]


def _frame_records(frame: Any) -> list[dict[str, Any]]:
    return [{k: (None if _missing(v) else v) for k, v in row.items()} for row in frame.to_dict("records")]


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


# Every export of a count: each gives, for a model kind, the records that hold its count.
EXPORTS: dict[str, Callable[[Subjects, str], list[dict[str, Any]]]] = {
    "batch.to_records": lambda s, k: s.batches[k].to_records(),
    "batch.to_pandas": lambda s, k: _frame_records(s.batches[k].to_pandas()),
    "comparison.to_records": lambda s, k: _records(s.comparison.to_records(), "model", k),
    "comparison.to_pandas": lambda s, k: _records(_frame_records(s.comparison.to_pandas()), "model", k),
    "experiment.to_records": lambda s, k: _records(s.experiment.to_records(), "variant", k),
    "experiment.to_pandas": lambda s, k: _records(_frame_records(s.experiment.to_pandas()), "variant", k),
    "experiment.summary": lambda s, k: _records(s.experiment.summary().to_records(), "variant", k),
    "experiment.summary.to_pandas": lambda s, k: _records(
        _frame_records(s.experiment.summary().to_pandas()), "variant", k
    ),
    "the experiment's log, read again": lambda s, k: _records(
        deepnb.load_experiment(s.log).to_records(), "variant", k
    ),
    "run.timeline": lambda s, k: [r for r in s.runs[k].timeline if r["kind"] == "model"],
    "experiment.to_inspect": lambda s, k: _inspect_records(s, k),
    "an experiment run's trace span": lambda s, k: _span_records(s, k),
}


def _span_records(s: Subjects, kind: str) -> list[dict[str, Any]]:
    """The experiment runs' spans of variant ``kind``, as records of their count."""
    if s.spans is None:
        pytest.skip("the trace extra is not installed")
    records = []
    for span in s.spans.get_finished_spans():
        found = dict(span.attributes or {})
        if found.get("experiment.variant") == kind:
            records.append(
                {
                    "tokens_in": found.get("experiment.tokens.prompt"),
                    "tokens_out": found.get("experiment.tokens.completion"),
                    "tokens_unreported": found["experiment.tokens.unreported"],
                }
            )
    return records


def _inspect_records(s: Subjects, kind: str) -> list[dict[str, Any]]:
    """The samples of ``kind``'s Inspect log, as records of their count."""
    records = []
    for path in s.experiment.to_inspect(s.log.parent / "inspect"):
        log = json.loads(path.read_text(encoding="utf-8"))
        if log["eval"]["task_args"]["variant"] != kind:
            continue
        for sample in log["samples"]:
            usage = sample["output"].get("usage") or {}
            records.append(
                {
                    "tokens_in": usage.get("input_tokens"),
                    "tokens_out": usage.get("output_tokens"),
                    "tokens_unreported": sample["metadata"]["deepnb"]["tokens_unreported"],
                }
            )
    return records


@pytest.mark.parametrize("where", list(EXPORTS))
def test_an_unreported_count_is_exported_as_unknown_or_a_lower_bound(subjects: Subjects, where: str) -> None:
    silent = EXPORTS[where](subjects, "silent")
    assert silent and all(r["tokens_in"] is None and r["tokens_out"] is None for r in silent), silent
    assert all(r["tokens_unreported"] >= 1 for r in silent)
    partly = EXPORTS[where](subjects, "partly")
    assert partly
    if where == "run.timeline":  # one record per model call: the first reported nothing
        assert [(r["tokens_in"], r["tokens_unreported"]) for r in partly] == [(None, 1), (7, 0)]
        return
    for record in partly:
        calls = record["tokens_unreported"]
        assert calls >= 1 and record["tokens_in"] == 7 * calls and record["tokens_out"] == 3 * calls, record


def _run_view(s: Subjects, kind: str) -> str:
    bundle = run_snapshot(s.runs[kind])
    return bundle["text/plain"] + bundle["text/html"]


def _batch_views(s: Subjects, kind: str) -> str:
    batch = s.batches[kind]
    return batch_text(batch) + batch_html(batch) + "".join(grid_row(batch, i)["tokens"] for i in range(2))


def _comparison_views(s: Subjects, kind: str) -> str:
    table = s.comparison.table()
    lines = [line for line in comparison_table_text(table).splitlines() if line.startswith(kind)]
    rows = re.findall(rf"<tr><td>{kind}</td>.*?</tr>", comparison_table_html(table))
    return "\n".join(lines + rows)


def _summary_views(s: Subjects, kind: str) -> str:
    summary = s.experiment.summary()
    text = [line for line in summary_text(summary).splitlines() if line.startswith(kind)]
    html = re.findall(rf"<tr><td>{kind}</td>.*?</tr>", summary_html(summary))
    return "\n".join(text + html)


def _record_views(s: Subjects, kind: str) -> str:
    return "".join(record_html(r) for r in s.experiment.records.values() if r.variant == kind)


def _report_views(s: Subjects, kind: str) -> str:
    summary = re.findall(rf"<tr><t[dh][^>]*>{kind}</t[dh]>.*?</tr>", summary_section(s.experiment.summary()))
    variant = s.experiment.variants.index(kind)
    runs = sample_data(s.experiment, threshold=0.5)["runs"]
    samples = [run["tk"] for run in runs if run["v"] == variant]
    return "\n".join(summary + samples)


def _sample_views(s: Subjects, kind: str) -> str:
    keys = [key for key in s.experiment.records if key[1] == kind]
    return "\n".join(sample_state(s.experiment, key)["tokens"] for key in keys)


def _timeline_views(s: Subjects, kind: str) -> str:
    run = s.runs[kind]
    records = run.timeline
    lines = timeline_lines(records, thread=run.thread_id)
    return timeline_html(records, thread=run.thread_id) + "\n".join(lines)


# Every view of a count: each gives, for a model kind, the text (or HTML) that shows its count.
VIEWS: dict[str, Callable[[Subjects, str], str]] = {
    "the run view's snapshot": _run_view,
    "the batch grid and its snapshot": _batch_views,
    "the comparison's table": _comparison_views,
    "the experiment's summary": _summary_views,
    "an experiment run's record": _record_views,
    "the run's timeline": _timeline_views,
    "the experiment's report": _report_views,
    "an experiment's sample view": _sample_views,
}


@pytest.mark.parametrize("where", list(VIEWS))
def test_an_unreported_count_is_shown_as_unknown_or_a_lower_bound(subjects: Subjects, where: str) -> None:
    silent = VIEWS[where](subjects, "silent")
    assert "unknown" in silent, silent
    assert not re.search(r"\b0 in\b|\b0 / 0\b|\b0 tokens", silent), silent
    partly = VIEWS[where](subjects, "partly")
    said_bound = "≥ 7" in partly or "≥ 14" in partly or "model call unreported" in partly
    said_bound = said_bound or "model calls unreported" in partly or "tokens unknown" in partly
    assert said_bound, partly  # the timeline says each call apart: the unreported one is unknown
    # The reported count stands: 7 input tokens per reported call (a view over several runs adds
    # them up), as a number of its own, not a digit of a latency.
    assert re.search(r"(?<![\d.,])(?:7|14|21|28)(?![\d.,])", partly), partly


def test_the_words_for_a_count() -> None:
    assert token_cells(Tokens(1200, 300)) == ("1,200", "300")
    assert token_cells(Tokens(1200, 300, unreported=2)) == ("≥ 1,200", "≥ 300")
    assert token_cells(Tokens(unreported=2)) == ("unknown", "unknown")
    assert token_pair(Tokens(5, 2)) == "5 / 2" and token_pair(Tokens(unreported=1)) == "unknown"
    assert tokens_words(Tokens(unreported=1).columns()) == "tokens unknown"
    assert tokens_words(Tokens(0, 0).columns()) == "tokens 0 in / 0 out"  # no model call: none spent
    assert cost_words(None) == "unknown" and cost_words(0.5, complete=False) == "≥ 0.5000"
    assert Tokens.total([Tokens(1, 2), {"tokens_in": None, "tokens_out": None}]) == Tokens(1, 2, 1)


# The modules that hold, show or export a count of tokens. A module that starts to must say here
# where its count is covered (a line of EXPORTS or VIEWS) or why it holds no count of its own.
COUNTING_MODULES = {
    "deepnb/core/tokens.py": "the rule itself",
    "deepnb/core/schema.py": "the shapes of a run's progress and a subagent node",
    "deepnb/engine/state.py": "the run view's snapshot",
    "deepnb/engine/tree.py": "the run view's snapshot",
    "deepnb/engine/timeline.py": "run.timeline",
    "deepnb/session/run.py": "run.timeline",
    "deepnb/many/batch.py": "batch.to_records",
    "deepnb/many/comparing.py": "comparison.to_records",
    "deepnb/many/experiment.py": "experiment.to_records",
    "deepnb/many/record.py": "the experiment's log, read again",
    "deepnb/many/judging.py": "the experiment's log, read again",  # a judge's tokens, on its scores
    "deepnb/many/scorers.py": "the experiment's log, read again",
    "deepnb/many/log.py": "the experiment's log, read again",
    "deepnb/many/stats.py": "experiment.summary",
    "deepnb/many/pricing.py": "experiment.summary",
    "deepnb/views/run/tokens.py": "the run view's snapshot",
    "deepnb/views/run/snapshot.py": "the run view's snapshot",
    "deepnb/views/run/run_view.py": "the run view's snapshot",
    "deepnb/views/run/subagent_tree.py": "the run view's snapshot",
    "deepnb/views/run/timeline_view.py": "the run's timeline",
    "deepnb/views/batch/batch_rows.py": "the batch grid and its snapshot",
    "deepnb/views/compare_view.py": "the comparison's table",
    "deepnb/views/experiment/experiment_view.py": "the experiment's summary",
    "deepnb/views/experiment/logged_run.py": "an experiment run's record",
    "deepnb/views/experiment/sample.py": "an experiment's sample view",
    "deepnb/many/report.py": "the experiment's report",
    "deepnb/many/report_data.py": "the experiment's report",
    "deepnb/many/inspect_export.py": "experiment.to_inspect",
    "deepnb/engine/tracing/switch.py": "an experiment run's trace span",
}


COUNTING = re.compile(r"tokens_(in|out|unreported)\b|\bTokens\b|\.tokens\b|tokens_words|token_(cells|pair)")
"""What a module that holds, shows or exports a count of tokens says."""


def _counting_modules(root: Path) -> Iterator[str]:
    for path in sorted((root / "deepnb").rglob("*.py")):
        if COUNTING.search(path.read_text(encoding="utf-8")):
            yield path.relative_to(root).as_posix()


def test_every_module_that_counts_tokens_is_listed() -> None:
    root = Path(__file__).resolve().parents[2]
    found = set(_counting_modules(root))
    assert found == set(COUNTING_MODULES), (found - set(COUNTING_MODULES), set(COUNTING_MODULES) - found)
    covered = set(EXPORTS) | set(VIEWS) | {"the rule itself"}
    shapes = {"the shapes of a run's progress and a subagent node"}
    assert set(COUNTING_MODULES.values()) <= covered | shapes
