"""What a run view shows before its run exists. The first ``%%deepagent`` cell of a kernel loads
the agent stack and builds the agent (seconds); the view needs neither, so it opens at once with
the agent's name and the task, running, and :meth:`deepnb.views.run.run_view.RunView.attach`
then gives it the run, which it streams as any other."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from deepnb.core import events as ev
from deepnb.core.text.secrets import redact
from deepnb.engine.graph_path import GraphPath
from deepnb.engine.state import RunSnapshot, RunState


class Opening:
    """A run that is about to start, as a run view reads one: its state holds the task, its
    status is running, and nothing happens to it. It is never driven: the view swaps it for the
    real run as soon as that exists."""

    id = "run-opening"
    output: Any = None
    done = False
    auto_approve = False
    timeline_version = 0
    graph_path_version = 0

    def __init__(self, agent: str, prompt: str) -> None:
        self.prompt = prompt
        self.state = RunState(agent=redact(agent), thread_id="")
        self.state.apply(ev.RunStarted(ev.MAIN, "", prompt))  # the prompt item, redacted there

    @property
    def timeline(self) -> list[Any]:
        return []

    @property
    def graph_path(self) -> dict[str, Any]:
        return GraphPath().to_dict()  # no node has run

    @contextlib.contextmanager
    def reading(self) -> Iterator[RunState]:
        yield self.state

    def snapshot(self) -> RunSnapshot:
        return RunSnapshot(self.state.version, self.state.to_json())

    def subscribe(self, _listener: Callable[[ev.Event], None]) -> Callable[[], None]:
        return _nothing

    def when_ended(self, _callback: Callable[[], None]) -> Callable[[], None]:
        return _nothing

    def stop(self) -> None:
        """Nothing runs yet: the cell that starts the run has the kernel until it does."""


def _nothing() -> None:
    return None


__all__ = ["Opening"]
