"""``%deepagent history`` and ``workbench.history(thread)`` drawn as a table: one row per step of the thread
(its number, what it did in words, when it was saved, the checkpoint ``--at STEP`` forks at), or
with ``--all`` every checkpoint with the node that wrote it."""

from __future__ import annotations

from deepnb.session.protocol import History
from deepnb.views.listings import Table

STEP_COLUMNS = ("step", "what it did", "saved (UTC)", "checkpoint")
NODE_COLUMNS = ("step", "--at", "agent", "node", "changed", "next", "graph step", "saved (UTC)", "checkpoint")


def saved_at(created_at: str) -> str:
    """A checkpoint's ISO time as the history shows it (to the second, UTC)."""
    return created_at[:19].replace("T", " ")


def history_table(history: History) -> Table:
    """The history as a table: its steps, or (``history.nodes``) every checkpoint, the oldest
    first, with the step it belongs to and, on the checkpoint ``--at STEP`` forks at, that step."""
    empty = f"Thread {history.thread!r} of agent {history.agent!r} has no checkpoints yet."
    if not history.nodes:
        rows = tuple((s.step, s.did, saved_at(s.created_at), s.checkpoint_id) for s in history.steps)
        if not rows and history:
            empty = (
                f"Thread {history.thread!r} of agent {history.agent!r} has no steps yet "
                "(--all lists its checkpoints)."
            )
        return Table(STEP_COLUMNS, rows, empty=empty)
    forks = {checkpoint_id: step for step, checkpoint_id in history.fork_at.items()}
    every: tuple[tuple[object, ...], ...] = tuple(
        (
            c.step,
            forks.get(c.checkpoint_id, ""),
            c.agent,
            c.node,
            "; ".join(c.changes) or "—",
            ", ".join(c.next) or "—",
            c.graph_step,
            saved_at(c.created_at),
            c.checkpoint_id,
        )
        for c in reversed(history)
    )
    return Table(NODE_COLUMNS, every, empty=empty)


def history_text(history: History) -> str:
    """``repr(history)``: its table in plain text."""
    return repr(history_table(history))


def history_html(history: History) -> str:
    """The history's table as escaped HTML."""
    return history_table(history)._repr_html_()
