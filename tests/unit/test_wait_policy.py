"""One timeout policy for every test: how long a wait may take before it counts as stuck is
``tests.support.waiting.WAIT`` (``DEEPNB_TEST_WAIT`` on a slow machine), never a module's own
number, which a busy machine outgrows in one module and not the others."""

from __future__ import annotations

import ast
import re
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
POLICY = TESTS / "support" / "waiting.py"
NAME = re.compile(r"(^|_)WAIT$")


def own_waits(source: str) -> list[str]:
    """The module-level constants of ``source`` that name a wait and set it to a number."""
    found = []
    for node in ast.parse(source).body:
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AnnAssign)
            else []
        )
        value = getattr(node, "value", None)
        numeric = isinstance(value, ast.Constant) and isinstance(value.value, int | float)
        found += [t.id for t in targets if isinstance(t, ast.Name) and NAME.search(t.id) and numeric]
    return found


def test_no_test_module_sets_a_wait_of_its_own() -> None:
    offenders = {
        str(path.relative_to(TESTS)): names
        for path in sorted(TESTS.rglob("*.py"))
        if path != POLICY and (names := own_waits(path.read_text(encoding="utf-8")))
    }
    assert not offenders, f"use tests.support.waiting.WAIT: {offenders}"


def test_the_check_finds_a_wait_set_to_a_number() -> None:
    assert own_waits("WAIT = 30.0\nRUN_WAIT: float = 5\nWAITING = 3\nWAIT_FOR = 'x'\n") == [
        "WAIT",
        "RUN_WAIT",
    ]
    assert own_waits("from tests.support.waiting import WAIT\nLIMIT = WAIT * 2\n") == []
