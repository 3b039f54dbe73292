"""Tools from MCP servers, through ``langchain-mcp-adapters``: the servers an agent names in
``mcp_servers`` (``deepnb.agent(mcp_servers=...)`` or a ``deepnb.toml`` table), in the adapters'
connection shapes, are asked for their tools when the agent is built.

    {"files": {"transport": "stdio", "command": "npx",
               "args": ["-y", "@modelcontextprotocol/server-filesystem", "."]},
     "search": {"transport": "streamable_http", "url": "http://127.0.0.1:8000/mcp",
                "headers": {"Authorization": "Bearer ..."}}}

Each tool opens its own session per call (the adapters' default), so a server that died is
started again by the next call. A tool keeps its server's name in its ``metadata``
(:data:`SERVER_KEY`): cards, ``inspect`` and ``%deepagent mcp`` read it there. A tool named like
one the agent has already (``read_file`` of the filesystem server and deepagents' own) is
renamed ``SERVER_NAME``. What a connection holds in ``env`` and ``headers`` may be a token:
nothing here shows their values, only their keys.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import re
import sys
import tempfile
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from deepnb.core.errors import DeepnbError
from deepnb.core.failures import describe_exception
from deepnb.core.graphs.reading import tools_of
from deepnb.core.text.secrets import redact

__all__ = [
    "INSTALL",
    "SERVER_KEY",
    "McpConfigError",
    "McpServer",
    "McpServerLost",
    "check_servers",
    "describe_connection",
    "load_tools",
    "mcp_tools",
    "server_of",
    "servers",
]

INSTALL = "pip install 'deepnb[mcp]'"
SERVER_KEY = "deepnb_mcp_server"
"""The key of a tool's ``metadata`` that names the MCP server it came from."""
STARTUP_TIMEOUT = 120.0
"""Seconds a server has to start and list its tools (``npx -y`` may download it first)."""

_HTTP = frozenset(
    {
        "transport",
        "url",
        "headers",
        "timeout",
        "sse_read_timeout",
        "terminate_on_close",
        "session_kwargs",
        "auth",
        "httpx_client_factory",
    }
)
TRANSPORTS: Mapping[str, frozenset[str]] = {
    "stdio": frozenset(
        {"transport", "command", "args", "env", "cwd", "encoding", "encoding_error_handler", "session_kwargs"}
    ),
    "streamable_http": _HTTP,
    "streamable-http": _HTTP,
    "http": _HTTP,
    "sse": _HTTP - {"terminate_on_close"},
    "websocket": frozenset({"transport", "url", "session_kwargs"}),
}
SHAPES = "stdio (command, args, env, cwd) or streamable_http (url, headers)"
BUILT_IN_TOOLS = frozenset(
    {"ls", "read_file", "write_file", "edit_file", "glob", "grep", "execute", "write_todos", "task"}
)
"""The tools deepagents gives every agent: an MCP tool of one of these names is renamed."""


class McpConfigError(DeepnbError):
    """A mistake in ``mcp_servers``: ``path`` is where (``files.command``), ``problem`` what."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"mcp_servers.{path}: {problem}")
        self.path = path
        self.problem = problem


def _kind(value: Any) -> str:
    names = {str: "a string", bool: "true/false", int: "a number", float: "a number", list: "a list"}
    return names.get(type(value), "a table" if isinstance(value, Mapping) else type(value).__name__)


def _strings(value: Any, path: str) -> None:
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise McpConfigError(path, f"expected a table of strings, got {_kind(value)}")


def check_servers(value: Any) -> dict[str, dict[str, Any]]:
    """``value`` as ``{name: connection}`` if every connection has one of the adapters' shapes;
    else :class:`McpConfigError` naming the server and key (never a value: it may be a token)."""
    if not isinstance(value, Mapping):
        raise DeepnbError(
            f"mcp_servers is a table of server name → connection ({SHAPES}), not {_kind(value)}."
        )
    checked: dict[str, dict[str, Any]] = {}
    for name, connection in value.items():
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
            raise DeepnbError(f"mcp_servers: {name!r} — name a server with letters, digits, '_', '-' or '.'.")
        if not isinstance(connection, Mapping):
            raise McpConfigError(name, f"expected a table ({SHAPES}), got {_kind(connection)}")
        transport = connection.get("transport")
        if transport is None:
            raise McpConfigError(f"{name}.transport", f"missing: use {SHAPES}")
        if transport not in TRANSPORTS:
            raise McpConfigError(f"{name}.transport", f"{transport!r} — use one of {', '.join(TRANSPORTS)}")
        for key in connection:
            if key not in TRANSPORTS[transport]:
                raise McpConfigError(
                    f"{name}.{key}",
                    f"unknown key for {transport}: use {', '.join(sorted(TRANSPORTS[transport]))}",
                )
        if transport == "stdio":
            command = connection.get("command")
            if not isinstance(command, str) or not command.strip():
                raise McpConfigError(
                    f"{name}.command", "missing: the program that starts the server, e.g. 'npx'"
                )
            args = connection.get("args", [])
            if not isinstance(args, list | tuple) or not all(isinstance(a, str) for a in args):
                raise McpConfigError(f"{name}.args", f"expected a list of strings, got {_kind(args)}")
            if "env" in connection:
                _strings(connection["env"], f"{name}.env")
            if "cwd" in connection and not isinstance(connection["cwd"], str):
                raise McpConfigError(f"{name}.cwd", f"expected a folder, got {_kind(connection['cwd'])}")
        else:
            url = connection.get("url")
            if not isinstance(url, str) or not re.match(r"(https?|wss?)://", url):
                raise McpConfigError(
                    f"{name}.url", "missing: the server's address, e.g. 'http://127.0.0.1:8000/mcp'"
                )
            if "headers" in connection:
                _strings(connection["headers"], f"{name}.headers")
        checked[name] = (
            {**connection, "args": list(connection["args"])} if "args" in connection else dict(connection)
        )
    return checked


def _address(url: str) -> str:
    """``url`` without its user, password, query and fragment (any may carry a token)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    query = "?…" if parts.query else ""
    return f"{parts.scheme}://{host}{port}{parts.path}{query}"


def describe_connection(connection: Mapping[str, Any]) -> str:
    """A connection in one line, secret-free: ``npx -y @mcp/server-x /data (env: TOKEN)`` or
    ``http://127.0.0.1:8000/mcp (headers: Authorization)``: keys of ``env`` and ``headers``,
    never their values."""
    if connection.get("transport") == "stdio":
        line = " ".join([str(connection.get("command", "")), *map(str, connection.get("args", ()))])
        keys = sorted(connection.get("env") or {})
        return redact(line) + (f" (env: {', '.join(keys)})" if keys else "")
    keys = sorted(connection.get("headers") or {})
    return redact(_address(str(connection.get("url", "")))) + (
        f" (headers: {', '.join(keys)})" if keys else ""
    )


def _cause(exc: BaseException) -> str:
    """The innermost failure of ``exc`` (anyio wraps a transport's in exception groups), as
    ``Type: message`` with secrets removed."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return describe_exception(exc)


class McpServerLost(Exception):
    """An MCP tool's call could not reach its server (it exited, was never there, or its
    connection broke). Worded for the run's one line by :func:`deepnb.core.explain.explain`."""

    failure_kind = "tool"

    def __init__(self, server: str, tool: str, connection: Mapping[str, Any], cause: BaseException) -> None:
        self.server = server
        self.failure_description = f"The MCP server {server!r} failed while {tool} ran ({_cause(cause)})"
        again = "starts it again" if connection.get("transport") == "stdio" else "connects again"
        self.failure_hint = (
            f"check that it runs ({describe_connection(connection)}), then run the cell again: "
            f"the thread is kept and the next call {again}."
        )
        super().__init__(self.failure_description)


def _interceptor(connections: Mapping[str, Mapping[str, Any]]) -> Callable[..., Awaitable[Any]]:
    async def reach(request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        try:
            return await handler(request)
        except Exception as exc:  # the transport's failure: one line naming the server
            server = str(request.server_name)
            raise McpServerLost(server, str(request.name), connections.get(server, {}), exc) from None

    return reach


def _run(coroutine: Awaitable[Any], timeout: float) -> Any:
    """Run ``coroutine`` to its end on a loop of its own (the kernel's, or the engine's, may be
    the caller's), at most ``timeout`` seconds."""

    async def bounded() -> Any:
        return await asyncio.wait_for(coroutine, timeout)

    pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="deepnb-mcp")
    try:
        return pool.submit(asyncio.run, bounded()).result()
    finally:  # an interrupted cell returns at once; the servers' start ends within ``timeout``
        pool.shutdown(wait=False)


def _has_descriptor(stream: Any) -> bool:
    try:
        stream.fileno()
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is an OSError
        return False
    return True


@contextlib.contextmanager
def _servers_stderr() -> Iterator[Callable[[], str]]:
    """Where a stdio server's messages go. ``mcp``'s ``stdio_client`` hands the process the
    ``sys.stderr`` of the moment ``mcp.client.stdio`` was imported (a default argument), which
    in a kernel is ipykernel's stream, with no file descriptor (``UnsupportedOperation:
    fileno``: no server would start). While tools are listed, servers write to a temporary file
    (what a server that exits at once said can then be quoted; the function this yields reads
    it), passed on afterwards to the process's own stderr (the terminal that started Jupyter),
    which is where they write from then on, as any other child of the kernel."""
    from mcp.client import stdio  # noqa: PLC0415  # optional, as the adapters that import it

    function = getattr(stdio.stdio_client, "__wrapped__", None)  # under @asynccontextmanager
    defaults = getattr(function, "__defaults__", None)
    if function is None or not defaults:  # another mcp than the one this was written for
        yield lambda: ""
        return
    lasting = defaults[-1]
    if not _has_descriptor(lasting):
        lasting = sys.__stderr__ if _has_descriptor(sys.__stderr__) else open(os.devnull, "w")  # noqa: SIM115
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as capture:

        def said() -> str:
            capture.seek(0)
            return capture.read()

        function.__defaults__ = (*defaults[:-1], capture)
        try:
            yield said
        finally:
            function.__defaults__ = (*defaults[:-1], lasting)
            text = said()
            if text:
                with contextlib.suppress(Exception):  # a closed stream loses only the log
                    lasting.write(text)
                    lasting.flush()


def _last_line(text: str, limit: int = 200) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    line = redact(lines[-1]) if lines else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


def load_tools(
    servers: Mapping[str, Mapping[str, Any]], *, taken: Iterable[str] = (), timeout: float = STARTUP_TIMEOUT
) -> list[Any]:
    """Start each server, list its tools, and return them as LangChain tools marked with their
    server; a tool whose name is ``taken`` (the agent's other tools and deepagents' own) or
    another server's is renamed ``SERVER_NAME``. A server that does not start raises one line."""
    try:
        from langchain_mcp_adapters.client import MultiServerMCPClient  # noqa: PLC0415  # optional
    except ImportError:
        raise DeepnbError(
            f"MCP servers need langchain-mcp-adapters: {INSTALL}, then build the agent again."
        ) from None
    connections = {name: dict(c) for name, c in servers.items()}
    interceptors: list[Any] = [_interceptor(connections)]
    client = MultiServerMCPClient(connections, tool_interceptors=interceptors)  # type: ignore[arg-type]

    async def listed() -> list[Any]:
        return await asyncio.gather(
            *(client.get_tools(server_name=name) for name in connections), return_exceptions=True
        )

    with _servers_stderr() as said:
        try:
            found = _run(listed(), timeout)
        except TimeoutError:
            names = ", ".join(connections)
            raise DeepnbError(
                f"MCP server(s) {names} did not list their tools within {timeout:.0f} s: check that "
                "they start (their command or url in mcp_servers), then build the agent again."
            ) from None
        # what a stdio server said is its own only when it is the one started here
        alone = sum(c.get("transport") == "stdio" for c in connections.values()) == 1
        last = _last_line(said()) if alone else ""
    used = set(BUILT_IN_TOOLS) | set(taken)
    tools: list[Any] = []
    for (name, connection), result in zip(connections.items(), found, strict=True):
        if isinstance(result, BaseException):
            quoted = f"; it said: {last}" if last and connection.get("transport") == "stdio" else ""
            raise DeepnbError(
                f"MCP server {name!r} did not start ({_cause(result)}{quoted}): check mcp_servers.{name} "
                f"({describe_connection(connection)}), then build the agent again."
            )
        for tool in result:
            if tool.name in used:
                tool.name = f"{name}_{tool.name}"
            used.add(tool.name)
            tool.metadata = {**(tool.metadata or {}), SERVER_KEY: name}
            tools.append(tool)
    return tools


def mcp_tools(graph: Any) -> dict[str, str]:
    """The graph's MCP tools: tool name → its server (``{}`` for a graph without any)."""
    found = {}
    for tool in tools_of(graph) or ():
        server = server_of(tool)
        if server is not None:
            found[str(tool.name)] = server
    return found


def server_of(tool: Any) -> str | None:
    """The MCP server ``tool`` came from (``None``: not an MCP tool)."""
    metadata = getattr(tool, "metadata", None)
    server = metadata.get(SERVER_KEY) if isinstance(metadata, Mapping) else None
    return server if isinstance(server, str) else None


@dataclass(frozen=True)
class McpServer:
    """One server of an agent, as ``%deepagent mcp`` lists it: its name, transport, where it
    is (:func:`describe_connection`: keys of its env and headers, never their values) and the
    tools the model is offered from it."""

    name: str
    transport: str
    where: str
    tools: tuple[str, ...]


def servers(connections: Mapping[str, Mapping[str, Any]], tools: Sequence[Any]) -> list[McpServer]:
    """The agent's servers (``connections``, from its spec) with the tools the built agent has
    from each (``tools``, read from its graph)."""
    by_server: dict[str, list[str]] = {}
    for tool in tools:
        server = server_of(tool)
        if server is not None:
            by_server.setdefault(server, []).append(str(tool.name))
    return [
        McpServer(name, str(c.get("transport", "")), describe_connection(c), tuple(by_server.get(name, ())))
        for name, c in connections.items()
    ]
