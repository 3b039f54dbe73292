"""Reviewing an experiment in its live matrix: a cell's sample view (row, variant, epoch; input,
reference and answer as escaped Markdown; every score with its comment), a person's grade sent
from it (saved at once, shown as human, in the summary, there on reopen; while the experiment
runs; two views at once, the last write winning in both), the filters picked in the kernel over
every row of a 10,000-row experiment, and every message within its bound."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import comm
import pytest

import deepnb
from deepnb.many.report import comparison_section
from deepnb.views.bounds import MESSAGE_LIMIT, size
from deepnb.views.experiment.baseline import comparison_table
from deepnb.views.experiment.experiment_live import ExperimentView
from deepnb.views.experiment.sample import SAMPLE_BUDGET, sample_state
from tests.support.agents import unique
from tests.support.experiment_logs import HOSTILE, finished_log
from tests.support.experiment_views import growing_state, wait_judged
from tests.support.timed_model import timed
from tests.support.waiting import wait_until


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Every comm message any widget publishes."""
    seen: list[dict[str, Any]] = []

    def publish(self: Any, msg_type: str, data: Any = None, *args: Any, **keys: Any) -> None:
        seen.append(data or {})

    monkeypatch.setattr(comm.DummyComm, "publish_msg", publish)
    return seen


def _send(view: ExperimentView, message: dict[str, Any]) -> None:
    view._on_front_end_message(view, message, [])


def test_a_cell_opens_its_sample_with_every_score_and_its_comment(tmp_path: Path) -> None:
    view = ExperimentView(deepnb.load_experiment(finished_log(tmp_path, 10, epochs=2)))
    _send(view, {"type": "open", "row": 3, "variant": "b", "epoch": 1})
    assert view.notice == "" and view.selected == {"row": 3, "variant": "b", "epoch": 1}
    sample = view.sample
    assert sample["title"] == "Row 3 · b · epoch 1" and (sample["row"], sample["epoch"]) == (3, 1)
    assert sample["input"] == "<p>q3</p>\n" and sample["reference"] == "<p>r3</p>\n"
    answer = sample["answer"]
    assert answer.startswith("<p><strong>b3</strong> &lt;script&gt;alert(1)&lt;/script&gt;&lt;img")
    assert "<script" not in answer and "<img" not in answer and "\u202e" not in answer and "\\u202e" in answer
    (judge,) = sample["scores"]
    assert (judge["scorer"], judge["score"], judge["text"], judge["verdict"], judge["human"]) == (
        "judge",
        0.0,
        "0.00",
        "fail",
        False,
    )
    assert judge["comment"].startswith("because <script>") and "\u202e" not in judge["comment"]
    assert sample["time"] == "0.50 s" and sample["cached"] == 0 and sample["gradable"]
    assert sample["others"] == {"epochs": ["done", "done"], "variants": [["a", "done"], ["b", "done"]]}
    assert view.logged and "Run (row 3, b, epoch 1)" in view.logged  # the full run below, as before
    for forged in (
        {"type": "open", "row": 3, "variant": "b", "epoch": 2},
        {"type": "open", "row": 3, "variant": "b", "epoch": -1},
        {"type": "open", "row": 3, "variant": "b", "epoch": "1"},
    ):
        _send(view, forged)
        assert view.notice and "\n" not in view.notice and view.sample["epoch"] == 1
    _send(view, {"type": "close"})
    assert view.sample == {} and view.selected == {}
    view.close()


def test_a_one_megabyte_answer_stays_within_the_sample_budget(tmp_path: Path, sent: list[Any]) -> None:
    """A 1 MB answer, in the sample and in the logged run's transcript below it: every message the
    view sends (opening the sample, then its flushes) fits its bound."""
    huge = ("# Title\n\n" + "wörd <b>x</b> \u202e " * 80_000)[:1_000_000]
    experiment = deepnb.load_experiment(finished_log(tmp_path, 2, answer=huge))
    sample = sample_state(experiment, (0, "a", 0))
    assert size(sample) <= SAMPLE_BUDGET and "more characters not shown here" in sample["answer"]
    assert "<b>" not in sample["answer"] and "&lt;b&gt;" in sample["answer"]
    view = ExperimentView(experiment)
    sent.clear()
    _send(view, {"type": "open", "row": 0, "variant": "a"})
    _send(view, {"type": "open", "row": 1, "variant": "b"})
    view.sync()
    assert view.sample["row"] == 1 and len(view.logged) > 30_000  # a long transcript below it
    assert sent and max(size(data) for data in sent) <= MESSAGE_LIMIT
    assert size(growing_state(view)) <= MESSAGE_LIMIT
    view.close()


def test_a_grade_from_the_view_is_saved_shown_as_human_summarized_and_reopened(tmp_path: Path) -> None:
    path = finished_log(tmp_path, 10)
    experiment = deepnb.load_experiment(path)
    view = ExperimentView(experiment)
    wait_judged(view)
    assert view.summary["rows"][1][3].startswith("0.90")  # b's judge mean: row 3 of 10 fails
    _send(view, {"type": "open", "row": 3, "variant": "b"})
    _send(view, {"type": "grade", "row": 3, "variant": "b", "epoch": 0, "scorer": "judge", "score": 1})
    _send(
        view,
        {"type": "grade", "row": 3, "variant": "b", "epoch": 0, "scorer": "human", "score": True}
        | {"comment": "fine <b>really</b>"},
    )
    assert view.notice == ""
    assert any(
        '"type": "grade"' in line and '"scorer": "human"' in line for line in path.read_text().splitlines()
    )
    view.sync()
    by_name = {s["scorer"]: s for s in view.sample["scores"]}
    assert (
        by_name["judge"]["human"]
        and by_name["judge"]["verdict"] == "pass"
        and by_name["judge"]["comment"] == ""
    )
    assert by_name["human"]["score"] == 1.0 and by_name["human"]["comment"] == "fine <b>really</b>"
    cell = view.rows[3]["cells"][1]
    assert cell["human"] == ["human", "judge"] and cell["scores"]["judge"] == "1.00"
    wait_judged(view)
    b_row = next(r for r in view.summary["rows"] if r[0] == "b")
    expected = sum(0.0 if (n % 7 == 3 and n != 3) else 1.0 for n in range(10)) / 10  # independent count
    assert b_row[3].startswith(f"{expected:.2f}")
    view.close()
    reopened = ExperimentView(deepnb.load_experiment(path))
    _send(reopened, {"type": "open", "row": 3, "variant": "b"})
    by_name = {s["scorer"]: s for s in reopened.sample["scores"]}
    assert by_name["judge"]["human"] and by_name["human"]["comment"] == "fine <b>really</b>"
    reopened.close()


def test_a_forged_or_early_grade_is_one_line_and_changes_nothing(tmp_path: Path) -> None:
    path = finished_log(tmp_path, 3)
    view = ExperimentView(deepnb.load_experiment(path))
    before = path.read_text()
    for forged in (
        {"type": "grade", "row": 0, "variant": "a", "epoch": 0, "scorer": "judge", "score": "1"},
        {"type": "grade", "row": 0, "variant": "a", "epoch": 0, "scorer": " ", "score": 1},
        {"type": "grade", "row": 0, "variant": "a", "epoch": 0, "score": 1},
        {"type": "grade", "row": 9, "variant": "a", "epoch": 0, "scorer": "judge", "score": 1},
        {"type": "grade", "row": 0, "variant": HOSTILE, "epoch": 0, "scorer": "judge", "score": 1},
        {"type": "grade", "row": 0, "variant": "a", "epoch": 0, "scorer": "judge", "score": 1, "code": "x"},
        {"type": "filter", "scorer": HOSTILE},
        {"type": "filter", "status": "gone"},
    ):
        view.notice = ""
        _send(view, forged)
        assert view.notice and "\n" not in view.notice and len(view.notice) < 300
    assert path.read_text() == before
    view.close()


def test_a_grade_while_the_experiment_runs_is_kept_by_its_later_scoring(tmp_path: Path) -> None:
    release = threading.Event()

    def slow(output: Any, reference: Any, run: Any) -> float:
        if reference != "a0":
            release.wait(60)
        return 0.0

    rows = [{"q": f"q{n}", "reference": f"a{n}"} for n in range(4)]
    script = {"main": [{"match": f"^q{n}$", "turns": [{"text": f"a{n}"}]} for n in range(4)]}
    name = unique("grading")
    deepnb.agent(name=name, model=timed(script, turn_seconds=0.01))
    experiment = deepnb.experiment(
        rows, agent=name, scorers={"slow": slow}, concurrency=4, template="{q}", log=tmp_path / "log.jsonl"
    )
    view = ExperimentView(experiment)
    try:
        wait_until(lambda: experiment.status_of((0, experiment.variants[0], 0)) == "done", "row 0 scored")
        variant = experiment.variants[0]
        assert not experiment.done
        _send(
            view, {"type": "grade", "row": 0, "variant": variant, "epoch": 0, "scorer": "slow", "score": 1.0}
        )
        assert view.notice == ""
        _send(
            view, {"type": "grade", "row": 1, "variant": variant, "epoch": 0, "scorer": "slow", "score": 1.0}
        )
        assert "once it is done" in view.notice  # still being scored: one line, nothing saved
    finally:
        release.set()
    experiment.wait(60)
    assert experiment.records[(0, variant, 0)].scores["slow"].score == 1.0
    assert experiment.records[(0, variant, 0)].scores["slow"].human
    assert not experiment.records[(1, variant, 0)].scores["slow"].human
    view.close()


def test_two_views_grading_at_once_both_show_the_last_write(tmp_path: Path) -> None:
    path = finished_log(tmp_path, 5)
    experiment = deepnb.load_experiment(path)
    first, second = ExperimentView(experiment), ExperimentView(experiment)
    for view in (first, second):
        _send(view, {"type": "open", "row": 1, "variant": "a"})
    start = threading.Barrier(2)

    def grade(view: ExperimentView, score: float) -> None:
        start.wait()
        _send(
            view,
            {"type": "grade", "row": 1, "variant": "a", "epoch": 0, "scorer": "human", "score": score}
            | {"comment": f"from {score}"},
        )

    threads = [threading.Thread(target=grade, args=(v, s)) for v, s in ((first, 0.25), (second, 0.75))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    kept = experiment.records[(1, "a", 0)].scores["human"]
    last = [json.loads(line) for line in path.read_text().splitlines() if '"grade"' in line][-1]
    assert (kept.score, kept.comment) == (last["score"], last["comment"])  # the last write won
    for view in (first, second):
        view.sync()
        (human,) = [s for s in view.sample["scores"] if s["scorer"] == "human"]
        assert (human["score"], human["comment"]) == (kept.score, kept.comment)
        assert view.rows[1]["cells"][0]["scores"]["human"] == f"{kept.score:.2f}"
    reopened = deepnb.load_experiment(path).records[(1, "a", 0)].scores["human"]
    assert (reopened.score, reopened.comment) == (kept.score, kept.comment)
    first.close()
    second.close()


@pytest.mark.volume
def test_ten_thousand_rows_filter_in_the_kernel_and_every_message_fits(tmp_path: Path) -> None:
    """10,000 rows × 2 variants: the view holds at most 100 rows a message; failures only finds
    b's failures far past them (every seventh row from 3), a text search finds row 9,999, and the
    pager reaches every row, a page at a time."""
    experiment = deepnb.load_experiment(finished_log(tmp_path, 10_000, answer="fine"))
    view = ExperimentView(experiment)
    assert len(view.rows) <= 100 and size(growing_state(view)) <= MESSAGE_LIMIT
    _send(
        view, {"type": "filter", "failures": True, "scorer": "judge", "variant": "", "status": "", "text": ""}
    )
    view.sync()
    failing = [n for n in range(10_000) if n % 7 == 3]
    assert [row["r"] for row in view.rows] == failing[: len(view.rows)] and len(view.rows) >= 50
    assert view.window == {"offset": 0, "shown": len(view.rows), "total": len(failing), "page": 100}
    assert not [note for note in view.more if "more rows" in note]  # the pager says it
    assert size(growing_state(view)) <= MESSAGE_LIMIT
    # the pages of the matching rows: the next one, then the last, past which nothing goes
    _send(view, {"type": "page", "offset": len(view.rows)})
    view.sync()
    shown = view.window["shown"]
    assert [row["r"] for row in view.rows] == failing[view.window["offset"] :][:shown] and shown >= 50
    _send(view, {"type": "page", "offset": 10**9})
    view.sync()
    assert [row["r"] for row in view.rows] == failing[-1:] and view.window["offset"] == len(failing) - 1
    _send(view, {"type": "page", "offset": "later"})
    assert "page" in view.notice and view.window["offset"] == len(failing) - 1  # refused, nothing moved
    _send(view, {"type": "filter", "failures": True, "scorer": "", "variant": "a", "status": "", "text": ""})
    view.sync()
    assert view.rows == [] and view.notice == ""  # a never fails
    _send(
        view,
        {"type": "filter", "failures": False, "scorer": "", "variant": "", "status": "", "text": "Q9999"},
    )
    view.sync()
    assert [row["r"] for row in view.rows] == [9999]
    _send(view, {"type": "filter", "failures": False, "scorer": "", "variant": "", "status": "", "text": ""})
    view.sync()
    assert view.rows[0]["r"] == 0 and len(view.rows) <= 100  # a new filter starts at the first page
    _send(view, {"type": "page", "offset": 9_900})  # every row can be reached, a page at a time
    view.sync()
    assert [row["r"] for row in view.rows] == list(range(9_900, 9_900 + len(view.rows)))
    assert view.window["total"] == 10_000 and size(growing_state(view)) <= MESSAGE_LIMIT
    _send(view, {"type": "filter", "failures": True, "scorer": "", "variant": "", "status": "", "text": ""})
    _send(view, {"type": "hello"})  # a view opens (the page reloaded): its filters are off, so are the rows'
    view.sync()
    assert view.rows[0]["r"] == 0 and view.window["offset"] == 0
    view.close()


def test_the_comparison_rows_are_the_comparisons_own(tmp_path: Path) -> None:
    experiment = deepnb.load_experiment(finished_log(tmp_path, 10))
    comparison = experiment.compare("b", "a")
    columns, rows = comparison.table()
    assert columns[:3] == ["scorer", "pairs (rows)", "b wins"]
    assert rows[0][:6] == ["judge", "10", "0", "1", "9", "-0.10"]  # b fails row 3 alone
    table = comparison_table(comparison)
    assert (table["columns"], table["rows"]) == (columns, rows)
    html = comparison_section([comparison])
    assert all(f"<td>{cell}</td>" in html for cell in rows[0])
