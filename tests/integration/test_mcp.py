"""Tools from MCP servers, through langchain-mcp-adapters: a FastMCP server written for these tests
(tests/support/mcp_server.py) over stdio and streamable HTTP, and the official filesystem and
"everything" servers from npm. Each agent's scripted model calls an MCP tool; the card names the
server, interrupt_on gates it, inspect and the "Given" line list it, a project's servers wait
for trust, a server that fails is one line and the thread stays usable, and no token given in
env or headers shows anywhere."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import deepnb
from deepnb.core import trust
from deepnb.core.errors import DeepnbError
from deepnb.session import agents, config
from deepnb.views.listings import mcp_listing
from deepnb.views.run.snapshot import snapshot_bundle
from tests.support.agents import scripted, unique
from tests.support.fresh_session import fresh_session
from tests.support.lab_sanitizer import unstyled

SERVER = str(Path(__file__).parents[1] / "support" / "mcp_server.py")
TOKEN = "sk-mcptest-9f8e7d6c5b4a39281706"
"""A token given to servers in env and headers: it must never show."""
HEADER_TOKEN = "Bearer hdr-5a4b3c2d1e0f9a8b7c6d5e4f"


def stdio(**extra: Any) -> dict[str, Any]:
    return {"transport": "stdio", "command": sys.executable, "args": [SERVER, "stdio"], **extra}


def calls(*turns: Any) -> Any:
    """A scripted model whose main agent plays ``turns`` (tool calls as ``(name, args)``)."""
    played = [
        {"tool_calls": [{"name": t[0], "args": t[1]}]} if isinstance(t, tuple) else {"text": t} for t in turns
    ]
    return scripted({"main": played})


def outputs(run: Any, bench: Any) -> str:
    """Everything a person could see of a run and its agent: run text and HTML, its repr and
    error, the MCP listing, the anatomy, the agent's and its spec's reprs."""
    bundle = snapshot_bundle(run.state)
    listing = mcp_listing(bench.name, bench.mcp())
    anatomy = bench.inspect()
    return "\n".join(
        [
            bundle["text/plain"],
            bundle["text/html"],
            repr(run),
            str(run.error or ""),
            repr(listing),
            listing._repr_html_(),
            repr(anatomy),
            repr(bench.spec),
            repr(bench),
            str(run.state.to_json()),
        ]
    )


def tool_card(run: Any, name: str) -> dict[str, Any]:
    return next(i for i in run.state.to_json()["items"] if i["kind"] == "tool" and i["name"] == name)


@pytest.fixture(autouse=True)
def clean(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("DEEPNB_HOME", str(tmp_path / "home"))
    with fresh_session():
        yield


# -- stdio ---------------------------------------------------------------------------------------


def test_a_stdio_tool_runs_its_card_names_the_server_and_no_token_shows() -> None:
    bench = deepnb.agent(
        unique("mcp"),
        model=calls(("echo", {"text": "kelp"}), ("token_seen", {}), "Done."),
        mcp_servers={"demo": stdio(env={"DEMO_TOKEN": TOKEN})},
    )
    run = bench.run("Echo kelp.")
    assert run.status == "done", run.error
    card = tool_card(run, "echo")
    assert card["server"] == "demo" and "echo: kelp" in card["result"]
    assert "token present" in tool_card(run, "token_seen")["result"]  # the env reached the server

    # Given, inspect and the listing name it; deepagents' read_file keeps its name
    given = run.state.given["tools"]["main"]
    assert {"echo", "add", "token_seen", "demo_read_file", "read_file"} <= set(given)
    anatomy = repr(bench.inspect())
    assert "echo" in anatomy and "MCP server demo: Say back the text." in anatomy
    (server,) = bench.mcp()
    assert (server.name, server.transport) == ("demo", "stdio")
    assert set(server.tools) == {"echo", "add", "token_seen", "demo_read_file", "exit_now"}
    assert "(env: DEMO_TOKEN)" in server.where

    bundle = snapshot_bundle(run.state)
    assert "[MCP demo]" in bundle["text/plain"]
    assert 'class="dnb-badge dnb-tool-server"' in bundle["text/html"]
    assert TOKEN not in outputs(run, bench)


def test_interrupt_on_gates_an_mcp_tool() -> None:
    bench = deepnb.agent(
        unique("mcp-gate"),
        model=calls(("add", {"a": 2, "b": 3}), "Five."),
        mcp_servers={"demo": stdio()},
        interrupt_on={"add": True},
    )
    run = bench.run("Add 2 and 3.")
    assert run.status == "interrupted"
    (pending,) = run.pending
    assert (pending.name, dict(pending.args)) == ("add", {"a": 2, "b": 3})
    assert tool_card(run, "add")["server"] == "demo"
    pending.approve()
    run.wait(60)
    assert run.status == "done" and "5" in tool_card(run, "add")["result"]


def test_a_server_that_dies_mid_call_is_one_line_and_the_thread_goes_on() -> None:
    model = scripted(
        {
            "main": [
                {"match": "crash", "turns": [{"tool_calls": [{"name": "exit_now", "args": {}}]}]},
                {"turns": [{"tool_calls": [{"name": "echo", "args": {"text": "back"}}]}, {"text": "Back."}]},
            ]
        }
    )
    bench = deepnb.agent(
        unique("mcp-dies"), model=model, mcp_servers={"demo": stdio(env={"DEMO_TOKEN": TOKEN})}
    )
    run = bench.run("Please crash.")
    assert run.status == "error"
    error = run.error or ""
    assert "\n" not in error and "MCP server 'demo' failed while exit_now ran" in error
    assert "run the cell again" in error and TOKEN not in outputs(run, bench)
    assert tool_card(run, "exit_now")["status"] == "error"

    again = bench.run("Echo back.", thread=run.thread_id)  # the same thread: the server starts again
    assert again.status == "done", again.error
    assert "echo: back" in tool_card(again, "echo")["result"]


def test_a_server_that_does_not_start_is_one_line_and_the_agent_stays_as_it_was() -> None:
    name = unique("mcp-bad")
    before = deepnb.agent(name, model=scripted({"main": [{"text": "First."}, {"text": "Second."}]}))
    first = before.run("One.")
    with pytest.raises(DeepnbError) as failed:
        deepnb.agent(
            name,
            model=calls("hi"),
            mcp_servers={
                "broken": {"transport": "stdio", "command": "no-such-mcp-server-xyz", "env": {"K": TOKEN}}
            },
        )
    message = str(failed.value)
    assert "\n" not in message and "MCP server 'broken' did not start" in message
    assert "no-such-mcp-server-xyz (env: K)" in message and TOKEN not in message
    assert agents.registered()[name] is before  # not replaced: its thread goes on
    assert before.run("Two.", thread=first.thread_id).status == "done"
    with pytest.raises(DeepnbError, match=r"mcp_servers\.broken\.command: missing"):
        deepnb.agent(name, model=calls("hi"), mcp_servers={"broken": {"transport": "stdio"}})


def test_without_the_adapters_mcp_servers_say_how_to_install_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "langchain_mcp_adapters.client", None)
    with pytest.raises(DeepnbError, match=r"pip install 'deepnb\[mcp\]'"):
        deepnb.agent(unique("mcp-missing"), model=calls("hi"), mcp_servers={"demo": stdio()})


def test_percent_deepagent_mcp_lists_servers_and_tools(ip: Any) -> None:
    name = unique("mcp-magic")
    deepnb.agent(name, model=calls("hi"), mcp_servers={"demo": stdio(env={"DEMO_TOKEN": TOKEN})})
    listing = ip.run_line_magic("deepagent", f"mcp -a {name}")
    text, html = repr(listing), listing._repr_html_()
    assert "demo" in text and "stdio" in text and "echo" in text and "DEMO_TOKEN" in text
    assert "<td>demo</td>" in unstyled(html) and TOKEN not in text + html
    plain = ip.run_line_magic("deepagent", "mcp -a " + deepnb.agent(unique("plain"), model=calls("hi")).name)
    assert "has no MCP servers" in repr(plain)


# -- streamable HTTP -----------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def http_server() -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    port = _free_port()
    process = subprocess.Popen([sys.executable, SERVER, "http", str(port)])
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.5).close()
            break
        except OSError:
            time.sleep(0.2)
    else:
        process.kill()
        pytest.fail("the FastMCP HTTP server did not start")
    yield f"http://127.0.0.1:{port}/mcp", process
    process.kill()
    process.wait(10)


def test_a_streamable_http_tool_runs_and_a_lost_server_is_one_line(http_server: Any) -> None:
    url, process = http_server
    model = scripted(
        {
            "main": [
                {"match": "again", "turns": [{"tool_calls": [{"name": "echo", "args": {"text": "gone"}}]}]},
                {"match": "hello", "turns": [{"text": "Hello."}]},
                {"turns": [{"tool_calls": [{"name": "echo", "args": {"text": "web"}}]}, {"text": "Done."}]},
            ]
        }
    )
    connection = {"transport": "streamable_http", "url": url, "headers": {"Authorization": HEADER_TOKEN}}
    bench = deepnb.agent(unique("mcp-http"), model=model, mcp_servers={"web": connection})
    run = bench.run("Echo web.")
    assert run.status == "done", run.error
    assert tool_card(run, "echo")["server"] == "web" and "echo: web" in tool_card(run, "echo")["result"]
    (server,) = bench.mcp()
    assert server.where == f"{url} (headers: Authorization)"

    process.kill()
    process.wait(10)
    lost = bench.run("Echo again.", thread=run.thread_id)
    assert lost.status == "error"
    assert "\n" not in (lost.error or "") and "MCP server 'web' failed while echo ran" in (lost.error or "")
    after = bench.run("Say hello.", thread=run.thread_id)  # the thread is usable
    assert after.status == "done" and after.result == "Hello."
    seen = outputs(run, bench) + outputs(lost, bench) + outputs(after, bench)
    assert HEADER_TOKEN.split()[1] not in seen


# -- a project's deepnb.toml -----------------------------------------------------------------------


def test_a_projects_mcp_servers_wait_for_trust(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / ".git").mkdir()
    (project / "script.yaml").write_text(
        "agents:\n  main:\n    - tool_calls: [{name: echo, args: {text: toml}}]\n    - text: Done.\n"
    )
    (project / "deepnb.toml").write_text(
        "[agents.tooled]\n"
        'model = "scripted:script.yaml"\n'
        "[agents.tooled.mcp_servers.demo]\n"
        'transport = "stdio"\n'
        f"command = {sys.executable!r}\n"
        f"args = [{SERVER!r}, 'stdio']\n"
        f'env = {{ DEMO_TOKEN = "{TOKEN}" }}\n'
    )
    monkeypatch.chdir(project)
    with pytest.raises(config.UntrustedConfig) as refused:
        deepnb.get("tooled")
    message = str(refused.value)
    assert message == (
        f"deepnb.toml: agent 'tooled' needs trust to start the MCP servers demo — "
        f"run %deepagent trust {project} if you trust this project."
    )
    assert "tooled" not in agents.registered()

    trust.trust(project)
    bench = deepnb.get("tooled")
    run = bench.run("Echo toml.")
    assert run.status == "done", run.error
    assert tool_card(run, "echo")["server"] == "demo"
    assert TOKEN not in outputs(run, bench)


def test_a_projects_mcp_table_names_its_mistakes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / ".git").mkdir()
    (project / "deepnb.toml").write_text(
        '[agents.x]\nmodel = "demo:quickstart"\n[agents.x.mcp_servers.demo]\n'
        f'transport = "stdio"\ncommand = "x"\nsecret = "{TOKEN}"\n'
    )
    monkeypatch.chdir(project)
    trust.trust(project)
    with pytest.raises(DeepnbError) as failed:
        deepnb.get("x")
    assert str(failed.value).startswith(
        "deepnb.toml: agents.x.mcp_servers.demo.secret: unknown key for stdio"
    )
    assert TOKEN not in str(failed.value)


# -- third-party servers from npm ------------------------------------------------------------------

needs_npx = pytest.mark.skipif(shutil.which("npx") is None, reason="npx (Node.js) is not installed")


@needs_npx
def test_the_official_filesystem_server(tmp_path: Path) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    (folder / "kelp.txt").write_text("Kelp grows fast.\n")
    connection = {
        "transport": "stdio",
        "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-filesystem", str(folder)],
    }
    bench = deepnb.agent(
        unique("mcp-fs"),
        model=calls(
            ("list_directory", {"path": str(folder)}),
            ("read_text_file", {"path": str(folder / "kelp.txt")}),
            "Done.",
        ),
        mcp_servers={"files": connection},
        interrupt_on={"files_write_file": True},
    )
    (server,) = bench.mcp()
    # its read_file, write_file and edit_file are named after the server: deepagents has its own
    assert {"list_directory", "read_text_file", "files_read_file", "files_write_file"} <= set(server.tools)
    run = bench.run("What is in the folder?")
    assert run.status == "done", run.error
    assert "kelp.txt" in tool_card(run, "list_directory")["result"]
    assert "Kelp grows fast." in tool_card(run, "read_text_file")["result"]
    assert tool_card(run, "list_directory")["server"] == "files"
    assert "files_write_file" in repr(bench.inspect())


@needs_npx
def test_the_official_everything_server() -> None:
    connection = {
        "transport": "stdio",
        "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-everything"],
    }
    bench = deepnb.agent(
        unique("mcp-everything"),
        model=calls(("echo", {"message": "from deepnb"}), "Done."),
        mcp_servers={"everything": connection},
    )
    (server,) = bench.mcp()
    assert "echo" in server.tools
    run = bench.run("Echo it.")
    assert run.status == "done", run.error
    card = tool_card(run, "echo")
    assert card["server"] == "everything" and "from deepnb" in card["result"]
    assert "echo" in run.state.given["tools"]["main"]


@needs_npx
def test_a_server_that_exits_at_once_is_quoted(tmp_path: Path) -> None:
    missing = tmp_path / "missing"
    connection = {
        "transport": "stdio",
        "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-filesystem", str(missing)],
    }
    with pytest.raises(DeepnbError) as failed:
        deepnb.agent(unique("mcp-exits"), model=calls("hi"), mcp_servers={"files": connection})
    message = str(failed.value)
    assert "\n" not in message and message.startswith("MCP server 'files' did not start (")
    assert "it said: Error: None of the specified directories are accessible" in message
