"""The package's folders are its layers: the map in ARCHITECTURE.md names every folder and only
paths that exist, and every module's import path from before the folders still imports, as the
module it moved to, with a warning that names it."""

from __future__ import annotations

import ast
import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import deepnb
from deepnb._moved import MOVED

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


def test_every_old_import_path_is_the_moved_module_with_a_warning() -> None:
    code = (
        "import importlib, json, warnings\n"
        "from deepnb._moved import MOVED\n"
        "found = {}\n"
        "for old, new in sorted(MOVED.items()):  # a package before its modules\n"
        "    with warnings.catch_warnings(record=True) as caught:\n"
        "        warnings.simplefilter('always')\n"
        "        module = importlib.import_module(old)\n"
        "    warned = [str(w.message) for w in caught if w.category is DeprecationWarning]\n"
        "    found[old] = [module is importlib.import_module(new), f'{old} is now {new}' in warned]\n"
        "print(json.dumps(found))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    found = json.loads(out.stdout.strip().splitlines()[-1])
    assert sorted(found) == sorted(MOVED)
    assert {old: result for old, result in found.items() if result != [True, True]} == {}


def test_no_moved_name_is_a_module_of_today() -> None:
    """An old name that is also a real module would shadow it; each one's new module exists."""
    for old, new in MOVED.items():
        assert importlib.util.find_spec(new) is not None, new
        path = PACKAGE.parent / (old.replace(".", "/") + ".py")
        assert not path.exists() and not (PACKAGE.parent / old.replace(".", "/")).is_dir(), old


def imported_modules(tree: ast.AST) -> set[str]:
    """The modules an AST's import statements name (``from a import b`` names ``a`` and ``a.b``)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
    return names


def test_no_code_of_the_project_imports_an_old_path() -> None:
    old_paths = {
        str(path.relative_to(ROOT)): sorted(
            imported_modules(ast.parse(path.read_text(encoding="utf-8"))) & set(MOVED)
        )
        for folder in ("deepnb", "tests", "bench", "scripts")
        for path in (ROOT / folder).rglob("*.py")
        if path.relative_to(ROOT).as_posix() != "tests/unit/test_package_layout.py"
    }
    assert {path: names for path, names in old_paths.items() if names} == {}
