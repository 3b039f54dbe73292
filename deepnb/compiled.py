"""What a compiled agent graph runs, found in the graph itself: its middleware objects and the
compiled graphs of its subagents.

A graph built by ``create_agent`` / ``create_deep_agent`` keeps no list of its middleware. Each
hook node is a bound method of its middleware; the tool node's tools (``FilesystemMiddleware``'s
``ls``, ``write_file``, …) and its tool-call wrappers are closures over theirs; the ``task`` tool
closes over the subagents' compiled graphs. :func:`middleware_of` and :func:`subgraphs_of` follow
those references — functions, bound methods, partials, containers, runnables and tools, never into
the objects they find — so that deepnb can learn an attached graph's backend, memory files and
skill folders without the code that built it.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from types import FunctionType, MethodType
from typing import Any

DEPTH = 8
"""How many references deep the search follows from a node (closures nest a few levels)."""


def _is_middleware(value: Any) -> bool:
    cls = type(value)
    return any(
        c.__name__ == "AgentMiddleware" and c.__module__.startswith("langchain.agents") for c in cls.__mro__
    )


def _is_graph(value: Any) -> bool:
    return hasattr(value, "builder") and hasattr(value, "aget_state") and hasattr(value, "astream")


def _references(value: Any) -> Iterator[Any]:
    """What ``value`` refers to that may lead to middleware or graphs."""
    if isinstance(value, MethodType):
        yield value.__self__
        yield value.__func__
    elif isinstance(value, FunctionType):
        for cell in value.__closure__ or ():
            try:
                yield cell.cell_contents
            except ValueError:  # an empty cell
                continue
    elif isinstance(value, functools.partial):
        yield value.func
        yield from value.args
        yield from value.keywords.values()
    elif isinstance(value, Mapping):
        yield from value.values()
    elif isinstance(value, list | tuple | set | frozenset):
        yield from value
    else:  # a runnable (RunnableCallable, ToolNode) or a tool: the callables it holds
        for name in ("func", "afunc", "coroutine", "_wrap_tool_call", "_awrap_tool_call"):
            found = getattr(value, name, None)
            if found is not None:
                yield found
        tools = getattr(value, "tools_by_name", None)
        if isinstance(tools, Mapping):
            yield from tools.values()


def _walk(graph: Any) -> tuple[list[Any], list[Any]]:
    """The middleware and the subagent graphs reachable from ``graph``'s nodes, in order."""
    middleware: dict[int, Any] = {}
    graphs: dict[int, Any] = {}
    seen: set[int] = {id(graph)}
    nodes = getattr(getattr(graph, "builder", None), "nodes", None) or {}
    frontier = [getattr(node, "runnable", None) for node in nodes.values()]
    for _ in range(DEPTH):
        following: list[Any] = []
        for value in frontier:
            if value is None or id(value) in seen or isinstance(value, str | bytes | int | float | bool):
                continue
            seen.add(id(value))
            if _is_middleware(value):
                middleware.setdefault(id(value), value)
            elif _is_graph(value):
                graphs.setdefault(id(value), value)
            else:
                following.extend(_references(value))
        frontier = following
    return list(middleware.values()), list(graphs.values())


def middleware_of(graph: Any) -> list[Any]:
    """The middleware objects the agent ``graph`` runs (its own, not its subagents')."""
    return _walk(graph)[0]


def subgraphs_of(graph: Any) -> list[Any]:
    """The compiled graphs ``graph`` runs inside its nodes: its subagents (the ``task`` tool's)."""
    return _walk(graph)[1]
