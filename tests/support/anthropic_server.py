"""A tiny Anthropic Messages server for offline tests of the real ``langchain-anthropic`` client.

Standard library only. It answers ``POST /v1/messages`` streamed as Anthropic streams it
(``message_start``, a ``content_block_*`` run per block — ``thinking`` with its
``thinking_delta`` pieces and ``signature_delta``, ``redacted_thinking``, ``text``, ``tool_use`` —
then ``message_delta`` with the usage and ``message_stop``), or as one JSON message::

    with serve([Reply(thinking="First, the sources.", text="Done.")]) as server:
        model = ChatAnthropic(model="claude-test", base_url=server.url, api_key="k")

The reply played is the number of assistant messages after the last user message whose content
is not only tool results, so each new prompt starts the script over and tool rounds go on.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PIECE = 4
"""Characters of text or thinking per streamed delta."""


@dataclass(frozen=True)
class Reply:
    """One assistant message: what it thought, whether that thinking was redacted, its text, the
    tools it calls (``(name, input)``), and its usage ``(input, output)``."""

    text: str = ""
    thinking: str = ""
    redacted: bool = False
    tool_uses: tuple[tuple[str, Mapping[str, Any]], ...] = ()
    usage: tuple[int, int] = (120, 40)


@dataclass
class AnthropicServer:
    """Serves ``script`` on 127.0.0.1 (a free port); ``requests`` holds each request's body."""

    script: Sequence[Reply]
    requests: list[Any] = field(default_factory=list)
    _ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    def __post_init__(self) -> None:
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._http.server_address[1]}"

    def __enter__(self) -> AnthropicServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._http.shutdown()
        self._http.server_close()

    def reply_for(self, body: Mapping[str, Any]) -> Reply:
        """The scripted reply for a request: the one after the assistant turns since the prompt."""
        turns = 0
        for message in reversed(body.get("messages") or []):
            if message.get("role") == "assistant":
                turns += 1
            elif not _only_tool_results(message.get("content")):
                break
        if turns >= len(self.script):
            raise AssertionError(f"the script has {len(self.script)} replies; asked for {turns + 1}")
        return self.script[turns]

    def events(self, reply: Reply) -> Iterator[tuple[str, dict[str, Any]]]:
        """The server-sent events of one streamed reply."""
        message_id = f"msg_{next(self._ids)}"
        yield (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": message_id,
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-test",
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": reply.usage[0], "output_tokens": 1},
                },
            },
        )
        for index, block in enumerate(_blocks(reply, message_id)):
            kind = block["type"]
            start = {**block, **({"thinking": "", "signature": ""} if kind == "thinking" else {})}
            start = {**start, **({"text": ""} if kind == "text" else {})}
            start = {**start, **({"input": {}} if kind == "tool_use" else {})}
            yield (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": start},
            )
            for delta in _deltas(block):
                yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
            yield "content_block_stop", {"type": "content_block_stop", "index": index}
        stop = "tool_use" if reply.tool_uses else "end_turn"
        yield (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"input_tokens": reply.usage[0], "output_tokens": reply.usage[1]},  # cumulative
            },
        )
        yield "message_stop", {"type": "message_stop"}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
                server.requests.append(body)
                if self.path.rstrip("/") != "/v1/messages":
                    self.send_error(404)
                    return
                reply = server.reply_for(body)
                if not body.get("stream"):
                    self._json(_message(reply, f"msg_{next(server._ids)}"))
                    return
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                self.end_headers()
                for name, data in server.events(reply):
                    self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
                    self.wfile.flush()

            def _json(self, data: Any) -> None:
                raw = json.dumps(data).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        return Handler


def _only_tool_results(content: Any) -> bool:
    return (
        isinstance(content, list)
        and bool(content)
        and all(isinstance(b, Mapping) and b.get("type") == "tool_result" for b in content)
    )


def _blocks(reply: Reply, message_id: str) -> list[dict[str, Any]]:
    """The reply's content blocks, whole (as a non-streamed message holds them)."""
    blocks: list[dict[str, Any]] = []
    if reply.redacted:
        blocks.append({"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4a"})
    elif reply.thinking:
        blocks.append({"type": "thinking", "thinking": reply.thinking, "signature": "sig-" + message_id})
    if reply.text:
        blocks.append({"type": "text", "text": reply.text})
    for n, (name, arguments) in enumerate(reply.tool_uses):
        blocks.append(
            {"type": "tool_use", "id": f"toolu_{message_id}_{n}", "name": name, "input": dict(arguments)}
        )
    return blocks


def _deltas(block: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    kind = block["type"]
    if kind == "thinking":
        for i in range(0, len(block["thinking"]), PIECE):
            yield {"type": "thinking_delta", "thinking": block["thinking"][i : i + PIECE]}
        yield {"type": "signature_delta", "signature": block["signature"]}
    elif kind == "text":
        for i in range(0, len(block["text"]), PIECE):
            yield {"type": "text_delta", "text": block["text"][i : i + PIECE]}
    elif kind == "tool_use":
        yield {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}


def _message(reply: Reply, message_id: str) -> dict[str, Any]:
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": _blocks(reply, message_id),
        "stop_reason": "tool_use" if reply.tool_uses else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": reply.usage[0], "output_tokens": reply.usage[1]},
    }


@contextmanager
def serve(script: Sequence[Reply]) -> Iterator[AnthropicServer]:
    """Run an :class:`AnthropicServer` for the duration of a ``with`` block."""
    with AnthropicServer(list(script)) as server:
        yield server
