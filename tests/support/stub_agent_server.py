"""A small Agent Protocol server on 127.0.0.1 that a test scripts answer by answer, to play a
hostile or broken server: wrong-typed thread state, redirects, HTML, someone else's threads.

Standard library only. It speaks as much of the protocol as ``deepnb.connect`` and a run use
(assistants search, threads search, a run's SSE stream, thread state and history, runs) and
records every request (path, query, headers)::

    with serve() as server:
        server.state["values"]["todos"] = "x"       # what GET /threads/<id>/state answers
        server.override["/assistants/search"] = Answer(302, headers={"Location": "http://x/"})
        deepnb.connect(server.url, "deep")
        assert server.requests[0].headers["authorization"] == "Basic ..."

A run's stream is :attr:`StubServer.events` (``(event, data)`` pairs) after its ``metadata``.
"""

from __future__ import annotations

import copy
import json
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

ASSISTANT = {"assistant_id": "a1b2c3d4-0000-4000-8000-000000000001", "graph_id": "deep", "name": "deep"}
OTHERS_THREAD = "0f0f0f0f-0000-4000-8000-00000000beef"
"""A thread another user of the server ran: the most recently updated one it lists."""
RUN_ID = "1e1e1e1e-0000-4000-8000-000000000001"


def good_state() -> dict[str, Any]:
    return {
        "values": {
            "messages": [
                {"type": "human", "content": "Hi", "id": "h1"},
                {"type": "ai", "content": "Hello there.", "id": "a1"},
            ],
            "todos": [{"content": "Say hello", "status": "completed"}],
            "files": {"/notes.md": {"content": "Hello\n", "encoding": "utf-8"}},
        },
        "next": [],
        "tasks": [],
        "interrupts": [],
        "checkpoint": {"thread_id": OTHERS_THREAD, "checkpoint_ns": "", "checkpoint_id": "c1"},
        "metadata": {"step": 1},
        "created_at": "2026-01-01T00:00:00+00:00",
        "parent_checkpoint": None,
    }


def good_events() -> list[tuple[str, Any]]:
    return [
        ("messages-tuple", [{"type": "AIMessageChunk", "content": "Hello there.", "id": "a1"}, {}]),
        ("updates", {"model": {"messages": [{"type": "ai", "content": "Hello there.", "id": "a1"}]}}),
        ("values", good_state()["values"]),
    ]


@dataclass
class Answer:
    """One HTTP answer: a status, a body (JSON-encoded unless it is ``bytes``), headers."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]


@dataclass
class StubServer:
    url: str
    state: dict[str, Any] = field(default_factory=good_state)
    events: list[tuple[str, Any]] = field(default_factory=good_events)
    threads: list[dict[str, Any]] = field(
        default_factory=lambda: [
            {
                "thread_id": OTHERS_THREAD,
                "updated_at": "2026-01-01T00:00:00+00:00",
                "metadata": {"assistant_id": ASSISTANT["assistant_id"]},
                "values": good_state()["values"],
                "status": "idle",
            }
        ]
    )
    override: dict[str, Answer] = field(default_factory=dict)
    """Path (or ``"*"`` for every path) → the answer given instead of the protocol's."""
    requests: list[Request] = field(default_factory=list)
    stream_seconds: float = 0.0
    """How long a run's stream waits before its events, as a run queued behind a server's job
    slots does (its connection held all the while)."""
    streams_at_once: int = 0
    """The most run streams open at the same time so far."""
    _open: int = 0
    _counting: threading.Condition = field(default_factory=threading.Condition)

    def wait_streams_open(self, count: int, timeout: float) -> None:
        """Wait until ``count`` run streams are open at once; fail after ``timeout`` seconds."""
        with self._counting:
            if not self._counting.wait_for(lambda: self._open >= count, timeout):
                raise AssertionError(f"{self._open} run streams open after {timeout:.0f} s, not {count}")

    def answer(self, method: str, path: str) -> Answer | None:
        """The protocol's answer to ``method path`` (``None``: stream the run)."""
        found = self.override.get(path) or self.override.get("*")
        if found is not None:
            return found
        parts = path.strip("/").split("/")
        if path == "/assistants/search":
            return Answer(body=[ASSISTANT])
        if path == "/threads/search":
            return Answer(body=self.threads)
        if parts[0] == "threads" and len(parts) >= 3:
            rest = parts[2:]
            if rest == ["runs", "stream"]:
                return None
            if rest == ["state"] or rest[:1] == ["state"]:
                return Answer(body=self.state) if method == "GET" else Answer(body={"checkpoint": {}})
            if rest == ["history"]:
                return Answer(body=[self.state])
            if rest == ["runs"]:
                return Answer(body=[{"run_id": RUN_ID, "status": "success", "kwargs": {}}])
            if rest[:1] == ["runs"]:
                return Answer(body={"run_id": RUN_ID, "status": "success", "kwargs": {}})
        if parts[0] == "threads" and method == "POST" and len(parts) == 1:
            return Answer(body={"thread_id": str(uuid.uuid4()), "metadata": {}})
        return Answer(404, {"detail": "Not Found"})


class _Handler(BaseHTTPRequestHandler):
    server: _HTTPServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _handle(self, method: str) -> None:
        stub = self.server.stub
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        split = urlsplit(self.path)
        stub.requests.append(
            Request(
                method,
                split.path,
                dict(parse_qsl(split.query)),
                {k.lower(): v for k, v in self.headers.items()},
            )
        )
        answer = stub.answer(method, split.path)
        if answer is None:
            self._stream(stub)
            return
        body = answer.body if isinstance(answer.body, bytes) else json.dumps(answer.body).encode()
        self.send_response(answer.status)
        headers = {"Content-Type": "application/json", **answer.headers, "Content-Length": str(len(body))}
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _stream(self, stub: StubServer) -> None:
        with stub._counting:
            stub._open += 1
            stub.streams_at_once = max(stub.streams_at_once, stub._open)
            stub._counting.notify_all()
        try:
            if stub.stream_seconds:
                time.sleep(stub.stream_seconds)
            self._send_events(stub)
        finally:
            with stub._counting:
                stub._open -= 1

    def _send_events(self, stub: StubServer) -> None:
        events = [("metadata", {"run_id": RUN_ID, "attempt": 1}), *copy.deepcopy(stub.events)]
        body = b"".join(
            f"event: {event}\ndata: {json.dumps(data)}\nid: {n}\n\n".encode()
            for n, (event, data) in enumerate(events)
        )
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Location", f"/threads/x/runs/{RUN_ID}")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def do_PATCH(self) -> None:
        self._handle("PATCH")

    def do_DELETE(self) -> None:
        self._handle("DELETE")


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 512  # many runs may connect at once
    stub: StubServer


@contextmanager
def serve() -> Iterator[StubServer]:
    """A :class:`StubServer` on a free port of 127.0.0.1, stopped on exit."""
    http = _HTTPServer(("127.0.0.1", 0), _Handler)
    http.stub = StubServer(f"http://127.0.0.1:{http.server_address[1]}")
    thread = threading.Thread(target=http.serve_forever, daemon=True)
    thread.start()
    try:
        yield http.stub
    finally:
        http.shutdown()
        http.server_close()
        thread.join(5)
