"""Code that raises what is not an ``Exception``, and code that fails where deepnb can name it.

Tools, middleware, models, run listeners and view callbacks all run on the engine loop. Any of
them may raise a ``BaseException`` that is not an ``Exception`` — ``SystemExit``,
``KeyboardInterrupt``, ``GeneratorExit`` or a class of its own. Left alone, ``SystemExit`` and
``KeyboardInterrupt`` escape asyncio's task step and stop the engine thread (every run then says
"running" forever), and the others leave a run without a final status. deepnb treats each as a
failure of the code that raised it: this module recognizes them, says where they came from, and
runs callbacks so that nothing they raise reaches the loop.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

from deepnb.core.text.secrets import redact

log = logging.getLogger("deepnb")

HELD_LIMIT = 16
"""Items of a frame's list looked at for a held exception."""


ABORT_SEPARATOR = " — "
"""Between what exited and what deepnb did about it (the separator of every run failure)."""
_IGNORED_EXIT = "coroutine ignored GeneratorExit"
"""What Python raises in place of a ``GeneratorExit`` that leaves a coroutine LangChain awaits."""


class EngineAbort(RuntimeError):
    """Code run on the engine loop raised a ``BaseException`` that is not an ``Exception``
    (``original``); deepnb stopped what it was doing and raised this in its place."""

    def __init__(self, original: BaseException) -> None:
        self.original = original
        super().__init__(f"{describe_exception(original)} (deepnb stopped the code that raised it)")


def is_abort(exc: BaseException) -> bool:
    """Whether ``exc`` is a ``BaseException`` that is neither an ``Exception`` nor cancellation."""
    return not isinstance(exc, Exception | asyncio.CancelledError)


def exception_chain(exc: BaseException) -> list[BaseException]:
    """``exc``, then what it was raised from or while handling, and so on (each once)."""
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and all(current is not s for s in seen):
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def abort_in(exc: BaseException) -> BaseException | None:
    """The exit-like exception behind ``exc``: itself, one it was raised from or while handling
    (Python turns a ``GeneratorExit`` raised inside a coroutine into a ``RuntimeError``), or the
    original of an :class:`EngineAbort`. ``None`` for an ordinary failure."""
    for link in exception_chain(exc):
        if isinstance(link, EngineAbort):
            return link.original
        if is_abort(link) or (isinstance(link, RuntimeError) and str(link) == _IGNORED_EXIT):
            return link
    return _held_on_the_way(exc)


def _held_on_the_way(exc: BaseException) -> BaseException | None:
    """An exit-like exception that a frame on ``exc``'s way up was holding: LangChain's
    ``agenerate`` gathers a model's ``SystemExit`` as a result, then fails with an
    ``AttributeError`` of its own while handling it, which loses the original."""
    for link in exception_chain(exc):
        tb: TracebackType | None = link.__traceback__
        while tb is not None:
            for value in tb.tb_frame.f_locals.values():
                held = value if isinstance(value, list | tuple) else (value,)
                for item in held[:HELD_LIMIT]:
                    if isinstance(item, BaseException) and is_abort(item):
                        return item
            tb = tb.tb_next
    return None


def describe_exception(exc: BaseException) -> str:
    """``Type: first line of the message`` (just ``Type`` without one), whole, secrets removed
    (a card that shows less clips it at a sentence: :func:`deepnb.core.explain.clip_failure`)."""
    text = redact(str(exc)).strip()
    first = text.splitlines()[0].strip() if text else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def origin(exc: BaseException) -> str:
    """Where ``exc`` was raised: ``boom() in tools.py:12`` (the innermost frame), or ``""``."""
    tb: TracebackType | None = exc.__traceback__
    if tb is None:
        return ""
    while tb.tb_next is not None:
        tb = tb.tb_next
    code = tb.tb_frame.f_code
    return f"{code.co_name}() in {Path(code.co_filename).name}:{tb.tb_lineno}"


def failed_tool_calls(exc: BaseException) -> tuple[str, ...]:
    """The ids of the tool calls whose execution raised ``exc`` (read from the frames of
    LangGraph's tool node on its way up); empty when the failure was not a tool's."""
    found: list[str] = []
    for link in exception_chain(exc):
        tb: TracebackType | None = link.__traceback__
        while tb is not None:
            frame = tb.tb_frame
            if frame.f_code.co_name in ("_arun_one", "_run_one") and "tool_node" in frame.f_code.co_filename:
                call = frame.f_locals.get("call")
                if isinstance(call, Mapping) and call.get("id") and str(call["id"]) not in found:
                    found.append(str(call["id"]))
            tb = tb.tb_next
    return tuple(found)


def describe_abort(exc: BaseException, *, tools: tuple[str, ...] = ()) -> str:
    """One line for a run stopped by exit-like code: who raised what, and that deepnb stopped."""
    who = (
        f"The tool {tools[0]}"
        if len(tools) == 1
        else f"One of the tools {', '.join(tools)}"
        if tools
        else "The agent's code"
    )
    where = origin(exc)
    return (
        f"{who} raised {describe_exception(exc)}"
        + (f" ({where})" if where else "")
        + f"{ABORT_SEPARATOR}deepnb stopped the run. Have it raise an Exception instead."
    )


def contained(function: Callable[..., Any], *args: Any, what: str, quiet: bool = False) -> None:
    """Call ``function(*args)``; whatever it raises is logged (at debug level when ``quiet``),
    never raised — except a ``KeyboardInterrupt`` on the main thread, which is the user's Ctrl-C."""
    try:
        function(*args)
    except BaseException as exc:  # a callback's failure must not stop the engine or a run
        if isinstance(exc, KeyboardInterrupt) and threading.current_thread() is threading.main_thread():
            raise
        level = logging.DEBUG if quiet else logging.WARNING
        log.log(level, "deepnb: %s raised %s; ignored", what, type(exc).__name__, exc_info=True)
