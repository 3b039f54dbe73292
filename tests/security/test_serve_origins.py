"""A hostile web page against the ``langgraph dev`` that ``%deepagent serve`` starts (a real one, on
127.0.0.1): no foreign origin is allowed to read an answer (no ``Access-Control-Allow-Origin``,
preflight included), the "simple" requests CORS lets through unread start nothing, a DNS-rebinding
page (another Host) reads nothing, and an environment's ``CORS_CONFIG`` does not open it again —
while the kernel's own client works as before."""

from __future__ import annotations

import importlib.util
import json
import socket
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

import deepnb
from deepnb.ship import serve as serving
from tests.support.agents import write

pytestmark = pytest.mark.skipif(
    any(importlib.util.find_spec(m) is None for m in ("langgraph_cli", "langgraph_api", "langgraph_sdk")),
    reason="serving needs langgraph-cli[inmem] and langgraph-sdk (the test extra)",
)

PAGE = "http://evil.example"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[serving.Server]:
    root = tmp_path / "project"
    write(root / "deepnb.toml", '[agents.helper]\nmodel = "demo:quickstart"\n')
    (root / ".git").mkdir()
    monkeypatch.chdir(root)
    monkeypatch.setenv("CORS_CONFIG", json.dumps({"allow_origins": ["*"]}))  # would open it
    monkeypatch.setenv("CORS_ALLOW_ORIGINS", "*")
    started = deepnb.serve(port=free_port(), connect=False)
    try:
        yield started
    finally:
        started.stop()


def request(
    url: str, method: str = "GET", headers: dict[str, str] | None = None, body: bytes | None = None
) -> tuple[int, dict[str, str], bytes]:
    sent = urllib.request.Request(url, method=method, headers=headers or {}, data=body)
    try:
        with urllib.request.urlopen(sent, timeout=30) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
    except urllib.error.HTTPError as error:
        return error.code, {k.lower(): v for k, v in error.headers.items()}, error.read()


def test_a_web_page_can_neither_read_the_served_agents_nor_start_a_run(server: serving.Server) -> None:
    from langgraph_sdk import get_sync_client

    client = get_sync_client(url=server.url)  # the kernel's client: no Origin, Host 127.0.0.1
    thread = client.threads.create()["thread_id"]
    assert [a["graph_id"] for a in client.assistants.search()] == ["helper"]

    run = json.dumps({"assistant_id": "helper", "input": {"messages": [{"role": "user", "content": "hi"}]}})
    attempts = [
        ("GET", "/ok", {}, None),
        ("GET", f"/threads/{thread}/state", {}, None),
        ("OPTIONS", "/threads/search", {"Access-Control-Request-Method": "POST"}, None),
        ("POST", "/threads/search", {"Content-Type": "application/json"}, b"{}"),
        # "simple" requests: a browser sends them without asking first, and CORS only hides the answer
        ("POST", "/threads", {"Content-Type": "text/plain"}, b"{}"),
        ("POST", "/runs/wait", {"Content-Type": "text/plain"}, run.encode()),
    ]
    for method, path, headers, body in attempts:
        for origin in (PAGE, "null"):
            status, answer, _ = request(f"{server.url}{path}", method, {"Origin": origin, **headers}, body)
            assert "access-control-allow-origin" not in answer, (method, path, origin)
            assert status == 403, (method, path, origin)
    # a DNS-rebinding page: same origin in the browser's eyes (no Origin on a GET), another Host
    status, _, _ = request(f"{server.url}/threads/{thread}/state", headers={"Host": "evil.example:2024"})
    assert status == 403
    assert [t["thread_id"] for t in client.threads.search()] == [thread]  # the page started nothing
    assert request(f"{server.url}/ok")[0] == 200
