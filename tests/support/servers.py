"""``langgraph dev`` for the tests: a copy of tests/support/agent_server served on a free port of
127.0.0.1, in its own process group, offline, and stopped by the code that started it.

Use :func:`agent_server_fixture` to make a module-scoped fixture (startup takes seconds, so one
server serves a whole test module)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from deepnb.models.resolve import online_environment

SERVER_FOLDER = Path(__file__).parent / "agent_server"
START_TIMEOUT = 90.0
FOREIGN_ENV = online_environment()
"""Variables that would send traces or API keys out, or pick a model."""
URL_VARIABLE = "DEEPNB_AGENT_SERVER_URL"
"""The server's own URL, for graphs whose async subagents run on the same server."""


@dataclass
class AgentServer:
    url: str
    startup_seconds: float
    log: Path
    process: subprocess.Popen[bytes]

    def stop(self) -> None:
        """Stop the server (and everything it started) now."""
        stop(self.process)

    def tail(self, lines: int = 40) -> str:
        return tail(self.log, lines)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/ok", timeout=2) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def server_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in FOREIGN_ENV}
    env.update(
        LANGGRAPH_CLI_NO_ANALYTICS="1",
        LANGGRAPH_NO_VERSION_CHECK="true",
        LANGSMITH_TRACING="false",
        PYTHONDONTWRITEBYTECODE="1",  # no __pycache__ next to the served graph
        NO_PROXY="127.0.0.1,localhost",
    )
    return env


def start(folder: Path, log: Path, *, jobs: int = 10, port: int | None = None) -> AgentServer:
    """Start ``langgraph dev`` serving a copy of tests/support/agent_server in ``folder`` (it
    writes ``.langgraph_api/`` into its working directory); fail the test if it does not answer."""
    for module in ("langgraph_cli", "langgraph_api"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed: pip install -e '.[test]' (langgraph-cli[inmem])")
    if not folder.exists():
        shutil.copytree(SERVER_FOLDER, folder, ignore=shutil.ignore_patterns("__pycache__", ".langgraph_api"))
    port = port or free_port()
    url = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "langgraph_cli", "dev", "--no-browser", "--no-reload"]
    command += ["--host", "127.0.0.1", "--port", str(port), "--n-jobs-per-worker", str(jobs)]
    started = time.monotonic()
    with log.open("ab") as out:
        process = subprocess.Popen(
            command,
            cwd=folder,
            env={**server_env(), URL_VARIABLE: url},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    server = AgentServer(url, 0.0, log, process)
    try:
        while not answers(url):
            if process.poll() is not None or time.monotonic() - started > START_TIMEOUT:
                pytest.fail(f"langgraph dev did not start on {url}; its log ends:\n{tail(log)}")
            time.sleep(0.1)
    except BaseException:
        stop(process)
        raise
    server.startup_seconds = time.monotonic() - started
    return server


def stop(process: subprocess.Popen[Any]) -> None:
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(10)


def tail(log: Path, lines: int = 40) -> str:
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])


def agent_server_fixture(*, jobs: int = 10) -> Callable[..., Iterator[AgentServer]]:
    """A module-scoped fixture serving tests/support/agent_server (``jobs`` runs at a time)."""

    @pytest.fixture(scope="module")
    def agent_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AgentServer]:
        folder = tmp_path_factory.mktemp("agent_server") / "app"
        log = tmp_path_factory.mktemp("agent_server_log") / "langgraph-dev.log"
        server = start(folder, log, jobs=jobs)
        try:
            yield server
        finally:
            server.stop()

    return agent_server


def offline_client_fixture() -> Callable[..., None]:
    """An autouse fixture for a module whose tests are clients of servers on 127.0.0.1: no model
    choice, key or tracing switch from the environment reaches them, and no proxy sits between."""

    @pytest.fixture(autouse=True)
    def offline_client(monkeypatch: pytest.MonkeyPatch) -> None:
        for name in FOREIGN_ENV:
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")

    return offline_client
