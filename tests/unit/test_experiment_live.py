"""The live experiment matrix: filled in as runs end, at most 20 messages a second and none over
64 KB however many runs end at once, a cell opening its run's live view, a forged request refused
in one line, and a display that ends on the final static matrix."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import comm
import pytest

import deepnb
from deepnb import scorers
from deepnb.views.bounds import MESSAGE_LIMIT
from deepnb.views.experiment.experiment_live import ExperimentView, experiment_live_bundle
from deepnb.views.throttle import MAX_MESSAGES_PER_SECOND
from tests.support.agents import unique
from tests.support.timed_model import timed

ROWS = [{"q": f"q{n}", "reference": f"a{n}"} for n in range(30)]


def _script(wrong: set[int]) -> dict[str, Any]:
    conversations = [
        {"match": f"^q{n}$", "turns": [{"text": "no" if n in wrong else f"a{n}"}]} for n in range(30)
    ]
    return {"main": conversations}


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[float, dict[str, Any]]]:
    """Every comm message any widget publishes, with when."""
    seen: list[tuple[float, dict[str, Any]]] = []

    def publish(self: Any, msg_type: str, data: Any = None, *args: Any, **keys: Any) -> None:
        seen.append((time.monotonic(), data or {}))

    monkeypatch.setattr(comm.DummyComm, "publish_msg", publish)
    return seen


def _experiment(tmp_path: Path) -> Any:
    name = unique("live")
    deepnb.agent(name=name, model=timed(_script(set()), turn_seconds=0.05))
    return deepnb.experiment(
        ROWS,
        agent=name,
        variants={
            "good": timed(_script(set()), turn_seconds=0.05),
            "bad": timed(_script({1, 2}), turn_seconds=0.05),
        },
        scorers=[scorers.exact],
        epochs=2,
        concurrency=16,
        template="{q}",
        log=tmp_path / "log.jsonl",
    )


def test_the_matrix_fills_in_within_the_message_bounds(tmp_path: Path, sent: list[Any]) -> None:
    experiment = _experiment(tmp_path)
    view = ExperimentView(experiment)
    experiment.wait(120)
    time.sleep(0.5)  # the last throttled flush
    view.sync()
    mine = [(at, data) for at, data in sent if data.get("method") == "update" and "state" in data]
    assert view.messages >= 2 and mine
    assert max(len(json.dumps(data).encode()) for _, data in sent) <= MESSAGE_LIMIT
    times = [at for at, _ in mine]
    for start in times:
        assert sum(start <= at < start + 1.0 for at in times) <= MAX_MESSAGES_PER_SECOND
    assert view.variants == ["good", "bad"] and view.scorers == ["exact"] and not view.going
    assert len(view.rows) == 30 and view.rows[1]["prompt"] == "q1"
    good, bad = view.rows[1]["cells"]
    assert (good["v"], good["kind"], good["scores"], good["answer"]) == (
        "good",
        "done",
        {"exact": "1.00"},
        "a1",
    )
    assert (bad["v"], bad["scores"]) == ("bad", {"exact": "0.00"})
    deadline = time.monotonic() + 30  # the summary is computed on a thread of its own
    while len(view.summary.get("rows", [])) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert view.summary["columns"][0] == "variant" and [r[0] for r in view.summary["rows"]] == ["good", "bad"]
    view.close()


def test_a_cell_opens_its_run_and_a_forged_request_is_refused(tmp_path: Path) -> None:
    experiment = _experiment(tmp_path)
    experiment.wait(120)
    view = ExperimentView(experiment)
    view._on_front_end_message(view, {"type": "open", "row": 3, "variant": "bad"}, [])
    assert view.selected == {"row": 3, "variant": "bad"} and view.detail and view.notice == ""
    shown = view._detail_view
    assert shown is not None and shown.run is experiment.runs[(3, "bad", 0)]
    for forged in (
        {"type": "open", "row": 99, "variant": "bad"},
        {"type": "open", "row": 3, "variant": "<script>"},
        {"type": "open", "row": "3", "variant": "bad"},
        {"type": "eval", "code": "1"},
    ):
        view.notice = ""
        view._on_front_end_message(view, forged, [])
        assert view.notice and "\n" not in view.notice
    assert view.selected == {"row": 3, "variant": "bad"}  # nothing changed
    view._on_front_end_message(view, {"type": "close"}, [])
    assert view.selected == {} and view.detail == ""
    view.close()


def test_the_display_carries_a_static_matrix(tmp_path: Path) -> None:
    experiment = _experiment(tmp_path)
    experiment.wait(120)
    bundle = experiment_live_bundle(experiment)
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert 'aria-label="Experiment"' in bundle["text/html"] and "Experiment" in bundle["text/plain"]
