"""``make test`` runs the suite in parts side by side: together they hold every folder of tests
that plain ``pytest`` collects, each exactly once; one more part runs the quick folders again on
the lowest versions pyproject.toml allows."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


LOWEST = "test-lowest"
LOWEST_RECIPE = (
    r"^test-lowest: \$\(LOWEST_VENV\)/\.installed\n"
    r"\t@\$\(call PYTEST_IN,\$\(LOWEST_VENV\)/bin,(.*)\)$"
)


def _parts() -> dict[str, list[str]]:
    """Each part of ``make test`` but the floors' one, with the folders it runs."""
    makefile = (ROOT / "Makefile").read_text()
    names = re.search(r"^TEST_PARTS\s*:= (.+)$", makefile, re.MULTILINE)
    assert names, "the Makefile names its TEST_PARTS"
    assert LOWEST in names.group(1).split(), "make test runs the floors' part"
    parts = {}
    for name in names.group(1).split():
        if name == LOWEST:
            continue
        recipe = re.search(rf"^{name}:\n\t@\$\(call PYTEST_PART,(.*)\)$", makefile, re.MULTILINE)
        assert recipe, f"{name} runs PYTEST_PART on its folders"
        words = recipe.group(1).split()
        parts[name] = [word for word in words if not word.startswith(("$(", "-"))]  # not options
    return parts


def _test_folders() -> set[str]:
    pytest_options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    testpaths = pytest_options["testpaths"]
    found = set()
    for top in testpaths:
        for path in (ROOT / top).rglob("*"):
            if path.suffix == ".ipynb" and ".ipynb_checkpoints" not in path.parts:
                found.add(top)
            elif path.name.startswith("test_") and path.suffix == ".py":
                found.add(str(path.parent.relative_to(ROOT)))
    return found


def test_the_parts_of_make_test_run_every_test_folder_once() -> None:
    listed = [folder for folders in _parts().values() for folder in folders]
    assert len(listed) == len(set(listed)), f"a folder is in two parts: {listed}"
    assert set(listed) == _test_folders()


def test_the_floors_part_runs_the_quick_folders_in_its_own_virtualenv() -> None:
    recipe = re.search(LOWEST_RECIPE, (ROOT / "Makefile").read_text(), re.MULTILINE)
    assert recipe, f"{LOWEST} runs PYTEST_IN in .venv-lowest once it is installed"
    words = _expand(recipe.group(1).strip())
    assert " ".join(words[:3]) == '-m "not volume"', f"the floors leave the volume tests out: {words}"
    paths = [word for word in words if word.startswith("tests/")]
    folders = {p for p in paths if not p.endswith(".py")}
    assert {"tests/unit", "tests/shell"} <= folders <= _test_folders()
    files = [ROOT / p for p in paths if p.endswith(".py")]  # test files of other folders
    assert all(f.is_file() and str(f.parent.relative_to(ROOT)) in _test_folders() for f in files), files
    kernel = {f.name for f in files if f.parent.name == "kernel"}
    # the kernel's own side at its floor: a live view, a click reaching a running cell, interrupts
    assert {"test_kernel.py", "test_kernel_approvals.py", "test_kernel_interrupts.py"} <= kernel


def _expand(words: str) -> list[str]:
    """``words`` of a Makefile line with each ``$(VARIABLE)`` it holds replaced by its value."""
    makefile = (ROOT / "Makefile").read_text()
    out: list[str] = []
    for word in words.split():
        named = re.fullmatch(r"\$\((\w+)\)", word)
        if not named:
            out.append(word)
            continue
        found = re.search(rf"^{named.group(1)}\s*:= (.+)$", makefile, re.MULTILINE)
        assert found, f"the Makefile sets {named.group(1)}"
        out.extend(_expand(found.group(1)))
    return out
