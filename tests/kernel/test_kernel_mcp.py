"""MCP servers over the kernel protocol: an agent with a stdio server (the FastMCP server of
tests/support/mcp_server.py) runs in a real kernel, its tool card names the server, and
``%deepagent mcp`` lists the server and its tools by the keys of its env, never the values."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.kernel_session import KernelSession, deepnb_kernel
from tests.support.lab_sanitizer import unstyled

pytestmark = pytest.mark.kernel
pytest.importorskip("langchain_mcp_adapters", reason="the mcp extra: pip install 'deepnb[mcp]'")

SERVER = str(Path(__file__).parents[1] / "support" / "mcp_server.py")
TOKEN = "sk-kernelmcp-0a1b2c3d4e5f60718293"


@pytest.fixture(scope="module")
def kernel(tmp_path_factory) -> Iterator[KernelSession]:
    folder = tmp_path_factory.mktemp("mcp")
    (folder / "echo.yaml").write_text(
        "agents:\n  main:\n    - tool_calls: [{name: echo, args: {text: kernel}}]\n    - text: Echoed.\n"
    )
    with deepnb_kernel(str(folder)) as session:
        yield session


def test_an_mcp_agent_runs_in_the_kernel_and_percent_mcp_lists_it(kernel: KernelSession) -> None:
    servers = {
        "demo": {
            "transport": "stdio",
            "command": sys.executable,
            "args": [SERVER, "stdio"],
            "env": {"DEMO_TOKEN": TOKEN},
        }
    }
    built = kernel.execute(
        f"import deepnb\nservers = {json.dumps(servers)}\n"
        "deepnb.agent('tooled', model='scripted:echo.yaml', mcp_servers=servers);"
    )
    assert built.ok, built.text()
    before = len(kernel.run_views())
    assert kernel.execute("%%deepagent -a tooled\nEcho kernel.").ok
    comm_id, _ = kernel.newest_view(before)
    state = kernel.wait_for(lambda: kernel.widgets[comm_id]["status"] == "done" and kernel.widgets[comm_id])
    (card,) = [i for i in state["items"] if i["kind"] == "tool"]
    assert (card["name"], card["server"]) == ("echo", "demo") and "echo: kernel" in card["result"]

    listing = kernel.execute("%deepagent mcp -a tooled")
    assert listing.ok, listing.text()
    shown = listing.text()
    assert "demo" in shown and "stdio" in shown and "echo" in shown and "(env: DEMO_TOKEN)" in shown
    html = "".join(
        o["content"]["data"].get("text/html", "") for o in listing.outputs if "data" in o["content"]
    )
    assert "<td>demo</td>" in unstyled(html)
    shown_by_kernel = [m for m in kernel.iopub if m["msg_type"] != "execute_input"]  # not the code sent
    assert TOKEN not in json.dumps(shown_by_kernel, default=str) + json.dumps(kernel.widgets, default=str)
