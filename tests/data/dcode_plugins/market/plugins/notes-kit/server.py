"""The plugin's MCP server: one tool, shout."""

from mcp.server.fastmcp import FastMCP
from mcp.types import ToolAnnotations

mcp = FastMCP("shout", log_level="WARNING")


@mcp.tool(annotations=ToolAnnotations(readOnlyHint=True, destructiveHint=False))
def shout(text: str) -> str:
    """Return the text upper-cased with an exclamation mark."""
    return text.upper() + "!"


if __name__ == "__main__":
    mcp.run()
