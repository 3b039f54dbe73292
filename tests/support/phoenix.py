"""Arize Phoenix for the trace tests: ``phoenix serve`` from its own virtualenv (``.venv-phoenix``,
made by ``make .venv-phoenix/.installed``) on free ports of 127.0.0.1, with its own SQLite in a
temporary folder, reaching nothing outside (``PHOENIX_ALLOW_EXTERNAL_RESOURCES=false``), and
stopped by the code that started it. Its spans are read back over its REST API.

Use :func:`phoenix_fixture` for a module-scoped fixture (startup takes seconds)."""

from __future__ import annotations

import json
import os
import subprocess
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.servers import free_port, stop, tail
from tests.support.waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]
PHOENIX = ROOT / ".venv-phoenix" / "bin" / "phoenix"
START_TIMEOUT = 180.0
"""Seconds Phoenix may take to answer (about 15 s with a new database on two idle cores)."""


@dataclass
class Phoenix:
    url: str
    log: Path
    process: subprocess.Popen[bytes]

    def tail(self) -> str:
        return tail(self.log)

    def get(self, path: str, **query: Any) -> Any:
        """``GET path`` with ``query``, as JSON."""
        address = f"{self.url}{path}"
        if query:
            address += "?" + urllib.parse.urlencode(query)
        with urllib.request.urlopen(address, timeout=30) as response:
            return json.loads(response.read())

    def raw(self, project: str) -> str:
        """Every span of ``project`` as Phoenix returns them, as text (for what must not be in it)."""
        return json.dumps(self.spans(project))

    def spans(self, project: str, **query: Any) -> list[dict[str, Any]]:
        """Every span of ``project`` (``query``: Phoenix's filters, such as ``span_kind``)."""
        found: list[dict[str, Any]] = []
        cursor = None
        while True:
            page = self.get(
                f"/v1/projects/{urllib.parse.quote(project)}/spans",
                limit=1000,
                **query,
                **({"cursor": cursor} if cursor else {}),
            )
            found += page["data"]
            cursor = page.get("next_cursor")
            if not cursor:
                return found

    def wait_for(self, project: str, count: int) -> list[dict[str, Any]]:
        """The spans of ``project`` once Phoenix holds ``count`` of them (it stores what it is sent
        a moment after it answers the export)."""

        def held() -> bool:
            try:
                return len(self.spans(project)) >= count
            except urllib.error.HTTPError as exc:  # the project is made with its first span
                if exc.code == 404:
                    return False
                raise

        wait_until(held, f"Phoenix to hold {count} spans of {project}", gone=self.gone)
        return self.spans(project)

    def gone(self) -> str | None:
        if self.process.poll() is None:
            return None
        return f"Phoenix exited ({self.process.returncode}); its log ends:\n{self.tail()}"


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/healthz", timeout=2) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def start(folder: Path) -> Phoenix:
    """Start ``phoenix serve`` with its working folder (and SQLite) in ``folder``; fail the test
    if it does not answer its health check."""
    if not PHOENIX.exists():
        if os.environ.get("CI"):  # make test installs it: its absence there is a failure
            pytest.fail(f"no {PHOENIX}: make .venv-phoenix/.installed")
        pytest.skip("Arize Phoenix is not installed: make .venv-phoenix/.installed")
    port, grpc = free_port(), free_port()
    url = f"http://127.0.0.1:{port}"
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("PHOENIX_", "OTEL_"))},
        "HOME": str(folder),  # nothing in the real ~/.phoenix
        "PHOENIX_WORKING_DIR": str(folder),
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_PORT": str(port),
        "PHOENIX_GRPC_PORT": str(grpc),
        "PHOENIX_ALLOW_EXTERNAL_RESOURCES": "false",
        "PHOENIX_TELEMETRY_ENABLED": "false",
        "PHOENIX_DISABLE_AGENT_ASSISTANT": "true",
        "PHOENIX_ENABLE_MCP_SERVER": "false",
        "NO_PROXY": "127.0.0.1,localhost",
    }
    log = folder / "phoenix.log"
    with log.open("ab") as out:
        process = subprocess.Popen(
            [str(PHOENIX), "serve"],
            cwd=folder,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    phoenix = Phoenix(url, log, process)
    try:
        wait_until(
            lambda: _answers(url), f"Phoenix to answer on {url}", timeout=START_TIMEOUT, gone=phoenix.gone
        )
    except BaseException:
        stop(process)
        raise
    return phoenix


def phoenix_fixture() -> Callable[..., Iterator[Phoenix]]:
    """A module-scoped fixture: one Phoenix for a test module."""

    @pytest.fixture(scope="module")
    def phoenix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Phoenix]:
        server = start(tmp_path_factory.mktemp("phoenix"))
        try:
            yield server
        finally:
            stop(server.process)

    return phoenix
