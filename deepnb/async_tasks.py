"""A thread's async subagent tasks, as rows for the panel, and their live status on demand.

An async subagent (a subagent spec with ``graph_id`` and ``url``) runs on an Agent Protocol server
such as ``langgraph dev``. deepagents keeps the tasks it started in the thread's ``async_tasks``
state key, ``{task_id: {task_id, agent_name, thread_id, run_id, status, created_at,
last_checked_at, last_updated_at}}``, and updates a task's status only when one of its tools (or
its middleware, before a model call) asks the server. :func:`refresh_async_tasks` asks the server
without running the agent, and writes nothing back into the thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from deepnb.errors import DeepnbError
from deepnb.handles import AgentHandle
from deepnb.schema import AsyncTaskRow, AsyncTaskStatus

__all__ = ["FIELDS", "RemoteAgent", "merge_rows", "refresh_async_tasks", "remote_agents", "task_rows"]

FIELDS: tuple[str, ...] = tuple(AsyncTaskRow.__annotations__)
"""The keys of a row (:class:`deepnb.schema.AsyncTaskRow`), all strings."""

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


@dataclass(frozen=True)
class RemoteAgent:
    """An async subagent's server: where :func:`refresh_async_tasks` asks about its tasks."""

    name: str
    url: str
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)


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


async def refresh_async_tasks(
    workbench: AgentHandle, thread_id: str, *, timeout: float = 10.0
) -> list[AsyncTaskRow]:
    """The thread's async tasks (as :func:`task_rows`) with their live status from their servers.

    Tasks whose status is final (``success``, ``error``, ``timeout``, ``cancelled``), and tasks
    of subagents whose server is unknown (see :func:`remote_agents`), keep their stored status
    and ``last_checked_at``. The others get the status deepagents' ``check_async_task`` would
    report (``pending``, ``running``, ``waiting``, ``success``, …), the run it follows, and
    ``last_checked_at`` = now; ``last_updated_at`` moves when the status or run changed.

    Nothing is written into the thread. Await it on deepnb's engine loop (``run_sync`` from
    other threads). Raises :class:`DeepnbError` with one sentence when a server cannot be
    reached, does not answer within ``timeout`` seconds, or refuses a request.
    """
    snapshot = await workbench.graph.aget_state({"configurable": {"thread_id": thread_id}})
    rows = task_rows((snapshot.values or {}).get("async_tasks"))
    servers = remote_agents(workbench)
    due = [row for row in rows if row["status"] not in _FINAL and row["agent_name"] in servers]
    if not due:
        return rows
    clients: dict[tuple[str, frozenset[tuple[str, str]]], Any] = {}
    try:
        for row in due:
            server = servers[row["agent_name"]]
            if _server_key(server) not in clients:
                clients[_server_key(server)] = _client(server, row, timeout)
        found = await asyncio.gather(
            *(_observe(clients[_server_key(servers[row["agent_name"]])], row) for row in due),
            return_exceptions=True,
        )
    finally:
        await asyncio.gather(*(client.aclose() for client in clients.values()), return_exceptions=True)
    observed: list[tuple[str, str]] = []
    for row, result in zip(due, found, strict=True):
        if isinstance(result, Exception):
            raise _failure(result, servers[row["agent_name"]], row, timeout) from result
        if isinstance(result, BaseException):
            raise result
        observed.append(result)
    now = _now()
    for row, (status, run_id) in zip(due, observed, strict=True):
        if status != row["status"] or run_id != row["run_id"]:
            row["last_updated_at"] = now
        row.update({"status": status, "run_id": run_id, "last_checked_at": now})
    return rows


def _server_key(server: RemoteAgent) -> tuple[str, frozenset[tuple[str, str]]]:
    return (server.url, frozenset(server.headers.items()))


def _client(server: RemoteAgent, row: AsyncTaskRow, timeout: float) -> Any:
    """An SDK client for ``server``: ``get_client``'s headers and API key (as the agent's tools
    send them), but one connection retry rather than five, so a server that is down fails in
    milliseconds, not after 7.5 s of back-off."""
    # lazy: only for async subagents; the SDK and httpx are heavy to import
    import httpx  # noqa: PLC0415
    from langgraph_sdk import get_client  # noqa: PLC0415
    from langgraph_sdk.client import LangGraphClient  # noqa: PLC0415

    try:
        configured = get_client(url=server.url, headers=dict(server.headers)).http.client
        return LangGraphClient(
            httpx.AsyncClient(
                base_url=configured.base_url,
                headers=configured.headers,
                timeout=httpx.Timeout(timeout),
                transport=httpx.AsyncHTTPTransport(retries=1),
            )
        )
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

    server_at = f"The Agent Protocol server at {server.url} (async subagent {server.name!r})"
    if isinstance(exc, httpx.TimeoutException):
        text = (
            f"{server_at} did not answer within {timeout:g} s: check that it is running and not overloaded."
        )
    elif isinstance(exc, httpx.TransportError):
        text = (
            f"{server_at} cannot be reached ({exc or type(exc).__name__}): check that it is running "
            "(e.g. langgraph dev) and that the subagent's url is right."
        )
    elif isinstance(exc, APIStatusError | httpx.HTTPStatusError):
        code = exc.response.status_code
        if code == 404:
            text = (
                f"{server_at} has no run {row['run_id']} on thread {row['thread_id']}: it may have "
                "restarted without its data, or the url may point at another server."
            )
        elif code in (401, 403):
            text = (
                f"{server_at} refused the request (HTTP {code}): check the headers in the subagent's "
                "spec, or the API key in the environment."
            )
        else:
            text = f"{server_at} answered HTTP {code}: check its log."
    elif isinstance(exc, httpx.InvalidURL | ValueError):
        text = f"{server_at} cannot be asked ({exc}): check the subagent's url and headers."
    else:
        text = f"{server_at} failed to report task {row['task_id']} ({type(exc).__name__}): check its log."
    return DeepnbError(text)
