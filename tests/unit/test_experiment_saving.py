"""Never report what isn't saved: a log that cannot be written (disk full, no permission, its
folder removed) stops the experiment at once; ``status``, the matrix's head line and ``wait()``
say how many runs the log holds, and those reopen. A grade that cannot be saved is not kept;
a cache entry that cannot be written is a warning and the run goes on uncached."""

from __future__ import annotations

import errno
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

import deepnb
from deepnb import scorers
from deepnb.core.errors import DeepnbError
from deepnb.many import caching
from deepnb.many import log as logs
from deepnb.many.caching import CacheWarning
from deepnb.views.experiment.experiment_view import head_line
from tests.support.agents import scripted, unique
from tests.support.waiting import WAIT

ROWS = [{"q": f"q{i}", "reference": f"a{i}"} for i in range(5)]
EPOCHS = 2
RUNS = len(ROWS) * EPOCHS
FULL = OSError(errno.ENOSPC, "No space left on device")


def agent() -> str:
    name = unique("saving")
    conversations = [{"match": f"^q{i}$", "turns": [{"text": f"a{i}"}]} for i in range(len(ROWS))]
    deepnb.agent(name=name, model=scripted({"main": conversations}))
    return name


def failing_after(monkeypatch: pytest.MonkeyPatch, lines: int) -> None:
    """Every log writer takes ``lines`` lines, then each write fails as a full disk does, half
    of the line on disk before the error."""
    taken = [0]

    def write_some(fd: int, data: bytes) -> int:
        if taken[0] >= lines:
            os.write(fd, data[: len(data) // 2])
            raise FULL
        taken[0] += 1
        return os.write(fd, data)

    monkeypatch.setattr(logs.LogWriter, "_write_some", staticmethod(write_some))


def removing_after(monkeypatch: pytest.MonkeyPatch, lines: int, folder: Path) -> None:
    """The log's folder is removed once ``lines`` lines are written."""
    taken = [0]
    real = logs.LogWriter._append

    def append(self: logs.LogWriter, data: bytes) -> None:
        taken[0] += 1
        if taken[0] > lines:
            shutil.rmtree(folder, ignore_errors=True)
        real(self, data)

    monkeypatch.setattr(logs.LogWriter, "_append", append)


def run(name: str, log: Path) -> deepnb.Experiment:
    return deepnb.experiment(
        ROWS, agent=name, scorers=[scorers.exact], template="{q}", epochs=EPOCHS, log=log, concurrency=1
    )


def test_a_full_disk_stops_the_experiment_saying_how_many_runs_are_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    name, log = agent(), tmp_path / "full.jsonl"
    saved = 3
    failing_after(monkeypatch, 1 + len(ROWS) + saved)  # the header, the rows, three runs
    experiment = run(name, log)
    with pytest.raises(DeepnbError) as caught:
        experiment.wait(WAIT)
    said = str(caught.value)
    assert said.startswith(f"Cannot write the experiment's log {str(log)!r}: No space left on device")
    assert f"with {saved} of its {RUNS} runs saved there" in said and "\n" not in said
    assert experiment.status == said
    assert f"{saved}/{RUNS} done" in head_line(experiment) and said in head_line(experiment)
    assert len(experiment.records) == saved  # nothing reported that the log has not got
    statuses = [experiment.status_of(key) for key in experiment.runs]
    assert statuses.count("done") == saved and "scoring" not in statuses
    monkeypatch.undo()

    logged = [json.loads(line) for line in log.read_text().splitlines()]  # every line whole
    assert sum(1 for line in logged if line["type"] == "run") == saved
    reopened = deepnb.load_experiment(log)
    assert reopened.records.keys() == experiment.records.keys()
    resumed = run(name, log).wait(WAIT)  # the same log= runs the rest
    assert len(resumed.records) == RUNS and resumed.status == "done"
    assert sum(1 for line in log.read_text().splitlines() if json.loads(line)["type"] == "run") == RUNS


def test_a_removed_folder_stops_it_and_no_headless_log_is_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    name, folder = agent(), tmp_path / "logs"
    log = folder / "gone.jsonl"
    removing_after(monkeypatch, 1 + len(ROWS) + 2, folder)
    experiment = run(name, log)
    with pytest.raises(
        DeepnbError, match=r"No such file or directory: the experiment stopped with 2 of its 10"
    ):
        experiment.wait(WAIT)
    assert len(experiment.records) == 2 and not folder.exists()


def test_a_grade_that_cannot_be_saved_is_not_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "graded.jsonl"
    run(agent(), log).wait(WAIT)
    reopened = deepnb.load_experiment(log)
    failing_after(monkeypatch, 0)
    with pytest.raises(DeepnbError, match=r"No space left on device: the grade is not saved, nor kept"):
        reopened.grade(0, reopened.variants[0], 0, 0.5)
    assert "human" not in reopened.records[(0, reopened.variants[0], 0)].scores
    monkeypatch.undo()
    assert "human" not in deepnb.load_experiment(log).records[(0, reopened.variants[0], 0)].scores
    reopened.grade(0, reopened.variants[0], 0, 0.5)  # once the disk has room, a grade is saved
    assert deepnb.load_experiment(log).records[(0, reopened.variants[0], 0)].scores["human"].score == 0.5


def test_a_cache_entry_that_cannot_be_written_warns_and_the_run_goes_on_uncached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(*_args: Any) -> None:
        raise FULL

    monkeypatch.setattr(caching.os, "replace", full)
    cache = tmp_path / "cache"
    with pytest.warns(CacheWarning, match="goes on uncached"):
        experiment = deepnb.experiment(
            ROWS[:2],
            agent=agent(),
            scorers=[scorers.exact],
            template="{q}",
            cache=cache,
            log=tmp_path / "c.jsonl",
        ).wait(WAIT)
    assert {r.status for r in experiment.records.values()} == {"done"}
    assert {r.scores["exact"].score for r in experiment.records.values()} == {1.0}
    assert [p for p in cache.rglob("*") if p.is_file()] == []  # nothing half written left behind
