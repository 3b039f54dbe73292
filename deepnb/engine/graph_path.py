"""The path a run takes through its agent's graph, folded from its events: which nodes run now
(:class:`~deepnb.core.events.NodeStarted` without its end yet), how often each node ran, which
edges the run went along (one node's start after another's in the same agent), and the tools
running now.

Nodes are named as :func:`deepnb.engine.graph_shape.read_shape` names them: the main agent's by
their own name, a subagent's (agent path ``main/general-purpose#2``) under its cluster
(``general-purpose/model``), so a view lights them on the agent's drawing as they are. Bounded:
a run of any length keeps one count per node and per edge.
"""

from __future__ import annotations

from typing import Any

from deepnb.core import events as ev

__all__ = ["GraphPath", "shape_id"]

START, END = "__start__", "__end__"
ENDS = (ev.RunFinished, ev.RunFailed, ev.RunCancelled)
LIMIT = 2000
"""Distinct nodes and edges a path counts at most (past them, new ones are not counted)."""


def shape_id(agent: str, node: str) -> str:
    """The drawing's id of ``node`` of the agent at path ``agent``: ``model`` for the main
    agent's, ``general-purpose/model`` for ``main/general-purpose#2``'s."""
    return "/".join([*(_without_copy(part) for part in agent.split("/")[1:]), node])


def _without_copy(name: str) -> str:
    """``general-purpose`` for ``general-purpose#2`` (a subagent's second copy)."""
    head, mark, number = name.rpartition("#")
    return head if mark and number.isdigit() else name


class GraphPath:
    """Collects a run's path through its graph (not thread-safe: ``Run.emit`` calls
    :meth:`note` under the run's lock)."""

    def __init__(self) -> None:
        self._active: dict[str, str] = {}  # task id → shape id
        self._last: dict[str, str] = {}  # agent path → the node it ran last
        self._visits: dict[str, int] = {}
        self._edges: dict[tuple[str, str], int] = {}
        self._tools: dict[str, tuple[str, str]] = {}  # call id → (agent, tool name)
        self._failed: str | None = None
        self._changes = 0

    def note(self, event: ev.Event) -> None:
        """Take ``event``."""
        if isinstance(event, ev.NodeStarted):
            node = shape_id(event.agent, event.node)
            self._active[event.task_id] = node
            before = self._last.get(event.agent)
            if before is None:  # the agent's first node: it came from its start
                before = shape_id(event.agent, START)
                self._count(self._visits, before)
            self._count(self._visits, node)
            self._count(self._edges, (before, node))
            self._last[event.agent] = node
        elif isinstance(event, ev.NodeFinished):
            node = self._active.pop(event.task_id, "")
            if event.error and node:
                self._failed = node
        elif isinstance(event, ev.ToolCallStarted):
            self._tools[event.call_id] = (event.agent, event.name)
        elif isinstance(event, ev.ToolCallFinished):
            self._tools.pop(event.call_id, None)
        elif isinstance(event, ev.SubagentStarted):  # the runner's tools node to its start
            self._count(self._edges, (shape_id(event.agent, "tools"), shape_id(event.path, START)))
        elif isinstance(event, ev.SubagentFinished):
            last = self._last.get(event.path)
            if last is not None and event.error is None and not event.interrupted:
                self._count(self._edges, (last, shape_id(event.path, END)))
                self._count(self._visits, shape_id(event.path, END))
        elif isinstance(event, ENDS):
            if isinstance(event, ev.RunFinished) and ev.MAIN in self._last:
                self._count(self._edges, (self._last[ev.MAIN], END))
                self._count(self._visits, END)
            self._active.clear()
            self._tools.clear()
        else:
            return
        self._changes += 1

    def _count(self, counts: dict[Any, int], key: Any) -> None:
        if key in counts or len(counts) < LIMIT:
            counts[key] = counts.get(key, 0) + 1

    @property
    def version(self) -> int:
        """Changes whenever the path does."""
        return self._changes

    def to_dict(self) -> dict[str, Any]:
        """``{active, visits, edges, tools, failed}``: the nodes running now, each node's runs,
        each edge taken ``[source, target, times]``, the tools running now by node
        (``{"tools": ["ls"]}``) and the node that raised (or ``None``)."""
        tools: dict[str, list[str]] = {}
        for agent, name in self._tools.values():
            listed = tools.setdefault(shape_id(agent, "tools"), [])
            if name not in listed:
                listed.append(name)
        visits = dict(self._visits)
        return {
            "active": sorted(set(self._active.values())),
            "visits": visits,
            "edges": [[s, t, n] for (s, t), n in self._edges.items()],
            "tools": tools,
            "failed": self._failed,
        }
