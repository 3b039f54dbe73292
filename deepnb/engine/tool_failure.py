"""Whether a tool call failed, and the error its card shows: one rule for every tool.

A tool message whose ``status`` is ``"error"`` failed (deepagents' file tools, a call whose
arguments the tool refused, a tool that raised). A few built-in tools say they failed in their
text instead, with the status left at ``"success"``: :data:`TEXT_FAILURES` names them and how
each says it. A failed call's card shows its error, never what the call would have changed.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from deepnb.core.text.safe_regex import compile_bounded
from deepnb.engine.interpreter import parse_eval

_EXIT_FAILED = compile_bounded(r"\[Command failed with exit code (-?\d+)\]")
"""How deepagents' ``execute`` tool ends the output of a command that exited non-zero."""
_NO_SUBAGENT = "We cannot invoke subagent "
"""How deepagents' ``task`` tool answers a call naming a subagent the agent does not have."""
_REFUSED_HEAD = compile_bounded(r"^Error (?:invoking|executing) tool '[^'\n]*' with kwargs ", re.DOTALL)
"""LangGraph's message for a call whose arguments the tool refused, or a tool that raised: the
arguments' repr (one line: a repr escapes line breaks) follows, then ``with error:`` and the error."""
_REFUSED_ERROR = " with error:\n"
_REFUSED_TAIL = "\n Please fix the error and try again."

TEXT_FAILURES: dict[str, Callable[[str], bool]] = {
    "execute": lambda text: _EXIT_FAILED.search(text) is not None,
    "task": lambda text: text.startswith(_NO_SUBAGENT),
    "eval": lambda text: parse_eval(text).error != "",
}
"""Built-in tools that report a failure in their text, not the message's status: tool name →
whether a result says the call failed (the interpreter's tool is ``eval``)."""


def failed(name: str, text: str, *, is_error: bool) -> bool:
    """Whether a call of tool ``name`` that returned ``text`` (with ``is_error``, the tool
    message's status) failed."""
    if is_error:
        return True
    says = TEXT_FAILURES.get(name)
    return says is not None and says(text)


def error_text(text: str) -> str:
    """A failed call's result as its card shows it: the error alone, without the repr of the
    arguments LangGraph's message puts before it (arguments the call did not apply; the card
    shows the arguments as sent on their own)."""
    head = _REFUSED_HEAD.search(text)
    at = text.find(_REFUSED_ERROR) if head is not None else -1
    if at < 0:
        return text
    error = text[at + len(_REFUSED_ERROR) :]
    error = error.removesuffix(_REFUSED_TAIL).strip()
    return f"Error: {error}" if error else text
