"""The live experiment matrix: a row per dataset row, a column group per variant (each cell its
scores, status, the answer's first line and an epoch strip, then its structured output's
fields), filled in as runs end; under it a bar chart per scorer, the summary per variant and the
baseline comparison; Stop; filters (failures only, scorer, variant, status, text), which the
kernel applies over every row (:mod:`deepnb.views.experiment.row_filter`); and a click on a cell
(an epoch of its strip, or a differing row's answer in the comparison) that opens that sample
(:mod:`deepnb.views.experiment.sample`: where a person's grade is set, through
:meth:`~deepnb.many.experiment.Experiment.grade`) with the run's full live view (approval cards
included) below it, or, for a run read from the experiment's log, its read-only record
(:mod:`deepnb.views.experiment.logged_run`). A grade, from this view, another or a cell, is seen
by every view of the experiment, which summarizes again.

Every run's change only marks the matrix as stale; one throttled flush redraws it, so the view
sends at most :data:`~deepnb.views.throttle.MAX_MESSAGES_PER_SECOND` messages a second however
many runs end at once, and each message stays under 64 KB: the ``rows`` trait holds as many rows
as fit what the rest of the state leaves of :data:`STATE_BUDGET`, and ``more`` says what it
leaves out (``experiment.to_pandas()`` has it all). The summary, its charts and the baseline
comparison are computed on a thread of their own (its statistics import scipy, and the engine
thread gives a view time in proportion to what its flushes cost, so one slow flush would hold the
next update back), again only when a run was recorded, at most every :data:`SUMMARY_EVERY`
seconds until the end. Sorting and filtering happen in the front end, over the rows it holds.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any

import anywidget
import traitlets as t

from deepnb.core import clock as clocks
from deepnb.core.errors import DeepnbError
from deepnb.core.failures import contained
from deepnb.core.loop import run_sync
from deepnb.many import stats
from deepnb.many.experiment import Experiment
from deepnb.many.record import Key, RunRecord
from deepnb.session.run import Run
from deepnb.views.bounds import MESSAGE_LIMIT, size
from deepnb.views.experiment.baseline import baseline_tables
from deepnb.views.experiment.charts import score_charts
from deepnb.views.experiment.experiment_view import (
    MAX_ROWS,
    clip,
    experiment_bundle,
    head_line,
    matrix_axes,
    matrix_cell,
    more_notes,
    summary_rows,
)
from deepnb.views.experiment.fields import field_label
from deepnb.views.experiment.logged_run import logged_run_html
from deepnb.views.experiment.row_filter import RowFilter, human_grades
from deepnb.views.experiment.sample import SAMPLE_BUDGET, sample_state
from deepnb.views.messages import INT, TEXT, Kinds, check
from deepnb.views.output import widget_bundle, with_static
from deepnb.views.run.run_view import RunView
from deepnb.views.shared_code import LOADER, code_refs, code_trait
from deepnb.views.starting import Starting, place
from deepnb.views.throttle import Throttle

_log = logging.getLogger(__name__)
NUMBER = (int, float, bool)
MATRIX_MESSAGES: Kinds = {
    "stop": {},
    "hello": {},
    "open": {"row": INT, "variant": TEXT, "epoch": INT},
    "close": {},
    "grade": {"row": INT, "variant": TEXT, "epoch": INT, "scorer": TEXT, "score": NUMBER, "comment": TEXT},
    "filter": {"failures": (bool,), "scorer": TEXT, "variant": TEXT, "status": TEXT, "text": TEXT},
    "page": {"offset": INT},
}
"""What the matrix's front end sends: Stop, a resync, a cell to open (an epoch of it, else its
first run that this kernel ran), close the open run, a person's grade of the open sample (for
:meth:`~deepnb.many.experiment.Experiment.grade`), and the matrix's filters (the kernel picks the
rows that match among all the experiment's, not only those the view holds), and the page of rows
to show, by the first one's place among them (the matrix holds at most ``MAX_ROWS`` at a time)."""
GRADE_FIELDS = ("row", "variant", "epoch", "scorer", "score")
"""What a grade must carry (its comment may be left out)."""
STATE_BUDGET = MESSAGE_LIMIT - 8 * 1024
"""Bytes of the whole state (the rows take what the summary, charts, comparison and the rest
leave), so one message that changes every trait still fits :data:`~deepnb.views.bounds.MESSAGE_LIMIT`."""
PROMPT = 60
"""Characters of a row's prompt its first cell shows."""
SUMMARY_EVERY = 2.0
"""Seconds between two summaries while the experiment runs (the last one comes at its end)."""


class ExperimentView(anywidget.AnyWidget):
    """Shows an :class:`~deepnb.many.experiment.Experiment` as it goes."""

    _esm = LOADER  # the bundle and styles come once per kernel, see deepnb.views.shared_code
    _code = code_trait()

    head = t.Unicode("", help="The experiment in one line: name, size, progress, log.").tag(sync=True)
    variants: t.List[str] = t.List(help="The variants' labels, one column each.").tag(sync=True)
    scorers: t.List[str] = t.List(help="The scorers' names, in each cell's order.").tag(sync=True)
    rows: t.List[dict[str, Any]] = t.List(
        help="A row per dataset row: {r, prompt, cells: [{v, status, kind, scores: {name: text}, answer}]}."
    ).tag(sync=True)
    fields: t.List[str] = t.List(
        help="The structured output's fields each variant's group has as columns (each cell's `fields`)."
    ).tag(sync=True)
    more: t.List[str] = t.List(help="What the matrix leaves out, a line per axis.").tag(sync=True)
    window = t.Dict(
        help="The page of rows shown: {offset, shown, total, page} (total: the rows that match the filters)."
    ).tag(sync=True)
    summary = t.Dict(help="{columns, rows}: the summary per variant as texts.").tag(sync=True)
    charts: t.List[dict[str, Any]] = t.List(
        help="A bar chart per scorer: {scorer, title, note, bars: [{v, value, bar, whisker}]}."
    ).tag(sync=True)
    comparisons: t.List[dict[str, Any]] = t.List(
        help="Each variant against the baseline: {a, b, columns, rows, differences: [{r, prompt, ...}]}."
    ).tag(sync=True)
    going = t.Bool(True, help="Whether runs still run or wait in the queue.").tag(sync=True)
    detail = t.Unicode("", help="The model id of the open run's view ('' when none is open).").tag(sync=True)
    logged = t.Unicode(
        "", help="The open cell's run read from the log, as safe HTML ('' when none is open)."
    ).tag(sync=True)
    selected = t.Dict(help="The open cell: {row, variant, epoch} ({} when none).").tag(sync=True)
    sample = t.Dict(
        help="The open sample, as deepnb.views.experiment.sample.sample_state describes it ({} when none)."
    ).tag(sync=True)
    threshold = t.Float(stats.THRESHOLD, help="The score a cell passes at (or above).").tag(sync=True)
    notice = t.Unicode("", help="Why the last request from the matrix was refused.").tag(sync=True)

    def __init__(self, experiment: Experiment, **kwargs: Any) -> None:
        self.experiment = experiment
        self._clock = clocks.current()
        self._recorded = -1
        self._grades: tuple[Any, ...] = ()
        """The people's grades the last summary saw (a grade changes a score, not the records)."""
        self._open: Key | None = None
        self._sample_budget = SAMPLE_BUDGET
        """Bytes the open sample may take: what the message that opened it left beside its run."""
        self._filter = RowFilter()
        self._offset = 0
        """Where the page of rows shown starts, among the rows that match the filters."""
        self._summarized_at = float("-inf")
        self._summary_due = False
        self._judged: dict[str, Any] = {"summary": {}, "charts": [], "comparisons": []}
        """The summary, charts and comparisons last computed (on the summary thread)."""
        self.judged_for: tuple[int, tuple[Any, ...]] | None = None
        """What the last computed summary saw: the number of records and the people's grades."""
        self._summarizing = False
        self._summaries = ThreadPoolExecutor(1, thread_name_prefix="deepnb-summary")
        super().__init__(_code=code_refs("experiment_view"), **kwargs)
        self.messages = 0
        """State messages this view sent (each flush that changed something is one)."""
        self._detail_view: RunView | None = None
        self._lock = threading.Lock()
        self._flush()
        self._throttle = Throttle(self._flush, clock=self._clock)
        self.on_msg(self._on_front_end_message)
        self._unsubscribe = experiment.subscribe(self._throttle.poke)
        # an experiment that ended between the first flush and the subscription sends no event
        # again: draw once more from here, as the batch grid does
        self._throttle.poke()

    def _state(self) -> dict[str, Any]:
        exp = self.experiment
        axes = matrix_axes(exp)
        state: dict[str, Any] = {
            "head": head_line(exp),
            "variants": axes.variants,
            "scorers": axes.scorers,
            "fields": [field_label(name) for name in axes.fields],
            "going": not exp.done,
        }
        recorded, now = len(exp.records), self._clock.now()
        grades = human_grades(exp)
        if grades != self._grades:  # a grade: summarize again as if a run was recorded
            self._grades, self._recorded = grades, -1
        due = exp.done or now - self._summarized_at >= SUMMARY_EVERY
        if recorded != self._recorded and not due and not self._summary_due:
            self._summary_due = True  # no later event may come: look again then
            summary = partial(contained, self._summary_time, what="the experiment matrix's summary")
            self._clock.call_later(SUMMARY_EVERY, summary)
        if recorded != self._recorded and due and not self._summarizing:
            self._recorded, self._summarized_at = recorded, now  # it changes only when a run is recorded
            self._summarizing = True
            self._summaries.submit(self._summarize, (recorded, grades))
        state.update(self._judged)
        opened = self._open
        state["sample"] = sample_state(exp, opened, budget=self._sample_budget) if opened is not None else {}
        more = more_notes(exp, axes)
        budget = STATE_BUDGET - size(state) - size(more) - 1024  # 1 KB: the note on rows left out
        given = {row.index: row.prompt for row in exp.plan.rows}
        drawn: list[dict[str, Any]] = []
        spent = 0
        looking = self._filter.active
        rows = self._filter.rows(exp, axes.scorers) if looking else [row.index for row in exp.plan.rows]
        offset = min(self._offset, max(0, len(rows) - 1))
        for index in rows[offset : offset + MAX_ROWS]:
            cells = [{"v": v, **matrix_cell(exp, index, v, axes)} for v in axes.variants]
            row = {"r": index, "prompt": clip(given[index], PROMPT), "cells": cells}
            spent += size(row) + 2
            if spent > budget:
                break
            drawn.append(row)
        more = [note for note in more if "more rows" not in note]  # the pager says it, with its pages
        window = {"offset": offset, "shown": len(drawn), "total": len(rows), "page": MAX_ROWS}
        state.update(rows=drawn, more=more, window=window)
        return state

    def _summarize(self, seen: tuple[int, tuple[Any, ...]]) -> None:
        """Compute the summary, its charts and the baseline comparison (on the summary thread),
        then flush them. ``seen`` is what it is computed from: the records and grades counted."""
        try:
            summary = self.experiment.summary()
            columns, table = summary_rows(summary)
            self._judged = {
                "summary": {"columns": columns, "rows": table},
                "charts": score_charts(summary),
                "comparisons": baseline_tables(self.experiment),
            }
            self.judged_for = seen
        except Exception:  # the matrix goes on without it; the log says why
            _log.warning("deepnb: the experiment's summary failed", exc_info=True)
        finally:
            self._summarizing = False
        throttle = getattr(self, "_throttle", None)
        if throttle is not None:
            throttle.poke()
        if self._recorded != len(self.experiment.records):  # recorded (or graded) meanwhile: again
            self._summarized_at = float("-inf")
            if throttle is not None:
                throttle.poke()

    def _summary_time(self) -> None:
        self._summary_due = False
        self._throttle.poke()

    def _flush(self) -> None:
        """Redraw the matrix (on the engine loop, throttled); one message when anything changed."""
        with self._lock:
            state = self._state()
            changed = {name: value for name, value in state.items() if getattr(self, name) != value}
            if not changed:
                return
            with self.hold_sync():
                for name, value in changed.items():
                    setattr(self, name, value)
            self.messages += 1

    def _on_front_end_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        try:
            kind = check(content, MATRIX_MESSAGES)
            if kind in ("open", "grade"):
                self._check_cell(content.get("row"), content.get("variant"), content.get("epoch", 0))
            if kind == "grade":
                self._grade(content)
            elif kind == "filter":
                self._filter, self._offset = RowFilter.of(content, self.experiment), 0
            elif kind == "page":
                self._offset = max(0, content["offset"])
        except DeepnbError as exc:
            self.notice = str(exc)
            return
        if kind == "stop":
            self.experiment.stop()
        elif kind == "hello":
            with self._lock:
                self._recorded = -1
                self._filter = RowFilter()  # a view that opens starts with no filter: so do its rows
                self._offset = 0
            self._throttle.poke()
        elif kind == "open":
            self.open_cell(content["row"], content["variant"], content.get("epoch"))
        elif kind == "close":
            self._close_detail()
        elif kind in ("grade", "filter", "page"):
            self.notice = ""
            self._throttle.poke()

    def _check_cell(self, row: Any, variant: Any, epoch: Any = 0) -> None:
        plan = self.experiment.plan
        if not any(r.index == row for r in plan.rows) or variant not in self.experiment.variants:
            raise DeepnbError(f"The experiment has no cell ({row!r}, {variant!r}).")
        if not isinstance(epoch, int) or not 0 <= epoch < plan.epochs:
            raise DeepnbError(f"The experiment has no epoch {epoch!r}: its epochs are 0-{plan.epochs - 1}.")

    def _grade(self, content: Mapping[str, Any]) -> None:
        """A person's grade from the sample view, saved to the log at once (Experiment.grade)."""
        missing = [name for name in GRADE_FIELDS if name not in content]
        if missing:
            raise DeepnbError(f"Refused a 'grade' message: it needs {' and '.join(missing)}.")
        comment = str(content.get("comment") or "").strip() or None
        self.experiment.grade(
            content["row"],
            content["variant"],
            content["epoch"],
            content["score"],
            comment=comment,
            scorer=content["scorer"].strip(),
        )

    def open_cell(self, row: int, variant: str, epoch: int | None = None) -> None:
        """Show the run of ``(row, variant)`` below the matrix, with its sample view above it: the
        run of ``epoch`` if given, else its first epoch this kernel ran, as its live view, else its
        first epoch read from the log, read-only."""
        runs = self.experiment.runs
        epochs = range(self.experiment.plan.epochs) if epoch is None else [epoch]
        found = [(e, runs[(row, variant, e)]) for e in epochs]
        live = next(((e, r) for e, r in found if isinstance(r, Run)), None)
        logged = next(((e, r) for e, r in found if isinstance(r, RunRecord)), None)
        if live is None and logged is None:
            at = f", epoch {epoch}," if epoch is not None else ""
            self.notice = f"Row {row} of {variant}{at} has no run yet: it is queued."
            return
        shown_epoch = live[0] if live is not None else logged[0] if logged is not None else 0
        before, self._detail_view = self._detail_view, None
        self._detail_view = view = RunView(live[1]) if live is not None else None
        self._open = (row, variant, shown_epoch)
        selected = {"row": row, "variant": variant, "epoch": shown_epoch}
        record = logged_run_html(logged[1]) if view is None and logged is not None else ""
        beside = size({"selected": selected, "logged": record, "detail": view.model_id if view else ""})
        self._sample_budget = min(SAMPLE_BUDGET, MESSAGE_LIMIT - beside - 2048)  # 2 KB: the envelope
        sample = sample_state(self.experiment, self._open, budget=self._sample_budget)
        with self.hold_sync():  # one message: the open sample moves, never closing in between
            self.notice = ""
            self.selected = selected
            self.sample = sample
            self.detail = view.model_id if view is not None else ""
            self.logged = record
        if before is not None:
            before.close()

    def sync(self) -> None:
        """Send the matrix's latest state now."""

        async def flush() -> None:
            self._throttle.flush_now()

        run_sync(flush())

    def close(self) -> None:
        """Close the matrix and the run view it shows; the experiment goes on."""
        self._unsubscribe()
        self._summaries.shutdown(wait=False)
        self._close_detail()
        super().close()

    def _close_detail(self) -> None:
        view, self._detail_view = self._detail_view, None
        self._open = None
        with self.hold_sync():
            self.selected = {}
            self.sample = {}
            self.detail = ""
            self.logged = ""
        if view is not None:
            view.close()


def experiment_live_bundle(experiment: Experiment) -> dict[str, Any]:
    """An experiment displayed: its live matrix over a static matrix of it now."""
    widget, _ = widget_bundle(ExperimentView(experiment))
    return with_static(widget, experiment_bundle(experiment))


def show_experiment(experiment: Experiment, *, into: Starting | None = None) -> ExperimentView:
    """Display ``experiment``'s live matrix (in ``into``'s output, the cell's placeholder, if
    given); whenever nothing runs any more (and again after each run that waited for approval
    ends), the same output gets the static matrix as it stands, for places where widgets don't
    run."""
    view = ExperimentView(experiment)
    widget_data, _ = widget_bundle(view)
    handle = place(with_static(widget_data, experiment_bundle(experiment)), into)
    drawn = {"records": -1}
    lock = threading.Lock()

    def on_change() -> None:
        # done also while runs wait for approval: each later end (one decided) updates it again
        if not experiment.done:
            return
        with lock:
            records = len(experiment.records)
            if records == drawn["records"]:
                return
            drawn["records"] = records
            handle.update(with_static(widget_data, experiment_bundle(experiment)), raw=True)

    experiment.subscribe(on_change)
    if experiment.done:
        on_change()
    return view


__all__ = ["ExperimentView", "experiment_live_bundle", "show_experiment"]
