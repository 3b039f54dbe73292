"""The QuickJS interpreter (``langchain-quickjs``): adding it to an agent, reading its ``eval``
results, and inspecting a thread's REPL globals from the notebook."""

from __future__ import annotations

import html
import inspect
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from deepnb.errors import DeepnbError
from deepnb.render import escape
from deepnb.safe_display import safe_display

if TYPE_CHECKING:
    from deepnb.workbench import Workbench

INSTALL = "pip install 'deepnb[interpreter]'"
SNAPSHOT_KEY = "_quickjs_snapshot_payload"
HIDDEN_GLOBALS = re.compile(r"^(__console_\w+|console|task|tools|__tools_\w+)$")
"""Globals the interpreter installs itself (console capture, PTC bridges, ``task``)."""
INSPECT_TIMEOUT = 5.0
DEFAULT_TIMEOUT = 30.0
"""deepnb's default for ``timeout`` (seconds per ``eval``; the middleware's own is 5): notebooks on
shared machines such as Binder are slow, and an eval that awaits tools counts their time too."""


def _middleware_class() -> Any:
    try:
        from langchain_quickjs import CodeInterpreterMiddleware
    except ImportError:
        raise DeepnbError(f"The interpreter needs langchain-quickjs: {INSTALL}") from None
    return CodeInterpreterMiddleware


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
    import warnings

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


_PART = re.compile(r"<(stdout|result|error)(?:\s+type=\"([^\"]*)\")?>(.*?)</\1>", re.S)


def parse_eval(text: str) -> EvalOutcome:
    """Split an ``eval`` tool result (``<stdout>``, ``<result>``, ``<error type=...>``) into parts,
    the XML escaping undone (views escape again for HTML)."""
    parts: dict[str, str] = {}
    error_type = ""
    for kind, kind_type, body in _PART.findall(text):
        parts[kind] = html.unescape(body.strip("\n"))
        if kind == "error":
            error_type = html.unescape(kind_type)
    if not parts:
        return EvalOutcome(result=text)
    return EvalOutcome(parts.get("stdout", ""), parts.get("result", ""), parts.get("error", ""), error_type)


@safe_display
class Interpreter:
    """A thread's REPL state, read on the host: the snapshot the interpreter saved after its last
    turn, restored into a fresh QuickJS runtime. Reading it never changes the thread."""

    def __init__(self, workbench: Workbench, thread_id: str) -> None:
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
        try:
            from quickjs_rs import Runtime, Snapshot
        except ImportError:
            raise DeepnbError(f"Inspecting the interpreter needs quickjs-rs: {INSTALL}") from None
        runtime = Runtime(memory_limit=256 * 1024 * 1024)
        context = runtime.new_context(timeout=INSPECT_TIMEOUT)
        builtins = set(context.eval("Object.getOwnPropertyNames(globalThis)"))
        runtime.restore_snapshot(Snapshot.from_bytes(self._payload()), context, inject_globals=True)
        return runtime, context, builtins

    def globals(self) -> dict[str, Any]:
        """The REPL's own globals (what the agent's code defined) as Python values; functions and
        values that don't convert are shown by a short description."""
        _runtime, context, builtins = self._context()
        names = [
            n
            for n in context.eval("Object.getOwnPropertyNames(globalThis)")
            if n not in builtins and not HIDDEN_GLOBALS.match(n)
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

    def __repr__(self) -> str:
        values = self.globals()
        if not values:
            return f"Interpreter of thread {self.thread_id!r}: no globals."
        lines = [f"Interpreter of thread {self.thread_id!r}:"]
        lines += [f"  {name} = {_short(value)}" for name, value in values.items()]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        values = self.globals()
        rows = "".join(
            f"<tr><td><code>{escape(name)}</code></td><td>{escape(type(value).__name__)}</td>"
            f"<td><code>{escape(_short(value))}</code></td></tr>"
            for name, value in values.items()
        )
        title = f"Interpreter globals of thread {self.thread_id}"
        if not rows:
            return f'<div class="deepnb-snapshot">{escape(title)}: none.</div>'
        return (
            f'<div class="deepnb-snapshot"><div><b>{escape(title)}</b></div><table class="deepnb-table">'
            f"<thead><tr><th>Name</th><th>Type</th><th>Value</th></tr></thead><tbody>{rows}</tbody></table></div>"
        )


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


def _short(value: Any, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
