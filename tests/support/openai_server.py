"""A tiny OpenAI-compatible server for offline tests of the real ``langchain-openai`` client.

Standard library only. It serves ``POST /v1/chat/completions`` (streamed as server-sent events or
as one JSON body) from a script of replies, ``GET /v1/models``, and a 404 JSON error elsewhere::

    script = [
        tool_call("write_todos", {"todos": [...]}),
        text("All done."),
    ]
    with serve(script) as server:
        os.environ["OPENAI_BASE_URL"] = server.url   # http://127.0.0.1:PORT/v1
        ...
        assert server.requests[0].body["stream"] is True

Routing is deterministic: the reply played is the number of assistant messages after the last
user message of the request, so a main conversation and a subagent's conversation each replay
from their own start, and each new prompt on a thread starts over. A script may be a list of
replies, or a mapping of keys to lists: the first key (other than ``"*"``, the default) found in
the request's system prompt or last user message chooses its list.

A reply is a :class:`Reply` (text and/or tool calls, made with :func:`text` / :func:`tool_call`)
or an :class:`ErrorReply` (made with :func:`error`), answered as an OpenAI-style HTTP error.
"""

from __future__ import annotations

import itertools
import json
import socket
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DEFAULT_ROUTE = "*"


# -- the script ----------------------------------------------------------------------------


@dataclass(frozen=True)
class ToolCall:
    """A function call the model asks for; ``arguments`` is a mapping or raw JSON text."""

    name: str
    arguments: Mapping[str, Any] | str = field(default_factory=dict)
    id: str | None = None

    def arguments_json(self) -> str:
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(self.arguments, ensure_ascii=False)


@dataclass(frozen=True)
class Reply:
    """An assistant reply: text, tool calls, or both. ``usage`` is ``(prompt, completion)``
    tokens; by default they are estimated from the request and the reply."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    usage: tuple[int, int] | None = None
    reasoning: str = ""
    """What the model reasoned first, sent as vLLM does: ``reasoning_content`` beside ``content``."""


@dataclass(frozen=True)
class ErrorReply:
    """An HTTP error with an OpenAI-style body. ``{key}`` in ``message`` is replaced by the
    API key the request carried (to check that a client's error never shows it)."""

    status: int = 401
    message: str = "Incorrect API key provided: {key}."
    type: str = "invalid_request_error"
    code: str | None = "invalid_api_key"


ScriptItem = Reply | ErrorReply
Script = Sequence[ScriptItem] | Mapping[str, Sequence[ScriptItem]]


def text(content: str, *, usage: tuple[int, int] | None = None) -> Reply:
    """A plain text answer."""
    return Reply(text=content, usage=usage)


def tool_call(
    name: str,
    arguments: Mapping[str, Any] | str | None = None,
    *,
    text: str = "",
    id: str | None = None,
    usage: tuple[int, int] | None = None,
) -> Reply:
    """A reply calling one tool, optionally after some text."""
    return Reply(text=text, tool_calls=(ToolCall(name, arguments or {}, id),), usage=usage)


def tool_calls(*calls: ToolCall, text: str = "", usage: tuple[int, int] | None = None) -> Reply:
    """A reply calling several tools in parallel."""
    return Reply(text=text, tool_calls=tuple(calls), usage=usage)


def error(status: int = 401, message: str | None = None, **options: Any) -> ErrorReply:
    """An HTTP error reply (401 invalid API key by default)."""
    return ErrorReply(status, message or ErrorReply.message, **options)


# -- what the server saw --------------------------------------------------------------------


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: Any

    @property
    def api_key(self) -> str | None:
        """The bearer token of the ``Authorization`` header."""
        auth = self.headers.get("authorization", "")
        return auth[7:] if auth.lower().startswith("bearer ") else None

    @property
    def stream(self) -> bool:
        return isinstance(self.body, Mapping) and bool(self.body.get("stream"))

    @property
    def tool_names(self) -> list[str]:
        tools = self.body.get("tools") if isinstance(self.body, Mapping) else None
        return [str((t.get("function") or {}).get("name")) for t in tools or []]

    @property
    def messages(self) -> list[Mapping[str, Any]]:
        messages = self.body.get("messages") if isinstance(self.body, Mapping) else None
        return list(messages or [])


def content_text(content: Any) -> str:
    """The text of a message's ``content`` (a string or a list of content parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(part.get("text", "")) if isinstance(part, Mapping) else str(part) for part in content
        )
    return ""


def turn_index(messages: Sequence[Mapping[str, Any]]) -> int:
    """How many assistant messages follow the last user message."""
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    return sum(1 for m in messages[last_user + 1 :] if m.get("role") == "assistant")


def route_key(script: Script, messages: Sequence[Mapping[str, Any]]) -> str | None:
    """The key of the script's list that answers ``messages`` (``None`` for a plain list)."""
    if not isinstance(script, Mapping):
        return None
    system = "\n".join(
        content_text(m.get("content")) for m in messages if m.get("role") in ("system", "developer")
    )
    users = [content_text(m.get("content")) for m in messages if m.get("role") == "user"]
    last_user = users[-1] if users else ""
    for key in script:
        if key != DEFAULT_ROUTE and (key in system or key in last_user):
            return key
    return DEFAULT_ROUTE


# -- the server -----------------------------------------------------------------------------


def _estimate_tokens(value: Any) -> int:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return max(1, len(text) // 4)


def _pieces(text: str, parts: int = 3) -> list[str]:
    """``text`` cut into up to ``parts`` non-empty pieces (several stream chunks)."""
    if not text:
        return []
    size = max(1, -(-len(text) // parts))
    return [text[i : i + size] for i in range(0, len(text), size)]


class OpenAIServer:
    """An OpenAI-compatible server on ``127.0.0.1`` and a free port, replaying a script."""

    def __init__(self, script: Script = (), *, models: Sequence[str] = ("gpt-test",)) -> None:
        self.models = list(models)
        self.requests: list[RecordedRequest] = []
        self._script: Script = script
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._connections: set[socket.socket] = set()

    # -- lifecycle

    @property
    def url(self) -> str:
        """The base URL clients use, ending in ``/v1``."""
        if self._httpd is None:
            raise RuntimeError("the server is not running; call start() first")
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> OpenAIServer:
        handler = type("Handler", (_Handler,), {"app": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="openai-test-server",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        # Close kept-alive connections too, so no pooled client connection outlives the server.
        with self._lock:
            connections, self._connections = list(self._connections), set()
        for connection in connections:
            with suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = self._thread = None

    def __enter__(self) -> OpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- the script and the record

    @property
    def script(self) -> Script:
        return self._script

    @script.setter
    def script(self, script: Script) -> None:
        with self._lock:
            self._script = script

    def completions(self) -> list[RecordedRequest]:
        """The chat-completion requests received so far."""
        with self._lock:
            return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def choose(self, messages: Sequence[Mapping[str, Any]]) -> ScriptItem | None:
        """The reply for a request's messages, or ``None`` when the script has run out."""
        with self._lock:
            script = self._script
        key = route_key(script, messages)
        replies = script if key is None else script.get(key, ())  # type: ignore[union-attr]
        index = turn_index(messages)
        return replies[index] if index < len(replies) else None

    def next_id(self, prefix: str) -> str:
        return f"{prefix}-{next(self._ids)}"


class _Handler(BaseHTTPRequestHandler):
    app: OpenAIServer
    protocol_version = "HTTP/1.1"
    timeout = 30

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def setup(self) -> None:
        super().setup()
        with self.app._lock:
            self.app._connections.add(self.connection)

    def finish(self) -> None:
        with self.app._lock:
            self.app._connections.discard(self.connection)
        super().finish()

    # -- plumbing

    def _send_json(self, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send_error(self, status: int, message: str, kind: str, code: str | None = None) -> None:
        self._send_json(status, {"error": {"message": message, "type": kind, "param": None, "code": code}})

    def _read_body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            return raw.decode("utf-8", "replace")

    def _record(self, body: Any) -> RecordedRequest:
        request = RecordedRequest(
            self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body
        )
        self.app._record(request)
        return request

    # -- routes

    def do_GET(self) -> None:
        request = self._record(None)
        if self.path.rstrip("/") == "/v1/models":
            created = int(time.time())
            models = [
                {"id": m, "object": "model", "created": created, "owned_by": "deepnb-tests"}
                for m in self.app.models
            ]
            self._send_json(200, {"object": "list", "data": models})
        else:
            self._not_found(request)

    def do_POST(self) -> None:
        body = self._read_body()
        request = self._record(body)
        if self.path.rstrip("/") != "/v1/chat/completions":
            self._not_found(request)
            return
        if not isinstance(body, Mapping) or not isinstance(body.get("messages"), list):
            self._send_error(400, "The request needs a JSON body with 'messages'.", "invalid_request_error")
            return
        reply = self.app.choose(body["messages"])
        if reply is None:
            # 400, not 5xx, so the client does not retry an exhausted script.
            self._send_error(
                400,
                f"Test server script has no reply for turn {turn_index(body['messages'])}.",
                "invalid_request_error",
                "script_exhausted",
            )
        elif isinstance(reply, ErrorReply):
            message = reply.message.replace("{key}", request.api_key or "")
            self._send_error(reply.status, message, reply.type, reply.code)
        elif body.get("stream"):
            self._stream(body, reply)
        else:
            self._complete(body, reply)

    def _not_found(self, request: RecordedRequest) -> None:
        self._send_error(
            404,
            f"Unknown request URL: {request.method} {request.path}.",
            "invalid_request_error",
            "unknown_url",
        )

    # -- completions

    def _usage(self, body: Mapping[str, Any], reply: Reply) -> dict[str, int]:
        if reply.usage is not None:
            prompt, completion = reply.usage
        else:
            prompt = _estimate_tokens(body.get("messages")) + _estimate_tokens(body.get("tools") or "")
            completion = _estimate_tokens(
                reply.text + "".join(c.name + c.arguments_json() for c in reply.tool_calls)
            )
        return {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }

    def _call_ids(self, reply: Reply) -> list[str]:
        return [call.id or self.app.next_id("call") for call in reply.tool_calls]

    def _complete(self, body: Mapping[str, Any], reply: Reply) -> None:
        message: dict[str, Any] = {
            "role": "assistant",
            "content": reply.text or None,
            "refusal": None,
        }
        if reply.reasoning:
            message["reasoning_content"] = reply.reasoning
        if reply.tool_calls:
            message["tool_calls"] = [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments_json()},
                }
                for call, call_id in zip(reply.tool_calls, self._call_ids(reply), strict=True)
            ]
        self._send_json(
            200,
            {
                "id": self.app.next_id("chatcmpl"),
                "object": "chat.completion",
                "created": int(time.time()),
                "model": str(body.get("model", "")),
                "system_fingerprint": None,
                "choices": [
                    {
                        "index": 0,
                        "message": message,
                        "logprobs": None,
                        "finish_reason": "tool_calls" if reply.tool_calls else "stop",
                    }
                ],
                "usage": self._usage(body, reply),
            },
        )

    def _stream(self, body: Mapping[str, Any], reply: Reply) -> None:
        options = body.get("stream_options") or {}
        include_usage = bool(options.get("include_usage"))
        completion_id = self.app.next_id("chatcmpl")
        created = int(time.time())

        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

        def chunk(choices: list[dict[str, Any]], usage: dict[str, int] | None = None) -> None:
            payload: dict[str, Any] = {
                "id": completion_id,
                "object": "chat.completion.chunk",
                "created": created,
                "model": str(body.get("model", "")),
                "system_fingerprint": None,
                "choices": choices,
            }
            if include_usage:
                payload["usage"] = usage
            self._event(json.dumps(payload))

        def delta(part: dict[str, Any], finish: str | None = None) -> None:
            chunk([{"index": 0, "delta": part, "logprobs": None, "finish_reason": finish}])

        delta({"role": "assistant", "content": "", "refusal": None})
        for piece in _pieces(reply.reasoning) if reply.reasoning else ():
            delta({"reasoning_content": piece})
        for piece in _pieces(reply.text):
            delta({"content": piece})
        for index, (call, call_id) in enumerate(zip(reply.tool_calls, self._call_ids(reply), strict=True)):
            delta(
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": call_id,
                            "type": "function",
                            "function": {"name": call.name, "arguments": ""},
                        }
                    ]
                }
            )
            for piece in _pieces(call.arguments_json()):
                delta({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
        delta({}, "tool_calls" if reply.tool_calls else "stop")
        if include_usage:
            chunk([], self._usage(body, reply))
        self._event("[DONE]")
        self._write_chunk(b"")

    def _event(self, data: str) -> None:
        self._write_chunk(f"data: {data}\n\n".encode())

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):X}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


@contextmanager
def serve(script: Script = (), **options: Any) -> Iterator[OpenAIServer]:
    """Run an :class:`OpenAIServer` for the duration of a ``with`` block."""
    server = OpenAIServer(script, **options)
    with server:
        yield server
