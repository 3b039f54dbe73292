"""Checkpointers from a short spec: ``"memory"``, ``"sqlite:PATH"``, ``"postgres:DSN"``, or a saver
object."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from deepnb._loop import run_sync
from deepnb.errors import DeepnbError

CheckpointerSpec = str | Any | None


def make_checkpointer(spec: CheckpointerSpec) -> Any:
    """A LangGraph checkpointer for ``spec``; ``None`` and ``"memory"`` keep threads in memory."""
    if spec is None or spec == "memory":
        from langgraph.checkpoint.memory import InMemorySaver

        return InMemorySaver()
    if isinstance(spec, str):
        kind, _, target = spec.partition(":")
        if kind == "sqlite" and target:
            return run_sync(_sqlite_saver(Path(target).expanduser()))
        if kind == "postgres" and target:
            return run_sync(_postgres_saver(target))
        raise DeepnbError(
            f"Unknown checkpointer {spec!r}: use 'memory', 'sqlite:PATH' (e.g. sqlite:threads.db), "
            "'postgres:DSN' (e.g. postgres:postgresql://user@host/db) or a LangGraph checkpointer object."
        )
    if not hasattr(spec, "aget_tuple"):
        raise DeepnbError(
            f"{type(spec).__name__} is not a LangGraph checkpointer: pass 'memory', 'sqlite:PATH' "
            "or a BaseCheckpointSaver."
        )
    return spec


async def _sqlite_saver(path: Path) -> Any:
    import aiosqlite
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    if not path.parent.exists():
        raise DeepnbError(
            f"Cannot keep threads in {str(path)!r}: folder {str(path.parent)!r} does not exist."
        )
    connection = aiosqlite.connect(str(path))
    # The connection's worker thread must not hold the kernel open at exit; SQLite commits
    # every checkpoint as it is written.
    connection._thread.daemon = True
    saver = AsyncSqliteSaver(await connection)
    await saver.setup()
    return saver


async def _postgres_saver(dsn: str) -> Any:
    """A saver on a shared PostgreSQL database, so a team's notebooks see the same threads."""
    try:
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
        from psycopg import AsyncConnection
        from psycopg.rows import dict_row
    except ImportError:
        raise DeepnbError("Postgres threads need two packages: pip install 'deepnb[postgres]'") from None
    try:
        connection = await AsyncConnection.connect(
            dsn, autocommit=True, prepare_threshold=0, row_factory=dict_row
        )
    except Exception as exc:  # the DSN may hold a password: say what failed, not the DSN
        raise DeepnbError(
            f"Cannot reach the Postgres database ({type(exc).__name__}): check the DSN after "
            "'postgres:' and that the server is running."
        ) from None
    saver = AsyncPostgresSaver(connection)
    await saver.setup()
    return saver
