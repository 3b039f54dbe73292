"""Checkpointers from a short spec: ``"memory"``, ``"sqlite:PATH"``, ``"postgres:DSN"``, or a saver
object. Every saver made here reads its checkpoints strictly (:mod:`deepnb.core.threads.serde`); a saver
object the user built is used as it is."""

from __future__ import annotations

import atexit
import contextlib
import threading
from collections.abc import Callable, Coroutine, Mapping
from pathlib import Path
from typing import Any

from deepnb.core.errors import DeepnbError
from deepnb.core.extras import require
from deepnb.core.loop import engine_running, run_sync
from deepnb.core.threads.serde import made_strict, strict_serializer

CheckpointerSpec = str | Any | None

_lock = threading.Lock()
_opened: dict[tuple[str, str], Any] = {}
"""Savers whose database connection deepnb opened, by database (``("sqlite", resolved path)``
or ``("postgres", dsn)``): one connection per database per kernel, so a cell run again gets the
same saver (and the runs made before keep theirs) instead of leaving a connection behind."""


SPEC_KINDS = ("sqlite", "postgres")
SPEC_HELP = (
    "use 'memory', 'sqlite:PATH' (e.g. sqlite:threads.db), 'postgres:DSN' "
    "(e.g. postgres:postgresql://user@host/db) or a LangGraph checkpointer object"
)


def parse_spec(spec: str) -> tuple[str, str]:
    """``"sqlite:PATH"`` → ``("sqlite", "PATH")`` (likewise ``postgres:DSN``), without opening
    anything; a spec deepnb does not know is one ``DeepnbError``."""
    kind, _, target = spec.partition(":")
    if kind not in SPEC_KINDS or not target:
        raise DeepnbError(f"Unknown checkpointer {spec!r}: {SPEC_HELP}.")
    return kind, target


def make_checkpointer(spec: CheckpointerSpec) -> Any:
    """A LangGraph checkpointer for ``spec``; ``None`` and ``"memory"`` keep threads in memory."""
    if spec is None or spec == "memory":
        from langgraph.checkpoint.memory import InMemorySaver  # noqa: PLC0415  # lazy: langgraph is heavy

        return made_strict(InMemorySaver(serde=strict_serializer()))
    if isinstance(spec, str):
        kind, target = parse_spec(spec)
        if kind == "sqlite":
            path = Path(target).expanduser()
            return _opened_once(("sqlite", str(path.resolve())), lambda: _sqlite_saver(path))
        return _opened_once(("postgres", target), lambda: _postgres_saver(target))
    if not hasattr(spec, "aget_tuple"):
        raise DeepnbError(
            f"{type(spec).__name__} is not a LangGraph checkpointer: pass 'memory', 'sqlite:PATH' "
            "or a BaseCheckpointSaver."
        )
    return spec


def _opened_once(key: tuple[str, str], open_saver: Callable[[], Coroutine[Any, Any, Any]]) -> Any:
    with _lock:
        saver = _opened.get(key)
        if saver is None:
            saver = _opened[key] = run_sync(open_saver())
        return saver


def database_key(saver: Any) -> tuple[str, str]:
    """Which database ``saver`` keeps threads in: ``("sqlite", resolved path)`` or
    ``("postgres", dsn)`` for a saver deepnb opened, else the saver object itself (an
    in-memory saver, or one the user made, is its own database)."""
    with _lock:
        key = next((k for k, v in _opened.items() if v is saver), None)
    return key if key is not None else ("saver", str(id(saver)))


def close(saver: Any) -> bool:
    """Close the database connection deepnb opened for ``saver``; ``False`` (and nothing done)
    for a saver deepnb did not open, which belongs to whoever made it."""
    with _lock:
        key = next((k for k, v in _opened.items() if v is saver), None)
        if key is None:
            return False
        del _opened[key]
    run_sync(_close(saver.conn), timeout=5)
    return True


async def _close(connection: Any) -> None:
    await connection.close()


@atexit.register
def _close_all() -> None:
    """At exit, close what is still open (SQLite has committed every checkpoint already)."""
    if not engine_running():
        return
    for saver in list(_opened.values()):
        # exiting: a connection that will not close is dropped with the process
        with contextlib.suppress(Exception):
            close(saver)


async def _sqlite_saver(path: Path) -> Any:
    # lazy: only for sqlite: threads; langgraph is heavy to import
    import aiosqlite  # noqa: PLC0415
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver  # noqa: PLC0415

    if not path.parent.exists():
        raise DeepnbError(
            f"Cannot keep threads in {str(path)!r}: folder {str(path.parent)!r} does not exist."
        )
    connection = aiosqlite.connect(str(path))
    # The connection's worker thread must not hold the kernel open at exit; SQLite commits
    # every checkpoint as it is written.
    connection._thread.daemon = True
    saver = AsyncSqliteSaver(await connection, serde=strict_serializer())
    await saver.setup()
    return made_strict(saver)


async def _postgres_saver(dsn: str) -> Any:
    """A saver on a shared PostgreSQL database, so a team's notebooks see the same threads."""
    # the optional postgres extra, only for postgres: threads
    saver = require("postgres", "langgraph.checkpoint.postgres.aio", what="Postgres threads")
    AsyncPostgresSaver = saver.AsyncPostgresSaver
    AsyncConnection = require("postgres", "psycopg", what="Postgres threads").AsyncConnection
    from psycopg.rows import dict_row  # noqa: PLC0415  # lazy: psycopg, just imported, is optional

    try:
        connection = await AsyncConnection.connect(
            dsn, autocommit=True, prepare_threshold=0, row_factory=dict_row
        )
    except Exception as exc:  # the DSN may hold a password: say what failed, not the DSN
        raise DeepnbError(
            f"Cannot reach the Postgres database ({type(exc).__name__}): check the DSN after "
            "'postgres:' and that the server is running."
        ) from None
    saver = AsyncPostgresSaver(connection, serde=strict_serializer())
    await saver.setup()
    return made_strict(saver)


THREADS_SQL = "SELECT DISTINCT thread_id FROM checkpoints WHERE checkpoint_ns = ''"
"""The threads with a checkpoint of their own (not only their subgraphs'), in LangGraph's SQLite
and Postgres schemas."""


async def thread_ids(saver: Any) -> list[str] | None:
    """The ids of the threads ``saver`` holds checkpoints of, read without loading a checkpoint:
    for LangGraph's in-memory saver (its storage's keys), async SQLite and async Postgres savers
    (one query). ``None`` for any other saver, or where the query fails: list its checkpoints."""
    # lazy: langgraph is loaded by the time a saver exists; %load_ext deepnb does not load it
    from langgraph.checkpoint.memory import InMemorySaver  # noqa: PLC0415

    if isinstance(saver, InMemorySaver):
        return [str(thread) for thread, namespaces in list(saver.storage.items()) if namespaces.get("")]
    kind = type(saver).__name__
    try:
        if kind == "AsyncSqliteSaver":
            async with saver.lock, saver.conn.execute(THREADS_SQL) as cursor:
                rows = await cursor.fetchall()
        elif kind == "AsyncPostgresSaver" and hasattr(saver.conn, "cursor"):  # a connection, not a pool
            async with saver.lock, saver.conn.cursor() as cursor:
                await cursor.execute(THREADS_SQL)
                rows = await cursor.fetchall()
        else:
            return None
    except Exception:  # a schema or driver this does not know: the caller lists checkpoints
        return None
    return [str(row["thread_id"] if isinstance(row, Mapping) else row[0]) for row in rows]
