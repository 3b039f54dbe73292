"""What the agents of a run were given — skills and memory files loaded into their prompts, the
tools each can call — as the static snapshot shows it: one collapsible section (text: a few
lines). The live view draws the same section (``widgets/src/run/given.ts``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deepnb.core.text.markup import escape
from deepnb.views.run.items import plural


def _by(agent: str) -> str:
    return "" if agent == "main" else f" ({agent})"


def given_summary(given: Mapping[str, Any]) -> str:
    """``"Given: 2 skills · 1 memory file · tools: main 10, critic 7"`` (``""``: nothing known)."""
    skills, memory, tools = given.get("skills") or [], given.get("memory") or [], given.get("tools") or {}
    parts = []
    if skills:
        parts.append(plural(len(skills), "skill"))
    if memory:
        parts.append(plural(len(memory), "memory file"))
    if tools:
        parts.append("tools: " + ", ".join(f"{agent} {len(names)}" for agent, names in tools.items()))
    return "Given: " + " · ".join(parts) if parts else ""


def given_lines(given: Mapping[str, Any]) -> list[str]:
    """The section as text lines (none when nothing is known)."""
    summary = given_summary(given)
    if not summary:
        return []
    lines = [summary]
    lines += [f"  skill {s['name']}{_by(s['agent'])}: {s['description']}" for s in given.get("skills") or []]
    lines += [f"  memory {m['path']}{_by(m['agent'])}" for m in given.get("memory") or []]
    tools = given.get("tools") or {}
    lines += [f"  tools of {agent}: {', '.join(names)}" for agent, names in tools.items()]
    return lines


def given_html(given: Mapping[str, Any]) -> str:
    """The section as a collapsed ``<details>`` (``""`` when nothing is known)."""
    summary = given_summary(given)
    if not summary:
        return ""
    body = []
    skills = given.get("skills") or []
    if skills:
        rows = "".join(
            f"<li><b>{escape(s['name'])}</b>{escape(_by(s['agent']))} — {escape(s['description'])}</li>"
            for s in skills
        )
        body.append(f"<div>Skills in the prompt:</div><ul>{rows}</ul>")
    memory = given.get("memory") or []
    if memory:
        rows = "".join(f"<li><code>{escape(m['path'])}</code>{escape(_by(m['agent']))}</li>" for m in memory)
        body.append(f"<div>Memory files in the prompt:</div><ul>{rows}</ul>")
    for agent, names in (given.get("tools") or {}).items():
        body.append(f"<div>Tools of {escape(agent)}: {escape(', '.join(names))}</div>")
    return (
        f'<details class="dnb-given"><summary>{escape(summary)}</summary>'
        f'<div class="dnb-given-body">{"".join(body)}</div></details>'
    )
