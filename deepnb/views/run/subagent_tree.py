"""The subagent tree as static HTML and as text: a line per node (status, duration, tool calls,
tokens), its own transcript folded under it, its answer, its children nested."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from deepnb.core.schema import NODE_STATUS_MARK, shown_as
from deepnb.core.text.markup import escape
from deepnb.engine.tree import SubagentNode, build_tree
from deepnb.views.run.durations import duration_words, waited_words
from deepnb.views.run.items import item_html, item_text, plural
from deepnb.views.run.tokens import tokens_words

TREE_MARK = NODE_STATUS_MARK


def state_tree(state: Mapping[str, Any]) -> SubagentNode:
    """The tree of a run's state (``RunState.to_json()``)."""
    return build_tree(state.get("tree") or [], root_name=state["agent"], root_status=state["status"])


def calls_hint(declined: int, failed: int) -> str:
    """``" (1 not run, 2 failed)"``: the calls that did not do their work (declined, or answered
    in their place), so a node that ended "done" still says so (``""`` when all ran)."""
    parts = [f"{declined} not run"] * bool(declined) + [f"{failed} failed"] * bool(failed)
    return f" ({', '.join(parts)})" if parts else ""


def _node_line(node: SubagentNode) -> str:
    parts = [shown_as(TREE_MARK, node.status, "·"), node.label or node.name, f"[{node.status}]"]
    if node.duration is not None:
        parts.append(duration_words(node.duration) + waited_words(node.waited))
    parts.append(plural(node.tool_calls, "tool call") + calls_hint(node.calls_declined, node.calls_failed))
    if node.tokens_in or node.tokens_out or node.tokens_unreported:
        parts.append(
            tokens_words(
                {
                    "tokens_in": node.tokens_in,
                    "tokens_out": node.tokens_out,
                    "tokens_reasoning": node.tokens_reasoning,
                    "tokens_unreported": node.tokens_unreported,
                }
            )
        )
    if node.source == "js":
        parts.append("from JS task()")
    return " ".join(parts[:3]) + (" · " + " · ".join(parts[3:]) if parts[3:] else "")


def same_answer(text: str, preview: str) -> bool:
    """Whether ``text`` (an agent's answer) is what ``preview`` shows: the same words, or their
    beginning when the preview was clipped ("…"). A subagent's answer then shows once."""
    words, shown = " ".join(text.split()), preview.strip()
    if not words or not shown:
        return False
    return words == shown or (shown.endswith("…") and words.startswith(shown[:-1]))


def _answered(node: SubagentNode, own: Sequence[Mapping[str, Any]]) -> bool:
    """The node's transcript already shows its answer (so no "Result" line repeats it)."""
    return any(item["kind"] == "text" and same_answer(item.get("text", ""), node.result) for item in own)


def _node_html(node: SubagentNode, items: Sequence[Mapping[str, Any]]) -> str:
    own_items = [item for item in items if item.get("agent") == node.path]
    own = [item_html(item, labelled=False) for item in own_items]
    result = node.result and not _answered(node, own_items)
    body = [
        f"<div>{escape(node.description)}</div>" if node.description else "",
        *own,
        f'<div class="dnb-muted">Result: {escape(node.result)}</div>' if result else "",
    ]
    children = "".join(
        f'<li data-status="{escape(c.status)}">{_node_html(c, items)}</li>' for c in node.children
    )
    return (
        f'<details><summary><span class="dnb-state">{escape(_node_line(node))}</span></summary>'
        f'<div class="dnb-node-body">{"".join(body)}</div></details>'
        + (f"<ul>{children}</ul>" if children else "")
    )


def tree_html(root: SubagentNode, items: Sequence[Mapping[str, Any]] = ()) -> str:
    """The subagent tree as static HTML: a line per node, its transcript folded under it."""
    if not root.children:
        return f"<p>{escape(root.label or root.name)}: no subagents ran.</p>"
    rows = "".join(
        f'<li data-status="{escape(child.status)}">{_node_html(child, items)}</li>' for child in root.children
    )
    return f'<div class="deepnb-tree"><div><b>Subagents</b> ({len(root)})</div><ul>{rows}</ul></div>'


def tree_text(root: SubagentNode, items: Sequence[Mapping[str, Any]] = ()) -> str:
    """The subagent tree as indented text."""
    if not root.children:
        return f"{root.label or root.name}: no subagents ran."
    lines = [f"Subagents ({len(root)}):"]

    def add(node: SubagentNode, depth: int) -> None:
        pad = "  " * depth
        lines.append(pad + _node_line(node))
        if node.description:
            lines.append(f"{pad}    {node.description}")
        own = [item for item in items if item.get("agent") == node.path]
        for item in own:  # every line of an item under its node (a card's "Not run: …" too)
            lines.extend(f"{pad}    {line}" for line in item_text(item, labelled=False).splitlines())
        if node.result and not _answered(node, own):
            lines.append(f"{pad}    → {' '.join(node.result.split())[:160]}")
        for child in node.children:
            add(child, depth + 1)

    for child in root.children:
        add(child, 1)
    return "\n".join(lines)
