"""Every scorer runs under the experiment's ``score_timeout``: one that takes longer is that run's
scorer error (the others' scores stand), and ``stop()`` (the kernel's interrupt) gives up on a
scorer still running at once, the run it scored left for the same log to run again. The stuck
scorers block on an event the test sets only at its end: nothing sleeps."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import deepnb
from deepnb import scorers
from deepnb.core.errors import DeepnbError
from deepnb.many.record import RunRecord
from deepnb.many.scoring import ScoringStopped, score
from tests.support.agents import scripted, unique
from tests.support.waiting import WAIT


@pytest.fixture
def never() -> Iterator[threading.Event]:
    """An event a stuck scorer waits on; set when the test ends, so its thread ends too."""
    gate = threading.Event()
    yield gate
    gate.set()


def an_agent() -> str:
    name = unique("exp-timeout")
    deepnb.agent(name=name, model=scripted({"main": [{"match": ".*", "turns": [{"text": "a0"}]}]}))
    return name


def test_a_scorer_past_the_timeout_is_that_runs_scorer_error(tmp_path: Path, never: threading.Event) -> None:
    def stuck(output: str) -> bool:
        never.wait()
        return True

    experiment = deepnb.experiment(
        [{"input": "q0", "reference": "a0"}],
        agent=an_agent(),
        scorers=[stuck, scorers.exact],
        score_timeout=0.2,
        log=tmp_path / "l.jsonl",
    ).wait(WAIT)
    (record,) = experiment.records.values()
    assert record.scores["stuck"].score is None
    assert record.scores["stuck"].error == (
        "TimeoutError: the scorer took longer than 0.2 s (the experiment's score_timeout)"
    )
    assert record.scores["exact"].score == 1.0 and record.scores["exact"].error is None
    assert "stuck: TimeoutError" in experiment.to_pandas().iloc[0]["scorer_errors"]


def test_stop_returns_while_a_scorer_is_stuck_and_the_log_runs_it_again(
    tmp_path: Path, never: threading.Event
) -> None:
    entered = threading.Event()

    def stuck(output: str) -> bool:
        entered.set()
        never.wait()
        return True

    log = tmp_path / "l.jsonl"
    name = an_agent()
    experiment = deepnb.experiment(["q0"], agent=name, scorers={"s": stuck}, log=log, score_timeout=None)
    assert entered.wait(WAIT), "the scorer never started"
    experiment.stop().wait(WAIT)  # returns although the scorer still waits
    assert experiment.done and experiment.status == "stopped"
    assert experiment.records == {} and not never.is_set()

    resumed = deepnb.experiment(["q0"], agent=name, scorers={"s": lambda output: output == "a0"}, log=log)
    (record,) = resumed.wait(WAIT).records.values()
    assert record.result == "a0" and record.scores["s"].score == 1.0


def test_score_gives_up_when_halted(never: threading.Event) -> None:
    halt = threading.Event()
    entered = threading.Event()

    def stuck(output: str) -> bool:
        entered.set()
        never.wait()
        return True

    record = RunRecord(0, "v", 1, {}, None, "done", result="a0")
    outcome: list[BaseException] = []

    def scoring() -> None:
        try:
            score(stuck, record, halt=halt)
        except ScoringStopped as exc:
            outcome.append(exc)

    worker = threading.Thread(target=scoring)
    worker.start()
    assert entered.wait(WAIT)
    halt.set()
    worker.join(WAIT)
    assert not worker.is_alive() and len(outcome) == 1
    assert score(lambda output: 1, record, timeout=WAIT).score == 1.0  # a quick one as before


@pytest.mark.parametrize("bad", [0, -1, True, "10"])
def test_score_timeout_is_seconds(bad: Any) -> None:
    with pytest.raises(DeepnbError, match="score_timeout is the seconds a scorer has per run"):
        deepnb.experiment(["q0"], agent=an_agent(), scorers=[scorers.exact], score_timeout=bad)
