"""Transcript items described once, and drawn from that description as static HTML and as text:
one description per item kind (prompt, text, thinking, tool, eval, summary, update, error,
notice), so the two forms cannot drift.

Every piece of agent text is escaped (:mod:`deepnb.views.blocks`); the only HTML taken as is is
what :mod:`deepnb.core.text.markup` rendered when the item was folded (``html``,
``summary_html``, ``code_html``), which escapes raw HTML itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from html import escape
from typing import Any

from deepnb.core.events import MAIN, agent_label
from deepnb.core.schema import CUT_OFF_NOTE, TODO_CHANGE_MARK, shown_as
from deepnb.core.tool_content import IMAGE_TYPES
from deepnb.views import blocks
from deepnb.views.blocks import Block, Em, Fold, Group, Inline, Line, List, Pre, Raw
from deepnb.views.run.decided import not_run_words

Item = Mapping[str, Any]
Describe = Callable[[Item, str], Block]
"""A kind's description: of the item, and its agent label (``"[researcher] "``, or ``""``)."""


def plural(n: int, noun: str) -> str:
    """``"1 step"``, ``"1,204 steps"``."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def agent_prefix(item: Item) -> str:
    """``"[researcher] "`` for a subagent's item, ``""`` for the main agent's."""
    agent = item.get("agent") or MAIN
    return "" if agent == MAIN else f"[{agent_label(agent)}] "


def _rendered(html: str | None, text: str, *, mark: str = "") -> Raw:
    """Markdown rendered when the item was folded (``html``), or its text as a paragraph."""
    return Raw(html or blocks.html(Line.of(text, tag="p")), text, mark)


# -- prompt ----------------------------------------------------------------------------------------


STEERED_BADGE = "given while it worked"
"""The badge of a message given to a running agent (``run.steer``), where it was delivered."""


def _prompt(item: Item, _label: str) -> Block:
    steered = Em(STEERED_BADGE, "span", "dnb-badge dnb-steered", badge=True) if item.get("steered") else ""
    return Line.of("› ", item["text"], " " if steered else "", steered, css="dnb-prompt")


# -- text: the agent's answer (Markdown, rendered when folded) -------------------------------------


def _text(item: Item, label: str) -> Block:
    answer = Line.of(Em(label, "span", "dnb-muted"), _rendered(item.get("html"), item["text"]), tag="")
    cut = Line.of(f"({CUT_OFF_NOTE})", css="dnb-muted dnb-cut-off")
    return Group((answer, cut) if item.get("cut_off") else (answer,), cls="dnb-text")


# -- thinking: what a model thought before it answered, folded ---------------------------------------

THINKING = "Thinking"
"""The heading of a thinking item wherever it is displayed."""


def _thinking(item: Item, label: str) -> Block:
    body = _rendered(item.get("html"), str(item["text"]), mark="│ ")
    return Fold((label, THINKING), (body,), cls="dnb-thinking", summary_cls="dnb-muted")


# -- tool: a tool call's card (an interpreter ``eval`` has its own, below) -------------------------


def _tool(item: Item, label: str) -> Block:
    """A tool call's card; as text a step in under the prompt and answers (in HTML its border
    sets it apart)."""
    card = _eval(item, label) if item.get("eval") else _call(item, label)
    return Group((card,), tag="", indent=1)


def _call(item: Item, label: str) -> Group:
    parts = _parts(item)  # a result of several blocks: each below, by kind, not run together
    shown = item.get("result") and not parts
    result = (" ", Em(f"→ {item['result']}", "span", "dnb-muted")) if shown else ()
    call = Line.of(
        label,
        Em(item["name"]),
        f"({item['args']})",
        *_server(item),
        *_edited(item),
        " ",
        Em(f"[{item['status']}]", "span", "dnb-muted"),
        *result,
        tag="",
    )
    not_run = not_run_words(item)
    said = (Line.of(Em(not_run, "i"), css="dnb-tool-not-run"),) if not_run else ()
    changes = _todo_changes(item)
    return Group(
        (*said, *changes, *parts), cls="dnb-tool", head=call, attrs={"data-status": str(item["status"])}
    )


PART_TEXT = 1000
"""Characters of each text block of a result the static card shows."""
IMAGE_STYLE = "max-width:100%;max-height:20em;height:auto"
"""An image's size bound on a card (inline: the snapshot is seen without the view's stylesheet)."""


def _part(part: Mapping[str, str]) -> Block:
    kind, text = part.get("kind"), str(part.get("text", ""))
    src = str(part.get("src", ""))
    if kind == "image" and src.startswith(DATA_IMAGES):
        img = f'<img class="dnb-tool-image" src="{escape(src)}" alt="{escape(text)}" style="{IMAGE_STYLE}">'
        return Line.of(Raw(img, f"[image: {text}]"), css="dnb-tool-part", data_kind="image")
    if kind == "link" and src.startswith(("http://", "https://")):
        link = (
            f'<a href="{escape(src)}" target="_blank" rel="noopener noreferrer nofollow">{escape(text)}</a>'
        )
        return Line.of(Raw(link, f"[resource: {text}]"), css="dnb-tool-part", data_kind="link")
    if kind == "text":
        clipped = text if len(text) <= PART_TEXT else text[: PART_TEXT - 1] + "…"
        return Pre(clipped, cls="dnb-tool-part", mark="│ ")
    return Line.of(Em(f"[{text}]", "i"), css="dnb-tool-part dnb-muted", data_kind="note")


DATA_IMAGES = tuple(f"data:{mime};base64," for mime in sorted(IMAGE_TYPES))
"""The only ``src`` an image of a card may have (what :mod:`deepnb.core.tool_content` keeps)."""


def _parts(item: Item) -> tuple[Block, ...]:
    """A result's content blocks (an MCP tool's texts, images, resources), one after another."""
    parts = item.get("parts") or []
    return (Group(tuple(_part(p) for p in parts), cls="dnb-tool-parts"),) if parts else ()


def _todo_changes(item: Item) -> tuple[Block, ...]:
    """A ``write_todos`` card's changes, folded: one line a todo, marked with what happened to it."""
    changes = item.get("todo_changes") or []
    if not changes:
        return ()
    rows = tuple(
        Line.of(
            f"{shown_as(TODO_CHANGE_MARK, c['change'], '·')} {c['content']}",
            tag="li",
            data_change=c["change"],
        )
        for c in changes
    )
    return (Fold(("changes",), (List(rows),), cls="dnb-todo-changes"),)


def server_badge(server: str) -> str:
    """What an MCP tool's card says of its server (``widgets/src/run/tool_card.ts`` says the same)."""
    return f"MCP {server}"


EDITED_BADGE = "✎ edited"
"""The badge of a tool card whose arguments a person edited before approving them."""


def _edited(item: Item) -> tuple[Inline, ...]:
    if not item.get("edited"):
        return ()
    title = "Arguments edited before approval; the decision log shows the change"
    return (" ", Em(EDITED_BADGE, "span", "dnb-badge dnb-edited", title=title, badge=True))


def _server(item: Item) -> tuple[Inline, ...]:
    """An MCP tool's badge: the server it came from."""
    server = item.get("server")
    if not server:
        return ()
    title = f"A tool of the MCP server {server}"
    return (" ", Em(server_badge(server), "span", "dnb-badge dnb-tool-server", title=title, badge=True))


# -- eval: an interpreter call's card (the code, what it printed, its result or error) -------------


def _eval(item: Item, label: str) -> Group:
    """As text, each part after its mark: ``|`` the code, ``>`` what it printed, ``=`` its
    result, ``!`` its error (in HTML, titled boxes)."""
    run = item["eval"]
    status = str(item["status"])
    head = Line.of(label, Em("eval"), " ", Em(f"[{status}]", "span", "dnb-muted"), tag="")
    code = str(run.get("code", ""))
    parts: list[Block] = [Raw(run["code_html"], code, "| ") if run.get("code_html") else Pre(code, mark="| ")]
    if run.get("stdout"):
        parts.append(Pre(run["stdout"], mark="> ", title=Line.of("console", css="dnb-muted")))
    if run.get("error"):
        error = f"{run.get('error_type') or 'Error'}: {run['error']}"
        parts.append(Line.of(error, css="dnb-error", mark="! "))
    elif run.get("result"):
        parts.append(Pre(run["result"], mark="= ", title=Line.of("result", css="dnb-muted")))
    return Group(tuple(parts), cls="dnb-tool dnb-eval", head=head, attrs={"data-status": status})


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


def _summary(item: Item, label: str) -> Block:
    body = _rendered(item.get("summary_html"), str(item.get("summary", "")))
    head = Line.of(label, Em(summary_line(item)), tag="")
    return Group((Fold(("Summary",), (body,)),), cls="dnb-summary", head=head)


# -- update: a node's state update, in a graph that does not speak messages ------------------------


def _update(item: Item, label: str) -> Block:  # drawn as a tool card is: no new snapshot style
    head = Line.of(label, Em(item["node"]), ":", tag="")
    return Group((Pre(str(item.get("text", ""))),), cls="dnb-tool dnb-update", head=head, indent=2)


# -- error, and notice (any other kind: a folded stretch, a run's note) ----------------------------


def _error(item: Item, _label: str) -> Block:
    return Line.of("Error: ", item["text"], css="dnb-error")


def _notice(item: Item, _label: str) -> Block:
    return Line.of(str(item["text"]), css="dnb-muted")


KINDS: dict[str, Describe] = {
    "prompt": _prompt,
    "text": _text,
    "thinking": _thinking,
    "tool": _tool,
    "summary": _summary,
    "update": _update,
    "error": _error,
    "notice": _notice,
}
"""Each item kind's description; any other kind is drawn as a notice."""


def item_block(item: Item, *, labelled: bool = True) -> Block:
    """One transcript item, described once; ``labelled`` names the subagent it came from."""
    return KINDS.get(item["kind"], KINDS["notice"])(item, agent_prefix(item) if labelled else "")


def item_html(item: Item, *, labelled: bool = True) -> str:
    """One transcript item as static HTML (:func:`item_block`)."""
    return blocks.html(item_block(item, labelled=labelled))


def item_text(item: Item, *, labelled: bool = True) -> str:
    """One transcript item as text (a line, or a few for a card with parts)."""
    return "\n".join(blocks.text(item_block(item, labelled=labelled)))
