"""Fixtures for the real-browser tests: a JupyterLab server on a free port and headless Chromium.

The server is the venv's (``sys.executable -m jupyter lab``), so it sees the installed kernel spec
and lab extensions (anywidget, ipywidgets). Only what is safe to isolate is isolated: its root
folder, runtime files, IPython profile, and JupyterLab's user settings and workspaces (so no state
leaks between runs); nothing it does calls the network.

Every test that uses ``page`` leaves ``test-artifacts/browser/<test name>.png`` (pass or fail) and,
when it fails, ``<test name>.log`` with the browser's console messages and the server log's tail.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.support import collaboration

REPO = Path(__file__).resolve().parents[2]
QUICKSTART = REPO / "notebooks" / "quickstart.ipynb"
RESEARCH = REPO / "notebooks" / "research.ipynb"
APPROVALS = REPO / "notebooks" / "approvals.ipynb"
ARTIFACTS = REPO / "test-artifacts" / "browser"
CHROMIUM = os.environ.get("DEEPNB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    # Everything but the local server fails to resolve: a test can never reach the network.
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]
SERVER_START_TIMEOUT = 60
VIEWPORT = {"width": 1280, "height": 1300}

# JupyterLab (and Notebook 7) user settings for the test server: no news or update toasts.
USER_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
}


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Any:
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class JupyterServer:
    """A running ``jupyter lab`` server seen from one folder of its root: URLs with the token, and
    its REST API. ``root`` is that folder on disk, ``folder`` its path from the server's root
    (empty for the root itself); notebook names are relative to it."""

    def __init__(
        self, root: Path, port: int, token: str, log: Path, process: subprocess.Popen, folder: str = ""
    ) -> None:
        self.root = root
        self.port = port
        self.token = token
        self.log = log
        self.process = process
        self.folder = folder
        self.base = f"http://127.0.0.1:{port}"

    def in_folder(self, name: str) -> JupyterServer:
        """The same server seen from a new folder ``name`` of this one's (made here)."""
        (self.root / name).mkdir()
        return JupyterServer(self.root / name, self.port, self.token, self.log, self.process, self.path(name))

    def path(self, name: str) -> str:
        """``name``'s path from the server's root, as its URLs and contents API take it."""
        return f"{self.folder}/{name}" if self.folder else name

    def contents(self, name: str) -> str:
        """The contents API's path of ``name``."""
        return f"/api/contents/{self.path(name)}"

    def url(self, path: str) -> str:
        """``path`` on the server, with the token."""
        sep = "&" if "?" in path else "?"
        return f"{self.base}{path}{sep}token={self.token}"

    def lab_url(self, notebook: str, workspace: str) -> str:
        """``notebook`` in JupyterLab, in a workspace of its own (open tabs never carry over)."""
        return self.url(f"/lab/workspaces/{workspace}/tree/{self.path(notebook)}")

    def notebook7_url(self, notebook: str) -> str:
        return self.url(f"/notebooks/{self.path(notebook)}")

    def api(self, method: str, path: str, body: Any = None, timeout: float = 10) -> Any:
        """Call the REST API; returns the decoded JSON answer (or None for an empty one)."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            f"{self.base}{path}",
            data=data,
            method=method,
            headers={"Authorization": f"token {self.token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=timeout) as response:
            raw = response.read()
        return json.loads(raw) if raw else None

    def put_notebook(self, name: str, cells: list[str]) -> None:
        """Create ``name`` through the contents API: code cells with the given sources."""
        notebook = {
            "nbformat": 4,
            "nbformat_minor": 5,
            "metadata": {
                "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                "language_info": {"name": "python"},
            },
            "cells": [
                {
                    "cell_type": "code",
                    "id": f"cell-{index}",
                    "metadata": {},
                    "execution_count": None,
                    "outputs": [],
                    "source": source,
                }
                for index, source in enumerate(cells)
            ],
        }
        self.api("PUT", self.contents(name), {"type": "notebook", "format": "json", "content": notebook})

    def copy_quickstart(self, name: str) -> str:
        """A fresh copy of the quickstart notebook in the server's root; returns its name."""
        shutil.copyfile(QUICKSTART, self.root / name)
        return name

    def copy_notebook(self, source: Path, name: str, extra_cells: Sequence[str] = ()) -> str:
        """A fresh copy of notebook ``source`` in the server's root, with code cells holding
        ``extra_cells`` added at its end (outputs kept: the tests clear them); returns its name."""
        notebook = json.loads(source.read_text())
        for index, cell_source in enumerate(extra_cells):
            notebook["cells"].append(
                {
                    "cell_type": "code",
                    "id": f"extra-{index}",
                    "metadata": {},
                    "execution_count": None,
                    "outputs": [],
                    "source": cell_source,
                }
            )
        (self.root / name).write_text(json.dumps(notebook, indent=1))
        return name

    def shutdown_kernels(self) -> None:
        """End every session (and its kernel), so one test's kernel never serves another."""
        with contextlib.suppress(OSError, ValueError):
            for session in self.api("GET", "/api/sessions") or []:
                with contextlib.suppress(OSError):
                    self.api("DELETE", f"/api/sessions/{session['id']}")

    def log_tail(self, lines: int = 60) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no server log)"

    def ready(self) -> bool:
        try:
            status = self.api("GET", "/api/status", timeout=2)
        except (OSError, ValueError):
            return False
        return isinstance(status, dict) and "started" in status


def _server_command(root: Path, port: int, token: str, state: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "jupyter",
        "lab",
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
        "--ServerApp.disable_check_xsrf=True",
        "--ServerApp.terminals_enabled=False",
        # No network: no news feed, no update check, no PyPI extension manager.
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.handlers.announcements.NeverCheckForUpdate",
        "--LabApp.extension_manager=readonly",
        # Fresh workspaces and user settings each run (Notebook 7 reads the same env variables).
        f"--LabApp.workspaces_dir={state / 'workspaces'}",
        f"--LabApp.user_settings_dir={state / 'settings'}",
    ] + (["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else [])


def _server_env(state: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DEEPNB_", "JUPYTER_TOKEN"))}
    env.update(
        # First on the config path: collaboration on or off (tests/support/collaboration.py).
        JUPYTER_CONFIG_PATH=str(state / "config"),
        JUPYTER_RUNTIME_DIR=str(state / "runtime"),
        IPYTHONDIR=str(state / "ipython"),
        JUPYTERLAB_SETTINGS_DIR=str(state / "settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(state / "workspaces"),
        PYTHONUNBUFFERED="1",
    )
    return env


def _stop(process: subprocess.Popen, server: JupyterServer | None) -> None:
    if process.poll() is not None:
        return
    if server is not None:
        with contextlib.suppress(OSError, ValueError):
            server.api("POST", "/api/shutdown", timeout=5)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=10)
            return
    # The server and its kernels run in their own process group (start_new_session).
    for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=wait)
            return


@contextlib.contextmanager
def running_server(
    tmp_path_factory: pytest.TempPathFactory, *, collaborative: bool
) -> Iterator[JupyterServer]:
    """A JupyterLab server (which also serves Notebook 7) rooted in a temporary folder holding a
    copy of ``notebooks/quickstart.ipynb``; with real-time collaboration only if ``collaborative``."""
    root = tmp_path_factory.mktemp("jupyter-root")
    state = tmp_path_factory.mktemp("jupyter-state")
    for name in ("runtime", "ipython", "settings", "workspaces", "config"):
        (state / name).mkdir()
    for name, settings in USER_SETTINGS.items():
        path = state / "settings" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(settings))
    collaboration.write_config(state / "config", state, collaborative=collaborative)
    shutil.copyfile(QUICKSTART, root / "quickstart.ipynb")

    port = _free_port()
    token = secrets.token_hex(16)
    log = state / "server.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            _server_command(root, port, token, state),
            cwd=root,
            env=_server_env(state),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    server = JupyterServer(root, port, token, log, process)
    try:
        wait_until_ready(server, process, "jupyter lab", SERVER_START_TIMEOUT)
        yield server
    finally:
        _stop(process, server)


def wait_until_ready(server: Any, process: subprocess.Popen[bytes], what: str, timeout: float) -> None:
    """Wait until ``server.ready()``; fail with the end of its log if ``process`` exits first or
    ``timeout`` seconds go by."""
    deadline = time.monotonic() + timeout
    while not server.ready():
        if process.poll() is not None:
            pytest.fail(f"{what} exited with {process.returncode}:\n{server.log_tail()}")
        if time.monotonic() > deadline:
            pytest.fail(f"{what} did not answer in {timeout:.0f} s:\n{server.log_tail()}")
        time.sleep(0.2)


@pytest.fixture(scope="session")
def shared_jupyter_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    """One JupyterLab server without real-time collaboration (see :func:`running_server`) for
    every test module of the session: a server start costs seconds, and modules run one at a
    time, each in a folder of its own (:func:`jupyter_server`)."""
    with running_server(tmp_path_factory, collaborative=False) as server:
        yield server


@pytest.fixture(scope="module")
def jupyter_server(
    shared_jupyter_server: JupyterServer, request: pytest.FixtureRequest
) -> Iterator[JupyterServer]:
    """The session's server seen from a folder of this module's own, holding a copy of
    ``notebooks/quickstart.ipynb``: its notebooks, files and kernels' working folder are apart
    from every other module's, and its kernels are ended when it ends. A test module that needs
    collaboration overrides this fixture with ``running_server(..., collaborative=True)``."""
    server = shared_jupyter_server.in_folder(request.module.__name__.rpartition(".")[2])
    server.copy_quickstart("quickstart.ipynb")
    try:
        yield server
    finally:
        server.shutdown_kernels()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Debian Chromium, driven by Playwright's sync API. Module-scoped: the sync API
    runs an event loop on the main thread, which must be gone before tests that start their own."""
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}: run `make chromium` (or apt-get install chromium)")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def _artifact_name(item: pytest.Item) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", item.name)


@pytest.fixture
def artifact(request: pytest.FixtureRequest) -> Callable[[str], Path]:
    """``artifact("running.png")``: where a test saves an extra artifact of its own."""

    def path(suffix: str) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        return ARTIFACTS / f"{_artifact_name(request.node)}-{suffix}"

    return path


@contextlib.contextmanager
def traced_page(browser: Any, server: JupyterServer, node: pytest.Item, suffix: str = "") -> Iterator[Any]:
    """A page in a fresh browser context. At the end (pass or fail) the page is saved as
    ``test-artifacts/browser/<test name><suffix>.png``, and when the test failed, the browser's
    console and the server log's tail go to ``<test name><suffix>.log``."""
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(15_000)
    page = context.new_page()
    console: list[str] = []
    page.on("console", lambda msg: console.append(f"[{msg.type}] {msg.text}"))
    page.on("pageerror", lambda exc: console.append(f"[pageerror] {exc}"))
    try:
        yield page
    finally:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        name = _artifact_name(node) + suffix
        try:
            page.screenshot(path=str(ARTIFACTS / f"{name}.png"), timeout=10_000)
        except Exception as exc:  # a screenshot must never hide the test's own outcome
            console.append(f"[screenshot failed] {exc}")
        report = getattr(node, "report_call", None)
        log_path = ARTIFACTS / f"{name}.log"
        if report is not None and report.failed:
            log_path.write_text(
                "# browser console\n"
                + "\n".join(console)
                + "\n\n# server log (tail)\n"
                + server.log_tail(200)
                + "\n"
            )
        else:
            log_path.unlink(missing_ok=True)
        context.close()


@pytest.fixture
def page(browser: Any, jupyter_server: JupyterServer, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A fresh browser context and page (:func:`traced_page`); at the end every kernel the test
    started is shut down."""
    try:
        with traced_page(browser, jupyter_server, request.node) as page:
            yield page
    finally:
        jupyter_server.shutdown_kernels()


@pytest.fixture
def second_page(
    browser: Any, jupyter_server: JupyterServer, request: pytest.FixtureRequest, page: Any
) -> Iterator[Any]:
    """A second page, in a browser context of its own (another person at the same server), closed
    before ``page``; saved as ``<test name>-second.png``."""
    with traced_page(browser, jupyter_server, request.node, "-second") as second:
        yield second


THEMES = "/lab/api/settings/@jupyterlab/apputils-extension:themes"
"""The JupyterLab user setting that picks the theme."""


@pytest.fixture
def dark(jupyter_server: JupyterServer) -> Iterator[None]:
    """JupyterLab's dark theme for this test (the user setting), the light one again afterwards."""
    jupyter_server.api("PUT", THEMES, {"raw": json.dumps({"theme": "JupyterLab Dark"})})
    try:
        yield
    finally:
        jupyter_server.api("PUT", THEMES, {"raw": "{}"})
