"""Run a command for as long as the process that started it lives.

    python deepnb/ship/tethered.py COMMAND [ARG ...]

:func:`deepnb.serve` starts ``langgraph dev`` through this script, in a process group of its own,
with the script's standard input a pipe whose other end only the kernel holds. However the
kernel ends (its exit, a crash, ``SIGKILL``), the operating system closes that end, the pipe
reads end-of-file here, and the whole process group is ended: ``SIGTERM``, then ``SIGKILL``
after :data:`GRACE` seconds. The command's own exit ends this script too, with its exit code.

Only the standard library: it runs as a file, whatever the command's ``sys.path`` holds.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Sequence

GRACE = 10.0
"""Seconds the command has to end after ``SIGTERM`` before it is killed."""


def _end_group(child: subprocess.Popen[bytes]) -> None:
    """End the command and everything in this process group (where there are groups)."""
    killpg = getattr(os, "killpg", None)  # POSIX only
    if killpg is None:
        child.terminate()
    else:
        killpg(os.getpgrp(), signal.SIGTERM)  # this script ignores it (see run)
    try:
        child.wait(GRACE)
    except subprocess.TimeoutExpired:
        if killpg is None:
            child.kill()
        else:
            killpg(os.getpgrp(), signal.SIGKILL)


def _watch_starter(child: subprocess.Popen[bytes]) -> None:
    """Read standard input until its writer (the starter) is gone, then end the group."""
    try:
        while os.read(0, 4096):  # the raw descriptor: no buffer lock held at this script's exit
            pass
    except (OSError, ValueError):  # no standard input at all: the starter is not there to hold it
        pass
    if child.poll() is None:
        _end_group(child)


def run(command: Sequence[str]) -> int:
    """Run ``command`` until it exits or the starter does; its exit code (128 + the signal's
    number when a signal ended it, as a shell says it). This script leads a process group of its
    own (unless started as one), so ending the group never reaches the starter's."""
    if hasattr(os, "setpgid") and os.getpgrp() != os.getpid():
        os.setpgid(0, 0)
    # A group SIGTERM (stop(), or _end_group) reaches the command; this script outlives it to
    # report the command's exit code. A handler, unlike SIG_IGN, is not inherited by the command;
    # set before the command starts, so that a SIGTERM as soon as it runs finds it in place.
    signal.signal(signal.SIGTERM, lambda _signum, _frame: None)
    child = subprocess.Popen(list(command), stdin=subprocess.DEVNULL)
    threading.Thread(target=_watch_starter, args=(child,), name="starter-watch", daemon=True).start()
    while True:
        try:
            code = child.wait()
            return 128 - code if code < 0 else code
        except KeyboardInterrupt:  # a terminal's Ctrl-C reaches the whole group: wait for the command
            continue


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(f"usage: {sys.executable} {__file__} COMMAND [ARG ...]")
    sys.exit(run(sys.argv[1:]))
