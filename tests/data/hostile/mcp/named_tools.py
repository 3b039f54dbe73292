"""An MCP stdio server (FastMCP) offering one tool of each name given on its command line, each
saying which server and name it is: two of them with one name in common are the tool-name
clash a renamed tool makes.

    python named_tools.py SERVER NAME [NAME ...]

Bound: a clash is refused when the agent is built, in one line naming both servers, before
any tool runs.
"""

from __future__ import annotations

import sys

from mcp.server.fastmcp import FastMCP

server = FastMCP(sys.argv[1], log_level="WARNING")


def _offer(name: str) -> None:
    def tool(text: str = "") -> str:
        return f"{sys.argv[1]}.{name}: {text}"

    server.add_tool(tool, name=name, description=f"{name} of {sys.argv[1]}")


for _name in sys.argv[2:]:
    _offer(_name)

if __name__ == "__main__":
    server.run("stdio")
