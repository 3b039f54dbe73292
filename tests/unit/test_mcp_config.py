"""MCP servers without starting one: the connection shapes checked with messages that name the
server and key (never a value), connections described by the keys of their env and headers,
the card's server folded from the run's ToolsListed and drawn escaped, the %deepagent mcp
listing escaped, and a project's mcp_servers refused until it is trusted."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepnb.core import events as ev
from deepnb.core.errors import DeepnbError
from deepnb.engine.mcp import McpConfigError, McpServer, check_servers, describe_connection
from deepnb.engine.state import RunState
from deepnb.session.config import Key, UntrustedConfig, parse_agent
from deepnb.views.listings import mcp_listing
from deepnb.views.run.snapshot import snapshot_html, snapshot_text

TOKEN = "tok-3f2e1d0c9b8a7f6e5d4c"
STDIO = {"transport": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"]}


@pytest.mark.parametrize(
    ("servers", "said"),
    [
        ({"x": {"command": "npx"}}, "mcp_servers.x.transport: missing: use stdio"),
        (
            {"x": {"transport": "pigeon"}},
            "mcp_servers.x.transport: 'pigeon' — use one of stdio, streamable_http",
        ),
        ({"x": {"transport": "stdio", "args": []}}, "mcp_servers.x.command: missing"),
        ({"x": {**STDIO, "args": "-y"}}, "mcp_servers.x.args: expected a list of strings, got a string"),
        ({"x": {**STDIO, "env": {"K": 1}}}, "mcp_servers.x.env: expected a table of strings"),
        ({"x": {**STDIO, "token": TOKEN}}, "mcp_servers.x.token: unknown key for stdio"),
        ({"x": {"transport": "streamable_http"}}, "mcp_servers.x.url: missing"),
        ({"x": {"transport": "streamable_http", "url": "ftp://h"}}, "mcp_servers.x.url: missing"),
        (
            {"x": {"transport": "streamable_http", "url": "http://h/mcp", "headers": "A"}},
            "x.headers: expected",
        ),
        ({"x": "npx"}, "mcp_servers.x: expected a table"),
    ],
)
def test_a_connection_of_the_wrong_shape_names_its_key(servers: dict, said: str) -> None:
    with pytest.raises(McpConfigError) as failed:
        check_servers(servers)
    assert said in str(failed.value) and TOKEN not in str(failed.value)


def test_servers_are_a_table_with_plain_names() -> None:
    with pytest.raises(DeepnbError, match="mcp_servers is a table of server name"):
        check_servers(["npx"])
    with pytest.raises(DeepnbError, match="name a server with letters"):
        check_servers({"a b": STDIO})
    assert check_servers({"everything": {**STDIO, "args": ("-y", "x")}})["everything"]["args"] == ["-y", "x"]


def test_a_connection_is_described_by_its_keys_never_their_values() -> None:
    stdio = {**STDIO, "env": {"API_TOKEN": TOKEN, "HOME_DIR": "/h"}}
    assert (
        describe_connection(stdio)
        == "npx -y @modelcontextprotocol/server-everything (env: API_TOKEN, HOME_DIR)"
    )
    http = {
        "transport": "streamable_http",
        "url": f"https://user:{TOKEN}@mcp.example.com:8443/mcp?key={TOKEN}#x",
        "headers": {"Authorization": f"Bearer {TOKEN}"},
    }
    assert describe_connection(http) == "https://mcp.example.com:8443/mcp?… (headers: Authorization)"


def test_an_mcp_tools_card_names_its_server_escaped() -> None:
    state = RunState(agent="a", thread_id="t")
    for event in (
        ev.RunStarted("main", "t", "go"),
        ev.ToolsListed("main", {"main": ("echo", "ls")}, {"echo": "<b>srv</b>"}),
        ev.ToolCallStarted("main", "c1", "echo", {"text": "hi"}),
        ev.ToolCallFinished("main", "c1", "echo", "echo: hi"),
        ev.ToolCallStarted("main", "c2", "ls", {"path": "/"}),
        ev.ToolCallFinished("main", "c2", "ls", "[]"),
    ):
        state.apply(event)
    data = state.to_json()
    echo, ls = [i for i in data["items"] if i["kind"] == "tool"]
    assert echo["server"] == "<b>srv</b>" and "server" not in ls
    html, text = snapshot_html(data), snapshot_text(data)
    assert "echo(text='hi') [MCP <b>srv</b>] [done]" in text
    assert "<b>srv</b>" not in html and "MCP &lt;b&gt;srv&lt;/b&gt;" in html


def test_the_listing_shows_each_server_escaped() -> None:
    servers = [
        McpServer(
            "files",
            "stdio",
            "npx <script>x</script> (env: TOKEN)",
            ("read_text_file", "files_read_file"),
            "Secure MCP <img src=x onerror=alert(1)> running on stdio",
        ),
        McpServer("web", "streamable_http", "http://127.0.0.1:8000/mcp (headers: Authorization)", ()),
    ]
    listing = mcp_listing("main", servers)
    text, html = repr(listing), listing._repr_html_()
    assert text.splitlines()[0].split() == ["Server", "Transport", "Where", "Tools", "Stderr"]
    assert "read_text_file, files_read_file" in text and "(none)" in text
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "<img" not in html and "Secure MCP &lt;img src=x onerror=alert(1)&gt; running" in html
    assert "has no MCP servers" in repr(mcp_listing("main", []))


def test_a_projects_mcp_servers_wait_for_trust(tmp_path: Path) -> None:
    table = {
        "model": "demo:quickstart",
        "mcp_servers": {
            "files": {**STDIO, "cwd": "data"},
            "web": {"transport": "http", "url": "http://h/mcp"},
        },
    }
    with pytest.raises(UntrustedConfig) as refused:
        parse_agent(table, Key("deepnb.toml", "agents.main"), base_dir=tmp_path, trusted=False)
    assert str(refused.value) == (
        f"deepnb.toml: agent 'main' needs trust to start the MCP servers files, web — "
        f"run %deepagent trust {tmp_path} if you trust this project."
    )
    definition = parse_agent(table, Key("deepnb.toml", "agents.main"), base_dir=tmp_path, trusted=True)
    servers = definition.options["mcp_servers"]
    assert servers["files"]["cwd"] == str(tmp_path / "data")  # relative to the file's folder
    assert servers["web"] == {"transport": "http", "url": "http://h/mcp"}


def test_a_projects_mcp_mistake_names_the_file_and_key(tmp_path: Path) -> None:
    table = {"model": "demo:quickstart", "mcp_servers": {"files": {**STDIO, "headers": {"A": TOKEN}}}}
    with pytest.raises(DeepnbError) as failed:
        parse_agent(table, Key("deepnb.toml", "agents.main"), base_dir=tmp_path, trusted=False)
    assert str(failed.value).startswith(
        "deepnb.toml: agents.main.mcp_servers.files.headers: unknown key for stdio"
    )
    assert TOKEN not in str(failed.value)


def test_the_stdio_client_still_takes_its_stderr_as_its_last_default() -> None:
    """deepnb points stdio servers' stderr at a file by changing ``stdio_client``'s default
    ``errlog`` (the adapters pass none, and in a kernel the default has no file descriptor): this
    fails when ``mcp`` changes that signature, rather than servers silently failing to start."""
    import inspect

    pytest.importorskip("mcp")
    from mcp.client import stdio

    function = stdio.stdio_client.__wrapped__
    parameters = list(inspect.signature(function).parameters)
    assert parameters[-1] == "errlog", parameters
    assert function.__defaults__ and hasattr(function.__defaults__[-1], "write")
