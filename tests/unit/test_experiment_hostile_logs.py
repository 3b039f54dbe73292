"""Logs are untrusted input: every file of the hostile corpus (``tests/data/hostile/logs``) is
refused with one error naming it, within the time and memory its README gives, and
``deepnb.experiments()`` lists the good log beside them and marks each bad one."""

from __future__ import annotations

import json
import shutil
import time
import tracemalloc
from pathlib import Path

import pytest

import deepnb
from deepnb.core.errors import DeepnbError
from deepnb.many import log

CORPUS = Path(__file__).resolve().parents[1] / "data" / "hostile" / "logs"
SECONDS = 2.0
"""The processor time each hostile log may take to be refused (the corpus README's bound)."""
MEMORY = 64 << 20
"""The memory each may allocate at peak (the corpus README's bound)."""
GOOD = [
    {"type": "experiment", "format": 2, "name": "good", "variants": {"a": "agent"}, "epochs": 2},
    {"type": "row", "row": 0, "inputs": {"q": "q0"}, "reference": "a0"},
    {"type": "run", "row": 0, "variant": "a", "epoch": 0, "status": "done", "result": "a0"},
]
HOSTILE = sorted(CORPUS.glob("*.jsonl"))


def test_the_corpus_is_there_and_each_file_is_described() -> None:
    readme = (CORPUS / "README.md").read_text(encoding="utf-8")
    assert len(HOSTILE) >= 15
    assert [p.name for p in HOSTILE if f"`{p.name}`" not in readme] == []


@pytest.fixture(scope="module", autouse=True)
def warm(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Read a good log once first: the modules a first read imports are not the log's cost."""
    path = tmp_path_factory.mktemp("warm") / "good.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in GOOD))
    deepnb.load_experiment(path)


def refused(path: Path) -> tuple[str, float, int]:
    """The one error reading ``path`` gives, the processor time and peak memory it took."""
    tracemalloc.start()
    started = time.process_time()
    try:
        with pytest.raises(DeepnbError) as caught:
            deepnb.load_experiment(path)
        return str(caught.value), time.process_time() - started, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("path", HOSTILE, ids=[p.stem for p in HOSTILE])
def test_each_hostile_log_is_one_error_within_its_bounds(path: Path) -> None:
    message, seconds, peak = refused(path)
    assert str(path) in message and "\n" not in message
    assert seconds < SECONDS, f"{path.name} took {seconds:.2f} s of processor time"
    assert peak < MEMORY, f"{path.name} allocated {peak / 2**20:.1f} MiB at peak"
    if path.stem not in {"no-header", "plan-too-big"}:  # those are about the whole log
        assert "line " in message


def test_experiments_lists_the_good_log_and_marks_each_bad_one(tmp_path: Path) -> None:
    for path in HOSTILE:
        shutil.copy(path, tmp_path / path.name)
    (tmp_path / "good.jsonl").write_text("".join(json.dumps(line) + "\n" for line in GOOD))
    listed = {Path(item["path"]).name: item for item in deepnb.experiments(tmp_path)}
    assert set(listed) == {"good.jsonl", *(p.name for p in HOSTILE)}
    good = listed.pop("good.jsonl")
    assert (good["error"], good["name"], good["rows"], good["runs"], good["done"]) == (None, "good", 1, 1, 1)
    for name, item in listed.items():
        assert item["error"] and name in item["error"], name
        assert (item["rows"], item["runs"], item["variants"]) == (0, 0, [])


def test_a_line_past_the_bound_is_refused_before_it_is_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(log, "MAX_LINE_BYTES", 1000)
    path = tmp_path / "long.jsonl"
    long_row = {"type": "row", "row": 0, "inputs": {"q": "x" * 5000}}
    path.write_text(json.dumps(GOOD[0]) + "\n" + json.dumps(long_row) + "\n")
    with pytest.raises(DeepnbError, match=r"damaged at line 2: it is longer than 1,000 bytes"):
        deepnb.load_experiment(path)


def test_a_log_past_the_size_bound_is_refused_before_reading(tmp_path: Path) -> None:
    path = tmp_path / "huge.jsonl"
    path.write_text(json.dumps(GOOD[0]) + "\n")
    with path.open("r+b") as handle:  # sparse: no disk is filled
        handle.truncate(log.MAX_LOG_BYTES + 1)
    tracemalloc.start()
    try:
        with pytest.raises(DeepnbError, match=r"is 1,073,741,825 bytes, more than deepnb reads"):
            deepnb.load_experiment(path)
        assert tracemalloc.get_traced_memory()[1] < MEMORY
    finally:
        tracemalloc.stop()


def test_a_log_within_every_bound_still_reads(tmp_path: Path) -> None:
    path = tmp_path / "edge.jsonl"
    label = "v" * log.MAX_LABEL
    header = {**GOOD[0], "variants": {label: ""}, "epochs": log.MAX_EPOCHS}
    row = {"type": "row", "row": log.MAX_ROWS - 1, "inputs": {"deep": json.loads("[" * 60 + "]" * 60)}}
    run = {**GOOD[2], "row": log.MAX_ROWS - 1, "variant": label, "epoch": log.MAX_EPOCHS - 1}
    path.write_text("".join(json.dumps(line) + "\n" for line in (header, row, run)))
    loaded = deepnb.load_experiment(path)
    assert list(loaded.records) == [(log.MAX_ROWS - 1, label, log.MAX_EPOCHS - 1)]
    assert len(loaded.runs) == log.MAX_EPOCHS


def test_a_last_line_too_long_to_read_is_dropped_before_anything_is_added(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(log, "MAX_LINE_BYTES", 1000)
    path = tmp_path / "tail.jsonl"
    head = "".join(json.dumps(line) + "\n" for line in GOOD)
    path.write_text(head + json.dumps({"type": "row", "row": 1, "inputs": {"q": "x" * 5000}}))
    log.LogWriter(path).write("row", {"row": 2, "inputs": {"q": "y"}})
    assert path.read_text() == head + '{"type": "row", "row": 2, "inputs": {"q": "y"}}\n'
