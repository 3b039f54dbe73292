"""``%deepagent history`` (and ``bench.history(thread)``) shown live: the thread's steps as rows,
each opening the step state panel the run view's timeline opens, the state as that step left it
and what it changed against the step before, with a slider across the thread's steps. The panel
reads the session the history came from through the session protocol (a served agent answers as
one in the kernel does); here it only reads: forking at a step is ``%deepagent fork --at STEP``
(``--update VAR`` to change it), or Run from here on a run view's panel.

No message is larger than :data:`~deepnb.views.bounds.MESSAGE_LIMIT`: the rows are the newest
that fit in :data:`ROWS_BUDGET`, the panel's replies are bounded as the run view's are."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import anywidget
import traitlets as t

from deepnb.core.errors import DeepnbError
from deepnb.core.text.secrets import redact
from deepnb.engine.step_state import clip
from deepnb.session.protocol import History, Session
from deepnb.views.bounds import tail
from deepnb.views.history_view import history_html, history_text, saved_at
from deepnb.views.output import widget_bundle, with_static
from deepnb.views.run.step_panel import step_answer
from deepnb.views.shared_code import LOADER, code_refs, code_trait
from deepnb.views.styles import inline

ROWS_BUDGET = 40 * 1024
"""Bytes of step rows the view opens with: the newest steps that fit (the rest are counted)."""
DID_CHARS = 300
"""Characters of a step's "what it did" a row carries."""
PANEL_MESSAGES = ("step_state", "latest_step", "step_messages", "step_file")
"""What the panel asks (the run view's own panel also asks for the graph and Run from here)."""


class HistoryView(anywidget.AnyWidget):
    """A thread's steps, each opening its state and what it changed (the step state panel)."""

    _esm = LOADER
    _code = code_trait()

    agent = t.Unicode("", help="The agent's name.").tag(sync=True)
    thread_id = t.Unicode("", help="The thread.").tag(sync=True)
    steps: t.List[dict[str, Any]] = t.List(
        help="The thread's steps, the first first: {step, did, saved, checkpoint}; the newest that fit."
    ).tag(sync=True)
    steps_total = t.Int(0, help="How many steps the thread has (the rows may leave early ones out).").tag(
        sync=True
    )

    def __init__(self, history: History, **kwargs: Any) -> None:
        if history.session is None:
            raise DeepnbError("This history was not read from a session: it has no states to show.")
        every = [
            {
                "step": step.step,
                "did": redact(clip(step.did, DID_CHARS)),
                "saved": saved_at(step.created_at),
                "checkpoint": step.checkpoint_id,
            }
            for step in history.steps
        ]
        rows = tail(every, ROWS_BUDGET)  # the newest steps that fit
        super().__init__(
            agent=redact(history.agent),
            thread_id=redact(history.thread),
            steps=rows,
            steps_total=len(every),
            _code=code_refs("history_view"),
            **kwargs,
        )
        self.session: Session = history.session
        self.thread = history.thread
        self.numbers: list[int] = [int(row["step"]) for row in rows]
        """The steps the panel may open: those the rows show."""
        self.on_msg(self._on_front_end_message)

    def _on_front_end_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if isinstance(content, Mapping) and content.get("type") in PANEL_MESSAGES:
            self.send(self.answer(content))

    def answer(self, content: Mapping[str, Any]) -> dict[str, Any]:
        """The reply to one of the panel's messages; a refusal is its ``error``, in one line."""
        asked = str(content.get("type"))
        kind = "step_state" if asked == "latest_step" else asked  # Latest step: the newest row's
        step: Any = content.get("step")
        try:
            if asked == "latest_step":
                if not self.numbers:
                    raise DeepnbError("This thread has no steps yet.")
                step = self.numbers[-1]
            if type(step) is not int or step not in self.numbers:  # a bool is no step either
                raise DeepnbError(f"Step {step} is not a step of this history: pick one of its rows.")
            return step_answer(self.session, self.thread, step, self.numbers, kind, content, editable=False)
        except DeepnbError as exc:
            error = str(exc)
        except Exception as exc:  # shown in the panel rather than lost in the kernel log
            error = f"Could not do that: {type(exc).__name__}: {clip(str(exc), 200)}"
        return {"type": kind, "step": step, "error": redact(error)}


def history_bundle(history: History) -> dict[str, Any]:
    """A history displayed: where it was read from a session and shows its steps, the live rows
    whose steps open their state, over the static table (what shows where widgets don't run);
    else the table alone."""
    # marked as a deepnb snapshot: a save that finds no widget state keeps it in the view's place
    html = f'<div class="deepnb-snapshot deepnb-history-snapshot">{history_html(history)}</div>'
    static = {"text/plain": history_text(history), "text/html": inline(html, cells=True)}
    if history.session is None or history.nodes or not history.steps:
        return static
    widget, _ = widget_bundle(HistoryView(history))
    return with_static(widget, static)


__all__ = ["HistoryView", "history_bundle"]
