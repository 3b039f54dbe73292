"""``to_parquet(path)`` on everything that has ``to_pandas()``: a batch, a comparison, an
experiment and its summary write the same rows and columns to a Parquet file that pyarrow reads
back without deepnb; nested values are JSON text; a missing pyarrow or folder is one line."""

from __future__ import annotations

import inspect
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import deepnb
from deepnb import scorers
from deepnb.core.errors import DeepnbError
from deepnb.core.frames import parquet_columns
from deepnb.many.batch import Batch
from deepnb.many.comparing import Comparison
from deepnb.many.experiment import Experiment, Summary
from tests.support.agents import scripted, unique
from tests.support.waiting import WAIT

TABLES = (Batch, Comparison, Experiment, Summary)
"""Every object with ``to_pandas()``: each must also have ``to_parquet()``."""


def _parquet() -> Any:
    """pyarrow's Parquet reader: the parquet extra (the floors' test part goes without it)."""
    return pytest.importorskip("pyarrow.parquet", reason="the parquet extra: pip install 'deepnb[parquet]'")


def test_every_object_with_to_pandas_has_to_parquet() -> None:
    import deepnb.many.batch
    import deepnb.many.comparing
    import deepnb.many.experiment as experiments

    found = {
        value
        for module in (deepnb.many.batch, deepnb.many.comparing, experiments)
        for _name, value in inspect.getmembers(module, inspect.isclass)
        if value.__module__ == module.__name__ and "to_pandas" in vars(value)
    }
    assert found == set(TABLES)
    assert all(callable(getattr(kind, "to_parquet", None)) for kind in TABLES)


def a_batch() -> Batch:
    bench = deepnb.agent(unique("parquet"), scripted({"main": [{"text": "Done."}]}))
    return bench.map([{"q": "one", "tags": ["a", "b"]}, {"q": "two", "tags": []}], template="{q}").wait(WAIT)


def a_comparison() -> Comparison:
    base = unique("parquet-base")
    deepnb.agent(base, scripted({"main": [{"text": "Base."}]}))
    models = {"a": scripted({"main": [{"text": "A."}]}), "b": scripted({"main": [{"text": "B."}]})}
    return deepnb.compare("Go", models=models, agent=base).wait(WAIT)


def an_experiment(folder: Path) -> Experiment:
    name = unique("parquet-exp")
    deepnb.agent(name, scripted({"main": [{"text": "Paris."}]}))
    rows = [
        {"q": "capital of France?", "reference": "Paris", "meta": {"level": 1}},
        {"q": "capital of Peru?"},
    ]
    return deepnb.experiment(
        rows, agent=name, input="q", scorers=[scorers.contains], epochs=2, log=folder / "log.jsonl"
    ).wait(WAIT)


MAKERS: dict[str, Callable[[Path], Any]] = {
    "batch": lambda _folder: a_batch(),
    "comparison": lambda _folder: a_comparison(),
    "experiment": an_experiment,
    "summary": lambda folder: an_experiment(folder).summary(),
}


@pytest.mark.parametrize("kind", sorted(MAKERS))
def test_the_parquet_file_holds_the_rows_and_columns_of_to_pandas(kind: str, tmp_path: Path) -> None:
    pq = _parquet()
    table = MAKERS[kind](tmp_path)
    path = table.to_parquet(tmp_path / f"{kind}.parquet")
    assert path == tmp_path / f"{kind}.parquet"
    read = pq.read_table(path).to_pylist()
    frame = table.to_pandas()
    assert len(read) == len(frame) > 0
    assert list(read[0]) == list(frame.columns)


def test_nested_and_mixed_values_are_json_text_and_missing_ones_stay_missing() -> None:
    columns = parquet_columns(
        [
            {"n": 1, "x": 0.5, "tags": ["a"], "mixed": 1, "flag": True},
            {"n": 2, "x": 2, "tags": None, "mixed": "one", "flag": None},
        ]
    )
    assert columns["n"] == [1, 2]
    assert columns["x"] == [0.5, 2.0]  # ints among floats: floats
    assert columns["tags"] == ['["a"]', None]
    assert [json.loads(v) for v in columns["mixed"]] == [1, "one"]
    assert columns["flag"] == [True, None]


def test_an_experiments_nested_row_field_reads_back_as_json(tmp_path: Path) -> None:
    pq = _parquet()
    experiment = an_experiment(tmp_path)
    read = pq.read_table(experiment.to_parquet(tmp_path / "e.parquet")).to_pylist()
    metas = {row["meta"] for row in read}
    assert metas == {json.dumps({"level": 1}), None}
    assert {row["contains"] for row in read} == {1.0, None}  # the row without a reference: unscored


def test_without_pyarrow_or_a_folder_it_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _parquet()  # with pyarrow, a missing folder is the one line; without, pyarrow is
    batch = a_batch()
    with pytest.raises(DeepnbError, match=r"^Cannot write .*: its folder does not exist\.$"):
        batch.to_parquet(tmp_path / "missing" / "b.parquet")
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    said = r"^batch\.to_parquet\(\): deepnb's 'parquet' extra is needed .*pip install 'deepnb\[parquet\]'"
    with pytest.raises(DeepnbError, match=said):
        batch.to_parquet(tmp_path / "b.parquet")
