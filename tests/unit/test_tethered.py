"""``deepnb/ship/tethered.py``: a command lives no longer than the process that started it, however
that process ends (``SIGKILL`` included), and its exit code comes back unchanged."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from deepnb.ship import tethered
from tests.support.waiting import wait_until

pytestmark = pytest.mark.skipif(not hasattr(os, "killpg"), reason="process groups are POSIX")

SLEEPER = [sys.executable, "-c", "import time; print('running', flush=True); time.sleep(600)"]
"""A command that says on its standard output when it runs, then runs for ten minutes."""


def group_empty(pid: int) -> bool:
    """Whether the process group ``pid`` leads is empty (zombies of this test's children aside)."""
    try:
        os.killpg(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_a_starter_killed_with_sigkill_takes_its_tethered_command_with_it(tmp_path: Path) -> None:
    starter_code = textwrap.dedent(
        f"""
        import subprocess, sys, time
        guard = subprocess.Popen(
            [sys.executable, {tethered.__file__!r}, *{SLEEPER!r}],
            stdin=subprocess.PIPE, start_new_session=True,
        )
        print(guard.pid, flush=True)
        time.sleep(600)
        """
    )
    starter = subprocess.Popen([sys.executable, "-c", starter_code], stdout=subprocess.PIPE, text=True)
    try:
        assert starter.stdout is not None
        said = {starter.stdout.readline().strip() for _ in range(2)}  # the guard's pid; the command runs
        assert "running" in said, said
        (guard,) = (int(line) for line in said if line != "running")
        os.killpg(guard, 0)  # (raises if the group is already gone)
        starter.send_signal(signal.SIGKILL)
        starter.wait(10)
        wait_until(lambda: group_empty(guard), "the tethered command to end with its starter")
    finally:
        starter.kill()
        starter.wait(10)


def test_the_commands_exit_ends_it_with_the_same_code_in_a_group_of_its_own() -> None:
    command = [sys.executable, tethered.__file__, sys.executable, "-c", "raise SystemExit(3)"]
    guard = subprocess.Popen(command, stdin=subprocess.PIPE)  # started in this test's group
    try:
        assert guard.wait(30) == 3
    finally:
        if guard.stdin is not None:
            guard.stdin.close()


def test_a_starter_that_closes_the_pipe_ends_only_the_tethered_group() -> None:
    guard = subprocess.Popen(
        [sys.executable, tethered.__file__, *SLEEPER], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert guard.stdout is not None and guard.stdout.readline() == b"running\n"
    assert os.getpgid(guard.pid) == guard.pid != os.getpgrp()  # its own group, not this test's
    assert guard.stdin is not None
    guard.stdin.close()  # as the starter's end does when it dies
    assert guard.wait(20) == 128 + signal.SIGTERM
    wait_until(lambda: group_empty(guard.pid), "the tethered group to end")
    guard.stdout.close()


def test_a_group_sigterm_ends_the_command_and_reports_the_signal() -> None:
    guard = subprocess.Popen(
        [sys.executable, tethered.__file__, *SLEEPER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        assert guard.stdout is not None and guard.stdout.readline() == b"running\n"
        os.killpg(guard.pid, signal.SIGTERM)  # what deepnb's Server.stop() sends
        assert guard.wait(20) == 128 + signal.SIGTERM
        wait_until(lambda: group_empty(guard.pid), "the tethered group to end")
    finally:
        for pipe in (guard.stdin, guard.stdout):
            if pipe is not None:
                pipe.close()
        if guard.poll() is None:
            os.killpg(guard.pid, signal.SIGKILL)
