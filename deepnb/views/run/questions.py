"""A raw interrupt's value as a static snapshot shows it: a string as text, an object as fields
(nested values as JSON), anything else as JSON; every part escaped. The live card
(``widgets/src/run/question_card.ts``) shows the same."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from deepnb.views import blocks
from deepnb.views.blocks import Block, Em, Fields, Group, Line, Pre


def _where(agent: str) -> str:
    return "" if agent == "main" else f" (in subagent {agent.rsplit('/', 1)[-1]})"


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def value_block(request: Mapping[str, Any]) -> Block:
    """The value of a pending raw interrupt (a ``question`` entry of ``RunState.pending``)."""
    value = request.get("value")
    if value is None:  # clipped to fit the view's messages: its JSON, as far as it goes
        return Pre(str(request.get("value_json") or "null"), cls="dnb-pre dnb-question-json")
    if isinstance(value, str):
        return Line.of(value, css="dnb-question-text")
    if isinstance(value, Mapping) and value:
        rows = tuple(
            (str(key), item if isinstance(item, str) else Em(_json(item), "code"))
            for key, item in value.items()
        )
        return Fields(rows, cls="dnb-question-fields")
    return Pre(_json(value), cls="dnb-pre dnb-question-json")


def question_block(request: Mapping[str, Any]) -> Group:
    """A pending raw interrupt: who asks, what, and the answer once sent."""
    answer = request.get("answer")
    answered = (Line.of(f"Answered: {answer}", css="dnb-muted"),) if answer is not None else ()
    return Group(
        (value_block(request), *answered),
        cls="dnb-pending dnb-question",
        head=Line.of(Em("Waiting for your answer"), f"{_where(request['agent'])}:"),
        attrs={"data-interrupt": str(request["id"])},
    )


def question_html(request: Mapping[str, Any]) -> str:
    """A pending raw interrupt as HTML (:func:`question_block`)."""
    return blocks.html(question_block(request))


def question_text(request: Mapping[str, Any]) -> str:
    """A pending raw interrupt in plain text: ``Waiting for your answer:`` and the value under it."""
    return "\n".join(blocks.text(question_block(request)))
