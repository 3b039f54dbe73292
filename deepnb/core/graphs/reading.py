"""Reading a compiled LangChain agent back: its middleware in order, its tools, its model, and
the compiled graphs it runs inside its nodes (its subagents).

``create_agent`` keeps none of these on the graph it returns; they live in the graph's nodes and
in the closures of its model and tool steps. Each function here reads one of them where the
graph holds it and returns ``None`` where it doesn't (a graph of another shape, or a LangChain
version that keeps them elsewhere), so callers can say what could not be read. Nothing here
calls the agent's code. Classes are recognised by name, so this module imports no LangChain.
``%deepagent inspect`` shows what this reads (:mod:`deepnb.engine.anatomy`), and deepnb finds an
attached graph's backend, memory files and skill folders with it (:mod:`deepnb.engine.files.setup`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from types import FunctionType, MethodType
from typing import Any

_CHAIN_CELLS = ("single_handler", "outer", "inner")
"""The closure cells of LangChain's composed hooks, outer layers before inner ones."""
_DEPTH = 200
"""How deep a composed chain of hooks is followed (one level per middleware and a few more)."""
_REFERENCE_DEPTH = 8
"""How many references deep :func:`subgraphs_of` follows from a node (closures nest a few levels)."""


def is_instance(value: object, class_name: str) -> bool:
    """Whether ``value``'s class or a base of it is named ``class_name``."""
    return any(k.__name__ == class_name for k in type(value).__mro__)


def _cells(function: Any) -> dict[str, Any]:
    """A function's closure as ``{name: value}`` (empty cells left out)."""
    code, closure = getattr(function, "__code__", None), getattr(function, "__closure__", None)
    if code is None or not closure:
        return {}
    found = {}
    for name, cell in zip(code.co_freevars, closure, strict=False):
        try:
            found[name] = cell.cell_contents
        except ValueError:  # an empty cell
            continue
    return found


def _chain(handler: Any, depth: int = 0) -> Iterator[Any]:
    """The middleware of a composed ``wrap_*`` chain, outermost first."""
    if handler is None or depth > _DEPTH:
        return
    owner = getattr(handler, "__self__", None)
    if is_instance(owner, "AgentMiddleware"):
        yield owner
        return
    wrapped = getattr(handler, "__wrapped__", None)
    if wrapped is not None:
        yield from _chain(wrapped, depth + 1)
        return
    cells = _cells(handler)
    for name in _CHAIN_CELLS:
        if name in cells:
            yield from _chain(cells[name], depth + 1)


def _model_step(graph: Any) -> dict[str, Any]:
    """The closure of the graph's model step (``{}`` for a graph without one)."""
    node = getattr(graph, "nodes", {}).get("model")
    bound = getattr(node, "bound", None)
    return _cells(getattr(bound, "func", None)) or _cells(getattr(bound, "afunc", None))


def _hook_owner(node: Any) -> Any:
    bound = getattr(node, "bound", None)
    for attr in ("func", "afunc"):
        owner = getattr(getattr(bound, attr, None), "__self__", None)
        if is_instance(owner, "AgentMiddleware"):
            return owner
    return None


def middleware_of(graph: Any, *, prefer: Callable[[Any], int] | None = None) -> list[Any] | None:
    """The graph's middleware in the order ``create_agent`` was given them, or ``None`` for a
    graph that isn't a ``create_agent`` agent. Read from the hook steps (added one middleware
    after another) and the composed ``wrap_model_call`` and ``wrap_tool_call`` chains (outer
    first), merged; where they leave two unordered, ``prefer`` (lower first) decides. A
    middleware with no hook at all cannot be seen."""
    nodes = getattr(graph, "nodes", None)
    if not isinstance(nodes, dict) or "model" not in nodes:
        return None
    hooks = [_hook_owner(node) for name, node in nodes.items() if "." in name]
    step = _model_step(graph)
    model_chain = list(_chain(step.get("wrap_model_call_handler")))
    tools = getattr(nodes.get("tools"), "bound", None)
    wrapper = getattr(tools, "_wrap_tool_call", None) or getattr(tools, "_awrap_tool_call", None)
    tool_chain = list(_chain(wrapper))
    return _merge([_unique([m for m in hooks if m is not None]), model_chain, tool_chain], prefer)


def _unique(items: Sequence[Any]) -> list[Any]:
    seen: list[Any] = []
    for item in items:
        if all(item is not s for s in seen):
            seen.append(item)
    return seen


def _merge(sequences: list[list[Any]], prefer: Callable[[Any], int] | None = None) -> list[Any]:
    """One order that keeps the order of each sequence (each is a part of the same list):
    repeatedly take a head that no sequence holds further back (the one ``prefer`` ranks
    first, else the first found)."""
    pending = [list(s) for s in sequences if s]
    merged: list[Any] = []
    while pending:
        free = [s[0] for s in pending if not any(any(s[0] is x for x in other[1:]) for other in pending)]
        # the sequences never disagree for one create_agent list; if they did, take the first head
        head = min(free, key=prefer) if free and prefer else free[0] if free else pending[0][0]
        merged.append(head)
        pending = [[x for x in s if x is not head] for s in pending]
        pending = [s for s in pending if s]
    return merged


def model_of(graph: Any) -> Any | None:
    """The chat model the graph's model step calls (``None``: not found, or chosen per call)."""
    return _model_step(graph).get("model")


def tools_of(graph: Any) -> list[Any] | None:
    """The tools the model is offered before any middleware changes them per call: the tool
    node's tools and provider built-ins (dicts), in order; ``None`` when the graph has no model
    step to read them from."""
    step = _model_step(graph)
    if "default_tools" in step:
        return list(step["default_tools"])
    node = getattr(getattr(graph, "nodes", {}).get("tools"), "bound", None)
    by_name = getattr(node, "tools_by_name", None)
    return list(by_name.values()) if isinstance(by_name, dict) else None


def first(middleware: Sequence[Any], class_name: str, where: Callable[[Any], bool] | None = None) -> Any:
    """The first middleware of ``class_name`` (that ``where`` accepts), or ``None``."""
    return next((m for m in middleware if is_instance(m, class_name) and (where is None or where(m))), None)


def subgraphs_of(graph: Any) -> list[Any]:
    """The compiled graphs ``graph`` runs inside its nodes, in the order found: its subagents
    (the ``task`` tool closes over their graphs), or a graph a node of a hand-built graph calls.
    Found by following the references of each node (functions, bound methods, partials,
    containers, runnables and tools), never into a middleware or a graph found on the way."""
    graphs: dict[int, Any] = {}
    seen: set[int] = {id(graph)}
    nodes = getattr(getattr(graph, "builder", None), "nodes", None) or {}
    frontier = [getattr(node, "runnable", None) for node in nodes.values()]
    for _ in range(_REFERENCE_DEPTH):
        following: list[Any] = []
        for value in frontier:
            if value is None or id(value) in seen or isinstance(value, str | bytes | int | float | bool):
                continue
            seen.add(id(value))
            if _is_graph(value):
                graphs.setdefault(id(value), value)
            elif not _is_langchain_middleware(value):
                following.extend(_references(value))
        frontier = following
    return list(graphs.values())


def _is_langchain_middleware(value: Any) -> bool:
    """Whether ``value`` is a LangChain ``AgentMiddleware`` (the reference walk stops there)."""
    return any(
        k.__module__.startswith("langchain.agents")
        for k in type(value).__mro__
        if k.__name__ == "AgentMiddleware"
    )


def _is_graph(value: Any) -> bool:
    return hasattr(value, "builder") and hasattr(value, "aget_state") and hasattr(value, "astream")


def _references(value: Any) -> Iterator[Any]:
    """What ``value`` refers to that may lead to a graph."""
    if isinstance(value, MethodType):
        yield value.__self__
        yield value.__func__
    elif isinstance(value, FunctionType):
        yield from _cells(value).values()
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
