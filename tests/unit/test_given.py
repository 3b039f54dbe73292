"""What the agents were given, in the run view and its snapshot: the skills (name, description)
and memory files loaded into the prompt, and the tools each agent can call — reported as they
load on a thread's first run, from the thread's state on later ones; escaped in HTML."""

from __future__ import annotations

from pathlib import Path

from deepagents.backends import FilesystemBackend

import deepnb
from deepnb.views.run.run_view import RunView
from deepnb.views.run.snapshot import snapshot_bundle
from tests.support.agents import scripted, unique

SKILL = """---
name: summarize
description: Summarize a text <img src=x onerror="alert(1)"> in three lines.
---
Read it, then write three lines.
"""


def _project(root: Path) -> FilesystemBackend:
    (root / "skills" / "summarize").mkdir(parents=True)
    (root / "skills" / "summarize" / "SKILL.md").write_text(SKILL)
    (root / "AGENTS.md").write_text("# Project memory\nBe brief.\n")
    return FilesystemBackend(root_dir=str(root), virtual_mode=True)


def test_skills_memory_and_tools_per_agent_are_shown(tmp_path: Path) -> None:
    bench = deepnb.agent(
        unique("given"),
        model=scripted({"main": ["Done.", "Again."]}),
        backend=_project(tmp_path),
        memory=["/AGENTS.md"],
        skills=["/skills/"],
        subagents=[{"name": "critic", "description": "Reviews.", "system_prompt": "Be sharp.", "tools": []}],
    )
    run = bench.run("Summarize the notes.")
    given = run.state.given
    description = 'Summarize a text <img src=x onerror="alert(1)"> in three lines.'
    assert given["skills"] == [{"name": "summarize", "description": description, "agent": "main"}]
    assert given["memory"] == [{"path": "/AGENTS.md", "agent": "main"}]
    assert list(given["tools"]) == ["main", "general-purpose", "critic"]
    assert given["tools"]["main"][-2:] == ["task", "write_todos"] and "execute" not in given["tools"]["main"]
    assert "task" not in given["tools"]["critic"]

    bundle = snapshot_bundle(run.state)
    text, html = bundle["text/plain"], bundle["text/html"]
    assert "Given: 1 skill · 1 memory file · tools: main 9, general-purpose 7, critic 7" in text
    assert f"  Skills in the prompt:\n    summarize — {description}" in text
    assert "  Memory files in the prompt:\n    /AGENTS.md" in text
    assert '<details class="dnb-given"><summary>Given: 1 skill' in html
    assert "<img" not in html and "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in html

    view = RunView(run)
    assert view.given == run.state.to_json()["given"]

    again = bench.run("And again.")  # loaded once per thread: read from the thread's state
    assert again.state.given["skills"] == given["skills"]
    assert again.state.given["memory"] == given["memory"]


def test_an_agent_without_skills_or_memory_lists_only_its_tools() -> None:
    run = deepnb.agent(unique("bare"), model=scripted({"main": ["hi"]})).run("go")
    assert run.state.given["skills"] == [] and run.state.given["memory"] == []
    assert "Given: tools: main 9, general-purpose 7" in snapshot_bundle(run.state)["text/plain"]
