"""History: ``deepnb.experiments()`` is a table of the logs with their headline scores (still the
list of dicts it was), and ``deepnb.compare_experiments(a, b)`` compares two experiments over the
rows they share with ``compare``'s statistics, saying what it leaves out."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

import pytest
from scipy import stats as scipy_stats

import deepnb
from deepnb import scorers
from deepnb.core.errors import DeepnbError
from deepnb.many.history import Experiments
from tests.support.agents import scripted, unique
from tests.support.waiting import WAIT

HOSTILE = '<img src=x onerror="alert(1)">'


def model(table: dict[str, str]) -> Any:
    return scripted({"main": [{"match": f"^{q}$", "turns": [{"text": a}]} for q, a in table.items()]})


RIGHT = {f"q{i}": f"a{i}" for i in range(8)}


def run(tmp: Path, log: str, rows: list[int], variants: dict[str, dict[str, str]], **options: Any) -> Any:
    name = unique("history")
    deepnb.agent(name=name, model=model(RIGHT))
    return deepnb.experiment(
        [{"q": f"q{i}", "reference": f"a{i}"} for i in rows],
        agent=name,
        variants={label: model(table) for label, table in variants.items()},
        scorers=options.pop("scorers", [scorers.exact]),
        template="{q}",
        log=tmp / log,
        **options,
    ).wait(WAIT)


def wrong(*rows: int, answer: str = "no") -> dict[str, str]:
    return {**RIGHT, **{f"q{i}": answer for i in rows}}


def test_experiments_is_a_table_with_headline_scores_and_marks_a_bad_log(tmp_path: Path) -> None:
    run(tmp_path, "one.jsonl", list(range(4)), {"base": wrong(0, 1), "new": wrong(0)}, name=HOSTILE)
    run(tmp_path, "two.jsonl", list(range(4)), {"base": wrong(0), "new": RIGHT}, epochs=2)
    (tmp_path / "bad.jsonl").write_text('{"type": "experiment"\n', encoding="utf-8")
    listed = deepnb.experiments(tmp_path)
    assert isinstance(listed, Experiments) and isinstance(listed, list) and len(listed) == 3
    by_log = {Path(item["path"]).name: item for item in listed}
    one, two = by_log["one.jsonl"], by_log["two.jsonl"]
    assert (one["name"], one["rows"], one["epochs"], one["runs"], one["done"]) == (HOSTILE, 4, 1, 8, 8)
    assert one["scores"] == {"exact": {"base": 0.5, "new": 0.75}}
    assert (two["epochs"], two["runs"], two["scores"]) == (2, 16, {"exact": {"base": 0.75, "new": 1.0}})
    bad = by_log["bad.jsonl"]
    assert bad["error"] and "bad.jsonl" in bad["error"] and bad["scores"] == {} and bad["runs"] == 0
    # it still reads as the list of dicts it was
    created = [str(item["created"] or "") for item in listed]
    assert created == sorted(created, reverse=True)  # newest first
    assert deepnb.experiments(tmp_path / "nowhere") == []
    records = {Path(r["path"]).name: r for r in listed.to_records()}
    assert records["one.jsonl"]["exact base"] == 0.5 and records["two.jsonl"]["exact new"] == 1.0
    assert records["bad.jsonl"]["exact base"] is None
    frame = listed.to_pandas()
    assert list(frame["rows"]) == [r["rows"] for r in listed.to_records()]
    text = repr(listed)
    assert "exact: base 0.50 · new 0.75 ★" in text and "cannot be read" in text
    html = listed._repr_html_()
    assert HOSTILE not in html and "&lt;img" in html and "bad.jsonl" in html


def test_compare_experiments_pairs_the_shared_rows_as_compare_does(tmp_path: Path) -> None:
    # A: rows 0-5; B: rows 2-7 (rows 2-5 shared), B's rows given in another order
    a = run(tmp_path, "a.jsonl", [0, 1, 2, 3, 4, 5], {"x": wrong(2, 3), "y": wrong(4), "only_a": RIGHT})
    b = run(tmp_path, "b.jsonl", [7, 5, 4, 3, 2, 6], {"x": wrong(5, answer=HOSTILE), "y": wrong(2, 3, 4)})
    compared = deepnb.compare_experiments(a, b.path)
    assert compared.shared_rows == 4 and compared.a.only_rows == 2 and compared.b.only_rows == 2
    assert compared.pairs == (("x", "x"), ("y", "y")) and compared.a.only_variants == ("only_a",)

    # independently: each shared row's exact score in A and B, paired by the question
    def scored(exp: Any, variant: str) -> dict[str, float]:
        return {
            r.inputs["q"]: r.scores["exact"].score
            for r in exp.records.values()
            if r.variant == variant and r.inputs["q"] in {"q2", "q3", "q4", "q5"}
        }

    for record in compared.to_records():
        mine, theirs = scored(a, record["variant_a"]), scored(b, record["variant_b"])
        diffs = [mine[q] - theirs[q] for q in sorted(mine)]
        assert record["pairs"] == 4
        assert (record["wins"], record["losses"]) == (sum(d > 0 for d in diffs), sum(d < 0 for d in diffs))
        assert record["mean_difference"] == pytest.approx(statistics.fmean(diffs))
        assert record["a_mean"] == pytest.approx(statistics.fmean(mine.values()))
        assert record["b_mean"] == pytest.approx(statistics.fmean(theirs.values()))
        expected = 1.0 if not any(diffs) else scipy_stats.wilcoxon(diffs).pvalue
        assert record["p_value"] == pytest.approx(expected)
    x = next(c for c in compared.comparisons if c.a == "x (A)")
    # per scorer, only the rows whose scores differ: A's x failed q2, q3; B's x failed q5
    assert sorted(a.plan.rows[d.row].fields["q"] for d in x.differences) == ["q2", "q3", "q5"]
    assert all(d.difference != 0 for d in x.differences)
    text = repr(compared)
    assert "2 rows only in A, not compared." in text and "Variants of A not compared: only_a." in text
    html = compared._repr_html_()
    assert HOSTILE not in html and "&lt;img" in html
    assert len(compared.to_pandas()) == 2


def test_compare_experiments_picks_variants_and_says_what_is_not_shared(tmp_path: Path) -> None:
    a = run(tmp_path, "a.jsonl", [0, 1], {"x": RIGHT})
    b = run(tmp_path, "b.jsonl", [0, 1], {"z": wrong(1)})
    with pytest.raises(DeepnbError, match=r"share no variant name .*variant=\('x', 'y'\)"):
        deepnb.compare_experiments(a, b)
    picked = deepnb.compare_experiments(a.path, b.path, variant=("x", "z"))
    assert picked.to_records()[0]["mean_difference"] == pytest.approx(0.5)
    assert "x (A) with z (B)" in repr(picked)
    with pytest.raises(DeepnbError, match="B has no variant 'x'"):
        deepnb.compare_experiments(a, b, variant="x")
    other = run(tmp_path, "c.jsonl", [5, 6], {"x": RIGHT})
    with pytest.raises(DeepnbError, match="share no rows"):
        deepnb.compare_experiments(a, other)
    with pytest.raises(DeepnbError, match="two experiments or their log paths"):
        deepnb.compare_experiments(a, 3)  # type: ignore[arg-type]


def test_the_listing_says_how_each_variants_score_moved_from_one_log_to_the_next(tmp_path: Path) -> None:
    # three logs of one experiment, the oldest first (a tie in `created` goes by the path); the
    # third scored other rows; and one log of another experiment, which has no movement
    first = run(tmp_path, "1.jsonl", [0, 1, 2, 3], {"base": wrong(0, 1), "new": wrong(0)}, name=HOSTILE)
    second = run(tmp_path, "2.jsonl", [0, 1, 2, 3], {"base": wrong(0), "new": wrong(0)}, name=HOSTILE)
    third = run(tmp_path, "3.jsonl", [0, 1, 2, 3, 4, 5], {"base": wrong(0), "new": RIGHT}, name=HOSTILE)
    run(tmp_path, "other.jsonl", [0, 1], {"base": RIGHT}, name="other")
    listed = deepnb.experiments(tmp_path)
    moved = listed.movement()
    assert [(m["name"], m["scorer"], m["variant"]) for m in moved] == [
        (HOSTILE, "exact", "base"),
        (HOSTILE, "exact", "new"),
    ]

    # independently: each log's mean of exact per variant, from its records
    def mean(exp: Any, variant: str) -> float:
        return statistics.fmean(r.scores["exact"].score for r in exp.records.values() if r.variant == variant)

    for series in moved:
        expected = [mean(exp, series["variant"]) for exp in (first, second, third)]
        assert [p["mean"] for p in series["points"]] == pytest.approx(expected)
        assert [Path(p["path"]).name for p in series["points"]] == ["1.jsonl", "2.jsonl", "3.jsonl"]
        assert [p["rows"] for p in series["points"]] == [4, 4, 6]
        datasets = [p["dataset"] for p in series["points"]]
        assert datasets[0] == datasets[1] != datasets[2] and all(datasets)
    text = repr(listed)
    assert "How the scores moved" in text
    # base: 0.50, then 0.75, then 5 of 6 right on other rows; new: 0.75, 0.75, then all right
    assert "0.50 → 0.75 → 0.83 (other rows)" in text and "▲ up 0.08 (other rows)" in text
    assert "0.75 → 0.75 → 1.00 (other rows)" in text and "▲ up 0.25 (other rows)" in text
    html = listed._repr_html_()
    assert HOSTILE not in html and "&lt;img" in html and "▲ up 0.25 (other rows)" in html
    # one log per experiment: nothing moved, and the listing says nothing of it
    alone = deepnb.experiments(tmp_path / "alone")
    assert alone.movement() == [] and "How the scores moved" not in repr(alone)


def test_a_long_series_shows_its_newest_logs_and_counts_the_earlier_ones(tmp_path: Path) -> None:
    from deepnb.views.experiment.listing import SHOWN_POINTS, movement_table

    points = [
        {"created": f"2026-01-0{i}", "path": f"{i}.jsonl", "mean": i / 10, "rows": 4, "dataset": "d"}
        for i in range(1, 9)
    ]
    listed = Experiments(
        {
            "path": p["path"],
            "name": "e",
            "created": p["created"],
            "rows": 4,
            "dataset": "d",
            "scores": {"exact": {"v": p["mean"]}},
            "error": None,
            "variants": ["v"],
        }
        for p in reversed(points)
    )
    (row,) = movement_table(listed).rows
    shown = " → ".join(f"{p['mean']:.2f}" for p in points[-SHOWN_POINTS:])
    assert row[3] == f"… {8 - SHOWN_POINTS} earlier → {shown}" and row[4] == "▲ up 0.10"
