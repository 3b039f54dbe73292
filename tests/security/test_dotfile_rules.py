"""A deny rule covers dotfiles on both sides: ``/secrets/**`` denies ``/secrets/.env`` to the agent's
own tools (deepnb builds the agent with rules that spell the dots out) and to the notebook (which
matches the same rules), and the two sides agree on every path."""

from __future__ import annotations

import itertools
import json
import uuid
from pathlib import Path
from typing import Any

import pytest

import deepnb
from deepnb.engine.files.rules import DOT_PARTS, dot_patterns
from deepnb.models.scripted import ScriptedChatModel, parse_script

SECRET = "SENTINEL-4d1e-dotfile"

# (declared pattern, a dot-named path it must cover)
COVERED = [
    ("/secrets/**", "/secrets/.env"),
    ("/secrets/**", "/secrets/.git/config"),
    ("/secrets/**", "/secrets/app/.env"),
    ("/secrets/**", "/secrets/.a/b/.c/d"),
    ("/secrets/*", "/secrets/.env"),
    ("/**/.env", "/app/.hidden/.env"),
    ("/keys/*.pem", "/keys/.old.pem"),
    ("/{secrets,keys}/**", "/keys/.ssh/id"),
]


def _agent(root: Path, patterns: list[str], calls: list[tuple[str, dict[str, Any]]]) -> Any:
    from deepagents import FilesystemPermission
    from deepagents.backends import FilesystemBackend

    turns: list[Any] = [{"tool_calls": [{"name": name, "args": args}]} for name, args in calls] + ["done"]
    model = ScriptedChatModel(script=parse_script({"agents": {"main": [{"turns": turns}]}}))
    rules = [FilesystemPermission(operations=["read", "write"], paths=patterns, mode="deny")]
    backend = FilesystemBackend(root_dir=str(root), virtual_mode=True)
    return deepnb.agent(f"dots-{uuid.uuid4().hex[:6]}", model, backend=backend, permissions=rules)


def _tool_results(wb: Any, thread: str) -> list[tuple[str, str]]:
    from langchain_core.messages import ToolMessage

    messages = wb.graph.get_state({"configurable": {"thread_id": thread}}).values["messages"]
    return [(m.name, str(m.content)) for m in messages if isinstance(m, ToolMessage)]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    for _, path in COVERED:
        target = root / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(SECRET + "\n")
    return root


def test_the_agents_own_tools_deny_dotfiles(root: Path) -> None:
    patterns = sorted({pattern for pattern, _ in COVERED})
    paths = [path for _, path in COVERED]
    calls = [("read_file", {"file_path": p}) for p in paths]
    calls += [
        ("write_file", {"file_path": "/secrets/.new", "content": "x"}),
        ("edit_file", {"file_path": "/secrets/.env", "old_string": "SENTINEL", "new_string": "changed"}),
        ("delete", {"file_path": "/secrets/.git/config"}),
        ("grep", {"pattern": "SENTINEL", "path": "/", "output_mode": "content"}),
        ("glob", {"pattern": "**/.*", "path": "/"}),
        ("ls", {"path": "/secrets"}),
    ]
    wb = _agent(root, patterns, calls)
    run = wb.run("read the secrets")
    results = _tool_results(wb, run.thread_id)
    assert len(results) == len(calls)
    for (name, args), (_, content) in zip(calls, results, strict=True):
        assert SECRET not in content, (name, args)
        if name in ("grep", "glob", "ls"):  # nothing listed under the rules
            assert ".env" not in content and ".git" not in content and ".pem" not in content, (name, content)
        else:
            assert content.startswith("Error: permission denied"), (name, args, content)
    for _, path in COVERED:
        assert (root / path.lstrip("/")).read_text() == SECRET + "\n"
    assert not (root / "secrets" / ".new").exists()


def test_the_notebook_denies_the_same_dotfiles(root: Path) -> None:
    patterns = sorted({pattern for pattern, _ in COVERED})
    files = _agent(root, patterns, []).files()
    for _, path in COVERED:
        with pytest.raises(PermissionError, match=r"is denied by the agent's permission rule"):
            files[path]
        with pytest.raises(PermissionError, match=r"is denied by the agent's permission rule"):
            files.write(path, "overwritten")
        assert not files.writable(path)
    shown = [
        list(files),
        files.glob("**/.*"),
        files.grep("SENTINEL"),
        [e.path for e in files.ls("/secrets/")],
    ]
    assert SECRET not in json.dumps(shown, default=str) and ".env" not in json.dumps(shown, default=str)


def test_a_rule_names_the_pattern_as_declared(root: Path) -> None:
    files = _agent(root, ["/secrets/**"], []).files()
    with pytest.raises(PermissionError) as denied:
        files["/secrets/.env"]
    assert str(denied.value) == (
        "Reading /secrets/.env is denied by the agent's permission rule "
        "(operations=['read', 'write'], paths=['/secrets/**'], mode='deny')."
    )


PATTERNS = [
    "/s/**",
    "/s/*",
    "/s/**/x",
    "/**/.env",
    "/s/*.pem",
    "/s/?x",
    "/s/[.a]*",
    "/s/[!k]*",
    "/s/[+-/]env",
    "/s/*/k/**",
    "/{s,t}/**/*",
    "/s/a",
]
SEGMENTS = ["a", ".b", "x", ".env", "k", ".x.pem", "y.pem"]


def _paths() -> list[str]:
    found = []
    for depth in range(1, 5):
        for parts in itertools.product(SEGMENTS, repeat=depth):
            for top in ("s", "t"):
                found.append("/" + "/".join((top, *parts)))
    return found + [p + "/" for p in found[:200]]


@pytest.mark.parametrize("pattern", PATTERNS)
def test_dot_patterns_match_what_dotglob_matches(pattern: str) -> None:
    """The spelled-out patterns, matched as deepagents matches (no DOTGLOB), match exactly the paths
    the declared pattern matches with DOTGLOB (paths here have at most DOT_PARTS dot-named parts)."""
    import wcmatch.glob as wcglob

    flags = wcglob.BRACE | wcglob.GLOBSTAR
    expanded = dot_patterns(pattern)
    for path in _paths():
        assert sum(p.startswith(".") for p in path.split("/")) <= DOT_PARTS
        wanted = wcglob.globmatch(path, pattern, flags=flags | wcglob.DOTGLOB)
        assert any(wcglob.globmatch(path, p, flags=flags) for p in expanded) == wanted, (pattern, path)


def test_spelled_out_rules_are_valid_rules() -> None:
    from deepagents import FilesystemPermission

    from deepnb.engine.files.rules import agent_rules

    declared = [FilesystemPermission(operations=["read"], paths=[*PATTERNS, "/s/?.", "/s/[.]."], mode="deny")]
    (rule,) = agent_rules(declared) or []
    assert set(PATTERNS) <= set(rule.paths) and rule.mode == "deny"
    assert not any(".." in p.split("/") for p in rule.paths)
