"""Keeps a stdio MCP server's life inside the kernel's: ``python mcp_guard.py [--stderr LOG] --
COMMAND ARGS...``. With ``--stderr`` the server's stderr (its banner, its log) goes to the file
``LOG`` (appended; started afresh past :data:`LOG_LIMIT` bytes), where ``%deepagent mcp`` reads
it, and never to the kernel's own stderr, which Jupyter shows in whatever cell runs.

``mcp``'s ``stdio_client`` starts each server in a session (and process group) of its own and
ends that group when the tool's session closes. What it cannot do is end the server when the
kernel itself dies (killed, out of memory): the server is left running if it ignores the end
of its stdin. This guard is what the kernel starts in the server's place (the group's leader):
it starts the server as its child, with the server's stdin, stdout and stderr, then waits for
whichever ends first, the server or the process that started the guard (the kernel):

- the server ends: the guard ends with its exit code;
- the kernel ends: the guard ends the whole group, SIGTERM, then SIGKILL after
  :data:`GRACE` seconds, so a server's own children go too;
- the guard is killed (``stdio_client`` escalates to SIGKILL): on Linux the server is told by
  the kernel (``PR_SET_PDEATHSIG``, set for the guard, which is single-threaded, so it is the
  guard's death that counts, never a thread's).

On Linux the kernel's end is an event (a pidfd); elsewhere the guard looks at its parent every
:data:`POLL` seconds. It imports nothing but the standard library, so any Python runs it.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import select
import signal
import subprocess
import sys

GRACE = 1.0
"""Seconds the server has, once the kernel is gone, between SIGTERM and SIGKILL."""
POLL = 0.5
"""Seconds between two looks at the kernel where no pidfd tells of its end."""
PR_SET_PDEATHSIG = 1
NOT_STARTED = 127
LOG_LIMIT = 1 << 20
"""Bytes a server's stderr log may hold before the next start of the server begins it again."""


def _log(argv: list[str]) -> int | None:
    """The ``--stderr`` file given before ``--``, opened for the server to append to."""
    options = argv[: argv.index("--")] if "--" in argv else []
    if "--stderr" not in options or options.index("--stderr") + 1 >= len(options):
        return None
    path = options[options.index("--stderr") + 1]
    try:
        size = os.stat(path).st_size
    except OSError:
        size = 0
    flags = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if size > LOG_LIMIT else os.O_APPEND)
    try:
        return os.open(path, flags | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except OSError as exc:
        print(f"deepnb mcp guard: could not open {path}: {exc.strerror or exc}", file=sys.stderr, flush=True)
        return None


def _die_with_parent() -> None:  # pragma: no cover - runs in the child, before exec
    """Linux: SIGKILL this process when its parent (the guard) dies."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def _pidfd(pid: int) -> int | None:
    opener = getattr(os, "pidfd_open", None)
    if opener is None:
        return None
    try:
        return int(opener(pid))
    except OSError:
        return None


def _end_group(server: subprocess.Popen[bytes]) -> int:
    """End the guard's process group (the server and its children), the gentle way first."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the guard signals its own group
    with contextlib.suppress(OSError):
        os.killpg(0, signal.SIGTERM)
    try:
        return server.wait(GRACE)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(OSError):
            os.killpg(0, signal.SIGKILL)  # the guard too: nothing is left to wait for
        return server.wait()


def _watch(server: subprocess.Popen[bytes], kernel: int) -> int:
    """Wait until the server or the kernel ends; return the guard's exit code."""
    watched = _pidfd(kernel)
    own = _pidfd(server.pid)
    if os.getppid() != kernel:  # the kernel ended before it was watched
        return _end_group(server)
    while True:
        if watched is not None and own is not None:
            ready, _, _ = select.select([watched, own], [], [])
            if own in ready:
                return server.wait()
            return _end_group(server)
        try:
            return server.wait(POLL)
        except subprocess.TimeoutExpired:
            if os.getppid() != kernel:
                return _end_group(server)


def main(argv: list[str]) -> int:
    """Run the server named by ``argv`` (after ``--``) under the guard; its exit code."""
    command = argv[argv.index("--") + 1 :] if "--" in argv else argv
    if not command:
        print("deepnb mcp guard: no server command given", file=sys.stderr)
        return NOT_STARTED
    kernel = os.getppid()
    if os.getpgrp() != os.getpid():  # the group the guard ends must be its own, never the kernel's
        os.setsid()
    log = _log(argv)
    try:
        server = subprocess.Popen(  # the command the user configured
            command, stderr=log, preexec_fn=_die_with_parent if sys.platform == "linux" else None
        )
    except OSError as exc:
        print(f"could not start {command[0]}: {exc.strerror or exc}", file=sys.stderr, flush=True)
        return NOT_STARTED
    finally:
        if log is not None:
            os.close(log)
    # the pipes are the server's: the guard keeps none open, so the kernel sees them close with it
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    code = _watch(server, kernel)
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
