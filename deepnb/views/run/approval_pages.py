"""The approval cards a run view shows at once: a page of them, however many wait.

A hostile server (or 300 parallel subagents) can leave thousands of gated calls pending; a
view holds :data:`PAGE_CARDS` cards at a time, so the message that carries them keeps the 64 KB
rule however many there are. A card is one gated action, or one raw interrupt's question; the
interrupts of a page keep only the actions on it (each with its own ``index``, so a decision names
it as before). The page's summary counts every card: Approve all and Reject all act on all of
them, on this page or not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypedDict

PAGE_CARDS = 20
"""Cards a view holds at once."""


class PageInfo(TypedDict):
    """Which cards the view holds, and how many wait in all."""

    page: int
    """This page, from 0."""
    pages: int
    first: int
    """The first card on this page, counted from 1 (0 when there are none)."""
    last: int
    cards: int
    """Cards waiting in all (actions and questions)."""
    undecided: int
    """Actions with no decision yet, in all."""
    approvable: int
    """Undecided actions that allow an approval."""
    rejectable: int
    """Undecided actions that allow a rejection."""


def _units(pending: Sequence[Mapping[str, Any]]) -> list[tuple[int, Mapping[str, Any] | None]]:
    """Every card in order: (the interrupt's position, its action, or None for a question)."""
    units: list[tuple[int, Mapping[str, Any] | None]] = []
    for position, request in enumerate(pending):
        actions = request.get("actions") or ()
        if request.get("kind") == "question" or not actions:
            units.append((position, None))
        else:
            units += [(position, action) for action in actions]
    return units


def _undecided(action: Mapping[str, Any], allows: str | None = None) -> bool:
    allowed = action.get("allowed") or ("approve", "edit", "reject", "respond")
    return not action.get("decision") and (allows is None or allows in allowed)


def page_of(pending: Sequence[Mapping[str, Any]], page: int) -> tuple[list[dict[str, Any]], PageInfo]:
    """The interrupts holding page ``page``'s cards (a page past the last is the last), and the
    page's summary."""
    units = _units(pending)
    pages = max(1, -(-len(units) // PAGE_CARDS))
    page = min(max(page, 0), pages - 1)
    listed = units[page * PAGE_CARDS : (page + 1) * PAGE_CARDS]
    out: list[dict[str, Any]] = []
    by_position: dict[int, dict[str, Any]] = {}
    for position, action in listed:
        if position not in by_position:
            request = pending[position]
            by_position[position] = {
                **request,
                "actions": [] if action is not None else request.get("actions", []),
            }
            out.append(by_position[position])
        if action is not None:
            by_position[position]["actions"].append(action)
    actions = [action for _, action in units if action is not None]
    info: PageInfo = {
        "page": page,
        "pages": pages,
        "first": page * PAGE_CARDS + 1 if listed else 0,
        "last": page * PAGE_CARDS + len(listed),
        "cards": len(units),
        "undecided": sum(_undecided(a) for a in actions),
        "approvable": sum(_undecided(a, "approve") for a in actions),
        "rejectable": sum(_undecided(a, "reject") for a in actions),
    }
    return out, info


__all__ = ["PAGE_CARDS", "PageInfo", "page_of"]
