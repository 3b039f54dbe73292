"""A raw interrupt's value as a static snapshot shows it: a string as text, an object as fields
(nested values as JSON), anything else as JSON; every part escaped. The live card
(``widgets/src/run/question_card.ts``) shows the same."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from deepnb.core.text.markup import escape


def _where(agent: str) -> str:
    return "" if agent == "main" else f" (in subagent {agent.rsplit('/', 1)[-1]})"


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def _field(value: Any) -> str:
    return value if isinstance(value, str) else _json(value)


def value_html(request: Mapping[str, Any]) -> str:
    """The value of a pending raw interrupt (a ``question`` entry of ``RunState.pending``)."""
    value = request.get("value")
    if value is None:
        text = str(request.get("value_json") or "null")
        return f'<pre class="dnb-pre dnb-question-json">{escape(text)}</pre>'
    if isinstance(value, str):
        return f'<div class="dnb-question-text">{escape(value)}</div>'
    if isinstance(value, Mapping) and value:
        rows = "".join(
            f"<dt>{escape(str(key))}</dt><dd>"
            + (escape(item) if isinstance(item, str) else f"<code>{escape(_json(item))}</code>")
            + "</dd>"
            for key, item in value.items()
        )
        return f'<dl class="dnb-question-fields">{rows}</dl>'
    return f'<pre class="dnb-pre dnb-question-json">{escape(_json(value))}</pre>'


def question_html(request: Mapping[str, Any]) -> str:
    """A pending raw interrupt: who asks, what, and the answer once sent."""
    answer = request.get("answer")
    tail = f'<div class="dnb-muted">Answered: {escape(str(answer))}</div>' if answer is not None else ""
    return (
        f'<div class="dnb-pending dnb-question" data-interrupt="{escape(str(request["id"]))}">'
        f"<b>Waiting for your answer</b>{escape(_where(request['agent']))}: {value_html(request)}{tail}</div>"
    )


def question_text(request: Mapping[str, Any]) -> str:
    """A pending raw interrupt in plain text: ``Waiting for your answer: What is your name?``."""
    value = request.get("value")
    head = f"Waiting for your answer{_where(request['agent'])}:"
    if value is None:
        body = str(request.get("value_json") or "null")
    elif isinstance(value, Mapping) and value:
        body = "\n".join(f"  {key}: {_field(item)}" for key, item in value.items())
        return f"{head}\n{body}"
    else:
        body = _field(value)
    return f"{head} {body}"
