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


@pytest.fixture(scope="module")
def as_in_jupyter(tmp_path_factory) -> Iterator[KernelSession]:
    """A kernel that captures its file descriptors 1 and 2 into the cells, as outside pytest."""
    with deepnb_kernel(str(tmp_path_factory.mktemp("mcp-stderr")), unset=("PYTEST_CURRENT_TEST",)) as session:
        yield session


def test_a_stdio_servers_stderr_stays_out_of_the_cells(as_in_jupyter: KernelSession) -> None:
    """The gallery server writes a banner to its stderr at each start (listing, then the call): a
    kernel shows whatever reaches its own stderr in the cell that runs; it goes to the server's log,
    which ``%deepagent mcp`` quotes."""
    kernel = as_in_jupyter
    gallery = str(Path(__file__).parents[1] / "support" / "mcp_gallery.py")
    servers = {"gallery": {"transport": "stdio", "command": sys.executable, "args": [gallery]}}
    script = "agents:\n  main:\n    - tool_calls: [{name: gallery, args: {}}]\n    - text: Shown.\n"
    built = kernel.execute(
        f"import deepnb, pathlib\npathlib.Path('gallery.yaml').write_text({script!r})\n"
        f"deepnb.agent('gallery', model='scripted:gallery.yaml', mcp_servers={json.dumps(servers)});"
    )
    assert built.ok, built.text()
    before = len(kernel.run_views())
    assert kernel.execute("%%deepagent -a gallery\nShow it.").ok
    comm_id, _ = kernel.newest_view(before)
    state = kernel.wait_for(lambda: kernel.widgets[comm_id]["status"] == "done" and kernel.widgets[comm_id])
    (card,) = [i for i in state["items"] if i["kind"] == "tool"]
    assert [p["kind"] for p in card["parts"]][:3] == ["text", "text", "image"]
    # lazy: the gallery server's module imports mcp, which the floors' virtualenv has none of
    from tests.support.mcp_gallery import BANNER

    listing = kernel.execute("%deepagent mcp -a gallery")
    assert listing.ok and BANNER in listing.text()  # kept with the server
    streamed = [m["content"].get("text", "") for m in kernel.iopub if m["msg_type"] == "stream"]
    assert not any(BANNER in text for text in streamed), streamed
