"""The deepagents (and langchain-quickjs) private names deepnb uses still exist and still mean what
deepnb reads them for, and no module of deepnb reaches for them except
``deepnb/engine/deepagents_internals.py``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from deepagents import FilesystemPermission
from deepagents.backends import FilesystemBackend, StateBackend, StoreBackend
from deepagents.middleware._tool_exclusion import _ToolExclusionMiddleware
from deepagents.middleware.filesystem import FilesystemMiddleware
from deepagents.middleware.subagents import SubAgentMiddleware
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

import deepnb
from deepnb.engine import deepagents_internals as internals

PACKAGE = Path(deepnb.__file__).parent
PRIVATE_ATTRIBUTES = {
    "_permissions",
    "_with_permissions",
    "_store",
    "_namespace",
    "_excluded",
    "_ptc",
    "_subagents",
    "_HARNESS_PROFILES",
    "_get_harness_profile",
    "_ensure_harness_profiles_loaded",
}
"""The private attributes of third-party objects that the internals module reads."""


def test_filesystem_rules_and_a_copy_with_other_rules() -> None:
    rule = FilesystemPermission(operations=["write"], paths=["/notes/**"], mode="deny")
    middleware = FilesystemMiddleware(backend=StateBackend(), permissions=[rule])
    assert internals.filesystem_rules(middleware) == [rule]
    assert internals.filesystem_rules(object()) == [] == internals.filesystem_rules(None)
    other = FilesystemPermission(operations=["read"], paths=["/secrets/**"], mode="deny")
    copy = internals.with_filesystem_rules(middleware, [other])
    assert isinstance(copy, FilesystemMiddleware) and copy is not middleware
    assert internals.filesystem_rules(copy) == [other] and internals.filesystem_rules(middleware) == [rule]


def test_interrupt_rules_gate_the_writing_tools() -> None:
    rule = FilesystemPermission(operations=["write"], paths=["/notes/**"], mode="interrupt")
    gated = internals.interrupt_on_from_rules([rule])
    assert {"write_file", "edit_file"} <= set(gated)


def test_the_backend_checks_the_agent_tools_make(tmp_path: Path) -> None:
    assert internals.supports_delete(StateBackend()) in (True, False)
    assert isinstance(internals.glob_flags(), int) and internals.glob_flags() != 0
    root = tmp_path / "root"
    root.mkdir()
    (root / "a.txt").write_text("a")
    (tmp_path / "outside.txt").write_text("no")
    (root / "link.txt").symlink_to(tmp_path / "outside.txt")
    backend = FilesystemBackend(root_dir=str(root), virtual_mode=True)
    assert internals.resolve_real_path(backend, "/a.txt").endswith("a.txt")
    with pytest.raises((ValueError, OSError, RuntimeError)):
        internals.resolve_real_path(backend, "/link.txt")


def test_a_store_backend_gives_its_store_and_namespace() -> None:
    def namespace(runtime: object) -> tuple[str, ...]:
        return ("notes",)

    assert internals.store_parts(StoreBackend(namespace=namespace)) == (None, namespace)


def test_the_harness_profile_lookup() -> None:
    identifier, provider = internals.model_identity(GenericFakeChatModel(messages=iter([])))
    assert identifier is None or isinstance(identifier, str)
    assert provider is None or isinstance(provider, str)
    profiles = internals.harness_profiles()
    assert profiles and all(isinstance(key, str) for key in profiles)
    key = next(iter(profiles))
    assert internals.harness_profile(key) is not None
    hidden = internals.excluded_tools(_ToolExclusionMiddleware(excluded=frozenset({"b", "a"})))
    assert hidden == ["a", "b"] and internals.excluded_tools(None) == []


def test_the_subagents_an_agent_was_built_with() -> None:
    spec = {
        "name": "critic",
        "description": "Reviews.",
        "system_prompt": "Review.",
        "model": GenericFakeChatModel(messages=iter([])),
        "tools": [],
    }
    middleware = SubAgentMiddleware(backend=StateBackend(), subagents=[spec])
    assert [s["name"] for s in internals.declared_subagents(middleware)] == ["critic"]
    assert internals.declared_subagents(None) == []


def test_the_interpreter_options_code_may_use() -> None:
    quickjs = pytest.importorskip("langchain_quickjs", reason="the interpreter extra")
    interpreter = quickjs.CodeInterpreterMiddleware(ptc=["read_file"], subagents=False)
    assert internals.interpreter_ptc(interpreter) == ["read_file"]
    assert internals.interpreter_runs_subagents(interpreter) is False
    assert internals.interpreter_runs_subagents(quickjs.CodeInterpreterMiddleware()) is True


def _private_reach(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in PRIVATE_ATTRIBUTES:
            found.append(node.attr)
        elif isinstance(node, ast.Constant) and node.value in PRIVATE_ATTRIBUTES:
            found.append(node.value)  # getattr(x, "_permissions")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("deepagents"):
            module_private = any(part.startswith("_") for part in (node.module or "").split("."))
            names = [a.name for a in node.names if module_private or a.name.startswith("_")]
            found += [f"{node.module}.{name}" for name in names]
    return found


def test_no_other_module_reaches_for_a_private_name() -> None:
    reach = {
        str(path.relative_to(PACKAGE)): _private_reach(ast.parse(path.read_text(encoding="utf-8")))
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "deepagents_internals.py"
    }
    assert {path: names for path, names in reach.items() if names} == {}
    assert _private_reach(ast.parse(Path(internals.__file__).read_text(encoding="utf-8")))
