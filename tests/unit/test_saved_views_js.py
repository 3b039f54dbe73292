"""The front-end's saved-view logic (widgets/saved_views.js), in Node's own test runner."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[2] / "tests" / "js" / "saved_views.test.mjs"


def test_saved_views_in_node() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("no Node.js on PATH")
    done = subprocess.run([node, "--test", str(TESTS)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
