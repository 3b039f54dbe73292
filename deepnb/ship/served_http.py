"""The HTTP app ``%deepagent serve`` has ``langgraph dev`` mount (langgraph.json's ``http.app``).

It adds no route: its middleware stands in front of every route of the server and refuses, with
403, a request a web page sent (one with an ``Origin`` header: browsers add it to every
cross-origin request, the "simple" ones CORS lets through unread included) or one addressed to
another host name than the loopback one (a DNS-rebinding page). The kernel's client sends
neither, so the notebook loses nothing; langgraph.json's ``http.cors`` allows no origin besides.
Imported only in the server (``langgraph dev`` has Starlette).
"""

from __future__ import annotations

from collections.abc import Iterable

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["LOOPBACK", "LocalOnly", "app", "refusal"]

LOOPBACK = frozenset({"127.0.0.1", "localhost", "[::1]", "api"})
"""The host names a request to the served agents may carry (with any port): the loopback ones,
and ``api``, which ``langgraph_sdk.get_client()`` without a URL sends in the server's own process."""


def refusal(headers: Iterable[tuple[bytes, bytes]]) -> str | None:
    """Why a request with these (ASGI) headers is refused, or ``None`` when it is not."""
    found = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in headers}
    if "origin" in found:
        return "deepnb's served agents answer the notebook's kernel, not web pages (Origin refused)."
    host = found.get("host", "")
    name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    if name.lower() not in LOOPBACK:
        return "deepnb's served agents answer on 127.0.0.1 only (Host refused)."
    return None


class LocalOnly:
    """ASGI middleware: :func:`refusal` for every HTTP and WebSocket request."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            reason = refusal(scope.get("headers") or ())
            if reason is not None:
                if scope["type"] == "websocket":
                    await send({"type": "websocket.close", "code": 1008})
                    return
                await JSONResponse({"detail": reason}, status_code=403)(scope, receive, send)
                return
        await self.app(scope, receive, send)


app = Starlette(middleware=[Middleware(LocalOnly)])
