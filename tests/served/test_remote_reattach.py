"""Nothing lost across a kernel restart: a run on an Agent Protocol server outlives the kernel that
started it, and a fresh ``connect`` re-attaches (the view replays the run's stream, then goes on
live; pending approvals come back as cards). A server that goes away mid-run ends the run with
how to re-attach, never a hang.

The "kernel" that dies is a child Python process that starts the run and exits at once
(``os._exit``: no clean-up runs, as when a kernel is killed).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import deepnb
from deepnb.core.loop import run_sync
from deepnb.session.remote import RemoteWorkbench
from tests.support.agents import unique
from tests.support.servers import (
    AgentServer,
    agent_server_fixture,
    offline_client_fixture,
    server_env,
    start,
)
from tests.support.waiting import WAIT

ROOT = Path(__file__).resolve().parents[2]
RESULT = "Done: the launch is in May, notes in /notes.md."

agent_server = agent_server_fixture()

KERNEL = """
import os, sys, time
import deepnb

bench = deepnb.connect(sys.argv[1], "deep")
run = bench.start(sys.argv[2], new_thread=True)
deadline = time.monotonic() + 60
def started():
    return any(i["kind"] == "tool" and i["name"] == sys.argv[3] for i in run.state.to_json()["items"])
while not started() and time.monotonic() < deadline:
    time.sleep(0.05)
if sys.argv[3] == "write_file":
    run.wait(60)
print(run.thread_id, run.status, flush=True)
os._exit(0)  # the kernel dies: no clean-up, no cancel
"""


offline_client = offline_client_fixture()


def kernel_that_dies(url: str, prompt: str, *, after_tool: str) -> str:
    """Start a run in another process that exits once ``after_tool`` was called; the thread id."""
    env = {**server_env(), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(KERNEL), url, prompt, after_tool],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=WAIT,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    thread_id, status = done.stdout.split()
    assert status in ("running", "interrupted"), done.stdout
    return thread_id


def server_runs(bench: RemoteWorkbench, thread_id: str) -> list[dict[str, Any]]:
    return [dict(r) for r in run_sync(bench.graph.client.runs.list(thread_id, limit=10))]


def test_resume_after_a_restart_joins_the_run_still_going(agent_server: AgentServer, ip: Any) -> None:
    thread_id = kernel_that_dies(agent_server.url, "Do the slow thing", after_tool="slow_step")
    name = unique("again")
    ip.run_line_magic("deepagent", f"connect {agent_server.url} --assistant deep -a {name}")
    bench = deepnb.get(name)
    assert [r["status"] for r in server_runs(bench, thread_id)] == ["running"]  # it outlived its kernel
    run = ip.run_line_magic("deepagent", f"resume -a {name} -t {thread_id}")
    assert run.prompt == "Do the slow thing"
    run.wait(WAIT)
    assert run.status == "done", run.error
    assert run.result == "Slow work done."
    items = run.state.to_json()["items"]
    assert [i["name"] for i in items if i["kind"] == "tool"] == ["slow_step"]  # replayed from before
    assert [i["text"] for i in items if i["kind"] == "text"] == ["This takes a while.", "Slow work done."]
    assert [r["status"] for r in server_runs(bench, thread_id)] == ["success"]  # joined, not run twice


def test_approvals_after_a_restart_come_back_as_cards(agent_server: AgentServer, ip: Any) -> None:
    thread_id = kernel_that_dies(agent_server.url, "Plan the launch", after_tool="write_file")
    name = unique("cards")
    ip.run_line_magic("deepagent", f"connect {agent_server.url} --assistant deep -a {name}")
    run = ip.run_line_magic("deepagent", f"approvals -a {name} -t {thread_id}")
    assert run.status == "interrupted"
    assert run.prompt == "Plan the launch"
    assert [t["content"] for t in run.todos] == ["Ask the researcher", "Write the notes"]  # replayed
    assert [n.name for n in run.tree.children] == ["researcher"]
    (request,) = run.pending
    assert (request.name, request.args["file_path"]) == ("write_file", "/notes.md")
    request.approve()
    run.wait(WAIT)
    assert run.status == "done", run.error
    assert run.result == RESULT
    assert run.files["/notes.md"] == "Launch: May\n"


def test_approvals_on_a_run_still_going_join_it(agent_server: AgentServer) -> None:
    thread_id = kernel_that_dies(agent_server.url, "Plan the launch carefully", after_tool="slow_step")
    bench = deepnb.connect(agent_server.url, "deep", name=unique("joined"))
    run = bench.pending_run(thread_id)
    deadline = time.monotonic() + WAIT
    while run.status == "running" and time.monotonic() < deadline:
        time.sleep(0.1)
    assert run.status == "interrupted", run.error
    assert [t["content"] for t in run.todos] == ["Ask the researcher", "Write the notes"]  # replayed
    assert [i["name"] for i in run.state.to_json()["items"] if i["kind"] == "tool"] == [
        "write_todos",
        "slow_step",
        "write_file",
    ]
    run.pending[0].approve()
    run.wait(WAIT)
    assert run.result == RESULT


def test_a_server_that_goes_away_mid_run_ends_it_disconnected(tmp_path: Path) -> None:
    server = start(tmp_path / "app", tmp_path / "langgraph-dev.log")
    try:
        bench = deepnb.connect(server.url, "deep", name=unique("gone"))
        run = bench.start("Do the slow thing", new_thread=True)
        deadline = time.monotonic() + WAIT
        while not any(i["kind"] == "tool" for i in run.state.to_json()["items"]):
            assert time.monotonic() < deadline, "the slow tool never started"
            time.sleep(0.05)
    finally:
        server.stop()
    run.wait(WAIT)  # never a hang
    assert run.status == "error"
    assert run.error is not None
    assert run.error.startswith(f"Disconnected: the Agent Protocol server at {server.url} stopped answering")
    assert f"%deepagent resume -t {run.thread_id} re-attaches" in run.error
    assert "\n" not in run.error


def test_stop_after_a_restart_cancels_the_run_on_the_server(agent_server: AgentServer, ip: Any) -> None:
    thread_id = kernel_that_dies(agent_server.url, "Do the slow thing", after_tool="slow_step")
    name = unique("stopper")
    ip.run_line_magic("deepagent", f"connect {agent_server.url} --assistant deep -a {name}")
    run = ip.run_line_magic("deepagent", f"stop -a {name} -t {thread_id}").run
    run.wait(WAIT)
    assert run.status == "cancelled"
    assert [i["name"] for i in run.state.to_json()["items"] if i["kind"] == "tool"] == ["slow_step"]
    assert [r["status"] for r in server_runs(deepnb.get(name), thread_id)] == ["interrupted"]
