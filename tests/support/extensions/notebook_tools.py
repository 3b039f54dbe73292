"""A test extension using every method: a tool, a middleware that logs each model call, a
``/scratch/`` route onto a folder, and two shutdown callbacks (sync and async).

Files land in ``d.cwd`` (the tests' temporary working directory)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from deepagents.backends import FilesystemBackend
from langchain.agents.middleware import AgentMiddleware


class CallLog(AgentMiddleware):
    """Appends a line to a file before each model call."""

    name = "call_log"

    def __init__(self, log: Path) -> None:
        super().__init__()
        self.log = log

    def _note(self) -> None:
        with self.log.open("a", encoding="utf-8") as f:
            f.write("model call\n")

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        self._note()
        return handler(request)

    async def awrap_model_call(self, request: Any, handler: Any) -> Any:
        self._note()
        return await handler(request)


async def extension(d: Any) -> None:
    def shout(text: str) -> str:
        """Return the text in capitals, with an exclamation mark."""
        return text.upper() + "!"

    d.register_tool(shout)
    d.register_middleware(CallLog(d.cwd / "calls.log"))
    scratch = d.cwd / "scratch"
    scratch.mkdir(exist_ok=True)
    d.register_backend_route("/scratch/", FilesystemBackend(root_dir=scratch, virtual_mode=True))

    def log(line: str) -> None:
        with (d.cwd / "shutdown.log").open("a", encoding="utf-8") as f:
            f.write(line + "\n")

    async def goodbye() -> None:
        log("async goodbye")

    d.on_shutdown(lambda: log("sync goodbye"))
    d.on_shutdown(goodbye)
