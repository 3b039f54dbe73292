"""The run object: one prompt streaming through an agent on a thread."""

from __future__ import annotations

import asyncio
import concurrent.futures
import itertools
import logging
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from deepnb import events as ev
from deepnb._loop import submit
from deepnb.secrets import redact
from deepnb.state import RunState

if TYPE_CHECKING:
    from deepnb.workbench import Workbench

log = logging.getLogger(__name__)
Listener = Callable[[ev.Event], None]
_ids = itertools.count(1)


class ThreadFiles(Mapping[str, str]):
    """A read-only mapping of path → text over a thread's files, read when accessed."""

    def __init__(self, workbench: Workbench, thread_id: str) -> None:
        self._workbench = workbench
        self._thread_id = thread_id

    def _data(self) -> Mapping[str, Any]:
        return self._workbench.state_values(self._thread_id).get("files") or {}

    def __getitem__(self, path: str) -> str:
        entry = self._data()[path]
        content = entry.get("content", "") if isinstance(entry, Mapping) else entry
        return "\n".join(content) if isinstance(content, list) else str(content)

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._data()))

    def __len__(self) -> int:
        return len(self._data())

    def __repr__(self) -> str:
        paths = list(self)
        shown = ", ".join(paths[:8]) + (f", … ({len(paths)} files)" if len(paths) > 8 else "")
        return f"<files of thread {self._thread_id!r}: {shown or 'none'}>"


class Run:
    """A run of an agent on a thread. ``status`` is ``"running"``, ``"interrupted"``, ``"done"``,
    ``"error"`` or ``"cancelled"``; ``wait()`` blocks until it is no longer running."""

    def __init__(self, workbench: Workbench, thread_id: str, prompt: str | None) -> None:
        self.id = f"run-{next(_ids)}"
        self.workbench = workbench
        self.thread_id = thread_id
        self.prompt = prompt
        self.state = RunState(agent=workbench.name, thread_id=thread_id)
        self._listeners: list[Listener] = []
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._future: concurrent.futures.Future[None] | None = None
        self._task: asyncio.Task[None] | None = None
        self._stop_requested = False

    # -- the contract -----------------------------------------------------------------------

    @property
    def status(self) -> str:
        return self.state.status

    @property
    def result(self) -> str | None:
        """The final answer's text, once the run is done."""
        return self.state.result

    @property
    def error(self) -> str | None:
        return self.state.error

    @property
    def todos(self) -> list[dict[str, str]]:
        return [dict(t) for t in self.state.todos]

    @property
    def files(self) -> ThreadFiles:
        """The thread's files (path → text), as they stand now."""
        return ThreadFiles(self.workbench, self.thread_id)

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def wait(self, timeout: float | None = None) -> Run:
        """Block until the run stops (done, interrupted, failed or cancelled); return it."""
        if not self._done.wait(timeout):
            raise TimeoutError(f"{self.id} still running after {timeout} s; call wait() again or stop().")
        return self

    async def wait_async(self, poll: float = 0.1) -> Run:
        """Await the end of the run from another event loop (the kernel's). The loop wakes every
        ``poll`` seconds, so a kernel interrupt (which schedules its cancellation without waking
        the loop) takes effect at once."""
        if self._future is not None:
            ended = asyncio.wrap_future(self._future)
            while not ended.done():
                await asyncio.wait({ended}, timeout=poll)
        return self

    def stop(self) -> None:
        """Cancel the run; the thread keeps every step up to the last checkpoint."""
        self._stop_requested = True
        task = self._task
        if task is not None and not self.done:
            task.get_loop().call_soon_threadsafe(task.cancel)

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(event)`` for each event from now on (on the engine thread)."""
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    # -- driving ----------------------------------------------------------------------------

    def start(self, graph: Any, graph_input: Any, *, auto_approve: bool = False) -> Run:
        """Start streaming on the engine loop; returns at once."""
        self._future = submit(self._drive(graph, graph_input, auto_approve))
        return self

    def emit(self, event: ev.Event) -> None:
        self.state.apply(event)
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(event)
            except Exception:
                log.exception("deepnb: a run listener failed on %s", type(event).__name__)

    async def _drive(self, graph: Any, graph_input: Any, auto_approve: bool) -> None:
        self._task = asyncio.current_task()
        config = {"configurable": {"thread_id": self.thread_id}, "recursion_limit": 10_000}
        translator = ev.EventTranslator(main=ev.MAIN)
        self.emit(ev.RunStarted(ev.MAIN, self.thread_id, self.prompt))
        try:
            if self._stop_requested:
                raise asyncio.CancelledError
            while True:
                async for chunk in graph.astream(
                    graph_input, config, stream_mode=list(ev.STREAM_MODES), subgraphs=True
                ):
                    for event in translator.translate(chunk):
                        self.emit(event)
                snapshot = await graph.aget_state(config)
                interrupts = tuple(
                    ev.InterruptRequest(id=str(i.id), value=i.value) for i in snapshot.interrupts
                )
                if interrupts and auto_approve:
                    graph_input = _approve_all(interrupts)
                    continue
                break
            if interrupts:
                self.emit(ev.RunPaused(ev.MAIN, interrupts))
            else:
                self.emit(ev.RunFinished(ev.MAIN, _final_answer(snapshot.values)))
        except asyncio.CancelledError:
            self.emit(ev.RunCancelled(ev.MAIN))
        except Exception as exc:  # a model or tool failure: shown on the run, never raised
            self.emit(ev.RunFailed(ev.MAIN, describe_failure(exc)))
        finally:
            self.workbench._release(self)
            self._done.set()

    # -- display ----------------------------------------------------------------------------

    def __repr__(self) -> str:
        result = self.result or self.error or ""
        result = result if len(result) <= 60 else result[:59] + "…"
        return (
            f"<Run {self.id} agent={self.workbench.name!r} thread={self.thread_id!r} "
            f"status={self.status!r} steps={self.state.steps}" + (f" {result!r}" if result else "") + ">"
        )

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, str]:
        from deepnb.views.snapshot import snapshot_bundle

        return snapshot_bundle(self.state)


def _approve_all(interrupts: tuple[ev.InterruptRequest, ...]) -> Any:
    from langgraph.types import Command

    def decisions(request: ev.InterruptRequest) -> dict[str, Any]:
        actions = request.value.get("action_requests", []) if isinstance(request.value, Mapping) else []
        return {"decisions": [{"type": "approve"} for _ in actions]}

    return Command(resume={request.id: decisions(request) for request in interrupts})


def _final_answer(values: Mapping[str, Any]) -> str:
    for message in reversed(values.get("messages") or []):
        if getattr(message, "type", None) == "ai":
            return ev.message_text(message.content)
    return ""


def describe_failure(exc: BaseException) -> str:
    """One line for an error card: the exception's type and message, secrets removed."""
    message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    text = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    return redact(text)[:500] + " — re-run the cell to retry from the last checkpoint."
