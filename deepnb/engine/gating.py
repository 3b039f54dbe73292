"""One approval rule for every way a tool can run.

A tool can run when the model calls it, when a subagent's model calls it, when interpreter code
calls it (``interpreter={"ptc": [...]}``), or inside a subagent that interpreter code starts with
``task()``. The first two pass the human-in-the-loop middleware of the agent that calls; the
interpreter's calls do not (langchain-quickjs runs them through its own bridge, and an approval
raised inside an ``eval`` would re-run the whole code on resume, replaying what it did before).

So an agent whose code path reaches a gated tool is refused when it is built. :data:`PATHS` is
the table of code paths; :func:`gates` collects, per agent (main and each subagent), every rule
that asks for approval; :func:`check` refuses their overlap in one line naming tool and path.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from deepnb.core.errors import DeepnbError
from deepnb.engine.deepagents_internals import (
    interpreter_ptc,
    interpreter_runs_subagents,
    interrupt_on_from_rules,
)

MAIN = "main"
GENERAL_PURPOSE = "general-purpose"


@dataclass(frozen=True)
class Gate:
    """A rule that asks for approval before ``tool`` runs in ``agent``."""

    agent: str
    tool: str
    source: str
    """Where the rule comes from, as the refusal names it (``interrupt_on``, …)."""


@dataclass(frozen=True)
class Reach:
    """An agent whose tools interpreter code can run without its approval middleware."""

    agent: str
    """The agent whose interpreter runs the code."""
    target: str
    """The agent whose tool runs: the same one, or the subagent ``task()`` starts."""
    tool: str
    """The tool code calls, or ``"*"`` for any tool of ``target``."""


@dataclass(frozen=True)
class CodePath:
    """A way interpreter code runs tools. ``find`` lists what it reaches in an agent to build;
    ``says``, ``why`` and ``fix`` word the refusal (``{agent}``, ``{subagent}``, ``{tool}`` and
    ``{source}`` are filled in)."""

    name: str
    says: str
    why: str
    fix: str
    find: Callable[[Mapping[str, Any], Sequence[Any]], Iterable[Reach]]
    fix_any: str = ""
    """What to change when the rule gates every tool (a compiled subagent's own middleware)."""


# -- what asks for approval -----------------------------------------------------------------------


def _interrupt_on_names(value: Mapping[str, Any] | None) -> list[str]:
    """Tools an ``interrupt_on`` mapping gates (``False`` turns a tool's gate off)."""
    return [str(tool) for tool, config in (value or {}).items() if config is not False]


def _permission_names(rules: Sequence[Any] | None) -> list[str]:
    """Filesystem tools that ``FilesystemPermission(mode="interrupt")`` rules can gate."""
    if not rules or not any(getattr(r, "mode", None) == "interrupt" for r in rules):
        return []
    return list(interrupt_on_from_rules(rules))


def _hitl_names(middleware: Sequence[Any]) -> list[str]:
    """Tools a ``HumanInTheLoopMiddleware`` in the list gates (an extension's, or the user's own)."""
    from langchain.agents.middleware import HumanInTheLoopMiddleware  # noqa: PLC0415  # lazy: heavy

    return [
        str(tool)
        for m in middleware
        if isinstance(m, HumanInTheLoopMiddleware)
        for tool in (getattr(m, "interrupt_on", None) or {})
    ]


def _agent_gates(agent: str, interrupt_on: Any, permissions: Any, middleware: Sequence[Any]) -> list[Gate]:
    found = [Gate(agent, tool, "interrupt_on") for tool in _interrupt_on_names(interrupt_on)]
    found += [
        Gate(agent, tool, "a FilesystemPermission interrupt rule") for tool in _permission_names(permissions)
    ]
    found += [Gate(agent, tool, "a HumanInTheLoopMiddleware") for tool in _hitl_names(middleware)]
    return found


def _compiled_gated(runnable: Any) -> bool:
    """Whether a compiled subagent asks for approval itself (a human-in-the-loop node)."""
    nodes = getattr(runnable, "nodes", None) or {}
    return any("HumanInTheLoop" in str(node) for node in nodes)


def gates(options: Mapping[str, Any], middleware: Sequence[Any]) -> list[Gate]:
    """Every approval rule of the agent ``options`` describe, main agent and subagents, as
    deepagents applies them: a declarative subagent inherits the main agent's ``interrupt_on``
    and ``permissions`` unless it sets its own, a forked one also its middleware, and the
    general-purpose subagent takes the main agent's. A compiled subagent with its own approval
    middleware counts as gating every tool (``"*"``)."""
    interrupt_on = options.get("interrupt_on")
    permissions = options.get("permissions")
    found = _agent_gates(MAIN, interrupt_on, permissions, middleware)
    specs = [s for s in options.get("subagents") or () if isinstance(s, Mapping) and "graph_id" not in s]
    for spec in specs:
        name = str(spec.get("name", "?"))
        if "runnable" in spec:
            if _compiled_gated(spec["runnable"]):
                found.append(Gate(name, "*", "own HumanInTheLoopMiddleware"))
            continue
        own = list(spec.get("middleware") or ())
        inherited = list(middleware) if spec.get("mode") == "fork" else []
        found += _agent_gates(
            name,
            spec.get("interrupt_on", interrupt_on),
            spec.get("permissions", permissions),
            [*inherited, *own],
        )
    if not any(spec.get("name") == GENERAL_PURPOSE for spec in specs):
        found += _agent_gates(GENERAL_PURPOSE, interrupt_on, permissions, [])
    return found


# -- what code can run ----------------------------------------------------------------------------


def _interpreters(middleware: Sequence[Any]) -> list[Any]:
    """The langchain-quickjs interpreter middleware in the list (none unless it was imported)."""
    module = sys.modules.get("langchain_quickjs")
    cls = getattr(module, "CodeInterpreterMiddleware", None) if module else None
    return [m for m in middleware if cls is not None and isinstance(m, cls)]


def _stacks(options: Mapping[str, Any], middleware: Sequence[Any]) -> list[tuple[str, list[Any]]]:
    """Each agent's own middleware: the main agent's, and each declarative subagent's (a forked
    one runs the main agent's too)."""
    stacks = [(MAIN, list(middleware))]
    for spec in options.get("subagents") or ():
        if isinstance(spec, Mapping) and "runnable" not in spec and "graph_id" not in spec:
            inherited = list(middleware) if spec.get("mode") == "fork" else []
            stacks.append((str(spec.get("name", "?")), [*inherited, *(spec.get("middleware") or ())]))
    return stacks


def _ptc_names(interpreter: Any) -> list[str]:
    entries = interpreter_ptc(interpreter)
    if entries is None:
        return []
    if isinstance(entries, str | bytes) or not isinstance(entries, Iterable):
        raise DeepnbError("interpreter ptc takes a list of tool names, e.g. ptc=['read_file', 'glob'].")
    names = [e if isinstance(e, str) else str(getattr(e, "name", e)) for e in entries]
    if "task" in names:
        raise DeepnbError(
            "interpreter ptc cannot take 'task': code starts subagents with task() "
            "(interpreter subagents=True); remove 'task' from ptc."
        )
    return names


def _ptc_reach(options: Mapping[str, Any], middleware: Sequence[Any]) -> Iterable[Reach]:
    for agent, stack in _stacks(options, middleware):
        for interpreter in _interpreters(stack):
            for tool in _ptc_names(interpreter):
                yield Reach(agent, agent, tool)


def _js_task(middleware: Sequence[Any]) -> bool:
    """Whether the main agent's code has ``task()`` (only the main agent has the task tool)."""
    return any(interpreter_runs_subagents(i) for i in _interpreters(middleware))


def _task_tool_reach(options: Mapping[str, Any], middleware: Sequence[Any]) -> Iterable[Reach]:
    if _js_task(middleware):
        yield Reach(MAIN, MAIN, "task")


def _subagent_reach(options: Mapping[str, Any], middleware: Sequence[Any]) -> Iterable[Reach]:
    if not _js_task(middleware):
        return
    names = [
        str(s.get("name", "?"))
        for s in options.get("subagents") or ()
        if isinstance(s, Mapping) and "graph_id" not in s
    ]
    for target in names if GENERAL_PURPOSE in names else [*names, GENERAL_PURPOSE]:
        yield Reach(MAIN, target, "*")


PATHS: tuple[CodePath, ...] = (
    CodePath(
        "ptc",
        "interpreter ptc lets code{agent} call {tool}, which {source} gates",
        "code calls skip approval",
        "remove {tool} from ptc or from {source}",
        _ptc_reach,
    ),
    CodePath(
        "task",
        "interpreter task() lets code call the task tool, which {source} gates",
        "code calls skip approval",
        "set interpreter subagents=False, or remove task from {source}",
        _task_tool_reach,
    ),
    CodePath(
        "subagent",
        "interpreter task() lets code start subagent {subagent}, whose {source} gates {tool}",
        "an approval inside code would run the whole code again on resume",
        "set interpreter subagents=False, or remove {tool} from {source}",
        _subagent_reach,
        "set interpreter subagents=False",
    ),
)
"""Every way interpreter code runs a tool without the approval middleware of the agent whose
tool it is. A model's own tool calls and ``task`` calls are not here: they pass it."""


def conflicts(options: Mapping[str, Any], middleware: Sequence[Any]) -> list[str]:
    """One line for each gated tool that interpreter code can run, naming tool and path."""
    rules = gates(options, middleware)
    lines: list[str] = []
    for path in PATHS:
        for reach in path.find(options, middleware):
            for gate in rules:
                if gate.agent != reach.target or (reach.tool not in ("*", gate.tool) and gate.tool != "*"):
                    continue
                tool = reach.tool if gate.tool == "*" and reach.tool != "*" else gate.tool
                tool = "its tools" if tool == "*" else tool
                fields = {
                    "agent": "" if reach.agent == MAIN else f" in subagent {reach.agent!r}",
                    "subagent": repr(reach.target),
                    "tool": tool,
                    "source": gate.source,
                }
                fix = path.fix_any if gate.tool == "*" and path.fix_any else path.fix
                lines.append(f"{path.says.format(**fields)}: {path.why} — {fix.format(**fields)}.")
    return list(dict.fromkeys(lines))


def check(options: Mapping[str, Any], middleware: Sequence[Any]) -> None:
    """Refuse an agent whose interpreter code could run a tool its approval rules gate."""
    found = conflicts(options, middleware)
    if found:
        more = f" ({len(found) - 1} more like it)" if len(found) > 1 else ""
        raise DeepnbError(f"Cannot build this agent: {found[0]}{more}")
