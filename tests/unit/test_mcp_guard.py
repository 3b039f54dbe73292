"""The guard a stdio MCP server runs under (deepnb/engine/mcp_guard.py): the server gets the
guard's stdin and stdout, the guard ends with the server's exit code, and when the process that
started the guard is killed the guard ends the server, even one that ignores the end of its
stdin and SIGTERM (tests/data/hostile/mcp/silent.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from deepnb.engine import mcp
from deepnb.engine.mcp import GUARD
from tests.support.processes import SILENT, alive
from tests.support.waiting import WAIT, wait_until

pytestmark = pytest.mark.skipif(os.name != "posix", reason="the guard is POSIX's")


def test_the_server_has_the_guards_pipes_and_its_exit_code_is_the_guards() -> None:
    echo = "import sys; sys.stdout.write(sys.stdin.read().upper()); sys.exit(3)"
    done = subprocess.run(
        [sys.executable, GUARD, "--", sys.executable, "-c", echo],
        input=b"kelp",
        capture_output=True,
        timeout=WAIT,
        start_new_session=True,
    )
    assert (done.returncode, done.stdout) == (3, b"KELP")


def test_a_command_that_does_not_start_says_so() -> None:
    done = subprocess.run(
        [sys.executable, GUARD, "--", "/no/such/mcp-server"],
        capture_output=True,
        timeout=WAIT,
        start_new_session=True,
    )
    assert done.returncode == 127
    assert b"could not start /no/such/mcp-server: No such file or directory" in done.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_killed_parents_server_is_ended(tmp_path: Path) -> None:
    pidfile = tmp_path / "silent.pid"
    # a stand-in for the kernel: it starts the guard as mcp does (a session of its own), then
    # waits on its stdin, which the test holds
    parent = (
        "import subprocess, sys\n"
        f"subprocess.Popen([sys.executable, {GUARD!r}, '--', sys.executable, {SILENT!r}, {str(pidfile)!r}],"
        " stdin=subprocess.PIPE, start_new_session=True)\n"
        "sys.stdin.read()\n"
    )
    kernel = subprocess.Popen([sys.executable, "-c", parent], stdin=subprocess.PIPE)
    try:
        wait_until(pidfile.exists, "the silent server to start")
        server = int(pidfile.read_text())
        assert alive(server) and os.getsid(server) != os.getsid(kernel.pid)
        kernel.send_signal(signal.SIGKILL)
        kernel.wait(WAIT)
        wait_until(lambda: not alive(server), "the server of a killed parent to be ended")
    finally:
        if kernel.poll() is None:
            kernel.kill()
        kernel.wait(WAIT)


def test_a_stdio_server_starts_under_the_guard_on_posix_and_as_given_on_windows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """SECURITY.md: the guard is POSIX's; on Windows deepnb starts the server as it was given."""
    given = {"transport": "stdio", "command": sys.executable, "args": ["server.py"]}
    guarded = mcp._for_adapters(given)
    assert guarded["command"] == sys.executable and guarded["args"][:2] == ["-I", GUARD]
    assert guarded["args"][-3:] == ["--", sys.executable, "server.py"]
    monkeypatch.setattr(mcp.os, "name", "nt")
    assert mcp._for_adapters(given) == given
