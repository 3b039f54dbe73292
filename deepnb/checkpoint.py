"""Checkpointers from a short spec: ``"memory"``, ``"sqlite:PATH"``, or a saver object."""

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
        if kind == "postgres":
            raise DeepnbError(
                "Postgres threads are not available yet: use checkpointer='sqlite:PATH' "
                "to keep threads across restarts."
            )
        raise DeepnbError(
            f"Unknown checkpointer {spec!r}: use 'memory', 'sqlite:PATH' (e.g. sqlite:threads.db) "
            "or pass a LangGraph checkpointer object."
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
