"""An agent on an Agent Protocol server, seen as the graph a :class:`deepnb.session.run.Run` drives:
``astream`` of ``(namespace, mode, data)`` chunks with LangChain messages, ``aget_state``,
``aupdate_state`` and ``aget_state_history`` over the thread-state API.

Runs are created with ``on_disconnect="continue"`` and a resumable stream, so they outlive the
kernel; one run per thread (``multitask_strategy="reject"``). A run whose stream breaks is
joined again from the last event seen; a stop (or a kernel interrupt) cancels the server's run.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from deepnb.core.errors import DeepnbError
from deepnb.core.graphs.stamps import stamp_of
from deepnb.core.text.safe_display import safe_display
from deepnb.session.remote import messages as convert
from deepnb.session.remote import shapes
from deepnb.session.remote.client import Disconnected, Server, explain, said, status_of, unreachable
from deepnb.session.remote.given import tools_drawn

log = logging.getLogger(__name__)
STREAM_MODE_NAMES = {"messages": "messages-tuple"}
"""The server's names for the stream modes the events layer reads (where they differ)."""
REJOIN_ATTEMPTS = 3
REJOIN_PAUSE = 1.0
CANCEL_TIMEOUT = 10.0
HISTORY = "/conversation_history/"
"""Where deepagents' summarization offloads the older messages: a write there means a summary."""
CHECKPOINT_METADATA = "deepnb_checkpoint_metadata"
"""The thread metadata key holding what a client wrote with its checkpoints (checkpoint id →
metadata), which the Agent Protocol's state update does not carry."""
SUMMARY_READS = 20
SUMMARY_PAUSE = 0.1


class StoppedElsewhere(asyncio.CancelledError):
    """The server run was cancelled by another client (or ``%deepagent stop`` from a kernel that
    did not start it): the run here ends cancelled too."""


@dataclass(frozen=True)
class Join:
    """The input of a run that joins a run already going on the server (from its first event)."""

    run_id: str
    last_event_id: str = "-"


@dataclass(frozen=True)
class Snapshot:
    """A thread's state as LangGraph's ``StateSnapshot`` shows it (the fields deepnb reads)."""

    values: dict[str, Any]
    next: tuple[str, ...] = ()
    config: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    created_at: str | None = None
    interrupts: tuple[Any, ...] = ()
    tasks: tuple[Any, ...] = ()


def _with_kept(snapshot: Snapshot, kept: Mapping[str, Any]) -> Snapshot:
    """``snapshot`` with the metadata kept for its checkpoint (see ``aupdate_state``)."""
    extra = kept.get(str(snapshot.config.get("configurable", {}).get("checkpoint_id")))
    if not isinstance(extra, Mapping):
        return snapshot
    return dataclasses.replace(snapshot, metadata={**snapshot.metadata, **extra})


def snapshot_of(state: Any) -> Snapshot:
    """A server ``ThreadState`` as a :class:`Snapshot`: messages and interrupts as objects
    (:class:`~deepnb.session.remote.shapes.Unreadable` if a field deepnb reads has the wrong type)."""
    shapes.checked("state", state)
    checkpoint = state.get("checkpoint") or {}
    found = list(state.get("interrupts") or [])
    if not found:  # servers that predate the top-level list keep them on the tasks
        found = [i for task in state.get("tasks") or [] for i in task.get("interrupts") or []]
    unique = {str(i.get("id")): i for i in found if isinstance(i, Mapping)}
    values = state.get("values")
    return Snapshot(
        values=dict(convert.state_update(values)) if isinstance(values, Mapping) else {},
        next=tuple(state.get("next") or ()),
        config={"configurable": {k: v for k, v in checkpoint.items() if v is not None}},
        metadata=dict(state.get("metadata") or {}),
        created_at=state.get("created_at"),
        interrupts=tuple(convert.interrupt(i) for i in unique.values()),
        tasks=tuple(state.get("tasks") or ()),
    )


EMPTY = Snapshot(values={})


async def _close(parts: Any) -> None:
    """Close a stream the run leaves (its response with it), whichever way it ends."""
    aclose = getattr(parts, "aclose", None)
    if aclose is None:
        return
    try:
        await aclose()
    except Exception as exc:  # a stream that failed is closed already
        log.debug("deepnb: closing a run's stream: %s", said(exc))


@safe_display
class ServerGraph:
    """One assistant of an Agent Protocol server, driven like a compiled graph."""

    def __init__(
        self,
        server: Server,
        client: Any,
        assistant_id: str,
        *,
        graph_id: str = "",
        input_keys: tuple[str, ...] = (),
    ) -> None:
        self.server = server
        self.client = client
        self.assistant_id = assistant_id
        self.graph_id = graph_id
        self.served_input_keys = input_keys
        """The keys of the assistant's input state, as its server's schema says (``()``: unknown)."""
        self.runs: dict[str, str] = {}
        """Thread id → the id of the server run this kernel streams from now."""
        self._stamps: dict[str, float] = {}
        """Thread id → when the server says the chunk it streamed last happened."""
        self._began: dict[str, float] = {}
        """Thread id → when the server says the joined run's stream began (its first event)."""
        self._tools: dict[str, tuple[str, ...]] | None = None

    async def listed_tools(self) -> dict[str, tuple[str, ...]]:
        """The tools each agent of the assistant runs, as the server draws its graph (see
        :mod:`deepnb.session.remote.given`); read once, ``{}`` when the server does not say."""
        if self._tools is None:
            try:
                self._tools = tools_drawn(await self.client.assistants.get_graph(self.assistant_id))
            except Exception:  # a server that draws no graph: the run is not the worse for it
                log.debug("deepnb: %s drew no graph", self.server.shown, exc_info=True)
                self._tools = {}
        return dict(self._tools)

    def chunk_time(self, thread_id: str) -> float | None:
        """When the chunk of ``thread_id``'s stream yielded last happened, as the server's event
        id says (``None`` before the first, or from a server that numbers events otherwise):
        a joined run replays its stream, and its events keep their own times."""
        return self._stamps.get(thread_id)

    def stream_began(self, thread_id: str) -> float | None:
        """When the run whose stream ``thread_id`` reads now began, as its first event's id says,
        for a joined run (``None`` for a run this kernel created, whose own clock started it):
        the events before its first chunk (the run's metadata, its time queued) count too."""
        return self._began.get(thread_id)

    def __repr__(self) -> str:
        return f"<ServerGraph {self.graph_id or self.assistant_id!r} at {self.server.shown}>"

    @staticmethod
    def _thread(config: Mapping[str, Any]) -> str:
        return str(config.get("configurable", {}).get("thread_id"))

    # -- state --------------------------------------------------------------------------------

    async def aget_state(self, config: Mapping[str, Any], *, subgraphs: bool = False) -> Snapshot:
        """The thread's state (at ``checkpoint_id`` if the config names one); an empty state for
        a thread the server does not have yet."""
        configurable = config.get("configurable", {})
        try:
            state = await self.client.threads.get_state(
                self._thread(config), checkpoint_id=configurable.get("checkpoint_id"), subgraphs=subgraphs
            )
            return snapshot_of(state)
        except Exception as exc:
            if status_of(exc) == 404:
                return EMPTY
            raise explain(exc, self.server, doing="reading the thread's state") from None

    async def aupdate_state(
        self, config: Mapping[str, Any], values: Mapping[str, Any], as_node: str | None = None
    ) -> Any:
        """Write ``values`` into the thread's state (a new checkpoint), as a node would; the
        config's ``metadata`` goes with that checkpoint, as LangGraph writes it into the
        checkpoint's own (the Agent Protocol's update takes none: it is kept in the thread's
        metadata, by checkpoint, and read back into the history's)."""
        thread = self._thread(config)
        try:
            made = await self.client.threads.update_state(thread, dict(values), as_node=as_node)
            extra = config.get("metadata")
            checkpoint = (made or {}).get("checkpoint") or {} if isinstance(made, Mapping) else {}
            if extra and checkpoint.get("checkpoint_id"):
                kept = await self._checkpoint_metadata(thread)
                kept[str(checkpoint["checkpoint_id"])] = dict(extra)
                await self.client.threads.update(thread, metadata={CHECKPOINT_METADATA: kept})
            return made
        except Exception as exc:
            raise explain(exc, self.server, doing="writing the thread's state") from None

    async def _checkpoint_metadata(self, thread_id: str) -> dict[str, Any]:
        """The metadata :meth:`aupdate_state` kept for the thread's checkpoints, by id."""
        thread = await self.client.threads.get(thread_id)
        kept = ((thread or {}).get("metadata") or {}).get(CHECKPOINT_METADATA)
        return dict(kept) if isinstance(kept, Mapping) else {}

    async def aget_state_history(
        self, config: Mapping[str, Any], *, limit: int = 1000
    ) -> AsyncIterator[Snapshot]:
        try:
            thread = self._thread(config)
            states = shapes.checked("history", await self.client.threads.get_history(thread, limit=limit))
            kept = await self._checkpoint_metadata(thread) if states else {}
            snapshots = [_with_kept(snapshot_of(state), kept) for state in states]
        except Exception as exc:
            if status_of(exc) == 404:
                return
            raise explain(exc, self.server, doing="reading the thread's history") from None
        for snapshot in snapshots:
            yield snapshot

    # -- runs ---------------------------------------------------------------------------------

    async def latest_runs(self, thread_id: str) -> list[Mapping[str, Any]]:
        """The thread's runs on the server, the newest first (none for a thread it does not have)."""
        try:
            return list(shapes.checked("runs", await self.client.runs.list(thread_id, limit=10)))
        except Exception as exc:
            if status_of(exc) == 404:
                return []
            raise explain(exc, self.server, doing="listing the thread's runs") from None

    async def active_run(self, thread_id: str) -> str | None:
        """The id of the run going on the thread on the server now (running or queued), if any."""
        going = [r for r in await self.latest_runs(thread_id) if r.get("status") in ("pending", "running")]
        return str(going[0]["run_id"]) if going else None

    async def cancel(self, thread_id: str, run_id: str) -> None:
        """Cancel a server run (it ends ``interrupted``; the thread keeps its checkpoints)."""
        await self.client.runs.cancel(thread_id, run_id, action="interrupt")

    async def astream(
        self,
        graph_input: Any,
        config: Mapping[str, Any],
        *,
        stream_mode: Sequence[str] = (),
        subgraphs: bool = True,
        context: Mapping[str, Any] | None = None,
    ) -> AsyncIterator[tuple[tuple[str, ...], str, Any]]:
        """The run's chunks: a new server run for ``graph_input`` (a dict, ``None`` to continue
        the thread, a ``Command`` to resume it), or the run a :class:`Join` names. ``context``
        goes with the run (the Agent Protocol carries it; the server checks it)."""
        thread_id = self._thread(config)
        modes = [STREAM_MODE_NAMES.get(m, m) for m in stream_mode]
        last: str | None = None
        self._stamps.pop(thread_id, None)
        self._began.pop(thread_id, None)
        if isinstance(graph_input, Join):
            run_id: str | None = graph_input.run_id
            last = graph_input.last_event_id
            parts = self.client.runs.join_stream(thread_id, graph_input.run_id, last_event_id=last)
        else:
            run_id = None
            parts = self._create(thread_id, graph_input, config, modes, context)
        try:
            while True:
                try:
                    async for part in parts:
                        last = getattr(part, "id", None) or last
                        stamp = stamp_of(getattr(part, "id", None))
                        if stamp is not None:
                            self._stamps[thread_id] = stamp
                            if isinstance(graph_input, Join):
                                self._began.setdefault(thread_id, stamp)
                        if part.event == "metadata":
                            shapes.stream_part("metadata", part.data)
                            found = part.data.get("run_id") if isinstance(part.data, Mapping) else None
                            run_id = str(found) if found else run_id
                            if run_id is not None:
                                self.runs[thread_id] = run_id
                            continue
                        for chunk in self._chunks(part.event, part.data):
                            if chunk[:2] == ((), "updates"):
                                chunk = await self._with_summary(thread_id, chunk)
                            yield chunk
                    await self._check_end(thread_id, run_id or self.runs.get(thread_id))
                    return
                except asyncio.CancelledError:
                    raise
                except DeepnbError:
                    raise
                except Exception as exc:
                    if isinstance(graph_input, Join) and status_of(exc) == 404:
                        return  # the run's stream is gone (expired): the thread's state tells the rest
                    run_id = run_id or self.runs.get(thread_id)
                    if run_id is None or not unreachable(exc):
                        raise self._failure(exc, thread_id) from None
                    parts = await self._rejoin(thread_id, run_id, last, exc)
        except StoppedElsewhere:
            raise
        except asyncio.CancelledError:
            run_id = run_id or self.runs.get(thread_id)
            if run_id is not None:  # stopped here: stop it there too
                await self._cancel_quietly(thread_id, run_id)
            raise
        finally:
            self.runs.pop(thread_id, None)
            await _close(parts)  # now, on this task: never left to the garbage collector's task

    async def _check_end(self, thread_id: str, run_id: str | None) -> None:
        """A stream that ended without the run ending here: cancelled by another client (the run
        is then stopped here too), or failed or timed out on the server."""
        if run_id is None:
            return
        try:
            status = (await self.client.runs.get(thread_id, run_id)).get("status")
        except Exception as exc:  # the thread's state says the rest
            log.debug("deepnb: could not read run %s on %s: %s", run_id, self.server.shown, said(exc))
            return
        if status == "interrupted":
            raise StoppedElsewhere
        if status in ("error", "timeout"):
            raise DeepnbError(f"The run ended on the server with status {status!r}: its log says why.")

    def _create(
        self,
        thread_id: str,
        graph_input: Any,
        config: Mapping[str, Any],
        modes: list[str],
        context: Mapping[str, Any] | None = None,
    ) -> Any:
        from langgraph.types import Command  # noqa: PLC0415  # lazy: langgraph is heavy to import

        options: dict[str, Any] = {}
        if isinstance(graph_input, Command):  # answers to interrupts: the server resumes its thread
            options["command"] = {"resume": graph_input.resume}
        else:
            options["input"] = graph_input
        run_config = {k: v for k, v in config.items() if k == "recursion_limit"}
        return self.client.runs.stream(
            thread_id,
            self.assistant_id,
            stream_mode=modes,
            stream_subgraphs=True,
            stream_resumable=True,
            on_disconnect="continue",
            multitask_strategy="reject",
            if_not_exists="create",
            config=run_config or None,
            context=dict(context) if context else None,
            on_run_created=lambda meta: self.runs.__setitem__(thread_id, str(meta["run_id"])),
            **options,
        )

    def _chunks(self, event: str, data: Any) -> list[tuple[tuple[str, ...], str, Any]]:
        mode, *namespace = str(event).split("|")
        shapes.stream_part(mode, data)
        if mode == "error":  # the graph raised on the server: its message, as a local run shows it
            detail = (data.get("message") or data.get("error")) if isinstance(data, Mapping) else data
            raise DeepnbError(f"The run failed on the server: {detail}")
        if mode == "messages-tuple":
            mode = "messages"
        if mode not in ("updates", "messages", "tasks", "custom"):
            return []  # values, metadata, end, …: the thread's state is read when the stream ends
        return [(tuple(namespace), mode, convert.chunk(mode, data))]

    async def _with_summary(
        self, thread_id: str, chunk: tuple[tuple[str, ...], str, Any]
    ) -> tuple[tuple[str, ...], str, Any]:
        """The main agent's update that summarized its context, with the summarization event the
        server leaves out of streamed updates (a private state key) read back from the thread's
        state, so the events layer shows the summary as it does for a local run."""
        namespace, mode, data = chunk
        if not isinstance(data, Mapping):
            return chunk
        completed = dict(data)
        for node, update in data.items():
            files = update.get("files") if isinstance(update, Mapping) else None
            if not isinstance(files, Mapping) or not any(HISTORY in str(path) for path in files):
                continue
            assert isinstance(update, Mapping)
            if "_summarization_event" in update:
                continue
            ids = {getattr(m, "id", None) for m in update.get("messages") or []} - {None}
            event = await self._summary_event(thread_id, ids)
            if event is not None:
                completed[node] = {**update, "_summarization_event": event}
        return namespace, mode, completed

    async def _summary_event(self, thread_id: str, message_ids: set[Any]) -> Any:
        """The thread's summarization event, once its state holds the messages ``message_ids``
        (the checkpoint of the step that summarized); ``None`` if it never does."""
        for _ in range(SUMMARY_READS):
            try:
                state = await self.client.threads.get_state(thread_id)
            except Exception as exc:  # shown without its summary card, never failed for it
                log.debug("deepnb: could not read the summary of %s: %s", thread_id, said(exc))
                return None
            values = state.get("values") if isinstance(state, Mapping) else None
            if isinstance(values, Mapping):
                held = {m.get("id") for m in values.get("messages") or [] if isinstance(m, Mapping)}
                if message_ids <= held:
                    return convert.state_update(values).get("_summarization_event")
            await asyncio.sleep(SUMMARY_PAUSE)
        return None

    async def _rejoin(self, thread_id: str, run_id: str, last: str | None, cause: BaseException) -> Any:
        """Join the run's resumable stream again after the connection broke (the server may
        only have blinked); a server gone for good ends the run with how to re-attach."""
        for _ in range(REJOIN_ATTEMPTS):
            await asyncio.sleep(REJOIN_PAUSE)
            try:
                await self.client.runs.get(thread_id, run_id)
            except Exception as exc:
                if unreachable(exc):
                    continue
                raise self._failure(exc, thread_id) from None
            log.debug(
                "deepnb: rejoining run %s on %s after %s", run_id, self.server.shown, type(cause).__name__
            )
            return self.client.runs.join_stream(thread_id, run_id, last_event_id=last or "-")
        raise Disconnected(
            f"the Agent Protocol server at {self.server.shown} stopped answering mid-run "
            "(the run may go on there)",
            failure_hint=f"once it is back, %deepagent resume -t {thread_id} re-attaches "
            "(after a kernel restart, %deepagent connect first).",
        )

    def _failure(self, exc: BaseException, thread_id: str) -> DeepnbError:
        if status_of(exc) == 409:
            return DeepnbError(
                f"Thread {thread_id!r} is busy on the server (another run holds it): "
                f"%deepagent resume -t {thread_id} joins that run, or start another thread with --new."
            )
        return explain(exc, self.server, doing="streaming the run")

    async def _cancel_quietly(self, thread_id: str, run_id: str) -> None:
        try:
            await asyncio.wait_for(self.cancel(thread_id, run_id), CANCEL_TIMEOUT)
        except Exception as exc:  # the server is gone: nothing left to stop there
            log.debug("deepnb: could not cancel run %s on %s: %s", run_id, self.server.shown, said(exc))
