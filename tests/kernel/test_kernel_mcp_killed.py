"""A stdio MCP server ends with its kernel, even a kernel killed with SIGKILL: the server of
tests/data/hostile/mcp/silent.py ignores the end of its stdin and SIGTERM, so only deepnb's
guard (its process group's leader, which watches the kernel) ends it."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest

from tests.support.kernel_session import deepnb_kernel
from tests.support.processes import SILENT, alive
from tests.support.waiting import wait_until

pytestmark = pytest.mark.kernel
pytest.importorskip("langchain_mcp_adapters", reason="the mcp extra: pip install 'deepnb[mcp]'")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_killed_kernels_stdio_server_is_ended(tmp_path: Path) -> None:
    pidfile = tmp_path / "silent.pid"
    (tmp_path / "hi.yaml").write_text("agents:\n  main:\n    - text: Hi.\n")
    servers = {
        "mute": {
            "transport": "stdio",
            "command": sys.executable,
            "args": [SILENT, str(pidfile)],
            "start_timeout": 3600,
        }
    }
    with deepnb_kernel(str(tmp_path)) as kernel:
        found = kernel.execute("import os; print(os.getpid())")
        assert found.ok, found.text()
        kernel_pid = int(found.text().strip())
        # the cell waits for a server that never lists its tools: the kernel is busy in it
        kernel.submit(
            f"import deepnb\ndeepnb.agent('mute', model='scripted:hi.yaml', mcp_servers={servers!r})"
        )
        wait_until(pidfile.exists, "the silent server to start")
        server = int(pidfile.read_text())
        assert alive(server) and os.getpgid(server) != os.getpgid(kernel_pid)
        os.kill(kernel_pid, signal.SIGKILL)
        wait_until(lambda: not alive(server), "the killed kernel's MCP server to be ended")
