"""The live batch grid: a row per input (status, step, tool calls, tokens, time, the answer's first
line, a waiting-for-approval mark), overall progress with an estimate of the time left, a Stop that
stops every run, and a click on a row that opens that run's full live view (with its approval
cards) below the grid.

However many runs change, the grid sends at most :data:`~deepnb.views.throttle.MAX_MESSAGES_PER_SECOND`
messages a second: every run's events only mark rows as changed, and one throttled flush sends the
changed rows (in parts under :data:`~deepnb.views.bounds.PATCH_BUDGET` bytes, each part counting
against the rate). When nothing runs any more the traits are set in full, so a saved widget state
holds the final grid.
"""

from __future__ import annotations

import threading
from typing import Any

import anywidget
import traitlets as t

from deepnb.core.errors import DeepnbError
from deepnb.core.loop import run_sync
from deepnb.many.batch import Batch
from deepnb.views.batch.batch_rows import batch_progress, batch_snapshot_bundle, grid_row
from deepnb.views.bounds import MESSAGE_LIMIT, PATCH_BUDGET, size
from deepnb.views.messages import INT, Kinds, check
from deepnb.views.output import widget_bundle, with_static
from deepnb.views.run.run_view import RunView
from deepnb.views.shared_code import LOADER, code_refs, code_trait
from deepnb.views.starting import Starting, place
from deepnb.views.throttle import MARGIN, MAX_MESSAGES_PER_SECOND, Throttle

BATCH_MESSAGES: Kinds = {"stop": {}, "hello": {}, "open": {"index": INT}, "close": {}}
"""What the grid's front end sends: Stop, a (re)sync of every row, a row to open, close the open run."""
ROWS_BUDGET = MESSAGE_LIMIT - 8 * 1024
"""Bytes of rows the ``rows`` trait holds when set in full (the rest stay in the front end's copy)."""


class BatchView(anywidget.AnyWidget):
    """Shows a :class:`~deepnb.many.batch.Batch` as it goes: a grid with a row per input."""

    _esm = LOADER  # the bundle and styles come once per kernel, see deepnb.views.shared_code
    _code = code_trait()

    agent = t.Unicode("", help="The agent's name.").tag(sync=True)
    total = t.Int(0, help="How many inputs the batch has.").tag(sync=True)
    rows: t.List[dict[str, Any]] = t.List(
        help="A row per input: {i, input, status, steps, tools, tin, tout, elapsed, line, waiting}; "
        "live changes come as {type: rows} messages on top of it."
    ).tag(sync=True)
    progress = t.Dict(
        help="Counts by status (queued, running, interrupted, done, error, cancelled), total, ended, "
        "elapsed and eta (seconds left, or null)."
    ).tag(sync=True)
    detail = t.Unicode("", help="The model id of the open run's view ('' when none is open).").tag(sync=True)
    selected = t.Int(-1, help="The index of the open row (-1 when none).").tag(sync=True)
    notice = t.Unicode("", help="Why the last request from the grid was refused.").tag(sync=True)

    def __init__(self, batch: Batch, **kwargs: Any) -> None:
        self.batch = batch
        self._lock = threading.Lock()
        self._dirty: set[int] = set()
        self._sent: dict[int, dict[str, Any]] = {}
        self._full_sent = False
        rows = [grid_row(batch, i) for i in range(len(batch))]
        super().__init__(
            agent=batch.session.name,
            total=len(batch),
            rows=_fitting(rows),
            progress=batch_progress(batch),
            _code=code_refs("batch_view"),
            **kwargs,
        )
        self._sent = {row["i"]: row for row in self.rows}
        self.messages = 0
        """Messages this view sent to the front end (rows, progress, full syncs)."""
        self._detail_view: RunView | None = None
        self._throttle = Throttle(self._flush)
        self._base_interval = self._throttle.interval
        self.on_msg(self._on_front_end_message)
        self._unsubscribe = batch.subscribe(self._changed)
        self._throttle.poke()

    def _changed(self, index: int) -> None:
        if index >= 0:
            with self._lock:
                self._dirty.add(index)
        self._throttle.poke()

    def _flush(self) -> None:
        """Send the rows that changed and the progress (on the engine loop, throttled)."""
        with self._lock:
            dirty, self._dirty = self._dirty, set()
        rows = [grid_row(self.batch, i) for i in sorted(dirty)]
        changed = [row for row in rows if self._sent.get(row["i"]) != row]
        progress = batch_progress(self.batch)
        sent = 0
        if self.batch.done and not self._dirty:
            if not self._full_sent or changed:
                everything = [grid_row(self.batch, i) for i in range(len(self.batch))]
                fitting = _fitting(everything)
                synced = int(self.rows != fitting or self.progress != progress)  # equal traits send nothing
                with self.hold_sync():
                    self.rows = fitting
                    self.progress = progress
                rest = [row for row in everything[len(fitting) :] if self._sent.get(row["i"]) != row]
                parts = _parts(rest)  # the rows past the trait's budget, as live messages
                for part in parts:
                    self.send({"type": "rows", "rows": part})
                self._sent = {row["i"]: row for row in everything}
                self._full_sent = True
                sent = synced + len(parts)
        else:
            self._full_sent = False
            parts = _parts(changed) or [[]]
            for n, part in enumerate(parts):
                message: dict[str, Any] = {"type": "rows", "rows": part}
                if n == len(parts) - 1:
                    message["progress"] = progress
                self.send(message)
            self._sent.update((row["i"], row) for row in changed)
            sent = len(parts)
        self.messages += sent
        # a flush that took several messages waits as long as they would have, one by one
        self._throttle.interval = self._base_interval * max(1, sent)

    def _on_front_end_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        try:
            kind = check(content, BATCH_MESSAGES)
            if kind == "open" and not 0 <= content["index"] < len(self.batch):
                raise DeepnbError(f"The batch has no row {content['index']}.")
        except DeepnbError as exc:
            self.notice = str(exc)
            return
        if kind == "stop":
            self.batch.stop()
        elif kind == "hello":
            with self._lock:
                self._dirty.update(range(len(self.batch)))
                self._sent.clear()
            self._throttle.poke()
        elif kind == "open":
            self.open_row(content["index"])
        elif kind == "close":
            self._close_detail()

    def open_row(self, index: int) -> None:
        """Show input ``index``'s run (its full live view) below the grid."""
        run = self.batch.runs[index]
        if run is None:
            self.notice = f"Row {index} has no run yet ({self.batch.statuses[index]})."
            return
        self._close_detail()
        self._detail_view = RunView(run)
        self.notice = ""
        with self.hold_sync():
            self.selected = index
            self.detail = self._detail_view.model_id

    def sync(self) -> None:
        """Send the grid's latest state now (when a cell that waited for the batch ends, so its
        output is final)."""

        async def flush() -> None:
            self._throttle.flush_now()

        run_sync(flush())

    def close(self) -> None:
        """Close the grid and the run view it shows; the batch goes on."""
        self._unsubscribe()
        self._close_detail()
        super().close()

    def _close_detail(self) -> None:
        view, self._detail_view = self._detail_view, None
        with self.hold_sync():
            self.selected = -1
            self.detail = ""
        if view is not None:
            view.close()


def _fitting(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """As many rows, from the first, as fit the ``rows`` trait's budget."""
    spent = 0
    for count, row in enumerate(rows):
        spent += size(row) + 2
        if spent > ROWS_BUDGET:
            return rows[:count]
    return rows


def _parts(rows: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    parts: list[list[dict[str, Any]]] = []
    spent = 0
    for row in rows:
        cost = size(row) + 2
        if not parts or spent + cost > PATCH_BUDGET:
            parts.append([])
            spent = 0
        parts[-1].append(row)
        spent += cost
    return parts


def batch_bundle(batch: Batch) -> dict[str, Any]:
    """A batch displayed: its live grid over a static table of its rows now."""
    widget, _ = widget_bundle(BatchView(batch))
    return with_static(widget, batch_snapshot_bundle(batch))


def show_batch(batch: Batch, *, into: Starting | None = None) -> BatchView:
    """Display ``batch``'s live grid (in ``into``'s output, the cell's placeholder, if given);
    once nothing runs any more, the same output also gets the final static table, for places
    where widgets don't run."""
    view = BatchView(batch)
    widget_data, _ = widget_bundle(view)
    handle = place(with_static(widget_data, batch_snapshot_bundle(batch)), into)
    finished = threading.Event()

    def on_change(_index: int) -> None:
        if batch.done and not finished.is_set():
            finished.set()
            handle.update(with_static(widget_data, batch_snapshot_bundle(batch)), raw=True)

    batch.subscribe(on_change)
    return view


__all__ = ["MARGIN", "MAX_MESSAGES_PER_SECOND", "BatchView", "batch_bundle", "show_batch"]
