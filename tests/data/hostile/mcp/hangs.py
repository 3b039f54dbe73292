"""An MCP stdio server (FastMCP) that starts and lists its tools, then never answers a call of
``wait_forever``: the call blocks the server's only loop, and the server ignores SIGTERM, SIGHUP
and the end of its stdin.

    python hangs.py PIDFILE      # writes its pid there when the call arrives

Bound: the call fails after the server's ``call_timeout``, naming it; the process is gone
within a few seconds after (``stdio_client`` ends its process group with SIGKILL).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from pathlib import Path

from mcp.server.fastmcp import FastMCP

signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGHUP, signal.SIG_IGN)
server = FastMCP("hangs", log_level="WARNING")


@server.tool()
def quick(text: str) -> str:
    """Answers at once."""
    return f"quick: {text}"


@server.tool()
def wait_forever() -> str:
    """Never answers."""
    if len(sys.argv) > 1:
        written = Path(sys.argv[1] + ".tmp")
        written.write_text(str(os.getpid()))
        written.replace(sys.argv[1])
    threading.Event().wait()
    return "never"


if __name__ == "__main__":
    server.run("stdio")
