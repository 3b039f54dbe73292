"""A scaled-out Agent Server on this machine: one PostgreSQL, one Redis, N replicas.

The replicas run the MIT ``langhost`` runtime (stock ``langgraph-api`` on PostgreSQL + Redis, no
license key) from its own virtualenv, ``.venv-agent-server/`` (``make agent-server``), serving a
copy of tests/support/scaleout_app. PostgreSQL comes from ``pgserver``, Redis from Debian's
``redis-server``. Everything listens on 127.0.0.1 on a free port, runs in its own process group and
is stopped when the ``cluster()`` block ends, whatever happened inside it.

Used by tests/served/test_scaleout.py and bench/remote.py.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
APP_FOLDER = Path(__file__).resolve().parent / "scaleout_app"
AGENT_VENV = Path(os.environ.get("DEEPNB_AGENT_SERVER_VENV", REPO / ".venv-agent-server"))
START_TIMEOUT = 120.0
# Seconds between a replica's heartbeats for the runs it executes. A run whose replica stops
# heartbeating is swept back to the queue after about twice this, then re-run by a survivor.
HEARTBEAT_SECONDS = 1


class ScaleOutUnavailable(RuntimeError):
    """Something the scaled-out server needs is not installed (the message says what to run)."""


def missing() -> str | None:
    """What is missing to run a scaled-out server here, as a sentence, or None."""
    if not (AGENT_VENV / "bin" / "langhost").exists():
        return f"the Agent Server virtualenv {AGENT_VENV} is missing: run `make agent-server`"
    if shutil.which("redis-server") is None:
        return "redis-server is not installed: run `make redis-server`"
    try:
        import pgserver  # noqa: F401
    except ImportError:
        return "pgserver is not installed: pip install -e '.[test]'"
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _stop_group(process: subprocess.Popen[bytes], *, grace: float = 10.0) -> None:
    """SIGTERM the process's group, then SIGKILL it if it lingers."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(grace)
    # Children may outlive the leader (uvicorn workers): clear the whole group either way.
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(grace)


def tail(log: Path, lines: int = 40) -> str:
    if not log.exists():
        return "(no log)"
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])


def server_env(**extra: str) -> dict[str, str]:
    """The environment for a replica: offline, no traces, no analytics, no API keys."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.endswith(("_API_KEY", "_TOKEN")) and not name.startswith(("LANGSMITH_", "LANGCHAIN_"))
    }
    env.pop("PYTHONPATH", None)  # the replica imports deepnb from its own virtualenv
    env.update(
        LANGSMITH_TRACING="false",
        LANGGRAPH_CLI_NO_ANALYTICS="1",
        LANGGRAPH_NO_VERSION_CHECK="true",
        PYTHONDONTWRITEBYTECODE="1",
        NO_PROXY="127.0.0.1,localhost",
        **extra,
    )
    return env


# -- PostgreSQL and Redis ----------------------------------------------------------------------


@contextlib.contextmanager
def postgres(folder: Path) -> Iterator[str]:
    """A throwaway PostgreSQL (pgserver's bundled binaries) in ``folder``; yields its URI."""
    import pgserver

    server = pgserver.get_server(folder, cleanup_mode="stop")
    try:
        yield server.get_uri()
    finally:
        server.cleanup()


def _redis_answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@contextlib.contextmanager
def redis(folder: Path) -> Iterator[str]:
    """A Redis on a free 127.0.0.1 port, nothing persisted; yields its URI."""
    port = free_port()
    log = folder / "redis.log"
    command = ["redis-server", "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no"]
    command += ["--dir", str(folder), "--logfile", str(log)]
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        started = time.monotonic()
        while not _redis_answers(port):
            if process.poll() is not None or time.monotonic() - started > 30:
                raise RuntimeError(f"redis-server did not start on port {port}:\n{tail(log)}")
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        _stop_group(process)


def migrate(database_uri: str, log: Path) -> None:
    """Bring the database to the runtime's schema, once, before any replica starts (replicas
    that migrate a fresh database at the same time crash)."""
    with log.open("wb") as out:
        done = subprocess.run(
            [str(AGENT_VENV / "bin" / "langgraph-runtime-pg-migrate"), "upgrade"],
            env=server_env(DATABASE_URI=database_uri),
            stdout=out,
            stderr=subprocess.STDOUT,
            timeout=120,
            check=False,
        )
    if done.returncode != 0:
        raise RuntimeError(f"the database migration failed:\n{tail(log)}")


# -- replicas --------------------------------------------------------------------------------


@dataclass
class Replica:
    """One Agent Server process (its own process group) on a free 127.0.0.1 port."""

    name: str
    url: str
    log: Path
    process: subprocess.Popen[bytes]
    launched: float  # time.monotonic() when it was started
    startup_seconds: float = 0.0  # from launch to answering /ok

    def alive(self) -> bool:
        return self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL the replica's whole process group, as a crashed machine would go."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(10)

    def pause(self) -> None:
        """SIGSTOP the replica's process group: it takes no run from the queue until ``resume()``."""
        os.killpg(self.process.pid, signal.SIGSTOP)

    def resume(self) -> None:
        os.killpg(self.process.pid, signal.SIGCONT)

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGCONT)  # a paused replica could not act on SIGTERM
        _stop_group(self.process)

    def run_events(self, run_id: str) -> list[str]:
        """What this replica's worker logged about a run ("Starting background run", "Background
        run succeeded", …): the replica logs JSON lines (LOG_JSON)."""
        events = []
        for line in self.log.read_text(errors="replace").splitlines():
            if run_id not in line or not line.startswith("{"):
                continue
            with contextlib.suppress(ValueError):
                record = json.loads(line)
                if record.get("run_id") == run_id:
                    events.append(str(record.get("event", "")))
        return events


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/ok", timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


def launch_replica(
    name: str,
    *,
    app: Path,
    database_uri: str,
    redis_uri: str,
    folder: Path,
    jobs: int,
    env: Mapping[str, str] | None = None,
) -> Replica:
    """Start one replica serving ``app``; ``wait_ready`` waits until it answers."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = folder / f"replica-{name}.log"
    env = server_env(
        DATABASE_URI=database_uri,
        REDIS_URI=redis_uri,
        LG_RUNTIME_PG_AUTO_MIGRATE="false",
        LG_BG_JOB_HEARTBEAT=str(HEARTBEAT_SECONDS),
        # Small pools: two replicas and pgserver's default of 100 connections.
        PG_POOL_SIZE="5",
        PG_MAX_OVERFLOW="5",
        LOG_JSON="true",
        **(env or {}),
    )
    command = [str(AGENT_VENV / "bin" / "langhost"), "serve", "--host", "127.0.0.1", "--port", str(port)]
    command += ["--config", "langgraph.json", "--n-jobs-per-worker", str(jobs), "--no-browser"]
    command += ["--server-log-level", "warning"]
    started = time.monotonic()
    with log.open("wb") as out:
        process = subprocess.Popen(
            command,
            cwd=app,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return Replica(name, url, log, process, started)


def wait_ready(replica: Replica) -> None:
    """Wait until the replica answers ``/ok`` (stopping it if it never does)."""
    launched = replica.launched
    try:
        while not _answers(replica.url):
            if not replica.alive() or time.monotonic() - launched > START_TIMEOUT:
                ends = tail(replica.log)
                raise RuntimeError(f"replica {replica.name} did not start on {replica.url}; log:\n{ends}")
            time.sleep(0.2)
    except BaseException:
        replica.stop()
        raise
    replica.startup_seconds = time.monotonic() - launched


@dataclass
class Cluster:
    """PostgreSQL, Redis and the replicas started so far (by name)."""

    folder: Path
    app: Path
    database_uri: str
    redis_uri: str
    jobs: int
    env: Mapping[str, str] = field(default_factory=dict)
    replicas: dict[str, Replica] = field(default_factory=dict)

    def start(self, *names: str) -> None:
        """Start these replicas and wait until each one answers. On a fresh database the first
        replica starts alone: a replica creates the checkpointer's and store's tables at startup
        (the migration does not), and two doing it at once crash on a duplicate key."""
        if not self.replicas and len(names) > 1:
            self.start(names[0])
            names = names[1:]
        for name in names:
            self.replicas[name] = launch_replica(
                name,
                app=self.app,
                database_uri=self.database_uri,
                redis_uri=self.redis_uri,
                folder=self.folder,
                jobs=self.jobs,
                env=self.env,
            )
        for name in names:
            wait_ready(self.replicas[name])

    def ensure(self, *names: str) -> None:
        """Restart any of these replicas that is gone (a test killed it)."""
        gone = [name for name in names if name not in self.replicas or not self.replicas[name].alive()]
        for name in gone:
            if name in self.replicas:
                self.replicas[name].stop()
                old = self.replicas[name].log
                old.rename(old.with_suffix(f".{time.time_ns()}.log"))
        if gone:
            self.start(*gone)

    def __getitem__(self, name: str) -> Replica:
        return self.replicas[name]

    def logs(self) -> str:
        return "\n".join(f"--- replica {r.name} ---\n{tail(r.log)}" for r in self.replicas.values())


@contextlib.contextmanager
def cluster(
    *, names: tuple[str, ...] = ("A", "B"), jobs: int = 4, env: Mapping[str, str] | None = None
) -> Iterator[Cluster]:
    """PostgreSQL + Redis + the migration + one replica per name (each with ``jobs`` job slots and
    ``env`` added to its environment). Everything is stopped at the end, even when the block fails."""
    problem = missing()
    if problem:
        raise ScaleOutUnavailable(problem)
    # Its own folder, not under pytest's numbered temporary folders (another pytest may prune them).
    with tempfile.TemporaryDirectory(prefix="deepnb-scaleout-") as temp:
        folder = Path(temp)
        # The replicas serve a copy, so nothing is written next to the repository's files.
        app = folder / "app"
        shutil.copytree(APP_FOLDER, app, ignore=shutil.ignore_patterns("__pycache__", "requirements.txt"))
        (folder / "pg").mkdir()
        with postgres(folder / "pg") as database_uri, redis(folder) as redis_uri:
            migrate(database_uri, folder / "migrate.log")
            built = Cluster(folder, app, database_uri, redis_uri, jobs, dict(env or {}))
            try:
                built.start(*names)
                yield built
            finally:
                for replica in built.replicas.values():
                    replica.stop()
