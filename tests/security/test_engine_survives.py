"""The engine never dies: whatever code on the engine loop raises — SystemExit, KeyboardInterrupt,
GeneratorExit or a BaseException of its own — the run ends with a final status that names it, the
engine thread keeps serving, and the next run finishes.

Two enumerations: what a run executes (a tool, sync and async; a middleware hook, sync and async;
the chat model), and every other place code runs on the engine loop or in its callbacks (a run
listener, a view's throttled flush, a file listener, the file browser's watch, a coroutine
through ``submit``/``run_sync``, a callback through ``call_soon``/``call_later``, and extension
shutdown hooks)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain.agents.middleware import AgentMiddleware
from langchain_core.tools import tool

import deepnb
from deepnb.core import loop as _loop
from deepnb.core.failures import EngineAbort
from deepnb.models.scripted import ScriptedChatModel, parse_script
from deepnb.session.run import Run
from tests.support.waiting import WAIT, wait_until


class Custom(BaseException):
    """A BaseException of the agent's own."""


KINDS = [SystemExit, KeyboardInterrupt, GeneratorExit, Custom]


def _script(turns: list[dict[str, Any]]) -> Any:
    return parse_script({"agents": {"main": turns}})


CALL_BOOM = [{"tool_calls": [{"name": "boom", "args": {"x": "1"}}]}, {"text": "after"}]
PLAIN = [{"text": "fine"}]


def _tool(kind: type[BaseException], *, is_async: bool) -> Any:
    if is_async:

        @tool
        async def boom(x: str) -> str:
            """Raise."""
            raise kind("from the tool")

    else:

        @tool
        def boom(x: str) -> str:
            """Raise."""
            raise kind("from the tool")

    return boom


def _middleware(kind: type[BaseException], *, is_async: bool) -> AgentMiddleware:
    if is_async:

        class AsyncHook(AgentMiddleware):
            async def abefore_model(self, state: Any, runtime: Any) -> None:
                raise kind("from a middleware")

        return AsyncHook()

    class SyncHook(AgentMiddleware):
        def before_model(self, state: Any, runtime: Any) -> None:
            raise kind("from a middleware")

    return SyncHook()


class FailingModel(ScriptedChatModel):
    """A chat model that raises ``kind`` whichever way it is called."""

    kind: Any = None

    def _generate(self, *args: Any, **kwargs: Any) -> Any:
        raise self.kind("from the model")

    async def _agenerate(self, *args: Any, **kwargs: Any) -> Any:
        raise self.kind("from the model")

    def _stream(self, *args: Any, **kwargs: Any) -> Iterator[Any]:
        raise self.kind("from the model")

    async def _astream(self, *args: Any, **kwargs: Any) -> Any:
        raise self.kind("from the model")
        yield  # an async generator, as LangChain expects


def _agent(source: str, kind: type[BaseException]) -> deepnb.Workbench:
    name = f"survive-{source}-{kind.__name__}"
    if source in ("tool", "async tool"):
        boom = _tool(kind, is_async=source == "async tool")
        return deepnb.agent(name=name, model=ScriptedChatModel(script=_script(CALL_BOOM)), tools=[boom])
    if source in ("middleware", "async middleware"):
        hook = _middleware(kind, is_async=source == "async middleware")
        return deepnb.agent(name=name, model=ScriptedChatModel(script=_script(PLAIN)), middleware=[hook])
    return deepnb.agent(name=name, model=FailingModel(script=_script(PLAIN), kind=kind))


def _engine_serves(thread: threading.Thread) -> None:
    """The same engine thread is alive and runs the next task to the end."""
    assert _loop._thread is thread and thread.is_alive()
    after = deepnb.agent(name="survive-after", model=ScriptedChatModel(script=_script(PLAIN)))
    run = after.start("again", new_thread=True).wait(WAIT)
    assert (run.status, run.result) == ("done", "fine")
    assert _loop._thread is thread


@pytest.fixture
def engine() -> threading.Thread:
    _loop.engine_loop()
    assert _loop._thread is not None
    return _loop._thread


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
@pytest.mark.parametrize("source", ["tool", "async tool", "middleware", "async middleware", "model"])
def test_a_run_ends_whatever_its_code_raises(engine: threading.Thread, source: str, kind: type) -> None:
    workbench = _agent(source, kind)
    run = workbench.start("go", new_thread=True)
    run.wait(WAIT)  # a run that never ends fails here

    assert run.status == "error"
    assert kind.__name__ in run.error
    assert "deepnb stopped the run" in run.error
    assert "re-run the cell" not in run.error  # retrying would only exit again
    assert "…" not in run.error  # said in full, not cut mid-sentence
    assert run.state.items[-1] == {"kind": "error", "text": run.error, "id": run.state.items[-1]["id"]}
    if "tool" in source:
        assert run.error.startswith("The tool boom raised")
        (card,) = [i for i in run.state.items if i["kind"] == "tool"]
        assert card["status"] == "error"  # the card shows the failure, not "done" or "interrupted"
    assert workbench.active_run(run.thread_id) is None  # the thread is free again
    _engine_serves(engine)


# -- every other place code runs on the engine loop ------------------------------------------------


def _raiser(kind: type[BaseException], calls: list[str], name: str) -> Callable[..., None]:
    def raise_it(*_args: Any) -> None:
        calls.append(name)
        raise kind(f"from {name}")

    return raise_it


def _until(predicate: Callable[[], bool]) -> None:
    wait_until(predicate, "the callback to run")


def _run_listener(kind: type[BaseException], calls: list[str]) -> None:
    bench = deepnb.agent(name="survive-listener", model=ScriptedChatModel(script=_script(PLAIN)))
    run = bench.start("go", new_thread=True)
    run.subscribe(_raiser(kind, calls, "listener"))
    run.wait(WAIT)
    assert run.status == "done"  # a listener's failure is not the run's


def _view_flush(kind: type[BaseException], calls: list[str]) -> None:
    from deepnb.views.throttle import Throttle

    throttle = Throttle(_raiser(kind, calls, "flush"), interval=0.01)
    throttle.poke()
    _until(lambda: len(calls) == 1)
    throttle.poke()  # the throttle still works after a failed flush
    _until(lambda: len(calls) == 2)


def _file_listener(kind: type[BaseException], calls: list[str]) -> None:
    from deepnb.engine.files import watch

    class Listener:
        def changed(self, paths: Any) -> None:
            _raiser(kind, calls, "file listener")(paths)

    listener = Listener()
    stop = watch.listen("survive-files", "t1", listener.changed)
    # From another thread (on the kernel's own thread a KeyboardInterrupt is the user's Ctrl-C,
    # and goes on up), and from the engine loop.
    worker = threading.Thread(target=watch.announce, args=("survive-files", "t1", ["/a.md"]))
    worker.start()
    worker.join(WAIT)
    _loop.run_sync(_announce_async())
    stop()
    assert calls == ["file listener", "file listener"]


async def _announce_async() -> None:
    from deepnb.engine.files import watch

    watch.announce("survive-files", "t1", ["/b.md"])


def _files_view_watch(kind: type[BaseException], calls: list[str]) -> None:
    from deepnb.views.files.files_view import FilesView

    bench = deepnb.agent(name="survive-view", model=ScriptedChatModel(script=_script(PLAIN)))
    view = FilesView(bench.files(bench.new_thread()))
    view._check_for_new_run = _raiser(kind, calls, "watch")  # type: ignore[method-assign]
    _until(lambda: len(calls) >= 2)  # it looked again after the failure
    view.close()


def _submitted(kind: type[BaseException], calls: list[str]) -> None:
    async def coroutine() -> None:
        _raiser(kind, calls, "coroutine")()

    with pytest.raises(EngineAbort) as caught:  # an Exception for the caller, not an exit
        _loop.run_sync(coroutine())
    assert isinstance(caught.value.original, kind)
    with pytest.raises(EngineAbort):
        _loop.submit(coroutine()).result(WAIT)


def _callbacks(kind: type[BaseException], calls: list[str]) -> None:
    _loop.call_soon(_raiser(kind, calls, "call_soon"), what="a test callback")
    _loop.run_sync(_later(kind, calls))
    _until(lambda: calls == ["call_soon", "call_later"])


async def _later(kind: type[BaseException], calls: list[str]) -> None:
    _loop.call_later(0.01, _raiser(kind, calls, "call_later"), what="a test callback")


def _shutdown_hooks(kind: type[BaseException], calls: list[str]) -> None:
    from deepnb import extensions
    from deepnb.extensions.registry import Registration, Source

    async def async_hook() -> None:
        _raiser(kind, calls, "async hook")()

    source = Source(Path("hooks.py"), "notebook")
    hooks = [
        Registration(1, "shutdown", "first", lambda: calls.append("first"), source),
        Registration(2, "shutdown", "sync", _raiser(kind, calls, "sync hook"), source),
        Registration(3, "shutdown", "async", async_hook, source),
    ]
    errors = extensions._run_hooks(hooks)
    assert calls == ["async hook", "sync hook", "first"]  # last registered first; all of them ran
    failed = [f"shutdown callback of hooks failed: {kind.__name__}: from {n} hook" for n in ("async", "sync")]
    assert errors == failed


CALLBACKS = {
    "run listener": _run_listener,
    "view flush": _view_flush,
    "file listener": _file_listener,
    "file browser watch": _files_view_watch,
    "submit and run_sync": _submitted,
    "call_soon and call_later": _callbacks,
    "extension shutdown hooks": _shutdown_hooks,
}


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
@pytest.mark.parametrize("place", list(CALLBACKS))
def test_callbacks_on_the_engine_never_stop_it(engine: threading.Thread, place: str, kind: type) -> None:
    calls: list[str] = []
    CALLBACKS[place](kind, calls)
    assert calls
    _engine_serves(engine)


def test_run_objects_keep_their_contract(engine: threading.Thread) -> None:
    """A stopped run still says why; a bug in a tool names the tool and where, and says to fix
    it rather than to retry (re-running the same code fails the same way)."""
    bench = _agent("tool", ValueError)  # type: ignore[arg-type]
    run: Run = bench.start("go", new_thread=True).wait(WAIT)
    assert run.status == "error"
    assert run.error.startswith("ValueError: from the tool")
    assert run.error.endswith("fix it, rebuild the agent, then run the cell again.")
    assert "the tool boom (boom() in test_engine_survives.py:" in run.error
    assert "retry" not in run.error
