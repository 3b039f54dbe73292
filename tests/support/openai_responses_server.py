"""A tiny OpenAI Responses API server for offline tests of the real ``langchain-openai`` client
(``ChatOpenAI(use_responses_api=True, reasoning={"summary": "auto"})``).

Standard library only. It answers ``POST /v1/responses`` streamed as OpenAI streams it — named
server-sent events ``response.created``, ``response.in_progress``, then per output item
``response.output_item.added`` … ``response.output_item.done``: a ``reasoning`` item with its
``response.reasoning_summary_part.added``, ``response.reasoning_summary_text.delta`` pieces,
``response.reasoning_summary_text.done`` and ``response.reasoning_summary_part.done``; a
``message`` with ``response.content_part.added``, ``response.output_text.delta`` pieces,
``response.output_text.done`` and ``response.content_part.done``; a ``function_call`` with
``response.function_call_arguments.delta`` and ``.done`` — and last ``response.completed`` with
the whole response and its usage (reasoning tokens in ``output_tokens_details``); or, without
``stream``, as one response object::

    with serve([Reply(reasoning="First, the sources.", text="Done.")]) as server:
        model = ChatOpenAI(model="o-test", base_url=server.url, api_key="k",
                           use_responses_api=True, reasoning={"summary": "auto"})

The reply played is the number of model turns in the request's ``input`` after its last user
message (a turn: consecutive reasoning, function-call or assistant-message items), so each new
prompt starts the script over and tool rounds go on.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PIECE = 5
"""Characters of text, reasoning or arguments per streamed delta."""
OUTPUT = ("reasoning", "function_call")


@dataclass(frozen=True)
class Reply:
    """One model turn: its reasoning summary, its text, the tools it calls (``(name, arguments)``),
    and its usage ``(input, output, reasoning)`` tokens."""

    text: str = ""
    reasoning: str = ""
    calls: tuple[tuple[str, Mapping[str, Any]], ...] = ()
    usage: tuple[int, int, int] = (200, 50, 30)


def turn_index(items: Sequence[Any]) -> int:
    """How many model turns follow the last user message of a request's ``input``."""
    users = [i for i, item in enumerate(items) if isinstance(item, Mapping) and item.get("role") == "user"]
    turns, in_turn = 0, False
    for item in items[(users[-1] + 1) if users else 0 :]:
        out = isinstance(item, Mapping) and (item.get("type") in OUTPUT or item.get("role") == "assistant")
        turns += out and not in_turn
        in_turn = out
    return turns


def _pieces(text: str) -> list[str]:
    return [text[i : i + PIECE] for i in range(0, len(text), PIECE)]


class ResponsesServer:
    """An OpenAI Responses API server on ``127.0.0.1`` and a free port, replaying a script."""

    def __init__(self, script: Sequence[Reply]) -> None:
        self.script = list(script)
        self.requests: list[Mapping[str, Any]] = []
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The base URL clients use, ending in ``/v1``."""
        assert self._httpd is not None, "the server is not running"
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> ResponsesServer:
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), type("Handler", (_Handler,), {"app": self}))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def next_id(self, prefix: str) -> str:
        with self._lock:
            return f"{prefix}_{next(self._ids):04d}"

    def response(
        self, body: Mapping[str, Any], reply: Reply
    ) -> tuple[str, list[dict[str, Any]], dict[str, Any]]:
        """The response's id, its output items (complete) and its usage."""
        output: list[dict[str, Any]] = []
        if reply.reasoning:
            summary = [{"type": "summary_text", "text": reply.reasoning}]
            output.append({"id": self.next_id("rs"), "type": "reasoning", "summary": summary})
        if reply.text:
            part = {"type": "output_text", "text": reply.text, "annotations": []}
            message = {
                "id": self.next_id("msg"),
                "type": "message",
                "role": "assistant",
                "status": "completed",
            }
            output.append({**message, "content": [part]})
        for name, arguments in reply.calls:
            output.append(
                {
                    "id": self.next_id("fc"),
                    "type": "function_call",
                    "call_id": self.next_id("call"),
                    "name": name,
                    "arguments": json.dumps(arguments),
                    "status": "completed",
                }
            )
        tokens_in, tokens_out, reasoning = reply.usage
        usage = {
            "input_tokens": tokens_in,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": tokens_out,
            "output_tokens_details": {"reasoning_tokens": reasoning},
            "total_tokens": tokens_in + tokens_out,
        }
        return self.next_id("resp"), output, usage


def _envelope(body: Mapping[str, Any], response_id: str, status: str, output: list[Any], usage: Any) -> dict:
    return {
        "id": response_id,
        "object": "response",
        "created_at": int(time.time()),
        "status": status,
        "model": str(body.get("model", "")),
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "reasoning": body.get("reasoning"),
        "usage": usage,
    }


class _Handler(BaseHTTPRequestHandler):
    app: ResponsesServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _json(self, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        with self.app._lock:
            self.app.requests.append(body)
        if self.path.rstrip("/") != "/v1/responses" or not isinstance(body.get("input"), list):
            self._json(
                404, {"error": {"message": f"Unknown request: {self.path}", "type": "invalid_request_error"}}
            )
            return
        index = turn_index(body["input"])
        if index >= len(self.app.script):
            message = f"The test server's script has no reply for turn {index}."
            self._json(400, {"error": {"message": message, "type": "invalid_request_error"}})
            return
        response_id, output, usage = self.app.response(body, self.app.script[index])
        if not body.get("stream"):
            self._json(200, _envelope(body, response_id, "completed", output, usage))
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        numbers = itertools.count()
        for kind, data in _events(body, response_id, output, usage):
            payload = json.dumps({"type": kind, "sequence_number": next(numbers), **data})
            self._chunk(f"event: {kind}\ndata: {payload}\n\n".encode())
        self._chunk(b"")

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):X}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


def _events(
    body: Mapping[str, Any], response_id: str, output: list[dict[str, Any]], usage: Any
) -> Iterator[tuple[str, dict[str, Any]]]:
    """The named events of one streamed response, in OpenAI's order."""
    yield "response.created", {"response": _envelope(body, response_id, "in_progress", [], None)}
    yield "response.in_progress", {"response": _envelope(body, response_id, "in_progress", [], None)}
    for index, item in enumerate(output):
        at = {"output_index": index, "item_id": item["id"]}
        if item["type"] == "reasoning":
            yield "response.output_item.added", {"output_index": index, "item": {**item, "summary": []}}
            text = item["summary"][0]["text"]
            part = {**at, "summary_index": 0}
            yield (
                "response.reasoning_summary_part.added",
                {**part, "part": {"type": "summary_text", "text": ""}},
            )
            for piece in _pieces(text):
                yield "response.reasoning_summary_text.delta", {**part, "delta": piece}
            yield "response.reasoning_summary_text.done", {**part, "text": text}
            yield (
                "response.reasoning_summary_part.done",
                {**part, "part": {"type": "summary_text", "text": text}},
            )
        elif item["type"] == "message":
            started = {**item, "status": "in_progress", "content": []}
            yield "response.output_item.added", {"output_index": index, "item": started}
            text = item["content"][0]["text"]
            part = {**at, "content_index": 0}
            empty = {"type": "output_text", "text": "", "annotations": []}
            yield "response.content_part.added", {**part, "part": empty}
            for piece in _pieces(text):
                yield "response.output_text.delta", {**part, "delta": piece, "logprobs": []}
            yield "response.output_text.done", {**part, "text": text, "logprobs": []}
            yield "response.content_part.done", {**part, "part": item["content"][0]}
        else:
            started = {**item, "arguments": "", "status": "in_progress"}
            yield "response.output_item.added", {"output_index": index, "item": started}
            for piece in _pieces(item["arguments"]):
                yield "response.function_call_arguments.delta", {**at, "delta": piece}
            yield "response.function_call_arguments.done", {**at, "arguments": item["arguments"]}
        yield "response.output_item.done", {"output_index": index, "item": item}
    yield "response.completed", {"response": _envelope(body, response_id, "completed", output, usage)}


@contextmanager
def serve(script: Sequence[Reply]) -> Iterator[ResponsesServer]:
    """Run a :class:`ResponsesServer` for the duration of a ``with`` block."""
    server = ResponsesServer(script).start()
    try:
        yield server
    finally:
        server.stop()


__all__ = ["Reply", "ResponsesServer", "serve", "turn_index"]
