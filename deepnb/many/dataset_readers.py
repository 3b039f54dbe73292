"""Where a dataset's records come from, read as they are before any field is mapped: files in
their own layouts (CSV/TSV, JSON, JSONL, YAML, Parquet, a Hugging Face dataset saved with
``save_to_disk``, an Inspect ``.eval`` log) and the objects people hold (a list, a pandas
``DataFrame``, a Hugging Face ``datasets.Dataset``, LangSmith examples).

Text is read through the parsers themselves, never split first: CSV through the csv module on the
file (``newline=""``), so a quoted cell keeps its newlines, U+2028 and form feeds; JSONL on
``"\\n"`` only. A byte-order mark is accepted. Every problem is one line naming the file (and the
line, where there is one); archives are read within bounds.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import zipfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from deepnb.core.errors import DeepnbError
from deepnb.core.extras import require
from deepnb.many.inspect_logs import eval_samples, first_epochs

SUFFIXES = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".json": "json",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".parquet": "parquet",
    ".eval": "inspect",
}
"""A dataset file's suffix -> how it is read."""
FILE_KINDS = tuple(SUFFIXES)
CONTAINERS = ("csv", "tsv", "json", "jsonl", "yaml", "parquet", "huggingface")
LAYOUTS = ("inspect", "promptfoo", "langsmith")
FORMATS = (*CONTAINERS, *LAYOUTS)
"""What ``format=`` takes: how a file is read, or the layout its records are in."""
CSV_FIELD_LIMIT = 2**31 - 1
"""The csv module's field limit while a dataset is read (its default, 128 KiB, refuses a long cell)."""


@dataclass(frozen=True)
class Source:
    """A dataset's records as read: ``kind`` says how (``csv``, ``list``, ``DataFrame``, ...),
    ``layout`` the shape of its records (``records``, ``inspect``, ``promptfoo``, ``langsmith``),
    ``where`` the file or the object's type, ``suite`` what a promptfoo suite says besides its tests."""

    records: list[Any]
    kind: str
    layout: str
    where: str
    suite: Mapping[str, Any] | None = None


def read(source: Any, format: str | None = None) -> Source:
    """``source``'s records (one line for the first problem)."""
    if format is not None and format not in FORMATS:
        raise DeepnbError(f"format={format!r} is not one deepnb reads: use one of {', '.join(FORMATS)}.")
    if isinstance(source, os.PathLike) or (isinstance(source, str) and looks_like_path(source)):
        read_source = read_path(Path(source), format)
    else:
        read_source = read_object(source)
    if format in LAYOUTS and read_source.layout != format:
        return Source(read_source.records, read_source.kind, format, read_source.where, read_source.suite)
    return read_source


def looks_like_path(text: str) -> bool:
    """Whether a string names a file or folder (a string dataset is refused otherwise)."""
    if "\n" in text or len(text) >= 4096:
        return False
    if text.lower().endswith(FILE_KINDS):
        return True
    try:
        return Path(text).exists()
    except (OSError, ValueError):  # a name too long for the system, a NUL: not a path
        return False


def read_path(path: Path, format: str | None = None) -> Source:
    """The records of the file (or saved Hugging Face folder) at ``path``."""
    try:
        folder, file = path.is_dir(), path.is_file()
    except (OSError, ValueError):  # a name too long for the system, a NUL
        folder = file = False
    if folder:
        return _saved_huggingface(path)
    if not file:
        raise DeepnbError(
            f"No dataset file {str(path)!r}: give the path of a .csv, .tsv, .json, .jsonl, .yaml, "
            ".parquet or .eval file (or a folder saved with save_to_disk)."
        )
    kind = format if format in CONTAINERS else SUFFIXES.get(path.suffix.lower())
    if kind is None:
        kind = "inspect" if format == "inspect" and zipfile.is_zipfile(path) else None
    if kind is None:
        kind = "yaml" if format == "promptfoo" else "jsonl" if format == "langsmith" else None
    if kind is None:
        raise DeepnbError(
            f"deepnb does not know how to read {path.name!r}: name its format, e.g. format='csv' "
            f"(one of {', '.join(CONTAINERS)}), or give it one of the suffixes {', '.join(FILE_KINDS)}."
        )
    try:
        if kind in ("csv", "tsv"):
            return Source(_csv(path, "\t" if kind == "tsv" else ","), kind, "records", str(path))
        if kind == "jsonl":
            return _layout_of(_jsonl(path), "jsonl", str(path))
        if kind == "parquet":
            return _layout_of(_parquet(path), "parquet", str(path))
        if kind == "huggingface":
            return _saved_huggingface(path)
        if kind == "inspect":
            return Source(eval_samples(path), "eval", "inspect", str(path))
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DeepnbError(f"{path} is not UTF-8 text (byte {exc.start}): save it as UTF-8.") from None
    return _document(_yaml(path, text) if kind == "yaml" else _json(path, text), kind, str(path))


# -- text formats ------------------------------------------------------------------------------


@contextlib.contextmanager
def _wide_fields() -> Iterator[None]:
    previous = csv.field_size_limit(CSV_FIELD_LIMIT)
    try:
        yield
    finally:
        csv.field_size_limit(previous)


def _csv(path: Path, delimiter: str) -> list[dict[str, Any]]:
    """A header row, then a record per row; the csv module reads the file itself (``newline=""``),
    so quoted cells keep their line breaks, and a byte-order mark is dropped."""
    records: list[dict[str, Any]] = []
    with _wide_fields(), path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.DictReader(handle, delimiter=delimiter)
        try:
            for record in reader:
                if None in record:
                    raise DeepnbError(
                        f"{path} line {reader.line_num} has more cells than its header names "
                        f"({', '.join(reader.fieldnames or [])}): quote the cells that hold a {delimiter!r}."
                    )
                records.append(record)
        except csv.Error as exc:
            raise DeepnbError(f"{path} line {reader.line_num} is not valid CSV ({exc}).") from None
    return records


def _jsonl(path: Path) -> list[Any]:
    """One JSON value per line, lines split on ``"\\n"`` only (a raw U+2028 is valid inside a JSON
    string); blank lines are skipped; a bad line is one line naming it."""
    records = []
    with path.open(encoding="utf-8-sig", newline="\n") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            records.append(_parsed(line, f"{path} line {number}"))
    return records


def _json(path: Path, text: str) -> Any:
    return _parsed(text, str(path))


def _parsed(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        at = f"line {exc.lineno} column {exc.colno}" if "line" not in where else f"column {exc.colno}"
        raise DeepnbError(f"{where} is not valid JSON ({exc.msg} at {at}).") from None
    except RecursionError:
        raise DeepnbError(f"{where} is nested too deeply to read: flatten its values.") from None


def _yaml(path: Path, text: str) -> Any:
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or type(exc).__name__
        raise DeepnbError(f"{path} is not valid YAML ({problem}{at}).") from None
    except RecursionError:
        raise DeepnbError(f"{path} is nested too deeply to read: flatten its values.") from None


def _document(loaded: Any, kind: str, where: str) -> Source:
    """A JSON or YAML document's records: a list of rows, a promptfoo suite (``tests:``), or an
    Inspect log (``samples:``)."""
    if isinstance(loaded, list):
        return _layout_of(loaded, kind, where)
    if isinstance(loaded, Mapping):
        if "tests" in loaded:
            tests = loaded.get("tests")
            if not isinstance(tests, list):
                raise DeepnbError(
                    f"{where}'s tests: is a {type(tests).__name__}: deepnb reads a suite whose tests "
                    "are listed in it (not a file:// path or a generator)."
                )
            suite = {k: v for k, v in loaded.items() if k != "tests"}
            return Source(tests, kind, "promptfoo", where, suite)
        if isinstance(loaded.get("samples"), list) and "eval" in loaded:
            return Source(first_epochs(loaded["samples"]), kind, "inspect", where)
    name = type(loaded).__name__ if loaded is not None else "nothing"
    raise DeepnbError(
        f"{where} holds a {kind.upper()} {name}: a dataset is a list of rows, a promptfoo suite "
        "(tests: [...]) or an Inspect log (samples: [...])."
    )


# -- binary formats ----------------------------------------------------------------------------


def _pyarrow(what: str) -> Any:
    pyarrow = require("parquet", "pyarrow", what=f"Reading {what}")
    require("parquet", "pyarrow.ipc", what=f"Reading {what}")
    require("parquet", "pyarrow.parquet", what=f"Reading {what}")
    return pyarrow


def _parquet(path: Path) -> list[Any]:
    pyarrow = _pyarrow("Parquet")
    try:
        table = pyarrow.parquet.read_table(path)
    except (pyarrow.ArrowException, OSError) as exc:
        raise DeepnbError(f"{path} is not a Parquet file pyarrow can read ({exc}).") from None
    return list(table.to_pylist())


def _saved_huggingface(folder: Path) -> Source:
    """A dataset saved with Hugging Face's ``save_to_disk``: its Arrow files (``state.json``
    names them), read with pyarrow; a saved ``DatasetDict`` is refused naming its splits."""
    splits = folder / "dataset_dict.json"
    if splits.is_file():
        names = _parsed(splits.read_text(encoding="utf-8-sig"), str(splits)).get("splits") or []
        first = names[0] if names else "test"
        raise DeepnbError(
            f"{folder} holds a Hugging Face DatasetDict (splits: {', '.join(map(str, names))}): "
            f"give one split's folder, e.g. {str(folder / str(first))!r}."
        )
    state_file = folder / "state.json"
    if not state_file.is_file():
        raise DeepnbError(
            f"{folder} is a folder but not a dataset saved with save_to_disk (it has no state.json): "
            "give a dataset file or such a folder."
        )
    state = _parsed(state_file.read_text(encoding="utf-8-sig"), str(state_file))
    files = [entry.get("filename") for entry in state.get("_data_files") or [] if isinstance(entry, Mapping)]
    pyarrow = _pyarrow("a saved Hugging Face dataset")
    records: list[Any] = []
    for name in files:
        part = (folder / str(name)).resolve()
        if part.parent != folder.resolve() or not part.is_file():
            raise DeepnbError(f"{state_file} names a data file {name!r} that is not in {folder}.")
        try:
            with pyarrow.memory_map(str(part)) as source:
                table = pyarrow.ipc.open_stream(source).read_all()
        except (pyarrow.ArrowException, OSError) as exc:
            raise DeepnbError(f"{part} is not an Arrow file pyarrow can read ({exc}).") from None
        records += table.to_pylist()
    return _layout_of(records, "huggingface", str(folder))


# -- objects -----------------------------------------------------------------------------------


def read_object(source: Any) -> Source:
    """The records of an object: a list (or any iterable) of rows, a pandas ``DataFrame``, a
    Hugging Face ``datasets.Dataset`` (duck-typed: ``datasets`` is never imported), LangSmith
    examples."""
    if isinstance(source, str | bytes):
        raise DeepnbError(
            f"A dataset is a list of rows or a file path, not one string ({str(source)[:40]!r}): "
            "wrap a single prompt in [...], or check the file's path."
        )
    where = type(source).__name__
    if _is_huggingface(source):
        return _layout_of(list(source.to_list()), "huggingface", where)
    to_dict = getattr(source, "to_dict", None)
    if callable(to_dict) and hasattr(source, "columns"):  # a pandas DataFrame
        return Source(list(to_dict(orient="records")), "DataFrame", "records", where)
    if isinstance(source, Mapping):
        if source and all(_is_huggingface(value) for value in source.values()):
            splits = ", ".join(map(str, source))
            raise DeepnbError(
                f"This is a Hugging Face DatasetDict (splits: {splits}): give one split, "
                f"e.g. ds[{next(iter(source))!r}]."
            )
        if isinstance(source.get("tests"), list):  # a promptfoo suite read by the caller
            return Source(
                list(source["tests"]),
                "dict",
                "promptfoo",
                where,
                {k: v for k, v in source.items() if k != "tests"},
            )
        raise DeepnbError("A dataset is a list of rows, not one dict: wrap it in [...].")
    if not isinstance(source, Iterable):
        raise DeepnbError(
            f"A dataset is a list of rows, a DataFrame or a file path, not a {type(source).__name__}."
        )
    return _layout_of(list(source), "list" if isinstance(source, list) else where, where)


def _is_huggingface(value: Any) -> bool:
    return (
        hasattr(value, "features")
        and hasattr(value, "column_names")
        and callable(getattr(value, "to_list", None))
    )


def _layout_of(records: list[Any], kind: str, where: str) -> Source:
    """The records with the layout their first record shows: LangSmith examples (``inputs``),
    promptfoo tests (``vars`` or ``assert``), or plain records."""
    first = next((r for r in records if r is not None), None)
    if (isinstance(first, Mapping) and isinstance(first.get("inputs"), Mapping)) or (
        first is not None and not isinstance(first, Mapping | str) and hasattr(first, "inputs")
    ):
        return Source(records, kind, "langsmith", where)
    if isinstance(first, Mapping) and ("vars" in first or "assert" in first):
        return Source(records, kind, "promptfoo", where)
    return Source(records, kind, "records", where)
