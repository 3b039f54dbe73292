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
    r"\t@\$\(call PYTEST_IN,\$\(LOWEST_VENV\)/bin,([^)]*)\)$"
)


def _parts() -> dict[str, list[str]]:
    """Each part of ``make test`` but the floors' one, with the folders it runs."""
    makefile = (ROOT / "Makefile").read_text()
    names = re.search(r"^TEST_PARTS := (.+)$", makefile, re.MULTILINE)
    assert names, "the Makefile names its TEST_PARTS"
    assert LOWEST in names.group(1).split(), "make test runs the floors' part"
    parts = {}
    for name in names.group(1).split():
        if name == LOWEST:
            continue
        recipe = re.search(rf"^{name}:\n\t@\$\(call PYTEST_PART,([^)]*)\)$", makefile, re.MULTILINE)
        assert recipe, f"{name} runs PYTEST_PART on its folders"
        parts[name] = recipe.group(1).split()
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
    folders = recipe.group(1).split()
    assert {"tests/unit", "tests/shell", "tests/kernel"} <= set(folders) <= _test_folders()
