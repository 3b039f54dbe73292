"""The test folders mirror the checks: ``make check`` runs ``tests/unit`` and ``tests/shell`` whole, so
nothing there may need a kernel, a browser or Binder, and what does need one lives (marked) elsewhere."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
FOLDERS = {
    "unit",
    "shell",
    "kernel",
    "browser",
    "notebooks",
    "integration",
    "served",
    "security",
    "support",
    "data",
}
# What a test module that starts a kernel, a browser or a Binder build shows in its source.
NEEDS_MORE = re.compile(r"pytest\.mark\.(kernel|browser|binder)\b|kernel_session|playwright|binder_env")


def all_test_modules() -> list[Path]:
    return sorted(TESTS.rglob("test_*.py"))


def test_every_test_module_is_in_a_folder_of_its_kind() -> None:
    assert sorted(p.name for p in TESTS.glob("test_*.py")) == []
    assert {p.name for p in TESTS.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))} <= FOLDERS
    assert sorted(str(p.relative_to(TESTS)) for p in (TESTS / "support").rglob("test_*.py")) == []


def test_module_names_are_unique_across_folders() -> None:
    # pytest imports test modules by basename (no __init__.py in test folders).
    counts = Counter(p.name for p in all_test_modules())
    assert [name for name, count in counts.items() if count > 1] == []
    assert [name for name in sorted(FOLDERS - {"support"}) if (TESTS / name / "__init__.py").exists()] == []


def test_the_quick_folders_need_no_kernel_browser_or_binder() -> None:
    offending = [
        f"{path.relative_to(TESTS)}: {match.group(0)}"
        for folder in ("unit", "shell")
        for path in sorted((TESTS / folder).glob("*.py"))
        if path.name != Path(__file__).name
        for match in [NEEDS_MORE.search(path.read_text(encoding="utf-8"))]
        if match
    ]
    assert offending == []


def test_kernel_and_browser_modules_are_marked() -> None:
    unmarked = [
        str(path.relative_to(TESTS))
        for folder, marker in (("kernel", "kernel"), ("browser", "browser"))
        for path in sorted((TESTS / folder).glob("test_*.py"))
        if f"pytest.mark.{marker}" not in path.read_text(encoding="utf-8")
    ]
    assert unmarked == []
