"""``make lab``'s virtualenv serves JupyterLab as deepnb's users get it: it holds deepnb with every
extra a shipped notebook needs (Binder's too), nothing the tests or the docs install changes what
its server loads, and the notebooks' tests run their kernels in it (``--notebook-venv``)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from jupyter_client.manager import start_new_kernel

from tests.support.notebook_kernel import KERNEL_NAME

ROOT = Path(__file__).resolve().parents[2]
LAB_VENV = ROOT / ".venv-lab"

# What make lab's JupyterLab loads: its server extensions (one config file each) and front-end
# extensions. A new one here is a change to what users are served, to be made on purpose.
SERVER_EXTENSIONS = {
    "deepnb.json",
    "jupyter-lsp-jupyter-server.json",
    "jupyter_server_terminals.json",
    "jupyterlab.json",
    "notebook.json",
    "notebook_shim.json",
}
LAB_EXTENSIONS = {"@jupyter-notebook", "@jupyter-widgets", "anywidget", "jupyterlab_pygments"}
TEST_AND_DOCS_TOOLS = {
    "pytest",
    "nbval",
    "playwright",
    "mkdocs",
    "jupytext",
    "jupyter_collaboration",
    "marimo",
}


def _makefile_value(name: str) -> str:
    found = re.search(rf"^{name}\s*:= (.+)$", (ROOT / "Makefile").read_text(), re.MULTILINE)
    assert found, f"the Makefile sets {name}"
    return found.group(1).strip()


def test_make_lab_installs_the_extras_binder_does() -> None:
    lines = (ROOT / "binder" / "requirements.txt").read_text().splitlines()
    binder = [line for line in lines if line.startswith(".[")]
    assert binder == [f".[{_makefile_value('LAB_EXTRAS')}]"]
    assert _makefile_value("LAB_VENV") == LAB_VENV.name


@pytest.fixture
def lab_venv(request: pytest.FixtureRequest) -> Path:
    given = request.config.getoption("notebook_venv")
    if not given:
        pytest.skip("--notebook-venv not given (make test passes .venv-lab)")
    return Path(given).resolve()


def test_what_the_lab_serves_is_what_users_get(lab_venv: Path) -> None:
    """make test and make docs install into their own virtualenv: here, after them, the lab's
    JupyterLab still loads no real-time collaboration, no jupytext, no test tool."""
    configs = {p.name for p in (lab_venv / "etc" / "jupyter" / "jupyter_server_config.d").glob("*.json")}
    assert configs == SERVER_EXTENSIONS
    labextensions = {p.name for p in (lab_venv / "share" / "jupyter" / "labextensions").iterdir()}
    assert labextensions == LAB_EXTENSIONS
    installed = {p.name.split("-")[0].lower() for p in lab_venv.glob("lib/python*/site-packages/*.dist-info")}
    assert not installed & TEST_AND_DOCS_TOOLS


def test_the_notebooks_kernel_runs_in_the_lab_virtualenv(lab_venv: Path) -> None:
    printed: list[str] = []

    def collect(message: dict[str, Any]) -> None:
        if message["header"]["msg_type"] == "stream":
            printed.append(message["content"]["text"])

    manager, client = start_new_kernel(kernel_name=KERNEL_NAME)
    try:
        code = "import sys, deepnb; print(sys.prefix); print(deepnb.__file__)"
        reply = client.execute_interactive(code, timeout=120, output_hook=collect)
        assert reply["content"]["status"] == "ok"
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    prefix, module = "".join(printed).splitlines()[-2:]
    assert Path(prefix).resolve() == lab_venv
    assert Path(module).resolve().is_relative_to(ROOT)  # this checkout, installed editable
