"""An MCP server (FastMCP, stdio) whose one tool answers with content blocks of every kind, and
which writes a banner to its stderr at each start, as many real servers do.

    python mcp_gallery.py

``gallery`` answers two text blocks, a PNG image, a link to a web resource, a resource whose
address is a ``javascript:`` one, and an SVG image (a type no card shows).
"""

from __future__ import annotations

import sys

from mcp.server.fastmcp import FastMCP
from mcp.types import ImageContent, ResourceLink, TextContent

BANNER = "gallery-mcp 1.0: serving on stdio (a banner every start)"
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
"""A 1×1 PNG, base64."""

server = FastMCP("deepnb-gallery", log_level="WARNING")


@server.tool()
def gallery() -> list[TextContent | ImageContent | ResourceLink]:
    """Texts, an image and resources."""
    return [
        TextContent(type="text", text="First block: <b>reef</b> survey."),
        TextContent(type="text", text="Second block: 12 sites."),
        ImageContent(type="image", data=PNG, mimeType="image/png"),
        ResourceLink(
            type="resource_link", name="report", uri="https://example.org/reef.txt", mimeType="text/plain"
        ),
        ResourceLink(type="resource_link", name="trap", uri="javascript:alert(1)", mimeType="text/plain"),
        ImageContent(type="image", data="PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+", mimeType="image/svg+xml"),
    ]


if __name__ == "__main__":
    print(BANNER, file=sys.stderr, flush=True)
    server.run("stdio")
