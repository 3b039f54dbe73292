"""Run the demo notebooks' kernels in another virtualenv: ``--notebook-venv=.venv-lab`` (what
``make test`` passes) has nbval start each notebook's kernel with that virtualenv's Python, so the
notebooks are checked in exactly the environment ``make lab`` serves them from, not the tests' own.

The kernel spec is written to a folder of this run's, put first on ``JUPYTER_PATH``; the virtualenv
itself is not touched (its JupyterLab lists no extra kernel).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest

KERNEL_NAME = "deepnb-notebooks"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--notebook-venv",
        default=None,
        help="run the notebooks' kernels (nbval) with this virtualenv's Python",
    )


def pytest_configure(config: pytest.Config) -> None:
    venv = config.getoption("notebook_venv", None)
    if not venv:
        return
    python = Path(venv).resolve() / "bin" / "python"
    if not python.is_file():
        raise pytest.UsageError(f"--notebook-venv={venv}: no {python} (make .venv-lab/.installed makes it)")
    folder = Path(tempfile.mkdtemp(prefix="deepnb-notebook-kernel-"))
    spec = folder / "kernels" / KERNEL_NAME
    spec.mkdir(parents=True)
    kernel = {
        "argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": f"Python ({venv})",
        "language": "python",
    }
    (spec / "kernel.json").write_text(json.dumps(kernel), encoding="utf-8")
    os.environ["JUPYTER_PATH"] = os.pathsep.join(filter(None, [str(folder), os.environ.get("JUPYTER_PATH")]))
    config.option.nbval_kernel_name = KERNEL_NAME
    config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
