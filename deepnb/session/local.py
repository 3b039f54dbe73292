"""The local workbench: an agent compiled in this kernel, its checkpointer and its threads (the
:class:`deepnb.session.protocol.Session` that runs agents in the kernel)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from deepnb.core.graphs.reading import tools_of
from deepnb.core.loop import run_sync
from deepnb.core.text.safe_display import safe_display
from deepnb.core.threads.checkpointers import database_key, thread_ids
from deepnb.core.threads.reading import UnreadableThread, read_history, read_state
from deepnb.engine.anatomy import Anatomy, inspect_agent
from deepnb.engine.files.setup import FileSetup
from deepnb.engine.history import node_steps, thread_step
from deepnb.engine.mcp import McpServer
from deepnb.engine.mcp import servers as mcp_servers
from deepnb.engine.spec import AgentSpec
from deepnb.session.graph_session import GraphSession, new_thread_id
from deepnb.session.protocol import ThreadInfo

__all__ = ["Workbench", "new_thread_id"]


@safe_display
class Workbench(GraphSession):
    """An agent compiled in this kernel, with a checkpointer and threads. ``run()`` sends it a
    prompt."""

    def __init__(
        self,
        name: str,
        graph: Any,
        checkpointer: Any,
        *,
        spec: AgentSpec | None = None,
        label: str = "",
        origin: str | None = None,
        files: FileSetup | None = None,
    ) -> None:
        super().__init__(
            name,
            graph,
            database=database_key(checkpointer),
            label=label or (spec.model_label if spec else type(graph).__name__),
            origin=origin,
            context=spec.options.get("context") if spec is not None else None,
        )
        self.checkpointer = checkpointer
        self.spec = spec
        """What was built: the declared spec (``spec.declared``) plus what extensions added."""
        self._file_setup = files

    @property
    def file_setup(self) -> FileSetup:
        """Where the agent's files live, and its memory and skills: from its spec, or found in
        the attached graph (once, on first use)."""
        if self.spec is not None:
            return FileSetup.of_options(self.spec.options)
        if self._file_setup is None:
            self._file_setup = FileSetup.of_graph(self.graph)
        return self._file_setup

    @property
    def cannot_rebuild(self) -> str | None:
        return "it was attached as a compiled graph" if self.spec is None else None

    @property
    def how_to_change(self) -> str:
        return "attach it again to change it"

    @property
    def current_thread(self) -> str:
        """The thread runs go to by default: the most recent one, or a new one."""
        if self._current_thread is None:
            existing = self.threads()
            self._current_thread = existing[0].thread_id if existing else self.fresh_thread_id()
        return self._current_thread

    def threads(self) -> list[ThreadInfo]:
        """This workbench's threads, the most recently updated first."""
        latest: dict[str, ThreadInfo] = {}

        async def collect() -> None:
            known = await thread_ids(self.checkpointer)
            if known is None:  # a saver deepnb cannot ask for its threads: read every checkpoint
                configs = [
                    item.config.get("configurable", {}) async for item in self.checkpointer.alist(None)
                ]
                known = list(
                    dict.fromkeys(str(c.get("thread_id")) for c in configs if not c.get("checkpoint_ns"))
                )
            for thread_id in known:  # its state: a checkpoint alone may not hold the messages
                config = {"configurable": {"thread_id": thread_id}}
                try:
                    state = await read_state(self.graph, config, agent=self.name)
                except UnreadableThread as exc:  # listed as such; the others are read on
                    latest[thread_id] = ThreadInfo(thread_id, await self._saved_at(config), 0, exc.reason)
                    continue
                if state.created_at is None:  # no checkpoint (any more)
                    continue
                steps = await self._steps(config, state)
                latest[thread_id] = ThreadInfo(thread_id, str(state.created_at), steps)

        run_sync(collect())
        starting = [t for t in self._active if t not in latest]  # no first checkpoint yet
        now = datetime.now(UTC).isoformat()
        latest.update({t: ThreadInfo(t, now, 0) for t in starting})
        return sorted(latest.values(), key=lambda t: t.updated_at, reverse=True)

    async def _steps(self, config: Mapping[str, Any], state: Any) -> int:
        """A thread's steps as a run view counts them: the model's turns (its messages), or for a
        graph without messages its node updates (read from its history)."""
        if isinstance((state.values or {}).get("messages"), list):
            return thread_step(state.values)
        return (node_steps(await read_history(self.graph, config, agent=self.name)) or [0])[0]

    async def _saved_at(self, config: Mapping[str, Any]) -> str:
        """When the thread's latest checkpoint was saved, read from the saver alone (``""``
        where even that fails): for listing a thread whose state cannot be loaded."""
        try:
            saved = await self.checkpointer.aget_tuple(config)
        except Exception:  # the checkpoint itself cannot be loaded either
            return ""
        return str((saved.checkpoint or {}).get("ts", "")) if saved is not None else ""

    def inspect(self) -> Anatomy:
        """The agent's anatomy: middleware per agent, the tools its model sees, interrupt
        rules, backend and routes, model and harness profile (read from the compiled graph)."""
        return inspect_agent(self)

    def mcp(self) -> list[McpServer]:
        """The MCP servers the agent was built with (``mcp_servers=``), each with the tools the
        model is offered from it; where each is says the keys of its env and headers, never
        their values."""
        connections = (self.spec.options.get("mcp_servers") if self.spec is not None else None) or {}
        return mcp_servers(connections, tools_of(self.graph) or [])

    def _discard_thread(self, thread_id: str) -> None:
        run_sync(self.checkpointer.adelete_thread(thread_id))

    def __repr__(self) -> str:
        return f"<Workbench {self.name!r} model={self.label!r} thread={self._current_thread!r}>"
