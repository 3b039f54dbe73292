"""MCP servers nobody here wrote (tests/data/hostile/mcp/): a tool name two servers offer is
refused, naming both, until a ``tool_prefix`` tells them apart; a server that never answers is
given up after its ``start_timeout`` or its call's ``call_timeout`` in one line naming the
server and the option, and its process (which ignores the end of its stdin and SIGTERM) is gone
afterwards; each stdio server runs in a process group of its own."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import deepnb
from deepnb.core.errors import DeepnbError
from tests.support.agents import scripted, unique
from tests.support.fresh_session import fresh_session
from tests.support.processes import HOSTILE_MCP, alive
from tests.support.waiting import wait_until

pytest.importorskip("langchain_mcp_adapters", reason="the mcp extra: pip install 'deepnb[mcp]'")


def fake(script: str, *args: str, **extra: Any) -> dict[str, Any]:
    command = [str(HOSTILE_MCP / script), *args]
    return {"transport": "stdio", "command": sys.executable, "args": command, **extra}


def calls(*turns: Any) -> Any:
    played = [
        {"tool_calls": [{"name": t[0], "args": t[1]}]} if isinstance(t, tuple) else {"text": t} for t in turns
    ]
    return scripted({"main": played})


def pid_in(path: Path) -> int:
    wait_until(path.exists, f"the fake server to write its pid to {path.name}")
    return int(path.read_text())


@pytest.fixture(autouse=True)
def clean(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("DEEPNB_HOME", str(tmp_path / "home"))
    with fresh_session():
        yield


# -- one name, one tool --------------------------------------------------------------------------


def test_a_tool_name_two_servers_offer_is_refused_naming_both() -> None:
    servers = {
        "alpha": fake("named_tools.py", "alpha", "lookup", "only_alpha"),
        "beta": fake("named_tools.py", "beta", "lookup"),
    }
    with pytest.raises(DeepnbError) as refused:
        deepnb.agent(unique("mcp-clash"), model=calls("hi"), mcp_servers=servers)
    message = str(refused.value)
    assert "\n" not in message
    assert "MCP server 'beta' and MCP server 'alpha' both offer a tool named 'lookup'" in message
    assert "mcp_servers.beta.tool_prefix = 'beta_'" in message


def test_a_server_renamed_to_another_servers_tool_name_is_refused_too() -> None:
    # beta's read_file is renamed after beta (deepagents has one): alpha already offers that name
    servers = {
        "alpha": fake("named_tools.py", "alpha", "beta_read_file"),
        "beta": fake("named_tools.py", "beta", "read_file"),
    }
    with pytest.raises(
        DeepnbError, match=r"'beta' and MCP server 'alpha' both offer a tool named 'beta_read_file'"
    ):
        deepnb.agent(unique("mcp-clash"), model=calls("hi"), mcp_servers=servers)
    # a tool named like the agent's own, renamed to another of its own, is refused as well
    with pytest.raises(
        DeepnbError, match=r"'beta' and the agent itself both offer a tool named 'beta_read_file'"
    ):
        deepnb.agent(
            unique("mcp-clash"),
            model=calls("hi"),
            tools=[beta_read_file],
            mcp_servers={"beta": fake("named_tools.py", "beta", "read_file")},
        )


def beta_read_file(path: str) -> str:
    """A tool of the agent's own, named like a renamed MCP tool."""
    return path


def test_a_tool_prefix_tells_the_servers_apart_and_each_tool_reaches_its_own() -> None:
    servers = {
        "alpha": fake("named_tools.py", "alpha", "lookup"),
        "beta": fake("named_tools.py", "beta", "lookup", "read_file", tool_prefix="b."),
    }
    bench = deepnb.agent(
        unique("mcp-prefix"),
        model=calls(("lookup", {"text": "1"}), ("b.lookup", {"text": "2"}), ("b.read_file", {}), "Done."),
        mcp_servers=servers,
    )
    run = bench.run("Look both up.")
    assert run.status == "done", run.error
    results = {i["name"]: i["result"] for i in run.state.to_json()["items"] if i["kind"] == "tool"}
    assert "alpha.lookup: 1" in results["lookup"] and "beta.lookup: 2" in results["b.lookup"]
    assert "beta.read_file" in results["b.read_file"]  # prefixed: no clash with deepagents' own
    listed = {s.name: set(s.tools) for s in bench.mcp()}
    assert listed == {"alpha": {"lookup"}, "beta": {"b.lookup", "b.read_file"}}


def test_deepnbs_own_keys_are_checked_and_never_reach_the_adapters() -> None:
    with pytest.raises(DeepnbError, match=r"mcp_servers\.a\.tool_prefix: expected up to 40 letters"):
        deepnb.agent(
            unique("mcp-keys"), model=calls("hi"), mcp_servers={"a": fake("silent.py", tool_prefix="a b")}
        )
    with pytest.raises(DeepnbError, match=r"mcp_servers\.a\.call_timeout: expected seconds"):
        deepnb.agent(
            unique("mcp-keys"), model=calls("hi"), mcp_servers={"a": fake("silent.py", call_timeout=0)}
        )


# -- servers that never answer -------------------------------------------------------------------


def test_a_server_that_never_answers_is_given_up_after_its_start_timeout(tmp_path: Path) -> None:
    pidfile = tmp_path / "silent.pid"
    with pytest.raises(DeepnbError) as failed:
        deepnb.agent(
            unique("mcp-silent"),
            model=calls("hi"),
            mcp_servers={"mute": fake("silent.py", str(pidfile), start_timeout=0.5)},
        )
    message = str(failed.value)
    assert "\n" not in message and "MCP server 'mute' did not list its tools within 0.5 s" in message
    assert "mcp_servers.mute.start_timeout" in message
    pid = pid_in(pidfile)
    wait_until(lambda: not alive(pid), "the silent server (it ignores EOF and SIGTERM) to be ended")


def test_a_call_a_server_never_answers_fails_after_its_call_timeout(tmp_path: Path) -> None:
    pidfile = tmp_path / "hangs.pid"
    model = scripted(
        {
            "main": [
                {"match": "wait", "turns": [{"tool_calls": [{"name": "wait_forever", "args": {}}]}]},
                {"turns": [{"tool_calls": [{"name": "quick", "args": {"text": "back"}}]}, {"text": "Back."}]},
            ]
        }
    )
    bench = deepnb.agent(
        unique("mcp-hangs"),
        model=model,
        mcp_servers={"stuck": fake("hangs.py", str(pidfile), call_timeout=8)},
    )
    run = bench.run("Please wait.")
    assert run.status == "error"
    error = run.error or ""
    assert "\n" not in error and "MCP server 'stuck' did not answer wait_forever within 8 s" in error
    assert "mcp_servers.stuck.call_timeout" in error
    pid = pid_in(pidfile)
    wait_until(lambda: not alive(pid), "the hung server (it ignores EOF and SIGTERM) to be ended")

    again = bench.run("Quick, back.", thread=run.thread_id)  # the thread goes on
    assert again.status == "done", again.error


def test_a_stdio_server_runs_in_a_process_group_of_its_own(tmp_path: Path) -> None:
    pidfile = tmp_path / "hangs.pid"
    bench = deepnb.agent(
        unique("mcp-group"),
        model=calls(("wait_forever", {}), "Never."),
        mcp_servers={"stuck": fake("hangs.py", str(pidfile), call_timeout=30)},
    )
    run = bench.start("Wait.")
    try:
        pid = pid_in(pidfile)
        assert os.getpgid(pid) != os.getpgid(0)
        assert os.getsid(pid) != os.getsid(0)
    finally:
        run.stop()
    run.wait()
    wait_until(lambda: not alive(pid), "the hung server to be ended once its run stopped")
