"""Binder: a fresh virtualenv built only from ``binder/`` (as repo2docker does) runs every demo
notebook offline, top to bottom."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))

pytestmark = pytest.mark.binder


def test_a_fresh_venv_from_binder_runs_every_notebook(tmp_path: Path) -> None:
    assert (ROOT / "binder" / "runtime.txt").read_text().strip() == "python-3.11"
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = {
        **{
            k: v
            for k, v in os.environ.items()
            if not k.endswith(("_API_KEY", "_TOKEN")) and k != "DEEPNB_MODEL"
        },
        "JUPYTER_DATA_DIR": str(tmp_path / "jupyter-data"),  # no user-level kernel spec gets in the way
        "JUPYTER_CONFIG_DIR": str(tmp_path / "jupyter-config"),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    install = subprocess.run(
        [str(venv / "bin" / "pip"), "install", "--quiet", "-r", "binder/requirements.txt"],
        cwd=ROOT,  # repo2docker installs from the repository's root
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert install.returncode == 0, install.stderr[-3000:]

    out = tmp_path / "executed"
    for notebook in NOTEBOOKS:
        executed = subprocess.run(
            [
                str(venv / "bin" / "jupyter"),
                "nbconvert",
                "--to",
                "notebook",
                "--execute",
                "--ExecutePreprocessor.timeout=120",
                "--output-dir",
                str(out),
                str(notebook),
            ],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert executed.returncode == 0, f"{notebook.name}:\n{executed.stderr[-3000:]}"
        assert (out / notebook.name).exists()
    # The kernel was the fresh environment's own, not the one running the tests.
    probe = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import deepnb, sys; print(deepnb.__file__)"],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    )
    assert str(venv) in probe.stdout
