"""Thread claims across processes: two kernels on one database hold one thread one at a time.

:mod:`deepnb.session.claims` keeps the kernel's own registry; for a database other processes can open
(a SQLite file, a Postgres database) it also takes a lock the operating system or the server
holds for this process, and frees it when the run lets go. Each lock dies with its holder, so a
kernel that crashed blocks nobody and no timestamp is trusted:

- SQLite: an exclusive ``flock`` on one file per thread in ``<database>-claims/`` beside the
  database (the holder writes who it is into the file; the file is removed on release);
- Postgres: a session-level advisory lock keyed by a stable hash of the thread id, on a
  connection of the claim's own, whose ``application_name`` says who holds it.

A refused claim names the holder: its pid, host, kernel and since when.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import socket
import sys
import threading
import time
from collections.abc import Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from deepnb.core import clock as clocks
from deepnb.core.errors import DeepnbError
from deepnb.core.extras import require

APP_PREFIX = "deepnb "
"""How a Postgres claim's connection names itself (``application_name``, at most 63 bytes)."""


@dataclass(frozen=True)
class Holder:
    """Who holds a thread in another process."""

    pid: int | None = None
    host: str = ""
    kernel: str = ""
    since: float | None = None

    def describe(self) -> str:
        """``pid 4242 on host-a, kernel 1a2b3c4d, since 08:12:03 UTC`` (what is known of it)."""
        parts = []
        if self.pid is not None:
            parts.append(f"pid {self.pid}" + (f" on {self.host}" if self.host else ""))
        if self.kernel:
            parts.append(f"kernel {self.kernel}")
        if self.since is not None:
            parts.append(time.strftime("since %Y-%m-%d %H:%M:%S UTC", time.gmtime(self.since)))
        return ", ".join(parts) or "a process that did not say who it is"

    def as_json(self) -> str:
        return json.dumps({"pid": self.pid, "host": self.host, "kernel": self.kernel, "since": self.since})

    @classmethod
    def from_json(cls, text: str) -> Holder:
        try:
            data = json.loads(text)
            return cls(
                pid=int(data["pid"]) if data.get("pid") is not None else None,
                host=str(data.get("host") or "")[:64],
                kernel=str(data.get("kernel") or "")[:64],
                since=float(data["since"]) if data.get("since") is not None else None,
            )
        except (ValueError, TypeError, KeyError, AttributeError):
            return cls()


def kernel_id() -> str:
    """This kernel's id (from its connection file), or ``""`` outside a Jupyter kernel."""
    # Only a kernel that is running has imported its app: importing it here would switch the
    # ``comm`` package to ipykernel's comms in a process that is no kernel (a test, a script).
    app = sys.modules.get("ipykernel.kernelapp")
    if app is None:
        return ""
    try:
        IPKernelApp = app.IPKernelApp
        if not IPKernelApp.initialized():
            return ""
        name = Path(IPKernelApp.instance().connection_file).stem
    except Exception:  # no ipykernel, or an app without a connection file: no kernel to name
        return ""
    return name.removeprefix("kernel-")[:8]


def this_process() -> Holder:
    """This process, claiming now."""
    return Holder(os.getpid(), socket.gethostname(), kernel_id(), clocks.current().wall())


START_ADVICE = "wait for it to end there (or stop it there), or start another thread with --new"


class HeldElsewhere(DeepnbError):
    """The thread is held by a run in another process."""

    def __init__(self, thread_id: str, holder: Holder, advice: str = START_ADVICE) -> None:
        self.thread_id, self.holder = thread_id, holder
        super().__init__(
            f"Thread {thread_id!r} is held by a run in another kernel ({holder.describe()}): {advice}."
        )


class ThreadLocks(Protocol):
    """The cross-process locks of one database. This process may take a thread's lock more than
    once (a run's claim, a change from the notebook): it is freed at the last release."""

    def acquire(self, thread_id: str) -> Holder | None:
        """Take the thread's lock for this process: ``None`` when taken, else who holds it."""
        ...

    def release(self, thread_id: str) -> None:
        """Let the thread's lock go once (nothing happens if this process does not hold it)."""
        ...


class _Counted:
    """A process's hold on each thread's lock, counted: the first acquire takes the lock
    (:meth:`_take`), the last release lets it go (:meth:`_let_go`), both under one lock."""

    def __init__(self) -> None:
        self._held: dict[str, Any] = {}
        self._uses: dict[str, int] = {}
        self._lock = threading.Lock()

    def _take(self, thread_id: str) -> tuple[Any, Holder | None]:
        """Take the thread's lock: its handle (what lets it go), or ``None`` and who holds it."""
        raise NotImplementedError

    def _let_go(self, thread_id: str, handle: Any) -> None:
        raise NotImplementedError

    def acquire(self, thread_id: str) -> Holder | None:
        with self._lock:
            if thread_id in self._held:
                self._uses[thread_id] += 1
                return None
            handle, holder = self._take(thread_id)
            if handle is not None:
                self._held[thread_id], self._uses[thread_id] = handle, 1
            return holder

    def release(self, thread_id: str) -> None:
        with self._lock:
            if thread_id not in self._held:
                return
            self._uses[thread_id] -= 1
            if self._uses[thread_id] > 0:
                return
            del self._uses[thread_id]
            self._let_go(thread_id, self._held.pop(thread_id))


def _digest(thread_id: str) -> bytes:
    return hashlib.sha256(b"deepnb thread\0" + thread_id.encode("utf-8")).digest()


class SqliteLocks(_Counted):
    """``flock`` on ``<database>-claims/<hash of the thread id>``, one open file per held thread."""

    def __init__(self, database: Path) -> None:
        super().__init__()
        self.folder = database.with_name(database.name + "-claims")

    def _open_folder(self) -> int:
        try:
            with contextlib.suppress(FileExistsError):
                self.folder.mkdir(mode=0o700)
            folder = os.open(self.folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError as exc:
            raise DeepnbError(
                f"Cannot claim threads beside the database: {str(self.folder)!r} is not a folder "
                f"deepnb can use ({exc.strerror or exc}): remove it, and run the cell again."
            ) from None
        with contextlib.suppress(OSError):  # the folder keeps itself out of git; best effort
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
            ignore = os.open(".gitignore", flags, 0o600, dir_fd=folder)
            try:
                os.write(ignore, b"*\n")
            finally:
                os.close(ignore)
        return folder

    def _take(self, thread_id: str) -> tuple[int | None, Holder | None]:
        name = _digest(thread_id).hex()[:32]
        folder = self._open_folder()
        try:
            while True:
                try:
                    fd = os.open(
                        name, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=folder
                    )
                except OSError as exc:
                    raise DeepnbError(
                        f"Cannot claim thread {thread_id!r} in {str(self.folder)!r} "
                        f"({exc.strerror or exc}): remove that folder, and run the cell again."
                    ) from None
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError as exc:
                    if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                        os.close(fd)
                        raise
                    holder = Holder.from_json(os.pread(fd, 4096, 0).decode("utf-8", "replace"))
                    os.close(fd)
                    return None, holder
                try:  # the file may have been removed by its last holder while we opened it
                    same = os.fstat(fd).st_ino == os.stat(name, dir_fd=folder, follow_symlinks=False).st_ino
                except FileNotFoundError:
                    same = False
                if not same:
                    os.close(fd)
                    continue
                os.ftruncate(fd, 0)
                os.pwrite(fd, this_process().as_json().encode("utf-8"), 0)
                return fd, None
        finally:
            os.close(folder)

    def _let_go(self, thread_id: str, handle: Any) -> None:
        try:
            folder = os.open(self.folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            folder = None
        try:
            if folder is not None:  # removed while still held: nobody else can have it open anew
                with contextlib.suppress(OSError):
                    os.unlink(_digest(thread_id).hex()[:32], dir_fd=folder)
        finally:
            if folder is not None:
                os.close(folder)
            os.close(handle)


def advisory_key(thread_id: str) -> int:
    """The Postgres advisory lock key of a thread: a stable signed 64-bit hash of its id."""
    return int.from_bytes(_digest(thread_id)[:8], "big", signed=True)


HOLDER_SQL = (
    "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
    "WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1 "
    "AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
    "AND l.classid::bigint = %s AND l.objid::bigint = %s"
)


def _application_name(holder: Holder) -> str:
    """``deepnb PID@HOST KERNEL SINCE``, within Postgres's 63 bytes."""
    since = int(holder.since or 0)
    return f"{APP_PREFIX}{holder.pid}@{holder.host[:20]} {holder.kernel or '-'} {since}"[:63]


def _holder_from_application(name: str | None) -> Holder:
    if not name or not name.startswith(APP_PREFIX):
        return Holder()
    try:
        who, kernel, since = name.removeprefix(APP_PREFIX).split(" ")
        pid, _, host = who.partition("@")
        return Holder(int(pid), host, "" if kernel == "-" else kernel, float(since))
    except ValueError:
        return Holder()


class PostgresLocks(_Counted):
    """A session-level advisory lock per held thread, each on a connection of its own (closing
    it, or the process ending, frees the lock)."""

    def __init__(self, dsn: str) -> None:
        super().__init__()
        self.dsn = dsn

    def _connect(self, holder: Holder) -> Any:
        psycopg = require("postgres", "psycopg", what="Postgres threads")

        try:
            return psycopg.connect(
                self.dsn, autocommit=True, application_name=_application_name(holder), connect_timeout=10
            )
        except Exception as exc:  # the DSN may hold a password: say what failed, not the DSN
            raise DeepnbError(
                f"Cannot claim the thread in the Postgres database ({type(exc).__name__}): check "
                "that the server is running."
            ) from None

    def _take(self, thread_id: str) -> tuple[Any, Holder | None]:
        key = advisory_key(thread_id)
        connection = self._connect(this_process())
        try:
            row = connection.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()
            if row and row[0]:
                return connection, None
            unsigned = key & 0xFFFFFFFFFFFFFFFF
            found = connection.execute(HOLDER_SQL, (unsigned >> 32, unsigned & 0xFFFFFFFF)).fetchone()
        except BaseException:
            connection.close()
            raise
        connection.close()
        return None, _holder_from_application(found[0] if found else None)

    def _let_go(self, thread_id: str, handle: Any) -> None:
        with contextlib.suppress(Exception):  # a connection already gone has freed its lock
            handle.close()


_locks: dict[Hashable, ThreadLocks] = {}
_registry_lock = threading.Lock()


def for_database(database: Hashable) -> ThreadLocks | None:
    """The cross-process locks of ``database`` (:func:`deepnb.core.threads.checkpointers.database_key`): for a
    SQLite file or a Postgres database deepnb opened; ``None`` for a saver only this process
    sees (in memory, or one the user built)."""
    if not (isinstance(database, tuple) and len(database) == 2 and database[0] in ("sqlite", "postgres")):
        return None
    with _registry_lock:
        locks = _locks.get(database)
        if locks is None:
            kind, target = database
            locks = _locks[database] = (
                SqliteLocks(Path(target)) if kind == "sqlite" else PostgresLocks(target)
            )
        return locks
