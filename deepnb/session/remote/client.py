"""The Agent Protocol client (``langgraph-sdk``) and what its failures mean, in one line each.

Every call goes through the SDK's async client on deepnb's engine loop. A failure becomes a
:class:`~deepnb.core.errors.DeepnbError` that says what to do: start the server or fix the URL, pass a
key the server accepts, pick one of the assistants it has. The API key is never part of a message,
and a URL is shown only as :func:`deepnb.core.addresses.shown_url` shows it (no credentials).

deepnb follows no redirect (a server that answers 3xx names another address, perhaps another
host: the key would go there), and an answer that is neither JSON nor an event stream, or JSON
of the wrong shape (:mod:`deepnb.session.remote.shapes`), is one line saying what the server sent.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode, urlsplit

from deepnb.core.addresses import address, shown_url, shown_urls
from deepnb.core.errors import DeepnbError
from deepnb.session.remote.shapes import Unreadable, checked

log = logging.getLogger(__name__)

CONNECT_TIMEOUT = 5.0
READ_TIMEOUT = 300.0
CONNECTIONS = 256
"""Connections one workbench keeps to its server at most. Every run in flight holds one for its
stream, so a request beyond them waits for one to be free (it never times out waiting: a batch
or an experiment may hand the server more runs than its job slots take at once)."""
KEPT_ALIVE = 32
"""Seconds a stream may stay silent (a long tool call) before the server counts as gone."""


class Disconnected(DeepnbError):
    """The server stopped answering in the middle of a run (the run may go on there);
    ``failure_hint`` says how to re-attach (the run's error ends with it)."""

    def __init__(self, message: str, *, failure_hint: str) -> None:
        super().__init__(message)
        self.failure_hint = failure_hint


@dataclass(frozen=True)
class Server:
    """Where an agent is served: the base URL (no credentials, no query), the query sent with
    every request, and the headers sent with every request (the API key and the URL's
    credentials among them, never shown)."""

    url: str
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    api_key: str | None = field(default=None, repr=False)
    params: tuple[tuple[str, str], ...] = field(default=(), repr=False)

    @classmethod
    def at(cls, url: str, headers: Mapping[str, str] | None = None, api_key: str | None = None) -> Server:
        """The server at ``url`` as the user gave it: its ``user:password@`` becomes a basic-auth
        header, its query the parameters of every request (:func:`deepnb.core.addresses.address`)."""
        where = address(url, headers)
        return cls(where.base, {**where.headers, **(headers or {})}, api_key, where.params)

    @property
    def request_url(self) -> str:
        """The URL with its query, as requests go to it (never shown: the query may hold a key)."""
        return f"{self.url}?{urlencode(self.params)}" if self.params else self.url

    @property
    def shown(self) -> str:
        """The URL as deepnb shows it: without credentials (:func:`deepnb.core.addresses.shown_url`)."""
        return shown_url(self.request_url)

    def client(self) -> Any:
        """An async SDK client for this server (one per workbench: it belongs to the engine loop),
        which follows no redirect and refuses answers that are neither JSON nor an event stream."""
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
                    params=self.params,
                    timeout=httpx.Timeout(CONNECT_TIMEOUT, read=READ_TIMEOUT, pool=None),
                    transport=httpx.AsyncHTTPTransport(
                        retries=1,
                        limits=httpx.Limits(
                            max_connections=CONNECTIONS, max_keepalive_connections=KEPT_ALIVE
                        ),
                    ),
                    follow_redirects=False,
                    event_hooks={"response": [check_answer]},
                )
            )
        except Exception as exc:  # a malformed URL, a reserved header
            detail = shown_urls(str(exc).splitlines()[0]) if str(exc) else type(exc).__name__
            raise DeepnbError(f"Cannot use {self.shown!r} as an Agent Protocol server: {detail}") from None


ANSWER_TYPES = ("json", "text/event-stream")
"""What an Agent Protocol server answers in (its content types contain one of these)."""


async def check_answer(response: Any) -> None:
    """Refuse a redirect (it is never followed) and a body that is neither JSON nor an event
    stream (an HTML page, a proxy's login form), before the SDK reads it."""
    status = response.status_code
    if 300 <= status < 400:
        where = urlsplit(shown_url(str(response.headers.get("location") or ""))).netloc or "another path"
        raise Unreadable(
            f"a redirect (HTTP {status}) to {where}, which deepnb does not follow "
            "(connect to the address the server points to, if it is the one you mean)"
        )
    if status >= 400 or status == 204 or response.headers.get("content-length") == "0":
        return  # the SDK words errors; an empty answer (a cancel, a delete) has no type
    content_type = str(response.headers.get("content-type") or "none").split(";")[0].strip().lower()
    wants_stream = "text/event-stream" in str(response.request.headers.get("accept") or "")
    if wants_stream and "text/event-stream" not in content_type:
        raise Unreadable(f"{content_type[:60]} where a run's event stream belongs")
    if not any(known in content_type for known in ANSWER_TYPES):
        raise Unreadable(f"{content_type[:60]} where JSON or an event stream belongs")


def said(exc: BaseException) -> str:
    """``exc`` in one line for a log: its type and first line, with any URL shown as deepnb shows it."""
    first = str(exc).splitlines()[0] if str(exc) else ""
    return shown_urls(f"{type(exc).__name__}: {first}" if first else type(exc).__name__)


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
    if isinstance(exc, json.JSONDecodeError):  # the SDK's orjson errors are these too
        exc = Unreadable("a body that is not JSON where JSON belongs")
    if isinstance(exc, Unreadable) or isinstance(exc.__cause__, Unreadable):
        unreadable = exc if isinstance(exc, Unreadable) else exc.__cause__
        return DeepnbError(
            f"The server at {server.shown} answered {unreadable}, while {doing}: is it an Agent Protocol "
            "server (langgraph dev, a deployment), and is the URL right?"
        )
    code = status_of(exc)
    if code in (401, 403):
        return DeepnbError(
            f"The Agent Protocol server at {server.shown} refused the request (HTTP {code}) while {doing}: "
            "pass a key it accepts (deepnb.connect(..., api_key=...), "
            "or %deepagent connect ... --api-key-env VAR)."
        )
    if unreachable(exc):
        return DeepnbError(
            f"Cannot reach an Agent Protocol server at {server.shown} while {doing} ({type(exc).__name__}): "
            "is it running (langgraph dev, or your deployment), and is the URL right?"
        )
    detail = shown_urls(str(exc).splitlines()[0]) if str(exc) else type(exc).__name__
    return DeepnbError(f"The Agent Protocol server at {server.shown} failed while {doing}: {detail}")


async def find_assistant(client: Any, server: Server, wanted: str) -> Mapping[str, Any]:
    """The assistant ``wanted`` names (its id, its name, or its graph's id), else one line
    naming those the server has."""
    try:
        found = checked("assistants", await client.assistants.search(limit=100))
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
            f"Name the agent to run with --assistant ID: the server at {server.shown} has {have}."
        )
    raise DeepnbError(
        f"The Agent Protocol server at {server.shown} has no assistant {wanted!r}: it has {have}. "
        "Pass one of them as --assistant (or assistant=...)."
    )


async def input_keys_of(client: Any, assistant_id: str) -> tuple[str, ...]:
    """The keys of the assistant's input state, as the server's schema of it says (``()`` when it
    does not say): a graph whose input has no ``messages`` is not a conversation, and its steps
    are its nodes' updates."""
    try:
        schemas = await client.assistants.get_schemas(assistant_id)
    except Exception:  # a server without schemas: taken to speak messages, as a graph deepnb cannot read
        log.debug("deepnb: the server gave no schemas for %s", assistant_id, exc_info=True)
        return ()
    if not isinstance(schemas, Mapping):
        return ()
    for name in ("input_schema", "state_schema"):  # no input schema: the graph takes its state
        schema = schemas.get(name)
        properties = schema.get("properties") if isinstance(schema, Mapping) else None
        if isinstance(properties, Mapping):
            return tuple(str(key) for key in properties)
    return ()


async def state_keys_of(client: Any, assistant_id: str) -> list[str] | None:
    """The keys of the assistant's state, as the server's schema of it says (``None`` when it
    does not say): what a state update may name."""
    try:
        schemas = await client.assistants.get_schemas(assistant_id)
    except Exception:  # a server without schemas: the server itself judges an update
        log.debug("deepnb: the server gave no schemas for %s", assistant_id, exc_info=True)
        return None
    found: set[str] = set()
    for name in ("state_schema", "input_schema", "output_schema"):
        schema = schemas.get(name) if isinstance(schemas, Mapping) else None
        properties = schema.get("properties") if isinstance(schema, Mapping) else None
        if isinstance(properties, Mapping):
            found |= {str(key) for key in properties}
    return sorted(found) or None
