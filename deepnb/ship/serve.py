"""Serving the project's agents on this machine: ``deepnb.serve`` / ``%deepagent serve``.

The agents are deployed (:mod:`deepnb.ship.deploy`) into ``.deepnb/served/app`` under the project
(ignored by git) and ``langgraph dev`` serves that folder on 127.0.0.1, in the background, in its
own process group, with tracing and analytics off and its output in ``.deepnb/served/langgraph-dev.log``.
A served disk backend works on the project's own folder, as in the kernel, and the server's own
data (:data:`SERVER_DATA`: its threads and store) moves into each new app: serving again replaces
deepnb's files, never what the agents wrote.
One server per kernel: serving again replaces it, and it stops when the kernel ends, even killed
(:mod:`deepnb.ship.tethered` watches a pipe only the kernel holds). Everything serve writes or
deletes
(:data:`WRITES`, under ``.deepnb/served``) goes through
:class:`~deepnb.ship.real_folders.Folder`, never
through a link.

Each served agent is then connected (``deepnb.connect``) under its own name, so ``%%deepagent -a
NAME`` runs on the server; stopping the server gives the names back to the agents they had before.
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from deepnb.core.errors import DeepnbError
from deepnb.core.extras import EXTRAS, MissingExtra, message
from deepnb.core.project import project_root
from deepnb.core.text.safe_display import safe_display
from deepnb.core.text.secrets import redact
from deepnb.session import agents as registry
from deepnb.session.graph_session import GraphSession
from deepnb.ship import deploy as deployment
from deepnb.ship import tethered
from deepnb.ship.real_folders import Folder

__all__ = ["DEFAULT_PORT", "Server", "current", "serve", "stop"]

DEFAULT_PORT = 2024
"""``langgraph dev``'s own default, used when it is free and no port is given."""
START_TIMEOUT = 120.0
JOBS_PER_WORKER = 10
LOG_LINES = 20
"""Lines of the server's log that a failed start shows."""
SERVED = Path(".deepnb") / "served"
"""Under the project: the app folder (``app``) and the server's log."""
WRITES = (".gitignore", "app.next", "app", "langgraph-dev.log")
"""Everything serve writes or deletes in :data:`SERVED` (each through :class:`Folder`, never
through a link; ``app.next`` is the deployment being staged, renamed to ``app``)."""
SERVER_DATA = ".langgraph_api"
"""Where ``langgraph dev`` keeps its threads, runs and store, in the app folder it serves."""
HTTP: dict[str, object] = {
    "app": "deepnb.ship.served_http:app",
    "cors": {"allow_origins": [], "allow_credentials": False},
}
"""langgraph.json's ``http`` for a served app: the kernel reaches the server directly, never from
a web page, so no origin may read its answers (``cors``) and a request a page sends, or one to
another host name than 127.0.0.1's, is refused (:mod:`deepnb.ship.served_http`)."""


@safe_display
@dataclass(eq=False)
class Server:
    """A ``langgraph dev`` this kernel started: ``url``, the ``graphs`` it serves (each one also
    the name of its default assistant), the app ``folder`` and the ``log``; ``stop()`` ends it."""

    url: str
    graphs: tuple[str, ...]
    folder: Path
    log: Path
    process: subprocess.Popen[bytes] = field(repr=False)
    skipped: tuple[str, ...] = ()
    """What the deployment's copies left out (links that leave their folder, dangle or loop)."""
    agents: dict[str, GraphSession] = field(default_factory=dict, repr=False)
    """The served agents connected in this kernel, by name (``deepnb.connect``)."""
    replaced: dict[str, GraphSession | None] = field(default_factory=dict, repr=False)
    """What each of those names was registered as before: back in place when the server stops."""

    @property
    def port(self) -> int:
        return int(self.url.rpartition(":")[2])

    @property
    def running(self) -> bool:
        return self.process.poll() is None

    def stop(self, timeout: float = 10.0) -> None:
        """End the server and everything it started (its process group); waits for it."""
        global _current
        if _current is self:
            _current = None
        self._disconnect()
        try:
            if self.process.poll() is None:
                self._signal(force=False)
                self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self._signal(force=True)
            self.process.wait(timeout)
        except ProcessLookupError:
            pass
        finally:
            if self.process.stdin is not None:
                self.process.stdin.close()

    def _signal(self, *, force: bool) -> None:
        """SIGTERM (or SIGKILL) to the server's process group; where there are no process
        groups (Windows), to the server itself."""
        killpg = getattr(os, "killpg", None)  # POSIX only
        if killpg is not None:
            killpg(self.process.pid, signal.SIGKILL if force else signal.SIGTERM)
        elif force:
            self.process.kill()
        else:
            self.process.terminate()

    def connect(self) -> dict[str, GraphSession]:
        """Connect each served agent under its own name (``%%deepagent -a NAME`` then runs on
        the server); the workbenches."""
        from deepnb.session.remote.connecting import connect  # noqa: PLC0415  # lazy: it imports langgraph_sdk

        for name in self.graphs:
            previous = registry.find(name)
            self.agents[name] = connect(self.url, name, name=name)
            self.replaced.setdefault(name, previous)
        return dict(self.agents)

    def _disconnect(self) -> None:
        """Give each connected name back to the agent it had before (or to none)."""
        for name, workbench in self.agents.items():
            if registry.find(name) is workbench:
                previous = self.replaced.get(name)
                if previous is None:
                    registry.forget(name)
                else:
                    registry.register(previous)
        self.agents.clear()
        self.replaced.clear()

    def __repr__(self) -> str:
        state = "serving" if self.running else "stopped"
        text = f"Server({state} {', '.join(self.graphs)} at {self.url}; log {self.log})"
        text += deployment.skipped_note(self.skipped)
        if self.agents:
            first = next(iter(self.agents))
            text += f"\nConnected {', '.join(self.agents)}: %%deepagent -a {first} runs on the server."
        return text


_current: Server | None = None


def current() -> Server | None:
    """The server this kernel started and that still runs, if any."""
    return _current if _current is not None and _current.running else None


def stop() -> Server | None:
    """Stop the server this kernel started; the one stopped, or ``None``."""
    server = _current  # also one that ended on its own: its names go back to their agents
    if server is None:
        return None
    was_running = server.running
    server.stop()
    return server if was_running else None


def _free(port: int) -> bool:
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server binds it
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def _choose_port(port: int | None) -> int:
    if port is not None:
        if not 0 < port < 65536:
            raise DeepnbError(f"Port {port} is not a port: give one from 1 to 65535.")
        if not _free(port):
            raise DeepnbError(f"Port {port} on 127.0.0.1 is in use: pick another with --port.")
        return port
    if _free(DEFAULT_PORT):
        return DEFAULT_PORT
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        free: int = sock.getsockname()[1]
        return free


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/ok", timeout=2) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    for name in ("CORS_CONFIG", "CORS_ALLOW_ORIGINS"):  # they would override langgraph.json's
        env.pop(name, None)
    env.update(
        LANGSMITH_TRACING="false",
        LANGGRAPH_CLI_NO_ANALYTICS="1",
        LANGGRAPH_NO_VERSION_CHECK="true",
        NO_PROXY=",".join(filter(None, [env.get("NO_PROXY"), "127.0.0.1", "localhost"])),
    )
    return env


def _check_installed() -> None:
    """The serve extra is there (found, not imported: the server runs in its own process)."""
    for module in EXTRAS["serve"].modules:
        if importlib.util.find_spec(module) is None:
            what = "Serving (the LangGraph CLI and its in-memory server)"
            raise MissingExtra("serve", message("serve", what=what))


def serve(
    agents: Sequence[str] | None = None,
    *,
    port: int | None = None,
    root: Path | None = None,
    timeout: float = START_TIMEOUT,
    connect: bool = True,
) -> Server:
    """Deploy the project's agents (all, or ``agents``) into ``.deepnb/served/app`` and start
    ``langgraph dev`` on it (port ``port``, else 2024 if free, else any free one); returns once
    the server answers. A server this kernel started before is replaced, but only once the new
    deployment is written: a mistake leaves it serving. With ``connect`` (the default), each
    served agent is connected under its name, so ``%%deepagent -a NAME`` runs on the server."""
    _check_installed()
    root = root or project_root()
    running = current()
    if port is not None and (running is None or running.port != port):
        _choose_port(port)  # a port in use is refused before anything stops
    checked = deployment.plan(agents, root=root)  # the trust gate and every mistake come first
    with Folder.walk_to(root, root / SERVED, create=True) as served:
        served.write(".gitignore", b"*\n")  # nothing of it is the project's
        served.remove("app.next")  # a staging left by a serve that failed: deepnb's own
        staged = deployment.write(checked, served, "app.next", http=HTTP, in_place=True)
        stop()
        _keep_server_data(served)
        served.rename("app.next", "app")  # the app it replaces goes whole, never through a link
        folder, log = served.path / "app", served.path / "langgraph-dev.log"
        out = served.create(log.name)
    with out:
        chosen = _choose_port(port)
        url = f"http://127.0.0.1:{chosen}"
        command = [sys.executable, tethered.__file__, sys.executable, "-m", "langgraph_cli", "dev"]
        command += ["--no-browser", "--no-reload", "--host", "127.0.0.1", "--port", str(chosen)]
        command += ["--n-jobs-per-worker", str(JOBS_PER_WORKER)]
        process = subprocess.Popen(
            command,
            cwd=folder,
            env=_environment(),
            stdin=subprocess.PIPE,  # held by this kernel alone: its end, however it ends, stops the server
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: stop() ends it and its workers
        )
    server = Server(url, staged.graphs, folder, log, process, skipped=staged.skipped)
    _wait(server, timeout)
    if connect:
        try:
            server.connect()
        except BaseException:
            server.stop()
            raise
    global _current
    _current = server
    return server


def _keep_server_data(served: Folder) -> None:
    """Move the served app's :data:`SERVER_DATA` (its server stopped) into the staged one, so
    the threads and the store of the agents served before are there in the next server."""
    if served.kind("app") != "folder":
        return
    with served.child("app") as old, served.child("app.next") as staged:
        if old.kind(SERVER_DATA) == "folder":  # a link there is not followed: it goes with the app
            old.move_to(SERVER_DATA, staged)


def _wait(server: Server, timeout: float) -> None:
    started = time.monotonic()
    while not _answers(server.url):
        code = server.process.poll()
        if code is not None:
            raise DeepnbError(
                f"langgraph dev exited (code {code}) before serving on {server.url}; the end of its "
                f"log ({server.log}):\n{_log_end(server.log)}"
            )
        if time.monotonic() - started > timeout:
            server.stop()
            raise DeepnbError(
                f"langgraph dev did not answer on {server.url} within {timeout:.0f} s: see {server.log}."
            )
        time.sleep(0.2)


def _log_end(log: Path, lines: int = LOG_LINES) -> str:
    """The last ``lines`` lines of a server's log, secrets redacted (the log may go with its
    folder; the message stays)."""
    try:
        text = log.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        return f"(it cannot be read: {exc.strerror})"
    return redact("\n".join(text.splitlines()[-lines:])) or "(it is empty)"


atexit.register(stop)  # the kernel's exit ends the server it started
