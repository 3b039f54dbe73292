"""Runs that survive a flaky provider: ``retries=`` runs again a run failing with an error that
may pass (told by its type and HTTP status, never a bug), after an exponential backoff whose
sleep a test replaces; ``fail_on_error=`` stops the experiment in one line once enough runs
failed, keeping what ended."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

import deepnb
from deepnb import scorers
from deepnb.core.errors import DeepnbError
from deepnb.many.retrying import Retries, transient
from deepnb.models.scripted import ScriptedChatModel, parse_script
from deepnb.views.experiment.experiment_view import head_line
from tests.support.agents import unique
from tests.support.waiting import WAIT


def rate_limited() -> openai.RateLimitError:
    request = httpx.Request("POST", "https://api.openai.com/v1/chat/completions")
    return openai.RateLimitError(
        "Rate limit reached", response=httpx.Response(429, request=request), body=None
    )


def status_error(code: int) -> openai.APIStatusError:
    request = httpx.Request("POST", "https://api.openai.com/v1/chat/completions")
    return openai.APIStatusError(f"status {code}", response=httpx.Response(code, request=request), body=None)


class Flaky(ScriptedChatModel):
    """Answers ``q<i>`` with ``a<i>``, but first fails as ``failures[prompt]`` says: a number of
    rate limits, or ``"bug"`` (a ``KeyError`` every time), or ``"always"`` (rate limits)."""

    failures: Any = None
    calls: Any = None

    def _reply(self, messages: Any, run_manager: Any) -> Any:
        prompt = str(messages[-1].content)
        lock, seen = self.calls
        with lock:
            seen[prompt] = seen.get(prompt, 0) + 1
            count = seen[prompt]
        failing = self.failures.get(prompt, 0)
        if failing == "bug":
            raise KeyError("a bug in the model's own code")
        if failing == "always" or (isinstance(failing, int) and count <= failing):
            raise rate_limited()
        return super()._reply(messages, run_manager)


def flaky(failures: dict[str, Any]) -> Flaky:
    script = {"agents": {"main": [{"match": f"^q{i}$", "turns": [{"text": f"a{i}"}]} for i in range(6)]}}
    return Flaky(script=parse_script(script), failures=failures, calls=(threading.Lock(), {}))


def test_what_may_pass_is_told_by_type_and_status() -> None:
    assert transient(rate_limited())
    assert transient(status_error(503)) and transient(status_error(529))
    assert not transient(status_error(400)) and not transient(status_error(401))
    assert transient(httpx.ReadTimeout("read timed out")) and transient(httpx.ConnectError("refused"))
    assert transient(TimeoutError()) and not transient(KeyError("x")) and not transient(None)
    try:
        try:
            raise rate_limited()
        except openai.RateLimitError as inner:
            raise RuntimeError("the model call failed") from inner
    except RuntimeError as outer:
        assert transient(outer)  # through the chain


def test_a_run_failing_with_a_passing_error_runs_again_after_a_backoff(tmp_path: Path) -> None:
    slept: list[float] = []

    async def no_sleep(seconds: float) -> None:
        slept.append(seconds)

    model = flaky({"q0": 2, "q1": "bug", "q2": "always"})
    name = unique("flaky")
    deepnb.agent(name=name, model=model)
    log = tmp_path / "l.jsonl"
    experiment = deepnb.experiment(
        [{"q": f"q{i}", "reference": f"a{i}"} for i in range(4)],
        agent=name,
        scorers=[scorers.exact],
        template="{q}",
        retries=Retries(3, sleep=no_sleep),
        concurrency=2,
        log=log,
    ).wait(WAIT)
    records = experiment.records
    healed, bug, hopeless, fine = (records[(i, name, 0)] for i in range(4))
    assert (healed.status, healed.attempts, healed.result, healed.scores["exact"].score) == (
        "done",
        3,
        "a0",
        1.0,
    )
    assert (bug.status, bug.attempts) == ("error", 1)  # a bug is never run again
    assert (hopeless.status, hopeless.attempts) == ("error", 4) and "Rate limit" in (hopeless.error or "")
    assert (fine.status, fine.attempts) == ("done", 1)
    assert sorted(slept) == sorted([1.0, 2.0, 1.0, 2.0, 4.0])  # q0 twice, q2 three times
    logged = [json.loads(line) for line in log.read_text().splitlines()]
    attempts = {d["row"]: d["attempts"] for d in logged if d["type"] == "run"}
    assert attempts == {0: 3, 1: 1, 2: 4, 3: 1}
    assert deepnb.load_experiment(log).records[(0, name, 0)].attempts == 3
    assert experiment.status == "done"


def test_retries_is_checked_first() -> None:
    with pytest.raises(DeepnbError, match="retries= is how many times"):
        deepnb.experiment(["q0"], agent="nobody", retries=-1)
    with pytest.raises(DeepnbError, match="fail_on_error= is True"):
        deepnb.experiment(["q0"], agent="nobody", fail_on_error="often")


def test_past_fail_on_error_the_experiment_stops_in_one_line(tmp_path: Path) -> None:
    model = flaky({f"q{i}": "bug" for i in range(6)})
    name = unique("failing")
    deepnb.agent(name=name, model=model)
    log = tmp_path / "l.jsonl"
    experiment = deepnb.experiment(
        [f"q{i}" for i in range(6)], agent=name, concurrency=1, fail_on_error=2, log=log
    )
    with pytest.raises(DeepnbError) as raised:
        experiment.wait(WAIT)
    line = str(raised.value)
    assert "\n" not in line and line.startswith("The experiment stopped: 2 of 6 runs failed")
    assert "fail_on_error=2" in line and "KeyError" in line and str(log) in line
    assert experiment.status == line and head_line(experiment).endswith(line)  # the matrix says it
    statuses = [experiment.status_of((i, name, 0)) for i in range(6)]
    assert statuses[:2] == ["error", "error"] and "cancelled" in statuses  # the rest did not run
    logged = [json.loads(text) for text in log.read_text().splitlines()]
    assert {d["row"] for d in logged if d["type"] == "run" and d["status"] == "error"} >= {0, 1}
    assert [d["reason"] for d in logged if d["type"] == "stopped"] == [line]


def test_fail_on_error_stops_the_next_run_even_while_the_scorers_are_busy(tmp_path: Path) -> None:
    """A failed run counts as it ends, not once a scoring thread reaches it: here the one scoring
    thread is held by the first row's scorer until nothing runs any more, and still the runs past
    the second failure never start."""
    quiet = threading.Event()

    def held(output: str, reference: Any, run: Any) -> bool:
        quiet.wait(WAIT)
        return True

    model = flaky({f"q{i}": "bug" for i in range(1, 7)})
    name = unique("busy")
    deepnb.agent(name=name, model=model)
    experiment = deepnb.experiment(
        [f"q{i}" for i in range(7)],
        agent=name,
        scorers=[held],
        concurrency=1,
        fail_on_error=2,
        log=tmp_path / "l.jsonl",
    )
    experiment.subscribe(lambda: None if experiment.going() else quiet.set())
    if not experiment.going():
        quiet.set()
    with pytest.raises(DeepnbError, match=r"^The experiment stopped: 2 of 7 runs failed"):
        experiment.wait(WAIT)
    statuses = [experiment.status_of((i, name, 0)) for i in range(7)]
    assert statuses[1:3] == ["error", "error"] and statuses[3:] == ["cancelled"] * 4, statuses


def test_fail_on_error_as_a_fraction_of_the_runs(tmp_path: Path) -> None:
    model = flaky({"q0": "bug", "q1": "bug"})
    name = unique("fraction")
    deepnb.agent(name=name, model=model)
    kept = deepnb.experiment(
        [f"q{i}" for i in range(4)], agent=name, concurrency=1, fail_on_error=0.75, log=tmp_path / "a.jsonl"
    ).wait(WAIT)  # 2 of 4 failed: under 75 %
    assert kept.status == "done" and len(kept.records) == 4
    stopped = deepnb.experiment(
        [f"q{i}" for i in range(4)], agent=name, concurrency=1, fail_on_error=0.5, log=tmp_path / "b.jsonl"
    )
    with pytest.raises(DeepnbError, match=r"2 of 4 runs failed, reaching fail_on_error=0\.5"):
        stopped.wait(WAIT)
