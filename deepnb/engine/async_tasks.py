"""A thread's async subagent tasks, as rows for the panel, and their live status on demand.

An async subagent (a subagent spec with ``graph_id`` and ``url``) runs on an Agent Protocol server
such as ``langgraph dev``. deepagents keeps the tasks it started in the thread's ``async_tasks``
state key, ``{task_id: {task_id, agent_name, thread_id, run_id, status, created_at,
last_checked_at, last_updated_at}}``, and updates a task's status only when one of its tools (or
its middleware, before a model call) asks the server. :func:`refresh_async_tasks` asks the server
without running the agent, and writes nothing back into the thread.

An agent built in the kernel names its subagents' servers in its spec (:func:`remote_agents`). A
served agent (``deepnb.connect``) has no spec here: it says where it is served
(:class:`ServedAgent`), and its tasks are asked about on that server, where a subagent of the same
deployment runs; a task that server does not know runs elsewhere and keeps its status as last seen.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, Protocol, runtime_checkable

from deepnb.core.addresses import address, shown_url, shown_urls
from deepnb.core.errors import DeepnbError
from deepnb.core.handles import AgentHandle
from deepnb.core.schema import AsyncTaskRow, AsyncTaskStatus
from deepnb.core.text.safe_display import safe_display
from deepnb.core.threads.reading import read_state

__all__ = [
    "FIELDS",
    "Refreshed",
    "RemoteAgent",
    "ServedAgent",
    "merge_rows",
    "refresh_async_tasks",
    "refresh_tasks",
    "remote_agents",
    "task_rows",
]

FIELDS: tuple[str, ...] = tuple(AsyncTaskRow.__annotations__)
"""The keys of a row (:class:`deepnb.core.schema.AsyncTaskRow`), all strings."""

# Statuses that never change, so a refresh keeps them without asking the server (as deepagents'
# ``list_async_tasks`` does). ``interrupted`` is what older deepagents stored for ``cancelled``.
_FINAL: frozenset[AsyncTaskStatus] = frozenset({"success", "error", "timeout", "cancelled", "interrupted"})

# A finished run's task status, from its thread's status (a paused subagent's run ends "success").
_THREAD_STATUS = {"interrupted": "waiting", "busy": "running", "error": "error"}


# -- rows ----------------------------------------------------------------------------------


def task_rows(async_tasks: Mapping[str, Any] | None) -> list[AsyncTaskRow]:
    """The state's ``async_tasks`` as JSON-ready rows (:data:`FIELDS`, ``""`` when missing),
    in creation order: by ``created_at``, ties in the mapping's order."""
    rows = [_row(str(key), task) for key, task in (async_tasks or {}).items() if isinstance(task, Mapping)]
    return sorted(rows, key=lambda row: row["created_at"])


def _row(key: str, task: Mapping[str, Any]) -> AsyncTaskRow:
    return AsyncTaskRow(
        task_id=_text(task.get("task_id")) or key,
        agent_name=_text(task.get("agent_name")),
        thread_id=_text(task.get("thread_id")),
        run_id=_text(task.get("run_id")),
        status=_text(task.get("status")),
        created_at=_text(task.get("created_at")),
        last_checked_at=_text(task.get("last_checked_at")),
        last_updated_at=_text(task.get("last_updated_at")),
    )


def merge_rows(rows: Iterable[Mapping[str, Any]], update: Mapping[str, Any] | None) -> list[AsyncTaskRow]:
    """``rows`` with an ``async_tasks`` state *update* merged in, the way the state's reducer
    merges it: a stream's ``updates`` carry only the tasks a step changed (and ``{}`` when none
    did), so replacing the rows with them would drop the others."""
    merged: dict[str, Any] = {row["task_id"]: row for row in rows}
    merged.update(update or {})
    return task_rows(merged)


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")  # deepagents' format


# -- the servers -----------------------------------------------------------------------------


@safe_display
@dataclass(frozen=True)
class RemoteAgent:
    """An async subagent's server: where :func:`refresh_async_tasks` asks about its tasks."""

    name: str
    url: str
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    api_key: str | None = field(default=None, repr=False)
    """Sent as ``x-api-key``. Without it, the key in the SDK's environment variables (as the
    agent's tools send it), unless ``key_from_environment`` is false."""
    key_from_environment: bool = field(default=True, repr=False)

    def __repr__(self) -> str:
        return f"RemoteAgent(name={self.name!r}, url={shown_url(self.url)!r})"  # never the url's key


@runtime_checkable
class ServedAgent(Protocol):
    """An agent served by an Agent Protocol server (``deepnb.connect``): its spec is not known
    here, so the tasks it started are asked about on the server it runs on."""

    @property
    def agent_server(self) -> RemoteAgent:
        """The agent's own server (any ``name``): its URL, headers and API key."""
        ...


def remote_agents(workbench: AgentHandle) -> dict[str, RemoteAgent]:
    """The async subagents of a workbench built from a spec, by name, with the URL and headers
    their tools use. Empty for an attached graph (its specs are not known) and for specs without
    ``url`` (those run in-process on an Agent Server, which a notebook cannot reach)."""
    spec = workbench.spec
    subagents = spec.options.get("subagents") if spec is not None else None
    agents = {}
    for sub in subagents or ():
        if isinstance(sub, Mapping) and "graph_id" in sub and sub.get("url"):
            # As deepagents' middleware sends them (its _resolve_headers).
            headers = {"x-auth-scheme": "langsmith", **dict(sub.get("headers") or {})}
            agents[str(sub["name"])] = RemoteAgent(str(sub["name"]), str(sub["url"]), headers)
    return agents


# -- refreshing ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Refreshed:
    """What :func:`refresh_tasks` found: the rows, and one line (or ``""``) on the tasks whose
    status stays as last seen because their server cannot be known."""

    rows: list[AsyncTaskRow]
    note: str = ""


async def refresh_async_tasks(
    workbench: AgentHandle, thread_id: str, *, timeout: float = 10.0
) -> list[AsyncTaskRow]:
    """The rows of :func:`refresh_tasks`."""
    return (await refresh_tasks(workbench, thread_id, timeout=timeout)).rows


async def refresh_tasks(workbench: AgentHandle, thread_id: str, *, timeout: float = 10.0) -> Refreshed:
    """The thread's async tasks (as :func:`task_rows`) with their live status from their servers.

    Tasks whose status is final (``success``, ``error``, ``timeout``, ``cancelled``), and tasks
    of subagents whose server is unknown (see :func:`remote_agents`), keep their stored status
    and ``last_checked_at``. A served agent's tasks (:class:`ServedAgent`) are asked about on its
    own server; those it does not know run on another server, which a served agent does not
    name: they keep their status too, and :attr:`Refreshed.note` says so. The others get the
    status deepagents' ``check_async_task`` would report (``pending``, ``running``, ``waiting``,
    ``success``, …), the run it follows, and ``last_checked_at`` = now; ``last_updated_at``
    moves when the status or run changed.

    Nothing is written into the thread. Await it on deepnb's engine loop (``run_sync`` from
    other threads). Raises :class:`DeepnbError` with one sentence when a server cannot be
    reached, does not answer within ``timeout`` seconds, or refuses a request.
    """
    config = {"configurable": {"thread_id": thread_id}}
    snapshot = await read_state(workbench.graph, config, agent=workbench.name)
    rows = task_rows((snapshot.values or {}).get("async_tasks"))
    named = remote_agents(workbench)
    home = workbench.agent_server if isinstance(workbench, ServedAgent) else None
    servers: dict[str, RemoteAgent] = {}  # by task id: where each task not yet final is asked about
    for row in rows:
        server = named.get(row["agent_name"]) or (home and replace(home, name=row["agent_name"]))
        if row["status"] not in _FINAL and server:
            servers[row["task_id"]] = server
    due = [row for row in rows if row["task_id"] in servers]
    if not due:
        return Refreshed(rows)
    clients: dict[_ServerKey, Any] = {}
    try:
        for row in due:
            server = servers[row["task_id"]]
            if _server_key(server) not in clients:
                clients[_server_key(server)] = _client(server, row, timeout)
        found = await asyncio.gather(
            *(_observe(clients[_server_key(servers[row["task_id"]])], row) for row in due),
            return_exceptions=True,
        )
    finally:
        await asyncio.gather(*(client.aclose() for client in clients.values()), return_exceptions=True)
    observed: list[tuple[AsyncTaskRow, tuple[str, str]]] = []
    elsewhere: list[AsyncTaskRow] = []
    for row, result in zip(due, found, strict=True):
        if isinstance(result, Exception):
            if row["agent_name"] not in named and _status_code(result) == 404:
                elsewhere.append(row)  # not on the served agent's own server
                continue
            raise _failure(result, servers[row["task_id"]], row, timeout) from result
        if isinstance(result, BaseException):
            raise result
        observed.append((row, result))
    now = _now()
    for row, (status, run_id) in observed:
        if status != row["status"] or run_id != row["run_id"]:
            row["last_updated_at"] = now
        row.update({"status": status, "run_id": run_id, "last_checked_at": now})
    return Refreshed(rows, _elsewhere_note(elsewhere, home))


def _elsewhere_note(rows: list[AsyncTaskRow], home: RemoteAgent | None) -> str:
    """One line on the tasks a served agent's server does not know."""
    if not rows or home is None:
        return ""
    names = ", ".join(dict.fromkeys(row["agent_name"] or "?" for row in rows))
    many = len(rows) > 1
    tasks = f"{len(rows)} tasks ({names}) run" if many else f"Task {rows[0]['task_id']} ({names}) runs"
    return (
        f"{tasks} on another server than {shown_url(home.url)}, where this agent is served; a served agent "
        "does not say where its subagents run, so the status shown is as last seen."
    )


def _status_code(exc: BaseException) -> int | None:
    code = getattr(getattr(exc, "response", None), "status_code", None)
    return code if isinstance(code, int) else None


_ServerKey = tuple[str, frozenset[tuple[str, str]], str | None, bool]


def _server_key(server: RemoteAgent) -> _ServerKey:
    return (server.url, frozenset(server.headers.items()), server.api_key, server.key_from_environment)


def _client(server: RemoteAgent, row: AsyncTaskRow, timeout: float) -> Any:
    """An SDK client for ``server``: ``get_client``'s headers and API key (as the agent's tools
    send them), but one connection retry rather than five, so a server that is down fails in
    milliseconds, not after 7.5 s of back-off."""
    # lazy: only for async subagents; the SDK and httpx are heavy to import
    import httpx  # noqa: PLC0415
    from langgraph_sdk import get_client  # noqa: PLC0415
    from langgraph_sdk.client import LangGraphClient  # noqa: PLC0415

    try:  # credentials in the url as basic auth, its query with every request (deepnb.core.addresses)
        where = address(server.url, server.headers)
        headers = {**where.headers, **server.headers}
        if server.api_key or not server.key_from_environment:
            configured = get_client(url=where.base, api_key=server.api_key, headers=headers)
        else:  # the key in the environment, as get_client finds it
            configured = get_client(url=where.base, headers=headers)
        return LangGraphClient(
            httpx.AsyncClient(
                base_url=configured.http.client.base_url,
                headers=configured.http.client.headers,
                params=where.params,
                timeout=httpx.Timeout(timeout),
                transport=httpx.AsyncHTTPTransport(retries=1),
                follow_redirects=False,
            )
        )
    except DeepnbError:
        raise
    except Exception as exc:  # a malformed url, a reserved header
        raise _failure(exc, server, row, timeout) from exc


async def _observe(client: Any, row: AsyncTaskRow) -> tuple[str, str]:
    """A task's live ``(status, run_id)``, read the way deepagents' ``check_async_task`` reads it
    (its ``_aobserve`` and ``_task_status``): the tracked run, or the thread's newest run when
    the tracked one was replaced; for a finished run, the thread too, which shows a pause."""
    thread_id = row["thread_id"] or row["task_id"]
    run = await client.runs.get(thread_id, row["run_id"])
    if run["status"] == "interrupted":  # cancelled, or replaced by another client's run
        run = next(iter(await client.runs.list(thread_id, limit=1)), run)
    thread = None
    if run["status"] == "success":
        thread = await client.threads.get(thread_id)
        if thread.get("status") in {"busy", "error"}:  # a newer run started on the thread
            run = next(iter(await client.runs.list(thread_id, limit=1)), run)
    if run["status"] == "interrupted":
        status = "cancelled"
    elif run["status"] != "success" or thread is None:
        status = str(run["status"])
    else:
        status = _THREAD_STATUS.get(str(thread.get("status")), "success")
    return status, str(run["run_id"])


def _failure(exc: Exception, server: RemoteAgent, row: AsyncTaskRow, timeout: float) -> DeepnbError:
    """One sentence that says which server failed and what to check."""
    # lazy: only for async subagents; the SDK and httpx are heavy to import
    import httpx  # noqa: PLC0415
    from langgraph_sdk.errors import APIStatusError  # noqa: PLC0415

    server_at = f"The Agent Protocol server at {shown_url(server.url)} (async subagent {server.name!r})"
    if isinstance(exc, httpx.TimeoutException):
        text = (
            f"{server_at} did not answer within {timeout:g} s: check that it is running and not overloaded."
        )
    elif isinstance(exc, httpx.TransportError):
        text = (
            f"{server_at} cannot be reached ({shown_urls(str(exc)) or type(exc).__name__}): check that it is "
            "running (e.g. langgraph dev) and that the subagent's url is right."
        )
    elif isinstance(exc, APIStatusError | httpx.HTTPStatusError):
        code = exc.response.status_code
        if code == 404:
            text = (
                f"{server_at} has no run {row['run_id']} on thread {row['thread_id']}: it may have "
                "restarted without its data, or the url may point at another server."
            )
        elif code in (401, 403) and not server.key_from_environment:  # a connected agent's server
            text = (
                f"{server_at} refused the request (HTTP {code}): connect again with a key it accepts "
                "(deepnb.connect(..., api_key=...))."
            )
        elif code in (401, 403):
            text = (
                f"{server_at} refused the request (HTTP {code}): check the headers in the subagent's "
                "spec, or the API key in the environment."
            )
        else:
            text = f"{server_at} answered HTTP {code}: check its log."
    elif isinstance(exc, httpx.InvalidURL | ValueError):
        text = f"{server_at} cannot be asked ({shown_urls(str(exc))}): check the subagent's url and headers."
    else:
        text = f"{server_at} failed to report task {row['task_id']} ({type(exc).__name__}): check its log."
    return DeepnbError(text)
