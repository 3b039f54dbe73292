"""An experiment's log: one JSON object per line, appended as the experiment goes, readable
without deepnb, every string in it redacted of secrets first. It is strict JSON: no ``NaN`` or
``Infinity`` (a float that is not finite is written as the string ``"NaN"``, ``"Infinity"`` or
``"-Infinity"``; a score that is not finite is a scorer error, never written).

Lines, each with a ``type``:

- ``experiment`` (the first): ``format`` (2; 1 for logs of earlier deepnb, read as they were
  meant), ``name``, ``created`` (ISO 8601 UTC), ``variants`` (label -> what it is, in a few
  words), ``definitions`` (label -> what each variant was: ``kind``, ``agent``, ``model``,
  ``system_prompt``, ``options`` with their values, ``served_by``; a value JSON cannot hold is
  its repr, one whose name looks secret is ``[redacted]``), ``versions`` (``deepnb``,
  ``deepagents``, ``langgraph``, ``langchain-core``, ``python`` in the kernel that ran it),
  ``scorers`` (names), ``epochs``, ``baseline``, ``template``, ``rows`` and ``dataset``:
  ``{"rows", "sha256"}``, the
  SHA-256 of ``json.dumps([[inputs, reference] for each row line], sort_keys=True,
  separators=(",", ":"), ensure_ascii=False)`` over the rows it was created with.
- ``row``: ``row`` (its index), ``inputs`` (its fields), ``reference``, ``given`` (the prompt).
- ``run``: ``row``, ``variant``, ``epoch``, ``status``, ``result``, ``output``, ``error``,
  ``tokens_in``, ``tokens_out`` (``null``: no model call reported usage), ``tokens_unreported``
  (model calls that reported none: the counts and the cost are lower bounds where above 0),
  ``cost`` (US dollars, ``null`` unknown), ``latency`` (seconds), ``thread_id``, ``messages``
  (OpenAI-style dicts) and ``scores`` (name -> ``{score, comment, error}``, with ``human: true``
  on a person's grade).
- ``scores``: ``row``, ``variant``, ``epoch``, ``scores``, ``replace``: a rescoring. Its scores
  are added to that run's, replacing those of the same names; with ``replace: true`` they are
  the run's scores from then on (the others dropped). In a format 1 log every ``scores`` line
  replaces (deepnb adds to such a log that way: each ``scores`` line with all of the run's scores).
- ``grade``: ``row``, ``variant``, ``epoch``, ``scorer``, ``score``, ``comment``: a person's
  grade, which is that run's score for ``scorer`` from then on (marked ``human``).

A later ``run`` line for the same (row, variant, epoch) replaces an earlier one (a run stopped,
then run again when the experiment resumed), its scores and grades with it. Lines are applied
in order; lines of another ``type`` are ignored. Only the last line may be cut short (an
interrupted write): it is skipped when read, and dropped before anything is next written. Any other
line that is not a JSON object, or whose fields are missing or of the wrong type, makes the log
unreadable, with one error naming the file, the line and what is wrong.

A log is data nobody here wrote (shared, downloaded, from another branch), so reading one is
bounded, each bound checked before anything is built from it; a log past one is refused in
one line naming the file (and the line): at most :data:`MAX_LOG_BYTES` (1 GiB) in all and
:data:`MAX_LINE_BYTES` (64 MiB) a line, JSON nested at most :data:`MAX_NESTING` (64) deep,
``epochs`` at most :data:`MAX_EPOCHS` (10,000), row indexes below :data:`MAX_ROWS`
(1,000,000), at most :data:`MAX_VARIANTS` (1,000) variants with labels of at most
:data:`MAX_LABEL` (1,000) characters (an ``epochs_reducer`` name too), and rows × variants ×
epochs at most :data:`MAX_RUNS` (1,000,000) runs.

One experiment writes a log at a time (:mod:`deepnb.many.log_claims`); a line that cannot be
written stops it (:class:`LogWriteError`), and nothing of that line stays.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import json
import math
import os
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from deepnb.core.errors import DeepnbError
from deepnb.core.text.secrets import redact_data
from deepnb.many import fields
from deepnb.many.fields import Malformed
from deepnb.many.record import Key, RunRecord, Score, scores_from_json

FORMAT = 2
"""The log format this deepnb writes (and the newest it reads)."""
SCORES_MERGE = 2
"""The first format whose ``scores`` lines add to a run's scores rather than replace them."""
BLOCK = 1 << 16
"""How much of a log is read at a time, from its end, to find where its last line starts."""
FOLDER = Path(".deepnb") / "experiments"
"""Where logs go by default (under the working directory)."""
MAX_LOG_BYTES = 1 << 30
"""The largest log read (1 GiB)."""
MAX_LINE_BYTES = 64 << 20
"""The longest line of a log read (64 MiB: a run with a long transcript fits)."""
MAX_NESTING = 64
"""How deeply a line's JSON may nest (objects and lists)."""
MAX_EPOCHS = 10_000
"""The most epochs a log may declare."""
MAX_ROWS = 1_000_000
"""Row indexes of a log are below this."""
MAX_VARIANTS = 1_000
"""The most variants a log may hold (its header's and its runs' together)."""
MAX_LABEL = 1_000
"""The longest variant label of a log, in characters."""
MAX_RUNS = 1_000_000
"""The most runs (rows × variants × epochs) a log may plan."""


def default_path(name: str, *, now: dt.datetime | None = None) -> Path:
    """``.deepnb/experiments/NAME-YYYYMMDD-HHMMSS.jsonl``, the name made safe for a file; one
    that exists already (another experiment of that name this second) gets ``-2``, ``-3``, ..."""
    stamp = (now or dt.datetime.now(dt.UTC)).strftime("%Y%m%d-%H%M%S")
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-.") or "experiment"
    path = FOLDER / f"{safe[:60]}-{stamp}.jsonl"
    count = 1
    while path.exists():
        count += 1
        path = FOLDER / f"{safe[:60]}-{stamp}-{count}.jsonl"
    return path


def jsonable(value: Any) -> Any:
    """``value`` as JSON can hold it: a pydantic model's dump, a dataclass's fields, others as text."""
    return json.loads(json.dumps(value, default=_fallback))


def _fallback(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump()
    if hasattr(value, "__dataclass_fields__"):
        return dataclasses.asdict(value)
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    return str(value)


class LogWriteError(DeepnbError):
    """A line could not be added to the log (disk full, no permission, the file or its folder
    removed): nothing of that line is kept."""


class LogWriter:
    """Appends lines to a log, each redacted and on disk once ``write`` returns (thread-safe).
    The file is opened for each line, so nothing stays open between runs; a last line cut
    short (an interrupted write, which no reader can use) is dropped before anything is added.
    A line that cannot be written is :class:`LogWriteError`, and so is every later one: what
    it left half written is cut off, or, if even that fails, dropped by the next writer."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self.failed: str | None = None
        """Why a line could not be written (then nothing more is), or ``None``."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch()
            with path.open("rb+") as handle:
                _end_cleanly(handle)
        except OSError as exc:
            raise DeepnbError(f"Cannot write the experiment's log {str(path)!r}: {exc.strerror}.") from None

    def write(self, kind: str, data: Mapping[str, Any]) -> None:
        line = json.dumps({"type": kind, **logged(data)}, ensure_ascii=False, allow_nan=False)
        with self._lock:
            if self.failed is not None:
                raise LogWriteError(self.failed)
            try:
                self._append((line + "\n").encode("utf-8"))
            except OSError as exc:
                self.failed = f"Cannot write the experiment's log {str(self.path)!r}: {exc.strerror or exc}"
                raise LogWriteError(self.failed) from None

    def _append(self, data: bytes) -> None:
        """Add ``data`` at the end of the file, whole or not at all (a file that is gone is
        not made again: it would be a log without its header)."""
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
        try:
            start = os.fstat(fd).st_size
            written = 0
            try:
                while written < len(data):
                    written += self._write_some(fd, data[written:])
            except OSError:
                with contextlib.suppress(OSError):
                    os.ftruncate(fd, start)
                raise
        finally:
            os.close(fd)

    @staticmethod
    def _write_some(fd: int, data: bytes) -> int:
        """Write what the file takes of ``data`` (``os.write``: a full disk may take part)."""
        return os.write(fd, data)


def _end_cleanly(handle: BinaryIO) -> None:
    """Make the file end with a whole line: a last line without its newline gets one if it is
    whole JSON, and is cut off if it was cut short (or is longer than a reader takes)."""
    end = handle.seek(0, os.SEEK_END)
    if not end:
        return
    handle.seek(end - 1)
    if handle.read(1) == b"\n":
        return
    start = end
    while start > 0:  # back to the newline before the last line, a block at a time
        block = max(0, start - BLOCK)
        handle.seek(block)
        newline = handle.read(start - block).rfind(b"\n")
        if newline >= 0:
            start = block + newline + 1
            break
        start = block
    handle.seek(start)
    try:
        if end - start > MAX_LINE_BYTES:
            raise ValueError("longer than a reader takes")
        json.loads(handle.read().decode("utf-8"), parse_constant=_no_constant)
    except (ValueError, RecursionError):
        handle.truncate(start)
        return
    handle.seek(end)
    handle.write(b"\n")


def logged(data: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` as the log keeps it: JSON-able, every float finite, every string redacted of
    secrets."""
    kept: dict[str, Any] = redact_data(_finite(jsonable(dict(data))))
    return kept


def _finite(value: Any) -> Any:
    """``value`` with each float that is not finite as the text JSON has no number for."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


@dataclass
class LogContents:
    """What a log holds: the header, the rows by index, and the latest record of each run."""

    path: Path
    header: dict[str, Any]
    rows: dict[int, dict[str, Any]] = field(default_factory=dict)
    runs: dict[Key, RunRecord] = field(default_factory=dict)
    variants: set[str] = field(default_factory=set)
    """The variant labels of its header and its runs."""


def read(path: str | os.PathLike[str]) -> LogContents:
    """Read a log, every line checked and every bound of the format kept (see the module's
    docstring): a last line cut short by an interrupted write is skipped; any other line that
    cannot be read, or a log past a bound, is one error naming the file, the line and the
    problem."""
    where = Path(path)
    if not where.is_file():
        raise DeepnbError(f"No experiment log {str(where)!r}: deepnb.experiments() lists the logs here.")
    contents: LogContents | None = None
    cut: tuple[int, str] | None = None  # a line that is not JSON: an error unless it is the last
    try:
        size = where.stat().st_size
        if size > MAX_LOG_BYTES:
            raise DeepnbError(
                f"The experiment log {str(where)!r} is {size:,} bytes, more than deepnb reads "
                f"({MAX_LOG_BYTES:,}): it is not a log deepnb wrote, or split it."
            )
        total = 0
        with where.open("rb") as handle:
            number = 0
            while line := handle.readline(MAX_LINE_BYTES + 1):
                number += 1
                total += len(line)
                if len(line) > MAX_LINE_BYTES or total > MAX_LOG_BYTES:
                    raise _damaged(where, number, f"it is longer than {MAX_LINE_BYTES:,} bytes")
                if not line.strip():
                    continue
                if cut is not None:
                    raise _damaged(where, *cut)
                try:
                    data = json.loads(line.decode("utf-8"), parse_constant=_no_constant)
                except ValueError as exc:  # UnicodeDecodeError is one too
                    cut = (number, f"it is not JSON ({getattr(exc, 'msg', None) or exc})")
                    continue
                except RecursionError:
                    raise _damaged(
                        where, number, f"it is nested too deeply to read (more than {MAX_NESTING} levels)"
                    ) from None
                if not isinstance(data, dict):
                    raise _damaged(where, number, f"it is a JSON {type(data).__name__}, not an object")
                if not _shallow(data, MAX_NESTING):
                    raise _damaged(
                        where, number, f"it is nested too deeply to read (more than {MAX_NESTING} levels)"
                    )
                try:
                    if contents is None:
                        contents = _header(where, number, data)
                    else:
                        _apply(contents, data)
                except Malformed as exc:
                    raise _damaged(where, number, str(exc)) from None
    except OSError as exc:
        raise DeepnbError(f"Cannot read the experiment log {str(where)!r}: {exc.strerror}.") from None
    if contents is None:
        raise DeepnbError(f"{where} is empty: it is not a deepnb experiment log.")
    planned = len(contents.rows) * len(contents.variants) * int(contents.header.get("epochs") or 1)
    if planned > MAX_RUNS:
        raise DeepnbError(
            f"The experiment log {str(where)!r} plans {planned:,} runs (rows × variants × epochs), "
            f"more than deepnb reads ({MAX_RUNS:,}): it is not a log deepnb wrote."
        )
    return contents


def _shallow(value: Any, limit: int) -> bool:
    """Whether ``value`` nests at most ``limit`` deep (objects and lists; without recursion)."""
    level: list[Any] = [value]
    for _ in range(limit):
        level = [
            inner
            for item in level
            for inner in (item.values() if isinstance(item, dict) else item)
            if isinstance(inner, dict | list)
        ]
        if not level:
            return True
    return False


def _damaged(where: Path, number: int, problem: str) -> DeepnbError:
    return DeepnbError(
        f"The experiment log {str(where)!r} is damaged at line {number}: {problem}. "
        "Mend or delete that line to read the rest."
    )


def _header(where: Path, number: int, data: dict[str, Any]) -> LogContents:
    if data.get("type") != "experiment":
        raise DeepnbError(f"{where} is not a deepnb experiment log (line {number} has no header).")
    version = fields.whole(data, "format") if "format" in data else 1
    if version > FORMAT:
        raise DeepnbError(
            f"{where} is a format {version} experiment log, newer than this deepnb reads "
            f"(format {FORMAT}): upgrade deepnb to read it."
        )
    if "epochs" in data and not 1 <= fields.whole(data, "epochs") <= MAX_EPOCHS:
        raise Malformed(f"its 'epochs' is {data['epochs']}, not a whole number from 1 to {MAX_EPOCHS:,}")
    variants = fields.mapping(data, "variants")
    if len(variants) > MAX_VARIANTS:
        raise Malformed(f"it has {len(variants):,} variants, more than {MAX_VARIANTS:,}")
    for label in variants:
        _label(label)
    fields.optional_text(data, "name")
    fields.optional_text(data, "template")
    fields.optional_text(data, "baseline")
    reducer = fields.optional_text(data, "epochs_reducer")
    if reducer is not None and len(reducer) > MAX_LABEL:
        raise Malformed(f"its 'epochs_reducer' is {len(reducer):,} characters long, more than {MAX_LABEL:,}")
    return LogContents(where, {**data, "format": version}, variants=set(variants))


def _label(label: str) -> str:
    if len(label) > MAX_LABEL:
        raise Malformed(f"a variant's label is {len(label):,} characters long, more than {MAX_LABEL:,}")
    return label


def _key(data: Mapping[str, Any], contents: LogContents) -> Key:
    """The (row, variant, epoch) a line is about, each within the format's bounds."""
    key: Key = (_row(data), _label(fields.text(data, "variant")), fields.whole(data, "epoch"))
    if key[2] >= MAX_EPOCHS:
        raise Malformed(f"its 'epoch' is {key[2]}, not below {MAX_EPOCHS:,}")
    if key[1] not in contents.variants:
        if len(contents.variants) >= MAX_VARIANTS:
            raise Malformed(f"it adds a variant past the {MAX_VARIANTS:,} a log may hold")
        contents.variants.add(key[1])
    return key


def _row(data: Mapping[str, Any]) -> int:
    row = fields.whole(data, "row")
    if row >= MAX_ROWS:
        raise Malformed(f"its 'row' is {row}, not below {MAX_ROWS:,}")
    return row


def _apply(contents: LogContents, data: dict[str, Any]) -> None:
    kind = data.get("type")
    if kind == "row":
        row = _row(data)
        fields.mapping(data, "inputs")
        given = data.get("given")
        if given is not None and not isinstance(given, str | dict):
            raise Malformed(f"its 'given' is a {type(given).__name__}, not a prompt or an object")
        contents.rows[row] = data
    elif kind == "run":
        _key(data, contents)
        logged_row = contents.rows.get(_row(data), {})
        record = RunRecord.from_json(data, logged_row.get("inputs") or {}, logged_row.get("reference"))
        contents.runs[record.key] = record
    elif kind == "scores":
        record = _graded(contents, data)
        scores = scores_from_json(data.get("scores"))
        replace = data.get("replace", False)
        if not isinstance(replace, bool):
            raise Malformed("its 'replace' is not true or false")
        if replace or contents.header["format"] < SCORES_MERGE:
            record.scores = scores
        else:
            record.scores = {**record.scores, **scores}
    elif kind == "grade":
        record = _graded(contents, data)
        name = fields.text(data, "scorer")
        value = fields.number(data, "score")
        if not name.strip() or value is None:
            raise Malformed("a grade needs a scorer's name and a number")
        comment = fields.optional_text(data, "comment")
        record.scores = {**record.scores, name: Score(value, comment, human=True)}


def _graded(contents: LogContents, data: dict[str, Any]) -> RunRecord:
    """The run a ``scores`` or ``grade`` line is about (logged by an earlier line)."""
    key = _key(data, contents)
    record = contents.runs.get(key)
    if record is None:
        raise Malformed(f"it scores run {key}, which no earlier line logs")
    return record
