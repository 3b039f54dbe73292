"""Print the test extra's requirements of the named packages, one a line, for ``make
constraints-lowest``: the test runner that .venv-lowest needs, at the floors pyproject.toml gives.

    python scripts/lowest_tools.py pytest pytest-timeout nbval jupyter_client
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _name(requirement: str) -> str:
    """A requirement's project name, normalized as PEP 503 does."""
    match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement)
    assert match, f"not a requirement: {requirement!r}"
    return re.sub(r"[-_.]+", "-", match.group(0)).lower()


def main(names: list[str]) -> int:
    """Print the test extra's requirement of each name; fail on a name the extra does not have."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    test = {_name(r): r for r in project["optional-dependencies"]["test"]}
    missing = [n for n in names if _name(n) not in test]
    if missing:
        print(f"not in the test extra: {', '.join(missing)}", file=sys.stderr)
        return 1
    for name in names:
        print(test[_name(name)])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
