"""The package's folders are its layers: the map in ARCHITECTURE.md names every folder and only
paths that exist, and the many-run kinds live above the session layer."""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import deepnb

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = Path(deepnb.__file__).parent
MAP = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")


def test_the_map_names_every_folder_of_the_package() -> None:
    folders = sorted(
        p.parent.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("__init__.py") if p.parent != PACKAGE
    )
    missing = [
        f
        for f in folders
        if not re.search(rf"(deepnb/{re.escape(f)}/|\b{re.escape(f.split('/')[-1])}/)", MAP)
    ]
    assert missing == []


def test_every_path_the_map_names_exists() -> None:
    named = set(re.findall(r"`((?:deepnb|widgets|tests)/[\w./<>-]+)`", MAP))
    concrete = [p for p in named if "<" not in p]
    assert concrete, "the map names no path"
    assert [p for p in concrete if not (ROOT / p).exists()] == []


def imported_modules(tree: ast.AST) -> set[str]:
    """The modules an AST's import statements name (``from a import b`` names ``a`` and ``a.b``)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
    return names


MANY_RUN_KINDS = ("batch", "comparing", "experiment", "datasets", "scorers", "scoring", "stats", "log")


def test_the_many_run_kinds_live_in_many_and_the_session_layer_calls_up_once() -> None:
    """Batches, comparisons and experiments are sessions of sessions: their folder sits above the
    session layer, which reaches it in one place only (``Session.map``, when called)."""
    assert [m for m in MANY_RUN_KINDS if importlib.util.find_spec(f"deepnb.many.{m}") is None] == []
    calls_up = {}
    for path in (PACKAGE / "session").rglob("*.py"):
        names = imported_modules(ast.parse(path.read_text("utf-8")))
        calls_up[path.relative_to(ROOT).as_posix()] = {n for n in names if n.startswith("deepnb.many")}
    assert {path: names for path, names in calls_up.items() if names} == {
        "deepnb/session/graph_session.py": {
            "deepnb.many.batch",
            "deepnb.many.batch.Batch",
            "deepnb.many.batch.start",
        },
        "deepnb/session/protocol.py": {"deepnb.many.batch", "deepnb.many.batch.Batch"},
    }
