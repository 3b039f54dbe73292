"""The run view's thread switcher: this agent's threads, and one thread's latest state, read-only.

Everything goes through the session protocol (:meth:`Session.threads`, :meth:`Session.state_values`),
so a local agent and one on a LangGraph server show the same. A thread's state is drawn as its
todos and its newest messages (the human's prompts, the model's answers, the tool calls and their
results, each clipped), escaped and with secrets removed, within :data:`PREVIEW_BUDGET` bytes so
the reply fits in one front-end message.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from typing import Any

from deepnb.core.call_args import json_text
from deepnb.core.errors import DeepnbError
from deepnb.core.graphs.messages import field, text_of
from deepnb.core.text.markup import escape, markdown
from deepnb.core.text.secrets import redact
from deepnb.engine.state import todo_progress
from deepnb.session.protocol import Session
from deepnb.views.bounds import size
from deepnb.views.listings import todos_html

PREVIEW_BUDGET = 40 * 1024
"""Bytes of HTML one thread's preview carries at most (its newest messages first)."""
THREADS_LISTED = 50
"""The most recently updated threads listed."""
TEXT_CHARS = 1_500
"""Characters of one message's text kept."""


def thread_rows(session: Session) -> list[dict[str, Any]]:
    """The agent's threads, newest first: ``{thread_id, updated_at, steps}``."""
    return [
        {"thread_id": redact(t.thread_id), "updated_at": t.updated_at[:19], "steps": t.steps}
        for t in session.threads()[:THREADS_LISTED]
    ]


def threads_message(session: Session) -> dict[str, Any]:
    """The reply to the switcher's ``{"type": "threads"}``."""
    try:
        return {"type": "threads", "threads": thread_rows(session), "error": ""}
    except Exception as exc:  # shown in the switcher rather than lost in the kernel log
        return {"type": "threads", "threads": [], "error": redact(f"Could not list the threads: {exc}")}


def _clip(text: str) -> str:
    text = redact(text)
    return text if len(text) <= TEXT_CHARS else text[:TEXT_CHARS] + f"… ({len(text) - TEXT_CHARS:,} more)"


def _call(call: Any) -> str:
    """A tool call as ``name(args)``, in LangChain's shape (``name``, ``args``) or OpenAI's
    (``function: {name, arguments}``, the arguments a JSON string)."""
    function = field(call, "function") or {}
    name = str(field(call, "name") or field(function, "name") or "?")
    given = field(call, "args")
    if given is None:
        given = field(function, "arguments")
    if isinstance(given, str):
        with contextlib.suppress(ValueError):
            given = json.loads(given)
    args = given if isinstance(given, str) else json_text(given or {})  # any JSON the model sent
    return f"{name}({args[1:-1] if args.startswith('{') else args})"


def message_html(message: Any) -> str:
    """One message of a thread as safe HTML."""
    kind = str(field(message, "type") or field(message, "role") or "")
    text = text_of(field(message, "content"))
    if kind in ("human", "user"):
        return f'<div class="dnb-thread-msg dnb-prompt">› {escape(_clip(text))}</div>'
    if kind == "tool":
        name = escape(str(field(message, "name") or "tool"))
        return f'<div class="dnb-thread-msg dnb-muted">{name} → {escape(_clip(text))}</div>'
    if kind in ("ai", "assistant"):
        calls = "".join(
            f'<div class="dnb-thread-msg dnb-thread-call">→ {escape(_clip(_call(c)))}</div>'
            for c in field(message, "tool_calls") or []
        )
        body = f'<div class="dnb-thread-msg dnb-md">{markdown(_clip(text))}</div>' if text.strip() else ""
        return body + calls
    return ""


def thread_html(values: Mapping[str, Any]) -> str:
    """A thread's latest state as safe HTML: its todos and its newest messages, within budget."""
    todos = [dict(t) for t in values.get("todos") or []]
    head = todos_html(todos, todo_progress(todos))
    messages = list(values.get("messages") or [])
    kept: list[str] = []
    spent = size(head)
    for message in reversed(messages):
        html = message_html(message)
        if spent + size(html) > PREVIEW_BUDGET:
            break
        kept.append(html)
        spent += size(html)
    left = len(messages) - len(kept)
    note = f'<div class="dnb-muted">… {left:,} earlier messages not shown</div>' if left else ""
    empty = "" if messages else '<div class="dnb-muted">No messages yet.</div>'
    return head + note + "".join(reversed(kept)) + empty


def thread_message(session: Session, thread_id: str) -> dict[str, Any]:
    """The reply to ``{"type": "show_thread", "thread_id"}``: one of this agent's threads, read-only."""
    reply: dict[str, Any] = {"type": "thread", "thread_id": thread_id, "html": "", "messages": 0, "error": ""}
    try:
        if thread_id not in {t.thread_id for t in session.threads()}:
            raise DeepnbError(f"Agent {session.name!r} has no thread {thread_id!r}.")
        values = session.state_values(thread_id)
        reply["html"] = thread_html(values)
        reply["messages"] = len(values.get("messages") or [])
    except DeepnbError as exc:
        reply["error"] = redact(str(exc))
    except Exception as exc:  # shown in the panel rather than lost in the kernel log
        reply["error"] = redact(f"Could not read thread {thread_id}: {exc}")
    reply["thread_id"] = redact(thread_id)
    return reply
