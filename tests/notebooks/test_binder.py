"""Binder: a fresh virtualenv built only from ``binder/`` (as repo2docker does) runs every demo
notebook offline, top to bottom, in its own kernel."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.support.binder_env import NOTEBOOKS, ROOT, BinderRun

# The first test here builds the Binder environment (a fresh virtualenv installed from the package
# index) and executes every demo notebook in it: on a busy machine, past the suite's 300 s per test.
pytestmark = [pytest.mark.binder, pytest.mark.timeout(900)]


def test_binder_pins_the_python_it_is_tested_with() -> None:
    assert (ROOT / "binder" / "runtime.txt").read_text().strip() == "python-3.11"
    lines = (ROOT / "binder" / "requirements.txt").read_text().splitlines()
    assert not [line for line in lines if line.startswith("-e")]  # repo2docker installs, not links
    assert "-c ../constraints.txt" in lines  # the versions the notebooks were made with


def test_a_fresh_venv_from_binder_runs_every_notebook(binder_run: BinderRun) -> None:
    for notebook in NOTEBOOKS:
        executed = json.loads(binder_run.executed[notebook.stem].read_text(encoding="utf-8"))
        code = [cell for cell in executed["cells"] if cell["cell_type"] == "code"]
        assert all(cell["execution_count"] for cell in code), f"{notebook.name}: a cell did not run"
        errors = [out for cell in code for out in cell["outputs"] if out["output_type"] == "error"]
        assert not errors, f"{notebook.name}: {errors[0]['ename']}: {errors[0]['evalue']}"


def test_the_kernel_was_the_fresh_environments_own(binder_run: BinderRun) -> None:
    probe = subprocess.run(
        [binder_run.bin("jupyter"), "kernelspec", "list", "--json"],
        env=binder_run.env,
        capture_output=True,
        text=True,
        check=True,
    )
    python3 = json.loads(probe.stdout)["kernelspecs"]["python3"]
    assert python3["spec"]["argv"][0] in ("python", binder_run.bin("python"))
    found = subprocess.run(
        [binder_run.bin("python"), "-c", "import deepnb; print(deepnb.__file__)"],
        cwd=binder_run.venv.parent,  # not the repository, whose deepnb/ would shadow the installed one
        capture_output=True,
        text=True,
        check=True,
    )
    # `.[lab]` installs deepnb itself (not editable) into the environment.
    assert str(binder_run.venv) in found.stdout
