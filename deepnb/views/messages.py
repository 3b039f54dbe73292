"""Messages from a view's front-end, checked before anything acts on them.

A front-end is not trusted: anything in the page can send a widget message. Each view declares
the message kinds it accepts and the fields each may carry (:data:`RUN_MESSAGES`,
:data:`FILES_MESSAGES`); :func:`check` refuses an unknown kind, an unknown field or a field of
the wrong type, in one line. What a field must *name* (a pending interrupt, one of its actions,
that action's tool) is checked against the card it answers by :func:`deepnb.engine.approvals.check_card`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deepnb.core.errors import DeepnbError


class MessageRefused(DeepnbError):
    """A front-end message deepnb does not act on; nothing was done or sent."""


Kinds = Mapping[str, Mapping[str, tuple[type, ...]]]
"""Message kind → field → the types its value may have (``type`` itself is implied)."""

INT = (int,)
TEXT = (str,)
JSON = (str, int, float, bool, dict, list, type(None))

RUN_MESSAGES: Kinds = {
    "stop": {},
    "sync": {},
    "expand": {},
    "refresh_tasks": {},
    "open_file": {"path": TEXT},
    "threads": {},
    "show_thread": {"thread_id": TEXT},
    "decide": {"interrupt_id": TEXT, "index": INT, "decision": (dict,)},
    "always": {"interrupt_id": TEXT, "index": INT, "tool": TEXT},
    "approve_all": {"interrupt_id": TEXT},
    "decide_every": {"act": TEXT, "expected": INT},
    "pending_page": {"page": INT},
    "answer": {"interrupt_id": TEXT, "value": JSON},
    "fork": {"step": INT},
    "follow_up": {"prompt": TEXT},
    "steer": {"message": TEXT},
    "graph": {},
    "latest_step": {},
    "step_state": {"step": INT},
    "step_messages": {"step": INT, "before": INT},
    "step_file": {"step": INT, "path": TEXT},
    "run_from": {"step": INT, "edits": (list,)},
}
"""What the run view's front-end sends: Stop, a resync, the whole of a folded transcript, a file
to show, the thread switcher's list and one thread to show, the async tasks' refresh, the
approval cards' decisions (Approve all / Reject all over every page, with the count the button
showed, and which page of cards to show), a raw interrupt's answer (its ``value`` is checked to be JSON data
by :func:`deepnb.engine.interrupts.check_answer_card`), and "fork here" on a step of the timeline (its
``step`` must be one the run wrote), and the box under the view: a follow-up on the thread once
the run ended, or a message that steers it while it runs; the Graph tab's drawing, and the step
state panel's asks: a step's state with its diff (the run's latest step's, when its tab is chosen
by itself), an earlier page of its messages, one of its
files in full, and "Run from here" with the panel's edits (each ``step`` must be one the run
wrote)."""

REQUIRED: Mapping[str, tuple[str, ...]] = {
    "decide_every": ("act", "expected"),
    "pending_page": ("page",),
    "follow_up": ("prompt",),
    "steer": ("message",),
    "step_state": ("step",),
    "step_messages": ("step", "before"),
    "step_file": ("step", "path"),
    "run_from": ("step", "edits"),
}
"""Fields a message of these kinds must carry (the other kinds' fields are checked where they are
used: a card message against its card)."""

SEQ = (str, int)
FILES_MESSAGES: Kinds = {
    "ls": {"path": TEXT, "offset": INT, "limit": INT, "seq": SEQ},
    "open": {"path": TEXT, "seq": SEQ},
    "search": {"mode": TEXT, "query": TEXT, "path": TEXT, "seq": SEQ},
    "save": {"path": TEXT, "text": TEXT, "seq": SEQ},
    "download": {"path": TEXT, "seq": SEQ},
    "changes": {"seq": SEQ},
}
"""What the file view's front-end sends (each with the ``seq`` its reply carries back)."""


def _typed(value: Any, types: tuple[type, ...]) -> bool:
    if isinstance(value, bool) and bool not in types:  # True is an int to Python, not to a card
        return False
    return isinstance(value, types)


def check(content: Any, kinds: Kinds) -> str:
    """The message's kind, once every field is one ``kinds`` allows for it, of its type."""
    if not isinstance(content, Mapping):
        raise MessageRefused(f"Refused a front-end message that is not an object ({type(content).__name__}).")
    kind = content.get("type")
    if not isinstance(kind, str) or kind not in kinds:
        raise MessageRefused(f"Refused a front-end message of unknown type {kind!r}.")
    fields = kinds[kind]
    for name, value in content.items():
        if name == "type":
            continue
        if name not in fields:
            raise MessageRefused(f"Refused a {kind!r} message: it has no field {name!r}.")
        if not _typed(value, fields[name]):
            expected = " or ".join(t.__name__ for t in fields[name])
            raise MessageRefused(
                f"Refused a {kind!r} message: {name} must be {expected}, not {type(value).__name__}."
            )
    missing = [name for name in REQUIRED.get(kind, ()) if name not in content]
    if missing:
        raise MessageRefused(f"Refused a {kind!r} message: it needs {' and '.join(missing)}.")
    return kind
