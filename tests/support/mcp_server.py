"""A small MCP server written with the ``mcp`` package's FastMCP, for the MCP tests.

    python mcp_server.py stdio
    python mcp_server.py http PORT      # streamable HTTP on 127.0.0.1:PORT/mcp

Its tools: ``echo`` (says back what it is given), ``add``, ``token_seen`` (whether the server's
environment holds ``DEMO_TOKEN``, never the value), ``read_file`` (named like a deepagents
built-in) and ``exit_now`` (the server dies mid-call).
"""

from __future__ import annotations

import os
import sys

from mcp.server.fastmcp import FastMCP

server = FastMCP(
    "deepnb-test", host="127.0.0.1", port=int(sys.argv[2]) if len(sys.argv) > 2 else 8000, log_level="WARNING"
)


@server.tool()
def echo(text: str) -> str:
    """Say back the text."""
    return f"echo: {text}"


@server.tool()
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@server.tool()
def token_seen() -> str:
    """Whether the server was given DEMO_TOKEN."""
    return "token present" if os.environ.get("DEMO_TOKEN") else "no token"


@server.tool()
def read_file(path: str) -> str:
    """A tool named like deepagents' own."""
    return f"mcp read {path}"


@server.tool()
def exit_now() -> str:
    """Exit the server process in the middle of the call."""
    os._exit(3)


if __name__ == "__main__":
    server.run("streamable-http" if sys.argv[1:2] == ["http"] else "stdio")
