"""The judge inside an experiment: its model calls count against ``concurrency`` (scoring as
well as runs, ``rescore()`` too). Overlap is counted by a judge model that records its entries
and exits under a lock, never by timing."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import deepnb
from deepnb import scorers
from deepnb.models.scripted import ScriptedChatModel, parse_script
from tests.support.agents import scripted, unique

WAIT = 120.0
ROWS = [{"q": f"q{i}", "reference": f"a{i}"} for i in range(4)]


def agent_model() -> ScriptedChatModel:
    return scripted({"main": [{"match": f"^q{i}$", "turns": [{"text": f"a{i}"}]} for i in range(4)]})


class CountingJudge(ScriptedChatModel):
    """A scripted judge that counts how many of its calls are in flight at once; each call
    first waits for ``gate`` (set when every run has ended), so calls that may overlap do."""

    gate: Any = None
    meter: Any = None

    def _reply(self, messages: Any, run_manager: Any) -> Any:
        lock, counts = self.meter
        with lock:
            counts["now"] += 1
            counts["most"] = max(counts["most"], counts["now"])
            counts["calls"] += 1
        try:
            self.gate.wait(WAIT)
            return super()._reply(messages, run_manager)
        finally:
            with lock:
                counts["now"] -= 1


def counting_judge(gate: threading.Event) -> tuple[CountingJudge, dict[str, int]]:
    counts = {"now": 0, "most": 0, "calls": 0}
    verdict = {"tool_calls": [{"name": "score", "args": {"reasoning": "fine", "score": True}}]}
    model = CountingJudge(
        script=parse_script({"agents": {"main": [{"turns": [verdict]}]}}),
        gate=gate,
        meter=(threading.Lock(), counts),
    )
    return model, counts


def test_with_concurrency_one_no_two_judge_calls_overlap(tmp_path: Path) -> None:
    """The first judge call holds until every run has ended: scoring on threads of its own
    would start the next runs' judge calls meanwhile; scoring within ``concurrency=1`` cannot."""
    name = unique("judged")
    deepnb.agent(name=name, model=agent_model())
    ran = threading.Event()
    model, counts = counting_judge(ran)
    experiment = deepnb.experiment(
        ROWS,
        agent=name,
        scorers=[scorers.judge(model, "Is the answer right?")],
        template="{q}",
        concurrency=1,
        log=tmp_path / "l.jsonl",
    )

    def heard() -> None:
        if not experiment.going():
            ran.set()

    experiment.subscribe(heard)
    heard()
    experiment.wait(WAIT)
    assert counts["calls"] == len(ROWS) and counts["most"] == 1
    assert {r.scores["judge"].score for r in experiment.records.values()} == {1.0}

    counts.update(most=0, calls=0)
    experiment.rescore()  # rescoring too: at most concurrency (1) at once
    assert counts["calls"] == len(ROWS) and counts["most"] == 1
