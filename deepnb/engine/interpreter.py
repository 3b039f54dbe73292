"""The QuickJS interpreter (``langchain-quickjs``): adding it to an agent, reading its ``eval``
results, and inspecting a thread's REPL globals from the notebook."""

from __future__ import annotations

import html
import inspect
import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from deepnb.core.displayable import Displayable
from deepnb.core.errors import DeepnbError
from deepnb.core.extras import install_command, require
from deepnb.core.handles import AgentHandle
from deepnb.core.text.safe_display import safe_display
from deepnb.core.text.safe_regex import compile_bounded

INSTALL = install_command("interpreter")
SNAPSHOT_KEY = "_quickjs_snapshot_payload"
HIDDEN_GLOBALS = compile_bounded(r"__console_\w+|console|task|tools|__tools_\w+")
"""Globals the interpreter installs itself (console capture, PTC bridges, ``task``)."""
INSPECT_TIMEOUT = 5.0
DEFAULT_TIMEOUT = 30.0
"""deepnb's default for ``timeout`` (seconds per ``eval``; the middleware's own is 5): notebooks on
shared machines such as Binder are slow, and an eval that awaits tools counts their time too."""


def _middleware_class() -> Any:
    return require("interpreter", "langchain_quickjs", what="The interpreter").CodeInterpreterMiddleware


def interpreter_options() -> list[str]:
    """The options ``interpreter={...}`` accepts (``CodeInterpreterMiddleware``'s arguments)."""
    return [p for p in inspect.signature(_middleware_class().__init__).parameters if p != "self"]


def interpreter_middleware(value: Literal[True] | Mapping[str, Any]) -> Any:
    """``interpreter=True`` or ``{"ptc": [...], "timeout": 30, ...}`` → the middleware."""
    cls = _middleware_class()
    options: dict[str, Any] = {} if value is True else dict(value)
    options.setdefault("timeout", DEFAULT_TIMEOUT)
    known = interpreter_options()
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise DeepnbError(f"Unknown interpreter option(s) {', '.join(unknown)}: use {', '.join(known)}.")
    if isinstance(options.get("ptc"), str):
        options["ptc"] = [name.strip() for name in options["ptc"].split(",") if name.strip()]
    with warnings.catch_warnings():  # the middleware is marked beta; deepnb says so in its docs
        warnings.simplefilter("ignore")
        try:
            return cls(**options)
        except (TypeError, ValueError) as exc:
            raise DeepnbError(f"Bad interpreter option: {exc}") from None


@dataclass(frozen=True)
class EvalOutcome:
    """What one ``eval`` call printed and returned (or the error it raised)."""

    stdout: str = ""
    result: str = ""
    error: str = ""
    error_type: str = ""


_PART = compile_bounded(
    r"<stdout>(.*?)</stdout>|<result>(.*?)</result>|<error(?:\s+type=\"([^\"]*)\")?>(.*?)</error>", re.DOTALL
)
"""An ``eval`` result's parts (the tool's output, which the model's code writes: matched by RE2)."""
PARTS = 8
"""Parts of an ``eval`` result read (it has three; more are the code's own output)."""


def parse_eval(text: str) -> EvalOutcome:
    """Split an ``eval`` tool result (``<stdout>``, ``<result>``, ``<error type=...>``) into parts,
    the XML escaping undone (views escape again for HTML)."""
    parts: dict[str, str] = {}
    error_type = ""
    for found in _PART.finditer(text, limit=PARTS):
        stdout, result, kind_type, error = found.groups()
        kind, body = next(
            (k, b) for k, b in (("stdout", stdout), ("result", result), ("error", error)) if b is not None
        )
        parts[kind] = html.unescape(body.strip("\n"))
        if kind == "error":
            error_type = html.unescape(kind_type or "")
    if not parts:
        return EvalOutcome(result=text)
    return EvalOutcome(parts.get("stdout", ""), parts.get("result", ""), parts.get("error", ""), error_type)


class Interpreter(Displayable):
    """A thread's REPL state, read on the host: the snapshot the interpreter saved after its last
    turn, restored into a fresh QuickJS runtime. Reading it never changes the thread. Displayed,
    a table of its globals."""

    def __init__(self, workbench: AgentHandle, thread_id: str) -> None:
        self.workbench = workbench
        self.thread_id = thread_id

    def _payload(self) -> bytes:
        payload = self.workbench.state_values(self.thread_id).get(SNAPSHOT_KEY)
        if not payload:
            raise DeepnbError(
                f"Thread {self.thread_id!r} has no interpreter state yet: it is saved when a run that "
                "used the interpreter ends (with interpreter mode 'thread', the default)."
            )
        return bytes(payload)

    def _context(self) -> tuple[Any, Any, set[str]]:
        quickjs = require("interpreter", "quickjs_rs", what="Inspecting the interpreter")
        Runtime, Snapshot = quickjs.Runtime, quickjs.Snapshot
        runtime = Runtime(memory_limit=256 * 1024 * 1024)
        context = runtime.new_context(timeout=INSPECT_TIMEOUT)
        builtins = set(context.eval("Object.getOwnPropertyNames(globalThis)"))
        runtime.restore_snapshot(Snapshot.from_bytes(self._payload()), context, inject_globals=True)
        return runtime, context, builtins

    def globals(self) -> dict[str, Any]:
        """The REPL's own globals (what the agent's code defined) as Python values; functions and
        values that don't convert are given as a short description."""
        _runtime, context, builtins = self._context()
        names = [
            n
            for n in context.eval("Object.getOwnPropertyNames(globalThis)")
            if n not in builtins and not HIDDEN_GLOBALS.fullmatch(n)
        ]
        return {name: _value(context, name) for name in names}

    def eval(self, code: str) -> Any:
        """Evaluate ``code`` against a copy of the thread's REPL state; the thread is unchanged.
        Tools and ``task()`` are not available here."""
        _runtime, context, _ = self._context()
        try:
            return context.eval(code)
        except Exception as exc:  # a JS error, a timeout, a value that doesn't convert
            raise DeepnbError(f"{type(exc).__name__}: {exc}") from None


@safe_display
@dataclass(frozen=True)
class JSValue:
    """A JS value that has no Python counterpart (a function, a class instance with methods…)."""

    description: str

    def __repr__(self) -> str:
        return self.description


def _value(context: Any, name: str) -> Any:
    ref = f"globalThis[{name!r}]"
    try:
        return context.eval(ref)
    except Exception:
        try:
            kind = context.eval(f"typeof {ref}")
            text = context.eval(f"String({ref}).slice(0, 200)")
        except Exception:
            return JSValue("<unreadable>")
        return JSValue(f"<{kind}: {text.splitlines()[0] if text else ''}>")
