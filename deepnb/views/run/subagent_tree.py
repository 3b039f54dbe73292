"""The subagent tree, described once and drawn from that description as static HTML and as text:
a line per node (status, duration, tool calls, tokens), its own transcript folded under it, its
answer, its children nested."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from deepnb.core.schema import NODE_STATUS_MARK, shown_as
from deepnb.engine.tree import SubagentNode, build_tree
from deepnb.views import blocks
from deepnb.views.blocks import Block, Em, Fold, Group, Line, List
from deepnb.views.run.durations import duration_words, waited_words
from deepnb.views.run.items import item_block, plural
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
    words, previewed = " ".join(text.split()), preview.strip()
    if not words or not previewed:
        return False
    return words == previewed or (previewed.endswith("…") and words.startswith(previewed[:-1]))


def _answered(node: SubagentNode, own: Sequence[Mapping[str, Any]]) -> bool:
    """The node's transcript already shows its answer (so no "Result" line repeats it)."""
    return any(item["kind"] == "text" and same_answer(item.get("text", ""), node.result) for item in own)


def _node_block(node: SubagentNode, items: Sequence[Mapping[str, Any]]) -> Group:
    """A node's list item: its line, and folded under it (as text, two steps in, apart from its
    children one step in) its task, its own transcript and its answer; its children nested."""
    own = [item for item in items if item.get("agent") == node.path]
    body: list[Block] = [Line.of(node.description)] if node.description else []
    body += [item_block(item, labelled=False) for item in own]
    if node.result and not _answered(node, own):
        body.append(Line.of(f"Result: {node.result}", css="dnb-muted"))
    line = Fold((Em(_node_line(node), "span", "dnb-state"),), tuple(body), body_cls="dnb-node-body", indent=2)
    children = (List(tuple(_node_block(c, items) for c in node.children)),) if node.children else ()
    return Group(children, head=line, attrs={"data-status": node.status}, tag="li")


def tree_block(root: SubagentNode, items: Sequence[Mapping[str, Any]] = ()) -> Block:
    """The subagent tree, described once: a line per node, its transcript folded under it."""
    if not root.children:
        return Line.of(f"{root.label or root.name}: no subagents ran.", tag="p")
    rows = List(tuple(_node_block(child, items) for child in root.children))
    return Group((rows,), cls="deepnb-tree", head=Line.of(Em("Subagents"), f" ({len(root)}):"))


def tree_html(root: SubagentNode, items: Sequence[Mapping[str, Any]] = ()) -> str:
    """The subagent tree as static HTML (:func:`tree_block`)."""
    return blocks.html(tree_block(root, items))


def tree_text(root: SubagentNode, items: Sequence[Mapping[str, Any]] = ()) -> str:
    """The subagent tree as indented text (:func:`tree_block`)."""
    return "\n".join(blocks.text(tree_block(root, items)))
