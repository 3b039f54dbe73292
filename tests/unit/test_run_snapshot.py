"""One locked snapshot of a run: ``Run.snapshot()`` is the state's version and its JSON, made
once per version once the run has ended; views read a run only through it and
``Run.reading()``, never through the run's lock or a ``to_json()`` of their own."""

from __future__ import annotations

import ast
from pathlib import Path

import deepnb
from deepnb.session import agents
from tests.support.agents import unique

VIEWS = Path(deepnb.__file__).parent / "views"


def test_an_ended_runs_snapshot_is_made_once_per_version() -> None:
    bench = deepnb.agent(unique("snap"), "demo:quickstart")
    try:
        run = bench.run("Write me a short brief on tide pools.")
        first = run.snapshot()
        assert first is run.snapshot()  # the same copy: nothing changed
        assert first.version == run.state.version and first.state["status"] == "done"
        assert first.state == run.state.to_json()
        with run.reading() as state:
            assert state is run.state and state.version == first.version
    finally:
        agents.forget_all()


def _reaches(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "_lock":
            owner = node.value
            if not (isinstance(owner, ast.Name) and owner.id == "self"):
                found.append(f"{ast.unparse(node)} (line {node.lineno})")
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "to_json"
            and ast.unparse(node.func.value).endswith("run.state")
        ):  # a run's state copied outside its lock (a bare RunState of a test may be copied)
            found.append(f"{ast.unparse(node)} (line {node.lineno})")
    return found


def test_no_view_reaches_a_runs_lock_or_copies_its_state_itself() -> None:
    reached = {
        str(path.relative_to(VIEWS)): _reaches(ast.parse(path.read_text(encoding="utf-8")))
        for path in sorted(VIEWS.rglob("*.py"))
    }
    assert {path: found for path, found in reached.items() if found} == {}
