"""One writer per log: an experiment claims its log as runs claim threads; a second experiment
on it, in this kernel or another process, is refused in one line naming the holder; the claim
is let go once the experiment ends or is stopped, and one left by a killed process is taken over."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import deepnb
from deepnb import scorers
from deepnb.core.errors import DeepnbError
from deepnb.models.scripted import ScriptedChatModel, parse_script
from tests.support.agents import HeldModel, unique
from tests.support.waiting import WAIT, Gate

ROWS = [{"q": f"q{i}", "reference": f"a{i}"} for i in range(2)]
HOLD = """
import sys
from pathlib import Path
from deepnb.many import log_claims
claim = log_claims.claim(Path(sys.argv[1]), "elsewhere")
print("held", flush=True)
sys.stdin.read()
"""


@pytest.fixture
def gate() -> Iterator[Gate]:
    held = Gate()
    yield held
    held.open()


def agent(gate: Gate | None = None) -> str:
    name = unique("writer")
    conversations = [{"match": f"^q{i}$", "turns": [{"text": f"a{i}"}]} for i in range(len(ROWS))]
    script = parse_script({"agents": {"main": conversations}})
    model = HeldModel(script=script, gate=gate) if gate is not None else ScriptedChatModel(script=script)
    deepnb.agent(name=name, model=model)
    return name


def run(name: str, log: Path, title: str = "writer") -> deepnb.Experiment:
    return deepnb.experiment(ROWS, agent=name, scorers=[scorers.exact], template="{q}", log=log, name=title)


def holding(log: Path) -> subprocess.Popen[str]:
    """Another process holding the log's claim (until its stdin closes or it is killed)."""
    process = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(log)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None and process.stdout.readline().strip() == "held"
    return process


def test_a_log_held_by_another_process_is_refused_naming_it_then_taken_over_once_it_is_killed(
    tmp_path: Path,
) -> None:
    log = tmp_path / "shared.jsonl"
    other = holding(log)
    try:
        with pytest.raises(DeepnbError) as caught:
            run(agent(), log)
        said = str(caught.value)
        assert f"in use by an experiment in another kernel (pid {other.pid} on " in said and "\n" not in said
        assert not log.exists() or log.read_text() == ""  # nothing written, nothing run
    finally:
        other.kill()
        other.wait()
    done = run(agent(), log).wait(WAIT)  # the killed process's claim is taken over
    assert done.status == "done" and len(done.records) == len(ROWS)


def test_a_second_experiment_on_a_log_running_in_this_kernel_is_refused(tmp_path: Path, gate: Gate) -> None:
    log = tmp_path / "twice.jsonl"
    name = agent(gate)
    first = run(name, log, "first")
    with pytest.raises(DeepnbError, match=r"in use by experiment 'first', still running in this kernel"):
        run(name, log, "second")
    gate.open()
    first.wait(WAIT)
    assert sum(1 for line in log.read_text().splitlines() if '"type": "run"' in line) == len(ROWS)
    again = run(name, log, "first").wait(WAIT)  # ended: the log is free, and nothing runs twice
    assert again.status == "done"
    assert sum(1 for line in log.read_text().splitlines() if '"type": "run"' in line) == len(ROWS)
    other = holding(log)  # free for another process too
    other.kill()
    other.wait()


def test_a_stopped_experiment_lets_its_log_go(tmp_path: Path, gate: Gate) -> None:
    log = tmp_path / "stopped.jsonl"
    name = agent(gate)
    first = run(name, log, "first")
    first.stop()
    first.wait(WAIT)
    assert first.status == "stopped"
    gate.open()
    resumed = run(name, log, "first").wait(WAIT)
    assert resumed.status == "done" and len(resumed.records) == len(ROWS)


def test_a_reopened_experiment_adds_nothing_to_a_log_another_process_holds(tmp_path: Path) -> None:
    log = tmp_path / "graded.jsonl"
    run(agent(), log).wait(WAIT)
    reopened = deepnb.load_experiment(log)
    key = next(iter(reopened.records))
    before = log.read_text()
    other = holding(log)
    try:
        with pytest.raises(DeepnbError, match=rf"in another kernel \(pid {other.pid} on "):
            reopened.grade(*key, 1.0)
        with pytest.raises(DeepnbError, match=rf"in another kernel \(pid {other.pid} on "):
            reopened.rescore([scorers.exact])
        assert log.read_text() == before and "human" not in reopened.records[key].scores
    finally:
        other.kill()
        other.wait()
    reopened.grade(*key, 1.0)  # once it is free, the grade is saved
    assert deepnb.load_experiment(log).records[key].scores["human"].score == 1.0
