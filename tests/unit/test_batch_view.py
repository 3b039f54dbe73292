"""The batch grid: a row per input, escaped text in its static table, every update throttled into
few messages under the size limit, front-end messages checked, Stop and a row's run view."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

import deepnb
from deepnb.views.batch.batch_rows import LINE_LIMIT, batch_snapshot_bundle, first_line, grid_row
from deepnb.views.batch.batch_view import BatchView
from deepnb.views.bounds import MESSAGE_LIMIT
from deepnb.views.run.run_view import RunView
from deepnb.views.throttle import MAX_MESSAGES_PER_SECOND
from tests.support.agents import scripted, unique
from tests.support.timed_model import timed
from tests.support.waiting import WAIT, wait_until

HOSTILE = "<script>alert(1)</script> & <b>bold</b>"


def _script(n: int, text: str = "answer") -> dict[str, Any]:
    return {"main": [{"match": f"^q{i}$", "turns": [{"text": f"{text} {i}\nsecond line"}]} for i in range(n)]}


class Sent:
    """Every message a view sends to its front end (custom messages and state syncs)."""

    def __init__(self, view: BatchView) -> None:
        self.messages: list[Any] = []
        self.times: list[float] = []
        comm = view.comm
        original = comm.send

        def send(data: Any = None, *args: Any, **kwargs: Any) -> Any:
            self.messages.append(data)
            self.times.append(time.monotonic())
            return original(data, *args, **kwargs)

        comm.send = send
        self.counted_before = view.messages
        """What the view had counted when this began listening."""


def test_rows_and_the_static_table_escape_the_agents_text() -> None:
    bench = deepnb.agent(name=unique("grid"), model=scripted({"main": [{"turns": [{"text": HOSTILE}]}]}))
    batch = bench.map([HOSTILE, "plain"]).wait(WAIT)
    row = grid_row(batch, 0)
    assert row["line"] == HOSTILE and row["status"] == "done" and row["input"] == HOSTILE
    html = batch_snapshot_bundle(batch)["text/html"]
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "2 of 2 ended (2 done)" in batch_snapshot_bundle(batch)["text/plain"]
    assert first_line("\n\n  first  \nsecond") == "first" and len(first_line("x" * 999)) == LINE_LIMIT


@pytest.mark.volume
def test_many_runs_make_few_messages_each_under_the_limit() -> None:
    n = 60
    long_answer = "y" * 5000
    model = timed({"main": [{"turns": [{"text": long_answer}]}]}, turn_seconds=0.3)
    bench = deepnb.agent(name=unique("busy"), model=model)
    batch = bench.map([f"q{i}" for i in range(n)], concurrency=20)
    view = BatchView(batch)
    sent = Sent(view)
    batch.wait(WAIT)
    wait_until(lambda: view.progress["done"] == n, "the grid's last throttled flush")
    # the view's first flush may have gone out (on the engine thread) before Sent was listening
    assert view.messages >= 1 and len(sent.messages) >= view.messages - sent.counted_before
    assert max(len(json.dumps(m).encode()) for m in sent.messages) <= MESSAGE_LIMIT
    for start in sent.times:  # at most 20 a second, however many runs change at once
        assert sum(start <= t < start + 1.0 for t in sent.times) <= MAX_MESSAGES_PER_SECOND
    assert [row["status"] for row in view.rows] == ["done"] * n
    assert view.progress["done"] == n and view.progress["eta"] is None


def test_front_end_messages_are_checked_and_stop_stops_every_run() -> None:
    bench = deepnb.agent(name=unique("stoppable"), model=timed(_script(4), turn_seconds=30.0))
    batch = bench.map([f"q{i}" for i in range(4)], concurrency=2)
    view = BatchView(batch)
    view._on_front_end_message(view, {"type": "launch"}, [])
    assert "unknown type 'launch'" in view.notice
    view._on_front_end_message(view, {"type": "open", "index": 99}, [])
    assert view.notice == "The batch has no row 99."
    wait_until(lambda: batch.runs[0] is not None, "the first run to start")
    view._on_front_end_message(view, {"type": "open", "index": 0}, [])
    assert view.selected == 0 and isinstance(view._detail_view, RunView)
    assert view.detail == view._detail_view.model_id and view._detail_view.run is batch.runs[0]
    view._on_front_end_message(view, {"type": "open", "index": 3}, [])
    assert view.notice == "Row 3 has no run yet (queued)." and view.selected == 0
    view._on_front_end_message(view, {"type": "stop"}, [])
    batch.wait(WAIT)
    assert batch.statuses == ["cancelled"] * 4
    view._on_front_end_message(view, {"type": "close"}, [])
    assert view.selected == -1 and view.detail == ""
    view._on_front_end_message(view, {"type": "open", "index": 1}, [])
    detail = view._detail_view
    assert detail is not None and detail.comm is not None
    view.close()
    assert detail.comm is None and view._detail_view is None and not batch._listeners


@pytest.mark.volume
def test_a_grid_opened_after_a_large_batch_gets_every_row() -> None:
    n = 250
    bench = deepnb.agent(name=unique("large"), model=scripted({"main": [{"turns": [{"text": "z" * 300}]}]}))
    batch = bench.map([f"input number {i} " + "x" * 60 for i in range(n)], concurrency=16).wait(WAIT)
    view = BatchView(batch)
    sent = Sent(view)
    view._on_front_end_message(view, {"type": "hello"}, [])
    view.sync()
    shown = {row["i"] for row in view.rows}
    shown |= {row["i"] for m in sent.messages if m.get("method") == "custom" for row in m["content"]["rows"]}
    assert len(view.rows) < n and shown == set(range(n))
    assert max(len(json.dumps(m).encode()) for m in sent.messages) <= MESSAGE_LIMIT
