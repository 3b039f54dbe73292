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
renamed ``SERVER_NAME``; two servers offering one name is refused, naming both (a
``tool_prefix`` on one of them tells them apart). What a connection holds in ``env`` and
``headers`` may be a token: nothing here shows their values, only their keys.

Servers are bounded: a server has ``start_timeout`` seconds to list its tools and each call
``call_timeout`` seconds to answer (deepnb's own keys, beside the adapters' in any connection).
A stdio server runs under :mod:`deepnb.engine.mcp_guard`, in a process group of its own that
ends with the kernel, even a killed one. What a stdio server writes to its stderr (a banner at
each start, its log) goes to a log file of its own (:func:`server_log`), which ``%deepagent mcp``
quotes: never to the kernel's stderr, which Jupyter would show in whatever cell runs.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import hashlib
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from deepnb.core.errors import DeepnbError
from deepnb.core.extras import install_command, require
from deepnb.core.failures import describe_exception
from deepnb.core.graphs.reading import tools_of
from deepnb.core.text.secrets import redact

__all__ = [
    "INSTALL",
    "SERVER_KEY",
    "McpConfigError",
    "McpServer",
    "McpServerLost",
    "McpServerSilent",
    "check_servers",
    "describe_connection",
    "load_tools",
    "mcp_tools",
    "server_of",
    "servers",
]

INSTALL = install_command("mcp")
SERVER_KEY = "deepnb_mcp_server"
"""The key of a tool's ``metadata`` that names the MCP server it came from."""
STARTUP_TIMEOUT = 120.0
"""Seconds a server has to start and list its tools (``npx -y`` may download it first), unless
its ``start_timeout`` says otherwise."""
CALL_TIMEOUT = 300.0
"""Seconds a tool call has to be answered (its server started again included), unless its
server's ``call_timeout`` says otherwise."""
TEARDOWN = 10.0
"""Seconds, beyond the longest ``start_timeout``, for the servers that did not answer to be ended
(``stdio_client`` gives one 2 s after its stdin closes, then 2 s after SIGTERM)."""
DEEPNB_KEYS = frozenset({"tool_prefix", "start_timeout", "call_timeout"})
"""deepnb's own keys of a connection (any transport), taken out before the adapters see it."""
GUARD = str(Path(__file__).with_name("mcp_guard.py"))
"""The script a stdio server is started under (:mod:`deepnb.engine.mcp_guard`)."""
SAID_LINES = 5
"""Lines of a server's stderr ``%deepagent mcp`` shows (its newest)."""
SAID_BYTES = 4096
"""Bytes at the end of a server's stderr log read for them."""
_logs: list[Path] = []
"""The folder of this process's MCP server logs, once made (private to the user: 0700)."""

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
_PREFIX = re.compile(r"[A-Za-z0-9_.-]{0,40}")
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
        known = TRANSPORTS[transport] | DEEPNB_KEYS
        for key in connection:
            if key not in known:
                raise McpConfigError(
                    f"{name}.{key}", f"unknown key for {transport}: use {', '.join(sorted(known))}"
                )
        _check_own_keys(name, connection)
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


def _check_own_keys(name: str, connection: Mapping[str, Any]) -> None:
    """deepnb's keys of one connection: a prefix of plain characters, timeouts in seconds."""
    prefix = connection.get("tool_prefix", "")
    if not isinstance(prefix, str) or not _PREFIX.fullmatch(prefix):
        raise McpConfigError(
            f"{name}.tool_prefix", f"expected up to 40 letters, digits, '_', '-' or '.', e.g. '{name}_'"
        )
    for key in ("start_timeout", "call_timeout"):
        if key in connection:
            value = connection[key]
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1e6:
                raise McpConfigError(f"{name}.{key}", f"expected seconds (a positive number), got {value!r}")


def _seconds(connection: Mapping[str, Any], key: str, default: float) -> float:
    value = connection.get(key)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else default


def _logs_folder() -> Path:
    if not _logs:
        _logs.append(Path(tempfile.mkdtemp(prefix="deepnb-mcp-")))
    return _logs[0]


def server_log(name: str, connection: Mapping[str, Any]) -> Path:
    """The file a stdio server's stderr goes to: one per server name and command, in a folder
    of this process's own (its banner and log, appended at each start)."""
    key = hashlib.sha256(describe_connection(connection).encode()).hexdigest()[:10]
    return _logs_folder() / f"{name.replace('.', '_')}-{key}.log"


def server_said(name: str, connection: Mapping[str, Any], *, since: int = 0) -> str:
    """The newest lines a stdio server wrote to its stderr (from byte ``since`` of its log),
    secrets removed; ``""`` for none, or for a server of another transport."""
    if connection.get("transport") != "stdio":
        return ""
    try:
        with server_log(name, connection).open("rb") as log:
            size = log.seek(0, os.SEEK_END)
            log.seek(max(since, size - SAID_BYTES) if since <= size else 0)
            text = log.read().decode("utf-8", "replace")
    except OSError:
        return ""
    lines = [line.rstrip() for line in text.splitlines() if line.strip()][-SAID_LINES:]
    return redact("\n".join(line if len(line) <= 300 else line[:299] + "…" for line in lines))


def _log_size(name: str, connection: Mapping[str, Any]) -> int:
    try:
        return server_log(name, connection).stat().st_size
    except OSError:
        return 0


def _for_adapters(connection: Mapping[str, Any], log: Path | None = None) -> dict[str, Any]:
    """``connection`` as the adapters take it: without deepnb's keys, and a stdio server started
    under the guard (POSIX: Windows has ``mcp``'s job objects), which keeps its command, args,
    env and cwd, and sends its stderr to ``log``."""
    adapted = {k: v for k, v in connection.items() if k not in DEEPNB_KEYS}
    if adapted.get("transport") == "stdio" and os.name == "posix" and sys.executable and _found(adapted):
        own = ["--stderr", str(log)] if log is not None else []
        adapted["args"] = ["-I", GUARD, *own, "--", str(adapted["command"]), *adapted.get("args", ())]
        adapted["command"] = sys.executable
    return adapted


def _found(connection: Mapping[str, Any]) -> bool:
    """Whether a stdio connection's command may start: a bare name must be on the ``PATH`` the
    server gets (one that is not starts unguarded, so its failure reads as the system's own)."""
    command = str(connection.get("command", ""))
    if os.sep in command:
        return True
    path = (connection.get("env") or {}).get("PATH") or os.environ.get("PATH")
    return shutil.which(command, path=path) is not None


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

    def __init__(
        self,
        server: str,
        tool: str,
        connection: Mapping[str, Any],
        cause: BaseException,
        *,
        description: str | None = None,
        hint: str = "",
    ) -> None:
        self.server = server
        self.failure_description = (
            description or f"The MCP server {server!r} failed while {tool} ran ({_cause(cause)})"
        )
        again = "starts it again" if connection.get("transport") == "stdio" else "connects again"
        self.failure_hint = (
            f"check that it runs ({describe_connection(connection)}){hint}, then run the cell again: "
            f"the thread is kept and the next call {again}."
        )
        super().__init__(self.failure_description)


class McpServerSilent(McpServerLost):
    """An MCP tool's server did not answer the call within its ``call_timeout`` (the call was
    given up and a stdio server ended)."""

    def __init__(self, server: str, tool: str, connection: Mapping[str, Any], seconds: float) -> None:
        self.seconds = seconds
        super().__init__(
            server,
            tool,
            connection,
            TimeoutError(),
            description=f"The MCP server {server!r} did not answer {tool} within {seconds:g} s",
            hint=f" or give it longer with mcp_servers.{server}.call_timeout",
        )


def _interceptor(connections: Mapping[str, Mapping[str, Any]]) -> Callable[..., Awaitable[Any]]:
    async def reach(request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        server = str(request.server_name)
        connection = connections.get(server, {})
        seconds = _seconds(connection, "call_timeout", CALL_TIMEOUT)
        bound = asyncio.timeout(seconds)
        try:
            async with bound:
                return await handler(request)
        except Exception as exc:  # the transport's failure: one line naming the server
            if isinstance(exc, TimeoutError) and bound.expired():
                raise McpServerSilent(server, str(request.name), connection, seconds) from None
            raise McpServerLost(server, str(request.name), connection, exc) from None

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


@contextlib.contextmanager
def _servers_stderr() -> Iterator[Callable[[], str]]:
    """Where a stdio server's messages go. ``mcp``'s ``stdio_client`` hands the process the
    ``sys.stderr`` of the moment ``mcp.client.stdio`` was imported (a default argument), which
    in a kernel is ipykernel's stream, with no file descriptor (``UnsupportedOperation:
    fileno``: no server would start). While tools are listed, servers write to a temporary file
    (what a server that exits at once said can then be quoted; the function this yields reads
    it), passed on afterwards to the process's own stderr (the terminal that started Jupyter),
    which is where they write from then on, as any other child of the kernel.

    A server started under the guard writes to its own log instead (:func:`server_log`): only
    the guard's own few words, and a server started without it, come here. Afterwards they go
    to a log of this process's MCP servers too (``mcp.log`` beside the servers' own), never to
    the process's stderr: a kernel shows that in whatever cell runs."""
    stdio = require("mcp", "mcp.client.stdio", what="MCP servers")

    function = getattr(stdio.stdio_client, "__wrapped__", None)  # under @asynccontextmanager
    defaults = getattr(function, "__defaults__", None)
    if function is None or not defaults:  # another mcp than the one this was written for
        yield lambda: ""
        return
    lasting = defaults[-1]
    if not getattr(lasting, "deepnb_mcp_log", False):  # once: every server of the process writes there
        try:
            lasting = (_logs_folder() / "mcp.log").open("a", encoding="utf-8", errors="replace")
            lasting.deepnb_mcp_log = True  # type: ignore[attr-defined]
        except OSError:
            lasting = open(os.devnull, "w")  # noqa: SIM115
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
    server, each named ``tool_prefix`` + its name; a tool whose name is ``taken`` (the agent's
    other tools and deepagents' own) is renamed ``SERVER_NAME``. A server that does not start,
    or does not list its tools within its ``start_timeout`` (default ``timeout``), raises one
    line; so does a tool name two servers offer (:func:`_named`)."""
    adapters = require("mcp", "langchain_mcp_adapters.client", what="MCP servers")
    MultiServerMCPClient = adapters.MultiServerMCPClient
    connections = {name: dict(c) for name, c in servers.items()}
    interceptors: list[Any] = [_interceptor(connections)]
    adapted = {name: _for_adapters(c, server_log(name, c)) for name, c in connections.items()}
    before = {name: _log_size(name, c) for name, c in connections.items()}
    client = MultiServerMCPClient(adapted, tool_interceptors=interceptors)
    limits = {name: _seconds(c, "start_timeout", timeout) for name, c in connections.items()}

    async def listed() -> list[Any]:
        async def one(name: str) -> Any:
            return await asyncio.wait_for(client.get_tools(server_name=name), limits[name])

        return await asyncio.gather(*(one(name) for name in connections), return_exceptions=True)

    with _servers_stderr() as said:
        try:
            found = _run(listed(), max(limits.values(), default=timeout) + TEARDOWN)
        except TimeoutError:  # the servers were not even ended in time
            names = ", ".join(connections)
            raise DeepnbError(
                f"MCP server(s) {names} did not list their tools in time: check that they start "
                "(their command or url in mcp_servers), then build the agent again."
            ) from None
        # what a stdio server said is its own only when it is the one started here
        alone = sum(c.get("transport") == "stdio" for c in connections.values()) == 1
        last = _last_line(said()) if alone else ""
    tools: list[Any] = []
    for (name, connection), result in zip(connections.items(), found, strict=True):
        if isinstance(result, TimeoutError):
            raise DeepnbError(
                f"MCP server {name!r} did not list its tools within {limits[name]:g} s: check that it "
                f"starts ({describe_connection(connection)}) or give it longer with "
                f"mcp_servers.{name}.start_timeout, then build the agent again."
            )
        if isinstance(result, BaseException):
            own = _last_line(server_said(name, connection, since=before[name]))
            said_here = own or (last if connection.get("transport") == "stdio" else "")
            quoted = f"; it said: {said_here}" if said_here else ""
            raise DeepnbError(
                f"MCP server {name!r} did not start ({_cause(result)}{quoted}): check mcp_servers.{name} "
                f"({describe_connection(connection)}), then build the agent again."
            )
        for tool in result:
            tool.metadata = {**(tool.metadata or {}), SERVER_KEY: name}
            tools.append(tool)
    return _named(tools, connections, reserved=set(BUILT_IN_TOOLS) | set(taken))


def _named(
    tools: Sequence[Any], connections: Mapping[str, Mapping[str, Any]], *, reserved: set[str]
) -> list[Any]:
    """Name each server's tools: ``tool_prefix`` + the name the server gives, and a name in
    ``reserved`` (the agent's own tools) after its server (``files_read_file``). A name two
    tools would then share is refused in one line naming both servers and the fix: no tool
    silently takes another's place."""
    owner: dict[str, tuple[str, str]] = {}  # the name the model sees -> (server, name it gave)
    for tool in tools:
        server = str(tool.metadata[SERVER_KEY])
        given = str(tool.name)
        name = str(connections[server].get("tool_prefix", "")) + given
        if name in reserved:
            name = f"{server}_{name}"
        clash = owner.get(name)
        if clash is not None or name in reserved:
            other = f"MCP server {clash[0]!r}" if clash is not None else "the agent itself"
            same = clash is not None and clash[0] == server
            raise DeepnbError(
                (
                    f"MCP server {server!r} offers two tools named {name!r}"
                    if same
                    else f"MCP server {server!r} and {other} both offer a tool named {name!r}"
                )
                + f" (from its {given!r}): give the server a prefix of its own "
                f"(mcp_servers.{server}.tool_prefix = '{server}_' names it {server}_{given}), "
                "then build the agent again."
            )
        owner[name] = (server, given)
        tool.name = name
    return list(tools)


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
    said: str = ""
    """The newest lines a stdio server wrote to its stderr (its banner, its log), secrets removed."""


def servers(connections: Mapping[str, Mapping[str, Any]], tools: Sequence[Any]) -> list[McpServer]:
    """The agent's servers (``connections``, from its spec) with the tools the built agent has
    from each (``tools``, read from its graph)."""
    by_server: dict[str, list[str]] = {}
    for tool in tools:
        server = server_of(tool)
        if server is not None:
            by_server.setdefault(server, []).append(str(tool.name))
    return [
        McpServer(
            name,
            str(c.get("transport", "")),
            describe_connection(c),
            tuple(by_server.get(name, ())),
            server_said(name, c),
        )
        for name, c in connections.items()
    ]
