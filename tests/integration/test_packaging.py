"""The built wheel carries the front-end files, the demo scripts and the ``py.typed`` marker, and finds
them installed."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_wheel_ships_widgets_and_demos(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(tmp_path), str(ROOT)],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("deepnb-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for asset in (
        "deepnb/_widgets/run_view.js",
        "deepnb/_widgets/run_view.css",
        "deepnb/_widgets/files_view.js",
        "deepnb/_widgets/files_view.css",
        "deepnb/_widgets/theme.css",
        "deepnb/many/report_assets/report.js",
        "deepnb/many/report_assets/report.css",
        "deepnb/demos/quickstart.yaml",
        "deepnb/demos/research.yaml",
        "deepnb/demos/interpreter.yaml",
        "deepnb/py.typed",
    ):
        assert asset in names, f"{asset} missing from {wheel.name}"
    # The built front end only: not its TypeScript sources, tests or npm packages.
    assert not [n for n in names if n.endswith(".ts") or "node_modules" in n or "/widgets/" in n]

    # Unpacked on its own (no source checkout beside it), the package finds its assets inside itself.
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    code = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "from deepnb.views.assets import asset\n"
        "from deepnb.models.resolve import demo_names\n"
        "print(asset('run_view.js')); print(demo_names())\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(site)], check=True, capture_output=True, text=True, cwd=tmp_path
    ).stdout.splitlines()
    assert out[0] == str(site / "deepnb" / "_widgets" / "run_view.js")
    assert "quickstart" in out[1]
