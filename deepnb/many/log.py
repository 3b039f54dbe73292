"""An experiment's log: one JSON object per line, appended as the experiment goes, readable
without deepnb, every string in it redacted of secrets first.

Lines, each with a ``type``:

- ``experiment`` (the first): ``format`` (1), ``name``, ``created`` (ISO 8601 UTC), ``variants``
  (label -> what it is), ``scorers`` (names), ``epochs``, ``baseline``, ``template``, ``rows``.
- ``row``: ``row`` (its index), ``inputs`` (its fields), ``reference``, ``given`` (the prompt).
- ``run``: ``row``, ``variant``, ``epoch``, ``status``, ``result``, ``output``, ``error``,
  ``tokens_in``, ``tokens_out`` (``null``: no model call reported usage), ``tokens_unreported``
  (model calls that reported none: the counts and the cost are lower bounds where above 0),
  ``cost`` (US dollars, ``null`` unknown), ``latency`` (seconds), ``thread_id``, ``messages``
  (OpenAI-style dicts) and ``scores`` (name -> ``{score, comment, error}``).
- ``scores``: ``row``, ``variant``, ``epoch``, ``scores``: a rescoring, which replaces that
  run's scores.

A later ``run`` line for the same (row, variant, epoch) replaces an earlier one (a run stopped,
then run again when the experiment resumed).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import os
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deepnb.core.errors import DeepnbError
from deepnb.core.text.secrets import redact_data
from deepnb.many.record import Key, RunRecord, Score

FORMAT = 1
FOLDER = Path(".deepnb") / "experiments"
"""Where logs go by default (under the working directory)."""


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


class LogWriter:
    """Appends lines to a log, each redacted and on disk once ``write`` returns (thread-safe).
    The file is opened for each line, so nothing stays open between runs; a log whose last line
    was cut short goes on from a new line."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch()
            with path.open("rb+") as handle:  # a line cut short by an interruption ends here
                end = handle.seek(0, os.SEEK_END)
                if end:
                    handle.seek(end - 1)
                    if handle.read(1) != b"\n":
                        handle.write(b"\n")
        except OSError as exc:
            raise DeepnbError(f"Cannot write the experiment's log {str(path)!r}: {exc.strerror}.") from None

    def write(self, kind: str, data: Mapping[str, Any]) -> None:
        line = json.dumps({"type": kind, **logged(data)}, ensure_ascii=False)
        with self._lock, self.path.open("a", encoding="utf-8") as handle:
            handle.write(line + "\n")


def logged(data: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` as the log keeps it: JSON-able, every string redacted of secrets."""
    kept: dict[str, Any] = redact_data(jsonable(dict(data)))
    return kept


@dataclass
class LogContents:
    """What a log holds: the header, the rows by index, and the latest record of each run."""

    path: Path
    header: dict[str, Any]
    rows: dict[int, dict[str, Any]] = field(default_factory=dict)
    runs: dict[Key, RunRecord] = field(default_factory=dict)


def read(path: str | os.PathLike[str]) -> LogContents:
    """Read a log; a line cut short by an interrupted write (the last one) is skipped."""
    where = Path(path)
    if not where.is_file():
        raise DeepnbError(f"No experiment log {str(where)!r}: deepnb.experiments() lists the logs here.")
    header: dict[str, Any] | None = None
    contents: LogContents | None = None
    with where.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except ValueError:
                continue  # a line cut short
            kind = data.get("type") if isinstance(data, dict) else None
            if header is None:
                if kind != "experiment":
                    raise DeepnbError(
                        f"{where} is not a deepnb experiment log (line {number} has no header)."
                    )
                header = data
                contents = LogContents(where, header)
                continue
            assert contents is not None
            if kind == "row":
                contents.rows[int(data["row"])] = data
            elif kind == "run":
                row = contents.rows.get(int(data["row"]), {})
                record = RunRecord.from_json(data, row.get("inputs") or {}, row.get("reference"))
                contents.runs[record.key] = record
            elif kind == "scores":
                key: Key = (int(data["row"]), str(data["variant"]), int(data["epoch"]))
                scores = {str(k): Score.from_json(v) for k, v in (data.get("scores") or {}).items()}
                if key in contents.runs:
                    contents.runs[key].scores = scores
    if contents is None:
        raise DeepnbError(f"{where} is empty: it is not a deepnb experiment log.")
    return contents


def listing(folder: Path = FOLDER) -> list[dict[str, Any]]:
    """The logs in ``folder``, the newest first: path, name, created, runs logged and done."""
    found = []
    for path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else []:
        try:
            contents = read(path)
        except DeepnbError:
            continue
        statuses = [record.status for record in contents.runs.values()]
        found.append(
            {
                "path": str(path),
                "name": contents.header.get("name"),
                "created": contents.header.get("created"),
                "variants": list(contents.header.get("variants") or {}),
                "rows": len(contents.rows),
                "runs": len(statuses),
                "done": statuses.count("done"),
            }
        )
    found.sort(key=lambda item: str(item["created"] or ""), reverse=True)
    return found
