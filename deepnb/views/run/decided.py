"""How a decision on a gated tool call is said: on its approval card, in a snapshot's decision
log, and on the tool card it answered in the tool's place. ``widgets/src/run/decided.ts`` says it
the same way (the same cases are in ``tests/unit/test_decided_words.py`` and
``widgets/test/decided.test.ts``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deepnb.core.schema import DECISION_LABEL, shown_as

NOT_RUN = frozenset({"declined", "responded"})
"""The tool statuses of a call that never ran: something was given in the tool's place."""


def _who(decision: Mapping[str, Any]) -> str:
    return "a rule" if decision.get("auto") else "you"


def decision_words(decision: Mapping[str, Any]) -> str:
    """``"✗ rejected by you: too risky"``, ``"✓ approved by a rule"``, ``"✎ edited by you: x=1"``."""
    kind = str(decision.get("type") or "")
    detail = str((decision.get("args") if kind == "edit" else decision.get("message")) or "")
    words = f"{shown_as(DECISION_LABEL, kind, kind)} by {_who(decision)}"
    return f"{words}: {detail}" if detail else words


def not_run_words(item: Mapping[str, Any]) -> str:
    """What the card of a tool call that never ran says of it (``""`` for one that ran):
    ``"Not run: you responded in its place"``, ``"Not run: declined by you — too risky"``."""
    if item.get("status") not in NOT_RUN:
        return ""
    decision = item.get("decision")
    if not isinstance(decision, Mapping):
        return "Not run: a result was given in its place"
    if decision.get("type") == "respond":
        return f"Not run: {_who(decision)} responded in its place"
    message = str(decision.get("message") or "")
    return f"Not run: declined by {_who(decision)}" + (f" — {message}" if message else "")
