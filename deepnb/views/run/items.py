"""Transcript items as static HTML and as text: one pair of functions per item kind (prompt,
text, thinking, tool, eval, summary, update, error, notice), side by side so the two forms cannot drift.

Every piece of agent text is escaped here; the only HTML taken as is is what
:mod:`deepnb.core.text.markup` rendered when the item was folded (``html``, ``summary_html``,
``code_html``), which escapes raw HTML itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from deepnb.core.events import MAIN, agent_label
from deepnb.core.schema import CUT_OFF_NOTE, TODO_CHANGE_MARK, shown_as
from deepnb.core.text.markup import escape
from deepnb.views.run.decided import not_run_words

Item = Mapping[str, Any]
Render = Callable[[Item, str], str]
"""A kind's renderer: the item, and its agent label (``"[researcher] "``, or ``""``)."""


def plural(n: int, noun: str) -> str:
    """``"1 step"``, ``"1,204 steps"``."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def agent_prefix(item: Item) -> str:
    """``"[researcher] "`` for a subagent's item, ``""`` for the main agent's."""
    agent = item.get("agent") or MAIN
    return "" if agent == MAIN else f"[{agent_label(agent)}] "


# -- prompt ----------------------------------------------------------------------------------------


STEERED_BADGE = "given while it worked"
"""The badge of a message given to a running agent (``run.steer``), where it was delivered."""


def _prompt_html(item: Item, _label: str) -> str:
    badge = f' <span class="dnb-badge dnb-steered">{STEERED_BADGE}</span>' if item.get("steered") else ""
    return f'<div class="dnb-prompt">› {escape(item["text"])}{badge}</div>'


def _prompt_text(item: Item, _label: str) -> str:
    return f"› {item['text']}" + (f" [{STEERED_BADGE}]" if item.get("steered") else "")


# -- text: the agent's answer (Markdown, rendered when folded) -------------------------------------


def _text_html(item: Item, label: str) -> str:
    body = item.get("html") or f"<p>{escape(item['text'])}</p>"
    label = escape(label)
    cut = f'<div class="dnb-muted dnb-cut-off">({escape(CUT_OFF_NOTE)})</div>' if item.get("cut_off") else ""
    return f'<div class="dnb-text">{label and f"<span class=dnb-muted>{label}</span>"}{body}{cut}</div>'


def _text_text(item: Item, label: str) -> str:
    return f"{label}{item['text']}" + (f"\n({CUT_OFF_NOTE})" if item.get("cut_off") else "")


# -- thinking: what a model thought before it answered, folded ---------------------------------------

THINKING = "Thinking"
"""The heading of a thinking item wherever it is shown."""


def _thinking_html(item: Item, label: str) -> str:
    body = item.get("html") or f"<p>{escape(item['text'])}</p>"
    head = f"{escape(label)}{THINKING}"
    return f'<details class="dnb-thinking"><summary class="dnb-muted">{head}</summary>{body}</details>'


def _thinking_text(item: Item, label: str) -> str:
    lines = str(item["text"]).splitlines() or [""]
    return "\n".join([f"{label}{THINKING}:", *(f"  │ {line}" for line in lines)])


# -- tool: a tool call's card (an interpreter ``eval`` has its own, below) -------------------------


def _tool_html(item: Item, label: str) -> str:
    if item.get("eval"):
        return _eval_html(item, label)
    result = f' <span class="dnb-muted">→ {escape(item["result"])}</span>' if item.get("result") else ""
    not_run = not_run_words(item)
    said = f'<div class="dnb-tool-not-run"><i>{escape(not_run)}</i></div>' if not_run else ""
    return (
        f'<div class="dnb-tool" data-status="{escape(item["status"])}">{escape(label)}'
        f"<b>{escape(item['name'])}</b>({escape(item['args'])}){_server_html(item)}{_edited_html(item)} "
        f'<span class="dnb-muted">[{escape(item["status"])}]</span>{result}{said}'
        f"{_todo_changes_html(item)}</div>"
    )


def _todo_changes_html(item: Item) -> str:
    """A ``write_todos`` card's changes, folded: one line a todo, marked with what happened to it."""
    changes = item.get("todo_changes") or []
    if not changes:
        return ""
    rows = "".join(
        f'<li data-change="{escape(c["change"])}">{escape(shown_as(TODO_CHANGE_MARK, c["change"], "·"))} '
        f"{escape(c['content'])}</li>"
        for c in changes
    )
    return f'<details class="dnb-todo-changes"><summary>changes</summary><ul>{rows}</ul></details>'


def server_badge(server: str) -> str:
    """What an MCP tool's card says of its server (``widgets/src/run/tool_card.ts`` says the same)."""
    return f"MCP {server}"


EDITED_BADGE = "✎ edited"
"""The badge of a tool card whose arguments a person edited before approving them."""


def _edited_html(item: Item) -> str:
    if not item.get("edited"):
        return ""
    title = "Arguments edited before approval; the decision log shows the change"
    return f' <span class="dnb-badge dnb-edited" title="{title}">{EDITED_BADGE}</span>'


def _server_html(item: Item) -> str:
    """An MCP tool's badge: the server it came from."""
    server = item.get("server")
    if not server:
        return ""
    title = escape(f"A tool of the MCP server {server}")
    return f' <span class="dnb-badge dnb-tool-server" title="{title}">{escape(server_badge(server))}</span>'


def _tool_text(item: Item, label: str) -> str:
    if item.get("eval"):
        return _eval_text(item, label)
    result = f" → {item['result']}" if item.get("result") else ""
    server = f" [{server_badge(item['server'])}]" if item.get("server") else ""
    edited = f" [{EDITED_BADGE}]" if item.get("edited") else ""
    not_run = not_run_words(item)
    said = f"\n    {not_run}" if not_run else ""
    return f"  {label}{item['name']}({item['args']}){server}{edited} [{item['status']}]{result}{said}"


# -- eval: an interpreter call's card (the code, what it printed, its result or error) -------------


def _eval_html(item: Item, label: str) -> str:
    run = item["eval"]
    parts = [
        f'<div class="dnb-tool dnb-eval" data-status="{escape(item["status"])}">{escape(label)}'
        f'<b>eval</b> <span class="dnb-muted">[{escape(item["status"])}]</span>',
        run.get("code_html") or f"<pre>{escape(run.get('code', ''))}</pre>",
    ]
    if run.get("stdout"):
        parts.append(f'<div class="dnb-muted">console</div><pre>{escape(run["stdout"])}</pre>')
    if run.get("error"):
        parts.append(
            f'<div class="dnb-error">{escape(run.get("error_type") or "Error")}: {escape(run["error"])}</div>'
        )
    elif run.get("result"):
        parts.append(f'<div class="dnb-muted">result</div><pre>{escape(run["result"])}</pre>')
    return "".join(parts) + "</div>"


def _eval_text(item: Item, label: str) -> str:
    run = item["eval"]
    lines = [f"  {label}eval [{item['status']}]"] + [
        f"    | {line}" for line in run.get("code", "").splitlines()
    ]
    if run.get("stdout"):
        lines += [f"    > {line}" for line in run["stdout"].splitlines()]
    if run.get("error"):
        lines.append(f"    ! {run.get('error_type') or 'Error'}: {run['error'].splitlines()[0]}")
    elif run.get("result"):
        lines.append(f"    = {run['result']}")
    return "\n".join(lines)


# -- summary: the context was summarized -----------------------------------------------------------


def summary_line(item: Item) -> str:
    """``"Context summarized: 12 messages, tokens 9,120 → 1,304"``; ``"3 messages (15 in all)"``
    when earlier summarizations took more (the cutoff counts every message summarized so far)."""
    messages, cutoff = item.get("messages"), item.get("cutoff")
    if messages is None:
        what = "older messages" if cutoff is None else f"{_messages(cutoff)} in all"
    else:
        more = cutoff is not None and cutoff != messages
        what = _messages(messages) + (f" ({cutoff:,} in all)" if more else "")
    line = f"Context summarized: {what}"
    before, after = item.get("tokens_before"), item.get("tokens_after")
    if before is not None or after is not None:
        line += f", tokens {_count(before)} → {_count(after)}"
    return line + (f"; history saved to {item['file_path']}" if item.get("file_path") else "")


def _messages(count: int) -> str:
    return f"{count:,} message" + ("" if count == 1 else "s")


def _count(value: int | None) -> str:
    return "?" if value is None else f"{value:,}"


def _summary_html(item: Item, label: str) -> str:
    body = item.get("summary_html") or f"<p>{escape(item.get('summary', ''))}</p>"
    return (
        f'<div class="dnb-summary">{escape(label)}<b>{escape(summary_line(item))}</b>'
        f"<details><summary>Summary</summary>{body}</details></div>"
    )


def _summary_text(item: Item, label: str) -> str:
    return label + summary_line(item)


# -- update: a node's state update, in a graph that does not speak messages ------------------------


def _update_html(item: Item, label: str) -> str:  # drawn as a tool card is: no new snapshot style
    return (
        f'<div class="dnb-tool dnb-update">{escape(label)}<b>{escape(item["node"])}</b>'
        f"<pre>{escape(item.get('text', ''))}</pre></div>"
    )


def _update_text(item: Item, label: str) -> str:
    lines = str(item.get("text", "")).splitlines() or [""]
    return "\n".join([f"{label}{item['node']}:"] + [f"    {line}" for line in lines])


# -- error, and notice (any other kind: a folded stretch, a run's note) ----------------------------


def _error_html(item: Item, _label: str) -> str:
    return f'<div class="dnb-error">Error: {escape(item["text"])}</div>'


def _error_text(item: Item, _label: str) -> str:
    return f"Error: {item['text']}"


def _notice_html(item: Item, _label: str) -> str:
    return f'<div class="dnb-muted">{escape(item["text"])}</div>'


def _notice_text(item: Item, _label: str) -> str:
    return str(item["text"])


KINDS: dict[str, tuple[Render, Render]] = {
    "prompt": (_prompt_html, _prompt_text),
    "text": (_text_html, _text_text),
    "thinking": (_thinking_html, _thinking_text),
    "tool": (_tool_html, _tool_text),
    "summary": (_summary_html, _summary_text),
    "update": (_update_html, _update_text),
    "error": (_error_html, _error_text),
    "notice": (_notice_html, _notice_text),
}
"""Each item kind's (HTML, text) renderers; any other kind is shown as a notice."""


def item_html(item: Item, *, labelled: bool = True) -> str:
    """One transcript item as static HTML; ``labelled`` names the subagent it came from."""
    return KINDS.get(item["kind"], KINDS["notice"])[0](item, agent_prefix(item) if labelled else "")


def item_text(item: Item, *, labelled: bool = True) -> str:
    """One transcript item as text (a line, or a few for an ``eval``)."""
    return KINDS.get(item["kind"], KINDS["notice"])[1](item, agent_prefix(item) if labelled else "")
