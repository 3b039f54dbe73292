"""What a failed run says: which kind of failure it was, where it came from, and what helps.

Every failure of a run becomes one message here (:func:`failure_message`), and every place that
shows a failure shorter than it is clips it here (:func:`clip_failure`), so the run's ``error``,
its error card, the failed tool's card and a subagent's card agree. The kinds:

- ``"exit"``: code raised ``SystemExit``, ``KeyboardInterrupt``, ``GeneratorExit`` or a
  ``BaseException`` of its own (:mod:`deepnb.core.failures` says who and where);
- ``"transient"``: a model provider or the network failed (a rate limit, an overloaded or
  unreachable server, a timeout): re-running continues from the last checkpoint and can help;
- ``"tool"`` / ``"middleware"``: a programming error in a tool or a middleware hook: the message
  names it and the file:line, since re-running the same code fails the same way;
- ``"model"``: anything else raised around the model call (the provider refused the request,
  the chat model's own code): re-running from the checkpoint is what there is to try;
- ``"unreadable"``: the thread's checkpoint cannot be loaded (:mod:`deepnb.core.threads.reading`):
  another thread is what helps. An error that carries ``failure_hint`` (and its own
  ``failure_kind`` and ``failure_description``) is worded as it says.
"""

from __future__ import annotations

import inspect
import re
import sysconfig
from dataclasses import dataclass
from pathlib import Path
from types import FrameType, TracebackType
from typing import Literal, cast, get_args

from deepnb.core.failures import (
    ABORT_SEPARATOR,
    abort_in,
    describe_abort,
    describe_exception,
    exception_chain,
)
from deepnb.core.text.secrets import redact

FailureKind = Literal["exit", "transient", "tool", "middleware", "code", "model", "unreadable"]
_KINDS: frozenset[str] = frozenset(get_args(FailureKind))
RETRY_HINT = "re-run the cell to retry from the last checkpoint."
FIX = "fix it, rebuild the agent, then run the cell again."
"""What helps a bug in a tool or a middleware (re-running the same code fails the same way)."""
SHOWN_LIMIT = 600
"""Characters of a failure's description an error card shows before it is clipped."""
PREVIEW_LIMIT = 160
"""Characters of a failure a subagent's or a tool's card shows as its one-line result."""
SEPARATOR = ABORT_SEPARATOR
"""Between a failure's description and what to do about it."""

_HOOKS = frozenset(
    f"{prefix}{hook}"
    for hook in (
        "before_agent",
        "before_model",
        "after_model",
        "after_agent",
        "wrap_model_call",
        "wrap_tool_call",
    )
    for prefix in ("", "a")
)
"""The middleware hooks (sync and async) whose frames make a failure the middleware's."""
_TRANSIENT_NAMES = re.compile(
    r"RateLimit|Overloaded|APIConnection|APITimeout|InternalServerError|ServiceUnavailable"
    r"|Timeout|ConnectError|ConnectionError|NetworkError|RemoteProtocolError|ReadError"
)
_TRANSIENT_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
_MODEL_CALLS = frozenset({"_execute_model_sync", "_execute_model_async"})
"""LangChain's innermost model-call step: a failure below it is the model's, not a hook's."""
_LIBRARY_DIRS = tuple(
    {
        *(sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")),
        str(Path(__file__).resolve().parents[1]),
    }
)
"""Code that is not the user's: where a failure is located, frames from here are passed over."""


PATH_REFUSED = "it leads outside the agent's folder on disk (through a link, or '..')"
"""What a disk backend's refusal of a path says (never the host path it resolved to)."""
PATH_HINT = (
    "nothing was read or written there: the agent's file tools follow no link out of their "
    "folder. Remove the link, or copy what it points to into the folder, then run the cell again."
)
_RESOLVERS = frozenset({"_resolve_path", "_raise_if_symlink_loop"})
"""The functions where deepagents' disk backends refuse a path (outside the root, a loop)."""


def _path_refused(exc: BaseException, frames: list[tuple[FrameType, int]]) -> bool:
    """Whether ``exc`` is a disk backend refusing a path, raised where it resolves paths."""
    return isinstance(exc, ValueError | OSError) and any(
        frame.f_code.co_name in _RESOLVERS and "deepagents" in frame.f_code.co_filename
        for frame, _ in frames[:3]
    )


@dataclass(frozen=True)
class Failure:
    """A run's failure, explained: its ``kind``, ``description`` (``Type: message``, secrets
    removed, the message's first line whole), ``culprit`` (the tool or middleware, if any),
    ``where`` (``function() in file.py:12``) and ``hint`` (what to do)."""

    kind: FailureKind
    description: str
    hint: str
    culprit: str = ""
    where: str = ""

    @property
    def message(self) -> str:
        """The whole message: the run's ``error``."""
        return f"{self.description}{SEPARATOR}{self.hint}"


def explain(exc: BaseException, *, tools: tuple[str, ...] = ()) -> Failure:
    """The failure ``exc`` as a run reports it; ``tools`` are the tools whose calls raised it."""
    abort = abort_in(exc)
    if abort is not None:
        description, _, hint = redact(describe_abort(abort, tools=tools)).rpartition(SEPARATOR)
        return Failure("exit", description, hint, tools[0] if tools else "")
    description = describe_exception(exc)
    given = getattr(exc, "failure_hint", None)  # an error that knows what to do (a lost server)
    if isinstance(given, str) and given:
        kind = getattr(exc, "failure_kind", "transient")
        said = getattr(exc, "failure_description", None)  # its own words, without its type
        words = redact(said) if isinstance(said, str) and said else description
        return Failure(cast(FailureKind, kind if kind in _KINDS else "transient"), words, redact(given))
    frames = _frames(exc)
    site = _site(frames)
    where = _where(frames)
    if _transient(exc):
        if site is not None and site[0] == "tool":  # say which tool met it
            name = str(getattr(site[1], "name", "") or "") or (tools[-1] if tools else "")
            hint = f"the tool {name} met a network or provider error that may pass: {RETRY_HINT}"
            return Failure("transient", description, redact(hint), name)
        return Failure("transient", description, RETRY_HINT)
    if site is not None and site[0] == "middleware":
        owner, hook = site[1], site[2]
        name = str(getattr(owner, "name", type(owner).__name__))
        if isinstance(exc, NotImplementedError) and _left_to_base(owner, hook):
            where = _class_location(type(owner))
            hint = (
                f"the middleware {name} ({where}) defines only the sync hook {hook.removeprefix('a')}, "
                f"and deepnb runs agents asynchronously: give it {hook} too, then rebuild the agent."
            )
        else:
            hint = f"a bug in the middleware {name} ({where}): {FIX}"
        return Failure("middleware", description, redact(hint), name, where)
    if site is not None and site[0] == "tool":
        inner = str(getattr(site[1], "name", "") or "")
        name = inner or (tools[-1] if tools else "")
        what = f"the tool {name}" if name else "a tool"
        if _path_refused(exc, frames):
            return Failure("tool", f"{name or 'A tool'} refused the path: {PATH_REFUSED}", PATH_HINT, name)
        hint = f"a bug in {what} ({where}): {FIX}"
        return Failure("tool", description, redact(hint), name, where)
    if _in_own_code(frames):  # a graph's node, a model class of the notebook's: re-running fails again
        hint = f"a bug in the graph's own code ({where}): {FIX}"
        return Failure("code", description, redact(hint), where=where)
    return Failure("model", description, RETRY_HINT, where=where)


def _in_own_code(frames: list[tuple[FrameType, int]]) -> bool:
    """Whether the failure passed through the user's own code (not only a library's or deepnb's)."""
    return any(not frame.f_code.co_filename.startswith((*_LIBRARY_DIRS, "<frozen")) for frame, _ in frames)


def failure_message(exc: BaseException, *, tools: tuple[str, ...] = ()) -> str:
    """The one message a failed run keeps as ``run.error``."""
    return explain(exc, tools=tools).message


def clip_failure(text: str, limit: int = SHOWN_LIMIT) -> str:
    """``text`` (a failure message) shortened for a card: the description is cut at the end of
    a sentence or a line within ``limit`` characters, never inside one (a word boundary only when
    no sentence ends early enough), marked with how much was left out; what to do stays whole."""
    description, separator, hint = text.rpartition(SEPARATOR) if SEPARATOR in text else (text, "", "")
    if len(description) <= limit:
        return text
    head = description[:limit]
    ends = [m.end() for m in re.finditer(r"[.!?:;](?=\s)|\n", head)]
    cut = ends[-1] if ends and ends[-1] >= limit // 3 else head.rfind(" ")
    cut = cut if cut > 0 else limit
    kept = description[:cut].rstrip()
    left = len(description) - len(kept)
    note = f" … ({left:,} more characters: run.error has all of it)"
    return kept + note + (separator + hint if separator else "")


def _transient(exc: BaseException) -> bool:
    """A provider or network failure that may pass, by its type or its HTTP status."""
    for link in exception_chain(exc):
        names = " ".join(k.__name__ for k in type(link).__mro__)
        if _TRANSIENT_NAMES.search(names) or isinstance(link, ConnectionError | TimeoutError):
            return True
        response = getattr(link, "response", None)
        status = getattr(link, "status_code", None) or getattr(response, "status_code", None)
        if isinstance(status, int) and status in _TRANSIENT_STATUS:
            return True
    return False


def _frames(exc: BaseException) -> list[tuple[FrameType, int]]:
    """The frames ``exc`` passed through, innermost first (of the exception that started it)."""
    origin = exception_chain(exc)[-1] if exc.__traceback__ is None else exc
    tb: TracebackType | None = origin.__traceback__
    found: list[tuple[FrameType, int]] = []
    while tb is not None:
        found.append((tb.tb_frame, tb.tb_lineno))
        tb = tb.tb_next
    return found[::-1]


def _kind_of(value: object, base: str) -> bool:
    """Whether ``value`` is an instance of a class named ``base`` (LangChain is not imported
    here: the engine's lower layers stay light)."""
    return any(k.__name__ == base for k in type(value).__mro__)


def _site(frames: list[tuple[FrameType, int]]) -> tuple[str, object, str] | None:
    """Where the failure was raised, from the innermost frame out: in a tool (``"tool"``, the
    tool), in the model's call (``"model"``), or in a middleware hook (``"middleware"``, the
    middleware, the hook's name); ``None`` when no frame says."""
    for frame, _ in frames:
        code, owner = frame.f_code, frame.f_locals.get("self")
        if code.co_name in ("run", "arun") and _kind_of(owner, "BaseTool"):
            return "tool", owner, code.co_name
        if code.co_name in ("_run_one", "_arun_one") and "tool_node" in code.co_filename:
            return "tool", None, code.co_name
        if code.co_name in _MODEL_CALLS or _kind_of(owner, "BaseChatModel"):
            return "model", owner, code.co_name
        if code.co_name in _HOOKS and _kind_of(owner, "AgentMiddleware"):
            return "middleware", owner, code.co_name
    return None


def _left_to_base(owner: object, hook: str) -> bool:
    """Whether ``owner``'s class leaves ``hook`` to ``AgentMiddleware`` (which raises for it)."""
    for klass in type(owner).__mro__:
        if hook in vars(klass):
            return klass.__name__ == "AgentMiddleware"
    return False


def _class_location(klass: type) -> str:
    """``class Name in file.py:12`` (``class Name`` when its source can't be found)."""
    try:
        line = inspect.getsourcelines(klass)[1]
        return f"class {klass.__name__} in {Path(inspect.getfile(klass)).name}:{line}"
    except (OSError, TypeError):
        return f"class {klass.__name__}"


def _where(frames: list[tuple[FrameType, int]]) -> str:
    """``function() in file.py:12``: the innermost frame of the user's own code (not the
    standard library's, an installed package's or deepnb's), else the innermost frame."""
    chosen = next(((f, n) for f, n in frames if not f.f_code.co_filename.startswith(_LIBRARY_DIRS)), None)
    if chosen is None and frames:
        chosen = frames[0]
    if chosen is None:
        return ""
    frame, line = chosen
    return f"{frame.f_code.co_name}() in {Path(frame.f_code.co_filename).name}:{line}"
