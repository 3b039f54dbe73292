"""A 10,000-input batch displays within bounds and in linear time: its first display (the live
grid's opening state and the static table beside it) stays small whatever the batch's size, the
table draws its first rows and counts the rest, and drawing it never rebuilds the list of every
input once per row."""

from __future__ import annotations

import json
from typing import Any

import pytest

import deepnb
from deepnb.many.batch import Batch
from deepnb.views.batch.batch_rows import SNAPSHOT_ROWS, batch_snapshot_bundle
from deepnb.views.batch.batch_view import batch_bundle
from deepnb.views.bounds import MESSAGE_LIMIT
from tests.support.agents import scripted, unique

INPUTS = 10_000


@pytest.fixture(scope="module")
def batch() -> Any:
    bench = deepnb.agent(unique("large"), scripted({"main": ["ok"]}, delay=0.05))
    started = bench.map([f"question {n} " + "x" * 60 for n in range(INPUTS)], concurrency=1)
    started.stop()
    started.wait(60)
    yield started


def test_the_first_display_is_bounded(batch: Any) -> None:
    bundle = batch_bundle(batch)
    assert len(json.dumps(bundle, default=str)) < 4 * MESSAGE_LIMIT
    snapshot = batch_snapshot_bundle(batch)
    more = f"… and {INPUTS - SNAPSHOT_ROWS:,} more rows"
    assert more in snapshot["text/plain"] and more in snapshot["text/html"]
    assert snapshot["text/html"].count("<tr data-status=") == SNAPSHOT_ROWS


def test_drawing_rows_reads_each_input_once(batch: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = {"inputs": 0}
    whole = Batch.inputs.fget  # type: ignore[attr-defined]

    def counted(self: Batch) -> Any:
        calls["inputs"] += 1
        return whole(self)

    monkeypatch.setattr(Batch, "inputs", property(counted))
    batch_snapshot_bundle(batch)
    batch_bundle(batch)
    assert calls["inputs"] <= 2, f"the list of {INPUTS:,} inputs was built {calls['inputs']:,} times"
