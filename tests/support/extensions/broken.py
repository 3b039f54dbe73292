"""A test extension that registers a tool and a route, then fails: none of it may stay."""

from __future__ import annotations

from typing import Any

from deepagents.backends import StateBackend


async def extension(d: Any) -> None:
    def half_done(text: str) -> str:
        """Never offered: the extension fails after registering it."""
        return text

    d.register_tool(half_done)
    d.register_backend_route("/half/", StateBackend())
    d.on_shutdown(lambda: (d.cwd / "broken-shutdown.log").write_text("ran"))
    raise RuntimeError("boom after registering")
