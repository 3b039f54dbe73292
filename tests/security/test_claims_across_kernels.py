"""One run per thread holds across processes: while a run in another process (a second kernel)
holds a thread of one SQLite file or one Postgres database, a run started here on that thread is
refused in one line naming the holder (pid, host, since when), and nothing is written; when the
holder ends, or dies without letting go, the thread is free, and both runs' work is in it."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import deepnb
from deepnb.core.errors import DeepnbError
from deepnb.core.threads import checkpointers as checkpoint
from deepnb.session import agents
from tests.support.agents import unique
from tests.support.kernel_session import deepnb_kernel
from tests.support.waiting import WAIT, wait_until

ROOT = Path(__file__).resolve().parents[2]


class Holder:
    """``tests/support/thread_holder.py`` (or the Python ``code`` given) in a process of its own,
    holding ``thread``."""

    def __init__(self, spec: str, thread: str, gate: Path, code: str | None = None) -> None:
        self.gate = gate
        gate.mkdir()
        path = [p for p in (os.environ.get("PYTHONPATH", ""), str(ROOT)) if p]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
        program = ["-m", "tests.support.thread_holder"] if code is None else ["-c", code]
        self.process = subprocess.Popen(
            [sys.executable, *program, spec, thread, str(gate)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def wait_entered(self) -> None:
        """Until the other process's run is inside its tool (it holds the thread), or it ended."""

        def gone() -> str | None:
            if self.process.poll() is None:
                return None
            out, err = self.process.communicate()
            return f"the holder ended first: {out}{err}"

        wait_until(lambda: (self.gate / "entered").exists(), "the holder to hold the thread", gone=gone)

    def finish(self) -> str:
        (self.gate / "release").write_text("go", encoding="utf-8")
        out, err = self.process.communicate(timeout=WAIT)
        assert self.process.returncode == 0, err
        return out.strip()

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(WAIT)


def _spec(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    if kind == "sqlite":
        return f"sqlite:{tmp_path / 'threads.db'}"
    return f"postgres:{request.getfixturevalue('postgres_uri')}"


@pytest.fixture
def thread() -> str:
    """A thread id of the test's own (the Postgres server is shared by the session)."""
    return unique("shared")


@pytest.fixture(params=["sqlite", "postgres"])
def spec(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield _spec(request.param, tmp_path, request)
    for bench in agents.registered().values():
        for run in list(bench._active.values()):
            run.stop()
            run.wait(WAIT)
        checkpoint.close(bench.checkpointer)
    agents.forget_all()


def _messages(bench: Any, thread: str) -> list[str]:
    return [str(m.content) for m in bench.state_values(thread).get("messages", [])]


def test_a_run_in_another_kernel_holds_the_thread_for_this_one(
    spec: str, thread: str, tmp_path: Path
) -> None:
    holder = Holder(spec, thread, tmp_path / "gate")
    try:
        holder.wait_entered()
        here = deepnb.agent(unique("here"), "demo:quickstart", checkpointer=spec)
        with pytest.raises(DeepnbError) as refused:
            here.start("Write me a short brief on life in tide pools.", thread=thread)
        message = str(refused.value)
        assert message.startswith(f"Thread {thread!r} is held by a run in another kernel (pid ")
        assert f"pid {holder.process.pid} on {socket.gethostname()}" in message
        assert "since " in message and "UTC" in message and "\n" not in message
        assert here._active == {}
        with pytest.raises(DeepnbError, match="held by a run in another kernel"):
            here.resume(thread)  # a resume claims the thread too
    finally:
        ended = holder.finish()
    assert ended.startswith("done"), ended

    after = here.run("Write me a short brief on life in tide pools.", thread=thread).wait(WAIT)
    assert after.status == "done", after.error
    texts = _messages(here, thread)
    assert "held x in the other process" in texts and "Done there." in texts  # its work is kept
    assert texts[-1] == after.output or after.output is None


def test_a_notebook_change_to_the_threads_files_waits_for_the_other_kernels_run(
    spec: str, thread: str, tmp_path: Path
) -> None:
    """A file write that reaches the thread's state (``run.files.write``, the browser's Save)
    from this kernel would be overwritten by the other kernel's next step: refused, then kept."""
    holder = Holder(spec, thread, tmp_path / "gate")
    try:
        holder.wait_entered()
        here = deepnb.agent(unique("writer"), "demo:quickstart", checkpointer=spec)
        with pytest.raises(DeepnbError) as refused:
            here.files(thread).write("/mine.md", "mine")
        message = str(refused.value)
        assert message.startswith(f"Thread {thread!r} is held by a run in another kernel (pid ")
        assert message.endswith("overwrite this change to /mine.md — wait for it to end, then write again.")
    finally:
        ended = holder.finish()
    assert ended.startswith("done"), ended
    here.files(thread).write("/mine.md", "mine")
    assert here.files(thread)["/mine.md"] == "mine"


def test_a_claim_dies_with_its_process(spec: str, thread: str, tmp_path: Path) -> None:
    holder = Holder(spec, thread, tmp_path / "gate")
    holder.wait_entered()
    holder.kill()  # no release, no cleanup: the lock goes with the process
    here = deepnb.agent(unique("after-crash"), "demo:quickstart", checkpointer=spec)
    run = here.run("Write me a short brief on life in tide pools.", thread=thread).wait(WAIT)
    assert run.status == "done", run.error


def test_the_claim_files_stay_beside_the_database_and_follow_no_link(tmp_path: Path, thread: str) -> None:
    """A claims folder that is a link (say, committed with the database) is not written through."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "threads.db-claims").symlink_to(outside)
    bench = deepnb.agent(
        unique("linked"), "demo:quickstart", checkpointer=f"sqlite:{tmp_path / 'threads.db'}"
    )
    try:
        with pytest.raises(DeepnbError, match=r"^Cannot claim threads beside the database: .* remove it"):
            bench.start("Write me a short brief on life in tide pools.", thread=thread)
        assert list(outside.iterdir()) == []
        assert bench._active == {}
    finally:
        checkpoint.close(bench.checkpointer)
        agents.forget_all()


HOLDING_AGENT = """
import pathlib, time
import deepnb
from deepnb.models.scripted import ScriptedChatModel, parse_script

def hold(note: str) -> str:
    \"\"\"Hold the run until released.\"\"\"
    pathlib.Path("entered").write_text("entered")
    deadline = time.monotonic() + 60
    while not pathlib.Path("release").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    return f"held {note} in kernel {KERNEL}"

script = {"agents": {"main": [
    {"tool_calls": [{"name": "write_file", "args": {"file_path": f"/{KERNEL}.md", "content": KERNEL}}]},
    {"tool_calls": [{"name": "hold", "args": {"note": "x"}}]},
    "Done in " + KERNEL + ".",
]}}
model = ScriptedChatModel(script=parse_script(script))
deepnb.agent("shared", model, tools=[hold], checkpointer="sqlite:threads.db")
from ipykernel.kernelapp import IPKernelApp
kernel_id = pathlib.Path(IPKernelApp.instance().connection_file).stem.removeprefix("kernel-")[:8]
print("me", __import__("os").getpid(), kernel_id)
"""


@pytest.mark.kernel
def test_two_kernels_on_one_sqlite_file_take_turns_and_keep_both_runs_writes(tmp_path: Path) -> None:
    """The issue's case: two kernels run one thread of one SQLite file. The second cell is
    refused naming the first kernel; once it is done, the second runs, and the thread keeps
    both runs' files."""
    with deepnb_kernel(str(tmp_path)) as first, deepnb_kernel(str(tmp_path)) as second:
        made = [
            k.execute(f"KERNEL = {name!r}\n" + HOLDING_AGENT) for k, name in ((first, "a"), (second, "b"))
        ]
        assert all(m.ok for m in made), [m.text() for m in made]
        pid, *kernel_ids = made[0].text().split("me ")[1].split()
        assert kernel_ids, "a kernel knows its id"
        kernel = kernel_ids[0]
        running = first.submit("%%deepagent -a shared -t shared\nWrite and hold.")
        wait_until(
            lambda: (tmp_path / "entered").exists(),
            "the first kernel's run to hold the thread",
            gone=lambda: running.text() if running.done.is_set() else None,
        )

        refused = second.execute("%%deepagent -a shared -t shared\nWrite and hold.")
        text = refused.text()
        assert f"Thread 'shared' is held by a run in another kernel (pid {pid} on " in text, text
        assert f"kernel {kernel}, since " in text and "Traceback" not in text

        (tmp_path / "release").write_text("go")
        assert running.done.wait(WAIT) and "done" in running.text(), running.text()
        (tmp_path / "entered").unlink()
        again = second.submit("%%deepagent -a shared -t shared\nWrite and hold.")
        wait_until(
            lambda: (tmp_path / "entered").exists(),
            "the second kernel's run to hold the thread",
            gone=lambda: again.text() if again.done.is_set() else None,
        )
        assert again.done.wait(WAIT) and "done" in again.text(), again.text()
        files = second.execute("print(sorted(deepnb.get('shared').files('shared')))")
        assert "['/a.md', '/b.md']" in files.text(), files.text()


LOCK_ONLY = """
import sys, time
from pathlib import Path
import deepnb
from deepnb.core.threads import locks
spec, thread, gate = sys.argv[1], sys.argv[2], Path(sys.argv[3])
bench = deepnb.agent("holder", "demo:quickstart", checkpointer=spec)
assert locks.for_database(bench.database).acquire(thread) is None
(gate / "entered").write_text("entered", encoding="utf-8")
while not (gate / "release").exists():
    time.sleep(0.05)
print("done", flush=True)
"""
"""Another kernel whose run has claimed a thread and written nothing yet (its first step is on its
way): the lock only, held until the gate's release."""


def test_a_resume_on_a_thread_held_before_its_first_step_says_who_holds_it(
    thread: str, tmp_path: Path
) -> None:
    spec = f"sqlite:{tmp_path / 'threads.db'}"
    holder = Holder(spec, thread, tmp_path / "gate", code=LOCK_ONLY)
    here = deepnb.agent(unique("early"), "demo:quickstart", checkpointer=spec)
    try:
        try:
            holder.wait_entered()
            with pytest.raises(DeepnbError, match="held by a run in another kernel"):
                here.resume(thread)  # no checkpoint yet: not "nothing to resume"
        finally:
            assert holder.finish() == "done"
        with pytest.raises(DeepnbError, match="has nothing to resume"):
            here.resume(thread)  # free now, and nothing was ever written
    finally:
        checkpoint.close(here.checkpointer)
        agents.forget_all()
