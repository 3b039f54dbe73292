"""The environment Binder builds (a fresh virtualenv from ``binder/`` only, installed from the
repository root as repo2docker does), and every demo notebook executed in it.

The notebooks run with secret-looking keys set to a sentinel and the providers' base URLs on a
closed local port: the real-provider cells of ``models.ipynb`` then fail at once, as error cards
that must not hold the key either. ``tests/notebooks/test_binder.py`` and
``tests/notebooks/test_notebooks_static.py`` check what comes out.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
SENTINEL = "sk-deepnb-sentinel-0123456789abcdef"
KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY", "LANGSMITH_API_KEY", "HF_TOKEN")
UNREACHABLE = {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}


@dataclass
class BinderRun:
    venv: Path
    env: dict[str, str]
    executed: dict[str, Path]  # notebook name (no suffix) → the executed copy

    def bin(self, name: str) -> str:
        return str(self.venv / "bin" / name)


def build_and_execute(folder: Path) -> BinderRun:
    """Build the virtualenv in ``folder`` and execute every notebook in it (two at a time)."""
    venv = folder / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = {
        **os.environ,
        "JUPYTER_DATA_DIR": str(folder / "jupyter-data"),  # no user-level kernel spec gets in the way
        "JUPYTER_CONFIG_DIR": str(folder / "jupyter-config"),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    # uv installs what repo2docker's pip would, from the same file and constraints, in seconds
    uv = Path(sys.executable).with_name("uv")
    install = subprocess.run(
        [
            str(uv),
            "pip",
            "install",
            "--quiet",
            "--python",
            str(venv / "bin" / "python"),
            "-r",
            "binder/requirements.txt",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert install.returncode == 0, install.stderr[-3000:]

    out = folder / "executed"
    run_env = {**env, **dict.fromkeys(KEYS, SENTINEL), **UNREACHABLE}
    # One nbconvert per half of the notebooks: the machine's two cores, one kernel each.
    halves = [NOTEBOOKS[0::2], NOTEBOOKS[1::2]]
    jobs = [
        subprocess.Popen(
            [
                str(venv / "bin" / "jupyter"),
                "nbconvert",
                "--to",
                "notebook",
                "--execute",
                "--ExecutePreprocessor.timeout=120",
                # a fresh environment's first kernel compiles every module it imports: on a busy
                # machine that can take longer than the default minute
                "--ExecutePreprocessor.startup_timeout=300",
                # as JupyterLab saves by default: no widget state, so viewers show the snapshot
                "--ExecutePreprocessor.store_widget_state=False",
                "--output-dir",
                str(out),
                *map(str, half),
            ],
            cwd=folder,
            env=run_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for half in halves
    ]
    for job, half in zip(jobs, halves, strict=True):
        _, stderr = job.communicate(timeout=900)
        assert job.returncode == 0, f"{[p.name for p in half]}:\n{stderr[-3000:]}"
    return BinderRun(venv, env, {p.stem: out / p.name for p in NOTEBOOKS})
