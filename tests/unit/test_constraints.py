"""constraints.txt, what ``make lab``, ``make test`` and Binder install within, pins every direct
dependency of deepnb and of each extra at a version its requirement allows: a requirement added
or a floor raised without ``make constraints`` fails here (unpinned, it would float with every
release upstream)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]


def _requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    listed = list(project["dependencies"])
    for requirements in project["optional-dependencies"].values():
        listed += requirements
    found = [Requirement(r) for r in listed]
    return [r for r in found if canonicalize_name(r.name) != "deepnb"]  # an extra naming another


def _pins() -> dict[str, Version]:
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, version = line.split("==")
            pins[canonicalize_name(name)] = Version(version)
    return pins


def test_every_direct_dependency_is_pinned_within_its_requirement() -> None:
    pins = _pins()
    unpinned = sorted({str(r) for r in _requirements() if canonicalize_name(r.name) not in pins})
    assert not unpinned, f"not in constraints.txt (make constraints): {unpinned}"
    outside = sorted(
        f"{r} (pinned {pins[canonicalize_name(r.name)]})"
        for r in _requirements()
        if not r.specifier.contains(pins[canonicalize_name(r.name)], prereleases=True)
    )
    assert not outside, f"pinned outside their requirement: {outside}"
