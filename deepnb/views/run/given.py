"""What the agents of a run were given — skills and memory files loaded into their prompts, the
tools each can call — as the static snapshot shows it: one collapsible section (text: a few
lines). The live view draws the same section (``widgets/src/run/given.ts``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deepnb.views import blocks
from deepnb.views.blocks import Block, Em, Fold, Line, List
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


def given_block(given: Mapping[str, Any]) -> Fold | None:
    """The section: a collapsed summary with the skills, memory files and tools under it
    (``None`` when nothing is known)."""
    summary = given_summary(given)
    if not summary:
        return None
    body: list[Block] = []
    skills = given.get("skills") or []
    if skills:
        rows = tuple(Line.of(Em(s["name"]), _by(s["agent"]), f" — {s['description']}") for s in skills)
        body.append(List(rows, head=Line.of("Skills in the prompt:")))
    memory = given.get("memory") or []
    if memory:
        paths = tuple(Line.of(Em(m["path"], "code"), _by(m["agent"])) for m in memory)
        body.append(List(paths, head=Line.of("Memory files in the prompt:")))
    for agent, names in (given.get("tools") or {}).items():
        body.append(Line.of(f"Tools of {agent}: {', '.join(names)}"))
    return Fold((summary,), tuple(body), cls="dnb-given", body_cls="dnb-given-body")


def given_lines(given: Mapping[str, Any]) -> list[str]:
    """The section as text lines (none when nothing is known)."""
    block = given_block(given)
    return blocks.text(block) if block is not None else []


def given_html(given: Mapping[str, Any]) -> str:
    """The section as a collapsed ``<details>`` (``""`` when nothing is known)."""
    block = given_block(given)
    return blocks.html(block) if block is not None else ""
