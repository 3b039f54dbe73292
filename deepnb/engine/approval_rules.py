"""Approval rules that mean what they say: every tool an ``interrupt_on`` rule names is a tool
the agent (or, for a subagent's own rules, that subagent) can call. A typo (``write_fil``) would
otherwise gate nothing while the user believes writes wait for approval, so it is refused when
the agent is built, naming the tools it has. Rules are checked against the compiled graph, so
tools that come from MCP servers and extensions count."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from deepnb.core.errors import DeepnbError
from deepnb.engine.anatomy import tools_by_agent

MAIN = "main"


def check_rules(options: Mapping[str, Any], graph: Any) -> None:
    """Refuse a rule of ``options`` (``interrupt_on``, and each subagent spec's own) that names
    a tool the compiled ``graph`` offers no agent of it (for a subagent's rule: not that
    subagent). A graph whose tools cannot be read is not checked."""
    tools = tools_by_agent(graph)
    if not tools:
        return
    every = sorted({name for names in tools.values() for name in names})
    _refuse_unknown(_names(options.get("interrupt_on")), every, "interrupt_on", "no agent here can call")
    for spec in options.get("subagents") or ():
        if not isinstance(spec, Mapping) or not spec.get("interrupt_on"):
            continue
        label = str(spec.get("name") or "")
        own = sorted(tools.get(label, ())) or every
        _refuse_unknown(
            _names(spec["interrupt_on"]), own, f"The {label} subagent's interrupt_on", "it cannot call"
        )


def _names(rules: Any) -> list[str]:
    if isinstance(rules, Mapping):
        return [str(name) for name in rules]
    return []


def _refuse_unknown(named: Sequence[str], tools: Sequence[str], where: str, cannot: str) -> None:
    unknown = [name for name in named if name not in tools]
    if not unknown:
        return
    first = unknown[0]
    close = difflib.get_close_matches(first, tools, n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    raise DeepnbError(
        f"{where} names {_quoted(unknown)}, which {cannot}, so it would gate nothing.{hint} "
        f"The tools are: {', '.join(tools)}."
    )


def _quoted(names: Iterable[str]) -> str:
    listed = [repr(name) for name in names]
    return listed[0] if len(listed) == 1 else f"{', '.join(listed[:-1])} and {listed[-1]}"
