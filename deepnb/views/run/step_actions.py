"""What the run view's Graph tab and step state panel ask of the run's session: the agent's
graph, a step's state with its diff, one file of a step, and "Run from here" (a fork at the
step with the panel's edits, then a run on it that the view goes on with). Only the
:class:`~deepnb.session.protocol.Session` protocol is used, so a served agent answers as one in
the kernel does. Each reply says why it was refused in one line; nothing is lost.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from deepnb.core.errors import DeepnbError
from deepnb.core.text.secrets import redact
from deepnb.engine.step_state import clip
from deepnb.session.protocol import Session
from deepnb.views.run.graph_tab import bounded_path, scene_message
from deepnb.views.run.step_panel import step_answer, update_of

if TYPE_CHECKING:
    from deepnb.session.run import Run  # at run time the views only read a run they are given

STEP_MESSAGES = ("graph", "latest_step", "step_state", "step_messages", "step_file", "run_from")
"""The messages these actions answer (their fields: :data:`deepnb.views.messages.RUN_MESSAGES`)."""


class StepActions:
    """The Graph tab's and the state panel's actions, mixed into the run view."""

    run: Run
    graph_scene: dict[str, Any] | None
    _graph_listeners: list[Callable[[], None]]
    _path_sent: int | None

    if TYPE_CHECKING:
        graph_path: dict[str, Any]
        thread_id: str

        def _continue_with(self, later: Run) -> None: ...

    def _session(self) -> Session:
        session = self.run.workbench
        if not isinstance(session, Session):
            raise DeepnbError("This agent has no session to read its graph and steps from.")
        return session

    def _steps(self) -> list[int]:
        """The thread's steps this run wrote (its model calls, or a graph's node updates)."""
        with self.run.reading() as state:
            return list(range(state.first_step + 1, state.thread_step + 1))

    def _own(self, step: Any) -> int:
        """``step``, refused unless it is one this run wrote (checked before anything acts)."""
        steps = self._steps()
        if step not in steps:
            raise DeepnbError(f"Step {step} is not one this run wrote: pick a step of its timeline.")
        return int(step)

    def _step_reply(self, kind: str, content: Mapping[str, Any]) -> dict[str, Any]:
        """The reply to one of :data:`STEP_MESSAGES` (its ``error`` says a refusal, in one line)."""
        reply_type = {"run_from": "ran_from", "latest_step": "step_state"}.get(kind, kind)
        try:
            if kind == "graph":
                return self._graph()
            if kind == "latest_step":  # the Step state tab chosen by itself: the run's latest
                steps = self._steps()
                if not steps:
                    raise DeepnbError("This run wrote no step yet: its steps show here as it writes them.")
                content = {"step": steps[-1]}
            step = self._own(content.get("step"))
            session = self._session()
            thread = self.run.thread_id
            if kind == "run_from":
                return self._run_from(session, thread, step, content.get("edits"))
            return step_answer(session, thread, step, self._steps(), kind, content)
        except DeepnbError as exc:
            error = str(exc)
        except Exception as exc:  # shown in the panel rather than lost in the kernel log
            error = f"Could not do that: {type(exc).__name__}: {clip(str(exc), 200)}"
        return {"type": reply_type, "step": content.get("step"), "error": redact(error)}

    def _graph(self) -> dict[str, Any]:
        """The agent's graph for the Graph tab; from then on the view sends the run's path and
        its snapshot keeps the drawing."""
        if self.graph_scene is None:
            reply = scene_message(self._session().draw_graph())
            self.graph_scene = reply["scene"]
            for listener in list(self._graph_listeners):
                listener()
        self._sync_path(force=True)
        return {"type": "graph", "scene": self.graph_scene, "error": ""}

    def _sync_path(self, *, force: bool = False) -> None:
        """Send the run's path once the Graph tab was opened, when it changed."""
        if self.graph_scene is None:
            return
        version = self.run.graph_path_version
        if force or version != self._path_sent:
            self._path_sent = version
            self.graph_path = bounded_path(self.run.graph_path)

    def on_graph(self, listener: Callable[[], None]) -> None:
        """Call ``listener`` once the Graph tab drew the graph (the output then keeps it)."""
        self._graph_listeners.append(listener)

    def _run_from(self, session: Session, thread: str, step: int, edits: Any) -> dict[str, Any]:
        """Fork ``thread`` at ``step`` with the edits, run on from there; the view goes on with
        the new run. The original thread is untouched."""
        state = session.state(thread, step)
        update = update_of(state, edits if isinstance(edits, list) else [])
        forked = session.fork(thread, step, update=update)
        try:
            later = session.resume(forked)
        except DeepnbError as exc:
            raise DeepnbError(
                f"Forked as thread {forked} with the edits, but it did not run on: {exc}"
            ) from None
        self.thread_id = later.thread_id  # before the view is displayed again with the new run
        self._continue_with(later)
        return {"type": "ran_from", "step": step, "thread_id": forked, "from_thread": thread, "error": ""}
