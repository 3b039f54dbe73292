"""Traces into a real collector: Arize Phoenix, started locally (``tests/support/phoenix.py``).
A deep agent with subagents and approvals, and a small experiment, run with tracing on; their
spans are read back over Phoenix's REST API: the parent/child structure, the span kinds, token
counts, the experiment's attributes, and no secret anywhere in what Phoenix holds."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openinference.instrumentation.langchain", reason="the trace extra is not installed")

import deepnb
from deepnb.engine.tracing import switch
from tests.support.agents import unique
from tests.support.phoenix import Phoenix, phoenix_fixture
from tests.support.traced_experiment import traced_experiment
from tests.support.waiting import WAIT

phoenix = phoenix_fixture()
SECRET = "ph0enix-s3cret-value-77"
KEY_SHAPED = "sk-" + "Zz9Yy8Xx7Ww6Vv5Uu4Tt3"
GATED = {"write_file": True, "edit_file": True}


@pytest.fixture
def project(phoenix: Phoenix, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Tracing on to Phoenix under a project of the test's own, with a secret in the environment."""
    monkeypatch.setenv("PHOENIX_TEST_API_KEY", SECRET)
    name = f"deepnb-{uuid.uuid4().hex[:8]}"
    deepnb.trace(phoenix.url, project=name, delay=0.1)
    yield name
    switch.turn_off()


def sent(phoenix: Phoenix, project: str) -> list[dict[str, Any]]:
    """Every span of the project once Phoenix holds all that was exported (none dropped)."""
    assert switch.flush(WAIT)
    status = switch.status()
    assert (status.dropped, status.failed, status.waiting) == (0, 0, 0), repr(status)
    return phoenix.wait_for(project, status.exported)


def by_id(spans: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {s["context"]["span_id"]: s for s in spans}


def parent(span: dict[str, Any], index: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    return index.get(span["parent_id"]) if span["parent_id"] else None


def test_a_deep_agent_with_subagents_reads_back_as_one_trace(phoenix: Phoenix, project: str) -> None:
    bench = deepnb.agent(unique("phoenix"), "demo:approvals", interrupt_on=GATED)
    run = bench.run(f"Plan the launch; the key is {SECRET}, the other one {KEY_SHAPED}")
    decided = 0
    while run.status == "interrupted":
        for pending in run.pending:
            pending.approve()
            decided += 1
        run.wait(WAIT)
    assert run.status == "done", run.error
    spans = sent(phoenix, project)
    index = by_id(spans)

    # One trace: a root (the run), every other span's parent in it.
    roots = [s for s in spans if not s["parent_id"]]
    assert [r["name"] for r in roots] == [f"run: {bench.name}"]
    assert {s["context"]["trace_id"] for s in spans} == {roots[0]["context"]["trace_id"]}
    assert all(s["parent_id"] in index for s in spans if s["parent_id"])
    assert roots[0]["span_kind"] == "AGENT"
    assert roots[0]["attributes"]["session.id"] == run.thread_id

    kinds = {s["span_kind"] for s in spans}
    assert {"LLM", "TOOL", "AGENT", "CHAIN", "DECISION"} <= kinds
    subagents = [s for s in spans if s["name"] == "general-purpose"]
    assert len(subagents) >= 2
    for subagent in subagents:
        call = parent(subagent, index)
        assert subagent["span_kind"] == "AGENT"
        assert (call["name"], call["span_kind"]) == ("task", "TOOL")
    decisions = [s for s in spans if s["span_kind"] == "DECISION"]
    assert len(decisions) == decided
    assert all(s["attributes"]["decision.type"] == "approve" for s in decisions)

    # Token counts: Phoenix's, per model call, against the run's own timeline.
    calls = [r for r in run.timeline if r["kind"] == "model"]
    llms = phoenix.spans(project, span_kind="LLM")
    assert len(llms) == len(calls)
    prompt, completion = (sum(r[k] for r in calls) for k in ("tokens_in", "tokens_out"))
    assert sum(s["attributes"]["llm.token_count.prompt"] for s in llms) == prompt
    assert sum(s["attributes"]["llm.token_count.completion"] for s in llms) == completion

    held = phoenix.raw(project)
    assert "Plan the launch; the key is [redacted]" in held
    assert SECRET not in held and KEY_SHAPED not in held


def test_an_experiment_groups_its_runs_by_row_variant_and_epoch(
    phoenix: Phoenix, project: str, tmp_path: Path
) -> None:
    experiment = traced_experiment(tmp_path, "grouped")
    spans = sent(phoenix, project)
    index = by_id(spans)
    records = experiment.records
    runs = [s for s in spans if "experiment.row" in s["attributes"]]
    assert len(runs) == len(records) == 8
    for span in runs:
        a = span["attributes"]
        record = records[(a["experiment.row"], a["experiment.variant"], a["experiment.epoch"])]
        assert not span["parent_id"] and span["span_kind"] == "CHAIN"
        assert a["experiment.name"] == "grouped"
        assert a["experiment.scores.exact"] == record.scores["exact"].score
        assert a["output.value"] == record.result
        (inner,) = [
            s for s in spans if s["parent_id"] == span["context"]["span_id"] and s["name"].startswith("run:")
        ]
        assert parent(inner, index) is span

    # Phoenix filters by the metadata every span of a run carries: one variant's model calls.
    second = phoenix.spans(project, span_kind="LLM", attribute="metadata.variant:second")
    assert len(second) == 4
    assert {s["attributes"]["metadata.variant"] for s in second} == {"second"}
