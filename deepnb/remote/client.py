"""The Agent Protocol client (``langgraph-sdk``) and what its failures mean, in one line each.

Every call goes through the SDK's async client on deepnb's engine loop. A failure becomes a
:class:`~deepnb.errors.DeepnbError` that says what to do: start the server or fix the URL, pass a
key the server accepts, pick one of the assistants it has. The API key is never part of a message.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from deepnb.errors import DeepnbError

CONNECT_TIMEOUT = 5.0
READ_TIMEOUT = 300.0
"""Seconds a stream may stay silent (a long tool call) before the server counts as gone."""


class Disconnected(DeepnbError):
    """The server stopped answering in the middle of a run (the run may go on there);
    ``failure_hint`` says how to re-attach (the run's error ends with it)."""

    def __init__(self, message: str, *, failure_hint: str) -> None:
        super().__init__(message)
        self.failure_hint = failure_hint


@dataclass(frozen=True)
class Server:
    """Where an agent is served: the URL, and the headers sent with every request (the API key
    among them, never shown)."""

    url: str
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    api_key: str | None = field(default=None, repr=False)

    def client(self) -> Any:
        """An async SDK client for this server (one per workbench: it belongs to the engine loop)."""
        # lazy: the SDK and httpx are heavy to import, and only a connected agent needs them
        import httpx  # noqa: PLC0415
        from langgraph_sdk import get_client  # noqa: PLC0415
        from langgraph_sdk.client import LangGraphClient  # noqa: PLC0415

        try:  # get_client's headers (the key, the user agent), but one connection retry, not five
            configured = get_client(
                url=self.url, api_key=self.api_key, headers=dict(self.headers)
            ).http.client
            return LangGraphClient(
                httpx.AsyncClient(
                    base_url=configured.base_url,
                    headers=configured.headers,
                    timeout=httpx.Timeout(CONNECT_TIMEOUT, read=READ_TIMEOUT),
                    transport=httpx.AsyncHTTPTransport(retries=1),
                )
            )
        except Exception as exc:  # a malformed URL, a reserved header
            raise DeepnbError(f"Cannot use {self.url!r} as an Agent Protocol server: {exc}") from None


def status_of(exc: BaseException) -> int | None:
    """The HTTP status of an SDK failure, if it is one."""
    response = getattr(exc, "response", None)
    code = getattr(response, "status_code", None)
    return code if isinstance(code, int) else None


def unreachable(exc: BaseException) -> bool:
    """Whether ``exc`` says the server did not answer (refused, reset, timed out, went away)."""
    import httpx  # noqa: PLC0415  # lazy: httpx is heavy to import

    return isinstance(exc, httpx.TransportError | ConnectionError | OSError)


def explain(exc: BaseException, server: Server, *, doing: str) -> DeepnbError:
    """One line for a failed request to ``server``, saying what to do."""
    if isinstance(exc, DeepnbError):
        return exc
    code = status_of(exc)
    if code in (401, 403):
        return DeepnbError(
            f"The Agent Protocol server at {server.url} refused the request (HTTP {code}) while {doing}: "
            "pass a key it accepts (deepnb.connect(..., api_key=...), "
            "or %deepagent connect ... --api-key-env VAR)."
        )
    if unreachable(exc):
        return DeepnbError(
            f"Cannot reach an Agent Protocol server at {server.url} while {doing} ({type(exc).__name__}): "
            "is it running (langgraph dev, or your deployment), and is the URL right?"
        )
    detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return DeepnbError(f"The Agent Protocol server at {server.url} failed while {doing}: {detail}")


async def find_assistant(client: Any, server: Server, wanted: str) -> Mapping[str, Any]:
    """The assistant ``wanted`` names (its id, its name, or its graph's id), else one line
    naming those the server has."""
    try:
        found = await client.assistants.search(limit=100)
    except Exception as exc:
        raise explain(exc, server, doing="listing its assistants") from None
    for key in ("assistant_id", "name", "graph_id"):
        match = [a for a in found if str(a.get(key)) == wanted]
        if match:
            return dict(match[0])
    names = sorted({str(a.get("graph_id")) for a in found} | {str(a.get("name")) for a in found})
    have = ", ".join(names) if names else "none"
    if not wanted:
        raise DeepnbError(
            f"Name the agent to run with --assistant ID: the server at {server.url} has {have}."
        )
    raise DeepnbError(
        f"The Agent Protocol server at {server.url} has no assistant {wanted!r}: it has {have}. "
        "Pass one of them as --assistant (or assistant=...)."
    )
