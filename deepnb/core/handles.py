"""What the lower layers see of a run and of an agent: structural types, so that claims, approval
requests, the interpreter, async tasks and file holds never import the session layer
(:mod:`deepnb.session.run`, :mod:`deepnb.session.local`) that builds on them."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any, Protocol


class RunHandle(Protocol):
    """A run as the thread registry and file holds see it."""

    @property
    def id(self) -> str: ...

    @property
    def thread_id(self) -> str: ...

    @property
    def status(self) -> str: ...

    @property
    def done(self) -> bool: ...


class Decider(Protocol):
    """A run as its approval requests see it: it takes one decision per gated action, or one
    value that answers a whole interrupt."""

    def decide(
        self, interrupt_id: str, index: int, decision: dict[str, Any], *, auto: bool = False
    ) -> None: ...

    def answer(self, interrupt_id: str, value: Any) -> None: ...


class AgentHandle(Protocol):
    """An agent as the code reading its threads sees it: its graph, the spec it was built from
    (``None`` for an attached graph), the database its threads live in, where its files live,
    and their state."""

    @property
    def name(self) -> str: ...

    @property
    def graph(self) -> Any: ...

    @property
    def spec(self) -> Any: ...

    @property
    def checkpointer(self) -> Any: ...

    @property
    def database(self) -> Hashable: ...

    @property
    def file_setup(self) -> Any:
        """Where the agent's files live, and its memory and skills
        (``deepnb.engine.files.setup.FileSetup``)."""
        ...

    def state_values(self, thread_id: str | None = None) -> Mapping[str, Any]: ...
