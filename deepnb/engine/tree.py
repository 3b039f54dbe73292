"""The subagent tree and the summarization events of a run, as Python objects.

Both are read from a run's folded state (:class:`deepnb.engine.state.RunState`), so ``run.tree`` and
``run.summaries`` agree with the live view and the saved snapshot.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from deepnb.core.call_args import call_args, call_name, text_arg
from deepnb.core.displayable import Displayable
from deepnb.core.events import agent_label, message_text, subagent_path
from deepnb.core.schema import NodeState, NodeStatus, RunStatus, SummaryItem, TranscriptItem
from deepnb.core.text.secrets import redact


@dataclass(frozen=True, repr=False)
class SubagentNode(Displayable):
    """One agent of a run: the main agent at the root, one node per ``task`` call below it.
    Shown as an indented tree (``repr``) or static HTML.

    ``status`` is ``"running"``, ``"waiting"`` (for an approval), ``"done"``, ``"error"`` or
    ``"cancelled"`` (the root's is its run's status, so ``"interrupted"`` there); ``result`` is
    what the subagent answered (clipped); ``tool_calls`` and ``tokens_in`` / ``tokens_out`` count
    the node's own calls, not its children's.
    """

    path: str
    name: str
    status: NodeStatus | RunStatus
    description: str = ""
    label: str = ""
    source: str = "task"
    result: str = ""
    tool_calls: int = 0
    calls_declined: int = 0
    calls_failed: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    tokens_reasoning: int | None = None
    """Of ``tokens_out``, those spent reasoning, where the provider reported them."""
    tokens_unreported: int = 0
    """The node's model calls whose provider reported no usage."""
    activity: str = ""
    duration: float | None = None
    """Seconds it ran, less the time the run spent waiting meanwhile (``waited``)."""
    waited: float = 0.0
    children: tuple[SubagentNode, ...] = ()

    def walk(self) -> Iterator[SubagentNode]:
        """This node and every node below it, depth first, in start order."""
        yield self
        for child in self.children:
            yield from child.walk()

    def find(self, path_or_name: str) -> SubagentNode:
        """The node with this path (``"main/researcher#2"``), or the first with this name."""
        for node in self.walk():
            if path_or_name in (node.path, node.name):
                return node
        raise KeyError(f"No subagent {path_or_name!r} in this tree; it has: {', '.join(self._paths())}")

    def _paths(self) -> list[str]:
        return [node.path for node in self.walk()]

    def __len__(self) -> int:
        """How many subagents run below this node (all levels)."""
        return sum(1 for _ in self.walk()) - 1


def build_tree(
    nodes: Sequence[NodeState],
    *,
    root_name: str,
    root_status: RunStatus,
    now: float | None = None,
    waited: float = 0.0,
    items: Sequence[TranscriptItem] = (),
) -> SubagentNode:
    """The tree of a run's flat node list (``RunState.to_json()["tree"]``); ``waited``: the
    seconds the run had waited by ``now``, which a running node's duration leaves out."""
    by_id = {node["id"]: node for node in nodes}
    counts: dict[str, int] = {}
    for item in items:
        if item["kind"] == "tool":
            counts[item["agent"]] = counts.get(item["agent"], 0) + 1

    def make(node: NodeState) -> SubagentNode:
        end = node.get("finished_at") or now
        ended = node.get("finished_at") is not None
        paused = (
            float(node.get("waited", 0.0)) if ended else max(0.0, waited - node.get("waited_at_start", 0.0))
        )
        return SubagentNode(
            path=node["id"],
            name=node["name"],
            status=node["status"],
            description=node.get("description", ""),
            label=node.get("label", ""),
            source=node.get("source", "task"),
            result=node.get("result_full") or node.get("result", ""),
            tool_calls=int(node.get("tool_calls", 0)),
            calls_declined=int(node.get("calls_declined", 0)),  # absent from views saved before them
            calls_failed=int(node.get("calls_failed", 0)),
            tokens_in=int(node.get("tokens_in", 0)),
            tokens_out=int(node.get("tokens_out", 0)),
            tokens_reasoning=node.get("tokens_reasoning"),
            tokens_unreported=int(node.get("tokens_unreported", 0)),
            activity=node.get("activity", ""),
            duration=round(max(0.0, end - node["started_at"] - paused), 1)
            if end and node.get("started_at")
            else None,
            waited=round(paused, 1),
            children=tuple(make(by_id[c]) for c in node.get("children", ()) if c in by_id),
        )

    top = [make(node) for node in nodes if node.get("parent") not in by_id]
    return SubagentNode(
        path="main",
        name=root_name,
        status=root_status,
        label=root_name,
        tool_calls=counts.get("main", 0),
        children=tuple(top),
    )


@dataclass(frozen=True)
class Summary:
    """One context summarization: how many messages it folded into ``text`` (where known), the
    cutoff index in the agent's messages, the model's input tokens on the calls either side of it
    (where reported), and the file the older messages were saved to."""

    agent: str
    cutoff: int
    text: str
    file_path: str | None = None
    messages: int | None = None
    tokens_before: int | None = None
    tokens_after: int | None = None

    @classmethod
    def from_item(cls, item: SummaryItem) -> Summary:
        return cls(
            agent=item["agent"],
            cutoff=item["cutoff"],
            text=item["summary"],
            file_path=item.get("file_path"),
            messages=item.get("messages"),
            tokens_before=item.get("tokens_before"),
            tokens_after=item.get("tokens_after"),
        )


def tree_from_messages(messages: Sequence[Any], *, root_name: str) -> SubagentNode:
    """The top level of a thread's tree read back from its messages: each ``task`` call of the
    main agent, with the answer it got. Used when no run of this kernel has the live tree (after
    a restart); nested subagents and token counts are not in the thread's own messages."""
    answers = {
        str(m.tool_call_id): m for m in messages if getattr(m, "type", None) == "tool" and m.name == "task"
    }
    seen: dict[str, int] = {}
    children = []
    for message in messages:
        if getattr(message, "type", None) != "ai":
            continue
        for call in getattr(message, "tool_calls", None) or ():
            if call_name(call) != "task":
                continue
            args = call_args(call.get("args"))  # any JSON the model sent
            kind = text_arg(args, "subagent_type") or "subagent"
            count = seen[kind] = seen.get(kind, 0) + 1
            path = subagent_path("main", kind, count)
            answer = answers.get(str(call.get("id")))
            status: NodeStatus = (
                "cancelled" if answer is None else "error" if answer.status == "error" else "done"
            )
            children.append(
                SubagentNode(
                    path=path,
                    name=kind,
                    status=status,
                    description=redact(text_arg(args, "description") or ""),
                    label=agent_label(path),
                    result=redact(message_text(answer.content)) if answer is not None else "",
                )
            )
    return SubagentNode(path="main", name=root_name, status="done", label=root_name, children=tuple(children))
