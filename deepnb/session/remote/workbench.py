"""The remote workbench: an agent served over the Agent Protocol, as a
:class:`deepnb.session.protocol.Session`.

It is a :class:`~deepnb.session.graph_session.GraphSession` driving a
:class:`~deepnb.session.remote.graph.ServerGraph`: runs, approvals, files, todos and the tree are
read and written as a local agent's are, through the server's thread-state API. What is its own is
here: the server's threads (of this assistant), UUID thread ids, forks made and deleted on the
server, and joining a run that is already going on the server (after a kernel restart, or one
another client started).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from deepnb.core.errors import DeepnbError
from deepnb.core.loop import run_sync
from deepnb.core.text.safe_display import safe_display
from deepnb.engine.anatomy import Anatomy
from deepnb.engine.async_tasks import RemoteAgent
from deepnb.engine.drawing import GIVEN_KEY
from deepnb.engine.files.setup import FileSetup
from deepnb.engine.graph_shape import GraphShape, shape_from_json
from deepnb.engine.mcp import McpServer
from deepnb.session.graph_session import GraphSession
from deepnb.session.protocol import ThreadInfo
from deepnb.session.remote import shapes
from deepnb.session.remote.client import Server, explain, state_keys_of
from deepnb.session.remote.graph import Join, ServerGraph
from deepnb.session.run import Run

THREADS_LISTED = 100
FORK_KEY = "deepnb_assistant_id"
"""The thread metadata naming the assistant a fork belongs to: a server keeps ``assistant_id`` to
itself (it sets it when a run starts) and drops it from what a client writes."""


def _steps(values: Any) -> int:
    messages = values.get("messages") if isinstance(values, Mapping) else None
    return sum(1 for m in messages or [] if isinstance(m, Mapping) and m.get("type") == "ai")


def _prompt(run: Mapping[str, Any]) -> str | None:
    """The prompt a server run was started with, if it was one."""
    given = (run.get("kwargs") or {}).get("input") or {}
    found = given.get("messages") if isinstance(given, Mapping) else None
    last = found[-1] if isinstance(found, list) and found else None
    content = last.get("content") if isinstance(last, Mapping) else None
    return content if isinstance(content, str) else None


@safe_display
class RemoteWorkbench(GraphSession):
    """An agent on an Agent Protocol server (``deepnb.connect``): the same runs, views and
    subcommands as a local agent; its threads live on the server."""

    def __init__(
        self,
        name: str,
        server: Server,
        client: Any,
        assistant: Mapping[str, Any],
        *,
        input_keys: tuple[str, ...] = (),
    ) -> None:
        """``input_keys``: the assistant's input state's keys, where its server says them."""
        self.server = server
        self.assistant_id = str(assistant["assistant_id"])
        self.graph_id = str(assistant.get("graph_id") or self.assistant_id)
        graph = ServerGraph(server, client, self.assistant_id, graph_id=self.graph_id, input_keys=input_keys)
        self._keys: list[str] | None = None
        super().__init__(
            name,
            graph,
            database=("agent-server", server.shown),  # one run at a time per thread of the server
            label=f"{self.graph_id} at {server.shown}",
            origin=server.shown,  # where it is defined, as %deepagent agents shows it
        )

    @property
    def served_by(self) -> str | None:
        """The server the runs execute on, as deepnb shows its URL."""
        return self.server.shown

    @property
    def cannot_rebuild(self) -> str:
        return f"it is served by {self.url}"

    @property
    def how_to_change(self) -> str:
        return "change it where it is served"

    @property
    def url(self) -> str:
        """The server's URL as deepnb shows it (no credentials: :func:`deepnb.core.addresses.shown_url`)."""
        return self.server.shown

    @property
    def agent_server(self) -> RemoteAgent:
        """Where the async tasks this agent starts are asked about (``refresh_async_tasks``):
        its own server, with its headers and key, where a subagent of the same deployment runs."""
        return RemoteAgent(
            self.graph_id,
            self.server.request_url,
            self.server.headers,
            self.server.api_key,
            key_from_environment=False,
        )

    @property
    def file_setup(self) -> FileSetup:
        """The files of a served agent are read from (and written to) its thread's state."""
        return FileSetup()

    def fresh_thread_id(self) -> str:
        return str(uuid.uuid4())

    def check_thread(self, thread_id: str) -> None:
        """One line unless ``thread_id`` can be a thread of the server (a UUID)."""
        try:
            uuid.UUID(thread_id)
        except ValueError:
            raise DeepnbError(
                f"{thread_id!r} is not a thread of the Agent Protocol server at {self.url}: its threads "
                f"are UUIDs (%deepagent threads -a {self.name} lists them; --new starts one)."
            ) from None

    def threads(self) -> list[ThreadInfo]:
        """The server's threads of this assistant, the most recently updated first."""
        client = self.graph.client

        async def search() -> list[Any]:
            found: list[Any] = []
            for key in ("assistant_id", FORK_KEY):  # a fork has no run yet, so no assistant_id
                found += shapes.checked(
                    "threads",
                    await client.threads.search(
                        metadata={key: self.assistant_id},
                        limit=THREADS_LISTED,
                        sort_by="updated_at",
                        sort_order="desc",
                    ),
                )
            return found

        try:
            found = run_sync(search())
        except Exception as exc:
            raise explain(exc, self.server, doing="listing its threads") from None
        listed = {
            str(t["thread_id"]): ThreadInfo(
                str(t["thread_id"]), str(t.get("updated_at") or ""), _steps(t.get("values"))
            )
            for t in found
        }
        now = datetime.now(UTC).isoformat()
        listed.update({t: ThreadInfo(t, now, 0) for t in self._active if t not in listed})
        return sorted(listed.values(), key=lambda t: t.updated_at, reverse=True)

    # -- runs ---------------------------------------------------------------------------------

    def _server_run(self, thread_id: str) -> str | None:
        self.check_thread(thread_id)
        going: str | None = run_sync(self.graph.active_run(thread_id))
        return going

    def join(self, thread_id: str, run_id: str) -> Run:
        """Follow a run already going on the server: its stream from the first event (the view
        replays what happened), then live."""
        try:
            prompt = _prompt(run_sync(self.graph.client.runs.get(thread_id, run_id)))
        except Exception:  # the prompt is only shown: the stream is what matters
            prompt = None
        run, fresh = self._claimed(thread_id, prompt)
        if not fresh:
            return run
        run.start(self.graph, Join(run_id))
        self.use_thread(thread_id)
        return run

    def pending_run(self, thread_id: str | None = None) -> Run:
        """The run waiting for approval on a thread. A run still going on the server is joined
        (its cards come as it pauses); after a kernel restart, the run that paused is joined
        from its first event, so its view replays what happened before the cards."""
        thread = thread_id or self.current_thread
        if self.active_run(thread) is None:
            self.check_thread(thread)
            runs = run_sync(self.graph.latest_runs(thread))
            going = [r for r in runs if r.get("status") in ("pending", "running")]
            if going:
                return self.join(thread, str(going[0]["run_id"]))
            paused = self.read_state(thread).interrupts
            if runs and paused:
                run = self.join(thread, str(runs[0]["run_id"]))
                if run.wait().status == "interrupted":
                    return run
        return super().pending_run(thread)

    def _continue(self, thread_id: str) -> Run:
        if self.active_run(thread_id) is None:
            going = self._server_run(thread_id)
            if going is not None:
                return self.join(thread_id, going)
        return super()._continue(thread_id)

    def stop(self, thread_id: str | None = None) -> Run:
        """Stop the run holding a thread: this kernel's, or one going on the server that another
        kernel (or client) started, which is cancelled there and joined to show how far it got."""
        thread = thread_id or self.current_thread
        if self.active_run(thread) is None:
            going = self._server_run(thread)
            if going is not None:
                try:
                    run_sync(self.graph.cancel(thread, going))
                except Exception as exc:
                    raise explain(exc, self.server, doing="cancelling the run") from None
                return self.join(thread, going)
        return super().stop(thread)

    def _new_fork_thread(self, thread_id: str) -> str:
        new = self.fresh_thread_id()
        metadata = {FORK_KEY: self.assistant_id, "graph_id": self.graph_id, "forked_from": thread_id}
        try:
            run_sync(self.graph.client.threads.create(thread_id=new, metadata=metadata))
        except Exception as exc:
            raise explain(exc, self.server, doing="making the fork's thread") from None
        return new

    def _state_keys(self) -> list[str] | None:
        """The keys of the assistant's state, as its server's schemas say (read once)."""
        if self._keys is None:
            self._keys = run_sync(state_keys_of(self.graph.client, self.assistant_id)) or []
        return self._keys or None

    def _discard_thread(self, thread_id: str) -> None:
        try:
            run_sync(self.graph.client.threads.delete(thread_id))
        except Exception as exc:
            raise explain(exc, self.server, doing="deleting a fork that differed") from None

    def _graph_shape(self, xray: bool | int) -> tuple[GraphShape, str, tuple[str, ...]]:
        """The server's drawing of the assistant (``GET /assistants/{id}/graph?xray=...``)."""
        try:
            drawn = run_sync(self.graph.client.assistants.get_graph(self.assistant_id, xray=xray))
        except Exception as exc:
            raise explain(exc, self.server, doing="reading the agent's graph") from None
        data = drawn if isinstance(drawn, Mapping) else {}
        shape = shape_from_json(data)
        tools = next(
            (n for n in data.get("nodes") or () if isinstance(n, Mapping) and n.get("id") == "tools"), {}
        )
        given = (tools.get("metadata") or {}).get(GIVEN_KEY) if isinstance(tools, Mapping) else None
        subagents = (
            sorted(str(name) for name in given or () if name != "main") if isinstance(given, Mapping) else []
        )
        notes = (f"Subagents run inside tools on the server (not drawn there): {', '.join(subagents)}.",)
        return shape, self.url, notes if subagents else ()

    def inspect(self) -> Anatomy:
        raise DeepnbError(
            f"Agent {self.name!r} is served by {self.url} (assistant {self.graph_id!r}): its anatomy is "
            "read from a graph compiled in this kernel, so inspect it where it is defined."
        )

    def mcp(self) -> list[McpServer]:
        raise DeepnbError(
            f"Agent {self.name!r} is served by {self.url} (assistant {self.graph_id!r}): its MCP servers "
            "run where it is served, so list them where it is defined."
        )

    def __repr__(self) -> str:
        return (
            f"<RemoteWorkbench {self.name!r} assistant={self.graph_id!r} url={self.url!r} "
            f"thread={self._current_thread!r}>"
        )
