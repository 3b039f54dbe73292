"""Many runs in flight on one server: a batch or an experiment may hand a server more runs than
its job slots take at once (the server queues them, each run's stream open all the while), and
every one of them ends as the server answers, however many there are.

The stub server holds each run's stream for longer than a connection may be waited for, as a run
queued behind a busy server's job slots does."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import deepnb
from deepnb import scorers
from deepnb.views.experiment.experiment_view import head_line
from tests.support.agents import unique
from tests.support.servers import offline_client_fixture
from tests.support.stub_agent_server import StubServer, serve
from tests.support.waiting import WAIT

HELD = 6.0
"""Seconds each run's stream is held: longer than a connection is waited for by default (5 s)."""
MANY = 120
"""More runs at once than an HTTP client keeps connections by default (100)."""

offline_client = offline_client_fixture()


@pytest.fixture
def server() -> Iterator[StubServer]:
    with serve() as stub:
        stub.stream_seconds = HELD
        yield stub


def test_more_runs_at_once_than_connections_kept_by_default_all_end_done(server: StubServer) -> None:
    bench = deepnb.connect(server.url, "deep", name=unique("many"))
    batch = bench.map([f"job {n}" for n in range(MANY)], concurrency=MANY).wait(WAIT)
    errors = {run.error for run in batch.runs if run is not None and run.error}
    assert batch.statuses == ["done"] * MANY, errors
    assert batch.results == ["Hello there."] * MANY
    assert server.streams_at_once > 100


def test_an_experiment_hands_a_served_agent_its_runs_and_says_where_they_go(
    server: StubServer, tmp_path: Path
) -> None:
    """Without ``concurrency``, all of a served agent's runs go to its server at once (not the
    kernel's 8); the head line says the server's job slots decide, and every run is scored."""
    name = unique("served")
    deepnb.connect(server.url, "deep", name=name)
    rows = [{"q": f"question {n}", "reference": "Hello there."} for n in range(30)]
    experiment = deepnb.experiment(
        rows, agent=name, scorers=[scorers.exact], template="{q}", log=tmp_path / "log.jsonl"
    )
    server.wait_streams_open(30, WAIT)  # every run sent (each stream is held for a while)
    line = head_line(experiment)
    experiment.wait(WAIT)
    assert server.streams_at_once == 30
    assert f"sent to {server.url} (its job slots decide how many run at once)" in line
    assert {r.status for r in experiment.records.values()} == {"done"}
    assert all(r.scores["exact"].score == 1.0 for r in experiment.records.values())
    assert "sent to" not in head_line(experiment)
