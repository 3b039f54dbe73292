"""constraints-lowest.txt, what ``make test-lowest`` installs, holds each direct dependency of
deepnb, of the extras that part installs and of its test runner at the floor pyproject.toml gives
it: a floor changed without ``make constraints-lowest`` fails here."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]

LIFTED = {
    "langgraph": "the lab extra's langchain-quickjs 0.3.10 needs langgraph 1.2.17",
}
"""Direct dependencies the resolver cannot hold at their floor, and why."""


def _make_variable(name: str) -> list[str]:
    found = re.search(rf"^{name}\s*:= (.+)$", (ROOT / "Makefile").read_text(), re.MULTILINE)
    assert found, f"the Makefile sets {name}"
    return found.group(1).replace(",", " ").split()


def _direct() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    tools = {canonicalize_name(n) for n in _make_variable("LOWEST_TOOLS")}
    listed = list(project["dependencies"])
    for extra in _make_variable("LOWEST_EXTRAS"):
        listed += extras[extra]
    listed += [r for r in extras["test"] if canonicalize_name(Requirement(r).name) in tools]
    return [Requirement(r) for r in listed]


def _pinned() -> dict[str, Version]:
    pins = {}
    for line in (ROOT / "constraints-lowest.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, version = line.split("==")
            pins[canonicalize_name(name)] = Version(version)
    return pins


def _floor(requirement: Requirement) -> Version:
    floors = [Version(s.version) for s in requirement.specifier if s.operator == ">="]
    assert floors, f"{requirement} has a floor"
    return max(floors)


def test_each_direct_dependency_is_pinned_at_its_floor() -> None:
    pins = _pinned()
    wrong = []
    for requirement in _direct():
        name = canonicalize_name(requirement.name)
        pinned = pins.get(name)
        if pinned is None or not requirement.specifier.contains(pinned):
            wrong.append(f"{requirement}: {pinned or 'not pinned'}")
        # the floor's own release, or a patch of it where that release was yanked
        elif name not in LIFTED and pinned.release[: len(_floor(requirement).release)] != (
            _floor(requirement).release
        ):
            wrong.append(f"{requirement}: {pinned}")
    assert not wrong, f"constraints-lowest.txt is not at the floors (make constraints-lowest): {wrong}"
