"""``deepnb.serve`` / ``%deepagent serve``: a tests-owned project's scripted agents deployed and
served by a real ``langgraph dev`` on 127.0.0.1 (offline), run through ``langgraph_sdk`` to their
scripted answer, connected so ``%%deepagent -a NAME`` runs there, then stopped with nothing left
running — also when the kernel exits."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output

import deepnb
from deepnb.core import trust
from deepnb.core.errors import DeepnbError
from deepnb.models.resolve import online_environment
from deepnb.session import agents
from deepnb.session.remote import RemoteWorkbench
from deepnb.ship import serve as serving
from tests.support.agents import write

ROOT = Path(__file__).resolve().parents[2]
ANSWER = "Kelp grows up to half a metre a day."
SCRIPT = """
agents:
  main:
    - tool_calls: [{name: look_up, args: {query: kelp}}]
    - text: "Kelp grows up to half a metre a day."
"""

pytestmark = pytest.mark.skipif(
    any(importlib.util.find_spec(m) is None for m in ("langgraph_cli", "langgraph_api", "langgraph_sdk")),
    reason="serving needs langgraph-cli[inmem] and langgraph-sdk (the test extra)",
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/ok", timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


def group_gone(pid: int) -> bool:
    """Whether no process is left in the process group ``pid`` led."""
    try:
        os.killpg(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A trusted project whose scripted agent calls a tool from the project's own module."""
    for name in online_environment():
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DEEPNB_HOME", str(tmp_path / "home"))
    root = tmp_path / "project"
    module = f"serve_tools_{uuid.uuid4().hex[:8]}"
    write(root / "scripts" / "writer.yaml", SCRIPT)
    write(
        root / f"{module}.py",
        '''
        from langchain_core.tools import tool

        @tool
        def look_up(query: str) -> str:
            """Look something up in the project's notes."""
            return f"notes on {query}: fast growth"
        ''',
    )
    write(
        root / "deepnb.toml",
        f"""
        [agents.writer]
        model = "scripted:scripts/writer.yaml"
        tools = ["{module}:look_up"]
        checkpointer = "sqlite:threads.db"

        [agents.helper]
        model = "demo:quickstart"
        """,
    )
    (root / ".git").mkdir()
    trust.trust(root)
    monkeypatch.chdir(root)
    yield root
    serving.stop()


def test_served_agents_run_through_langgraph_sdk_and_stop_leaves_nothing_running(project: Path) -> None:
    from langgraph_sdk import get_sync_client

    server = deepnb.serve(port=free_port())
    try:
        assert server.graphs == ("helper", "writer") and server.running
        assert server.folder == project / ".deepnb" / "served" / "app"
        assert (project / ".deepnb" / "served" / ".gitignore").read_text() == "*\n"
        assert server.log == project / ".deepnb" / "served" / "langgraph-dev.log"
        client = get_sync_client(url=server.url)
        assert sorted(a["graph_id"] for a in client.assistants.search()) == ["helper", "writer"]
        thread = client.threads.create()
        state = client.runs.wait(
            thread["thread_id"],
            "writer",
            input={"messages": [{"role": "user", "content": "How fast is kelp?"}]},
        )
        messages = state["messages"]
        assert messages[-1]["content"] == ANSWER
        assert [m["content"] for m in messages if m["type"] == "tool"] == ["notes on kelp: fast growth"]
        # the server's persistence keeps the thread, not the project's sqlite checkpointer
        assert client.threads.get_state(thread["thread_id"])["values"]["messages"][-1]["content"] == ANSWER
        assert not (project / "threads.db").exists()
        # a demo: model (a script shipped in the package) runs on the server too
        prompt = {"messages": [{"role": "user", "content": "Tide pools?"}]}
        demo = client.runs.wait(None, "helper", input=prompt)
        assert demo["messages"][-1]["content"].startswith("## Life in a tide pool")
        assert "/notes/stresses.md" in demo["files"]
    finally:
        server.stop()
    assert not server.running and group_gone(server.process.pid)
    assert not answers(server.url)
    assert serving.current() is None


def test_the_magics_serve_connect_and_stop_and_say_what_is_wrong_in_one_line(
    ip: Any, project: Path, tmp_path: Path
) -> None:
    from langgraph_sdk import get_sync_client

    local = deepnb.get("writer")  # built in the kernel from deepnb.toml
    port = free_port()
    server = ip.run_line_magic("deepagent", f"serve -a writer --port {port}")
    try:
        assert isinstance(server, serving.Server) and server.url == f"http://127.0.0.1:{port}"
        assert server.graphs == ("writer",) and answers(server.url)
        assert repr(server).endswith("Connected writer: %%deepagent -a writer runs on the server.")
        remote = agents.find("writer")
        assert isinstance(remote, RemoteWorkbench) and remote.url == server.url and remote is not local

        with capture_output():
            result = ip.run_cell("%%deepagent -a writer -o served_run\nHow fast is kelp?")
        assert result.error_in_exec is None, result.error_in_exec
        run = ip.user_ns["served_run"]
        assert run.status == "done" and run.result == ANSWER, run.error
        on_server = get_sync_client(url=server.url).threads.get_state(run.thread_id)["values"]["messages"]
        assert on_server[-1]["content"] == ANSWER  # it ran on the server, not in the kernel
        assert local.threads() == []

        with socket.socket() as taken:  # a port someone else listens on
            taken.bind(("127.0.0.1", 0))
            taken.listen()
            busy = taken.getsockname()[1]
            with pytest.raises(UsageError, match=rf"^Port {busy} on 127\.0\.0\.1 is in use: pick another"):
                ip.run_line_magic("deepagent", f"serve --port {busy}")
        nobody = r"^deepnb\.toml defines no agent 'nobody': use one of helper, writer\.$"
        with pytest.raises(UsageError, match=nobody):
            ip.run_line_magic("deepagent", "serve -a nobody")
        assert serving.current() is server and answers(server.url)  # a refused serve leaves it serving
        assert agents.find("writer") is remote

        stopped = ip.run_line_magic("deepagent", "serve --stop")
        assert repr(stopped) == f"Stopped the server at {server.url}."
        assert agents.find("writer") is local  # the name goes back to the kernel's agent
    finally:
        server.stop()
    assert group_gone(server.process.pid)
    nothing = ip.run_line_magic("deepagent", "serve --stop")
    assert repr(nothing) == "No server of this kernel is running."
    with pytest.raises(UsageError, match=r"^--port 'abc' is not a port number: give one such as --port"):
        ip.run_line_magic("deepagent", "serve --port abc")
    with pytest.raises(UsageError, match=r"-a needs a value, not an empty string\.$"):
        ip.run_line_magic("deepagent", "serve -a writer -a ''")

    app = tmp_path / "app"
    shown = ip.run_line_magic("deepagent", f"deploy {app} -a helper")
    assert repr(shown).startswith(f"Deployed helper from deepnb.toml to {app}")
    assert json.loads((app / "langgraph.json").read_text())["graphs"] == {"helper": "./deepnb_app.py:helper"}
    with pytest.raises(UsageError, match="already exists: pass --force"):
        ip.run_line_magic("deepagent", f"deploy {app}")
    ip.run_line_magic("deepagent", f"deploy {app} --force")
    assert set(json.loads((app / "langgraph.json").read_text())["graphs"]) == {"helper", "writer"}


def test_a_server_that_does_not_answer_in_time_is_stopped_and_points_at_its_log(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[subprocess.Popen[bytes]] = []
    popen = subprocess.Popen

    def record(*args: object, **kwargs: object) -> subprocess.Popen[bytes]:
        started.append(popen(*args, **kwargs))  # type: ignore[call-overload]
        return started[-1]

    monkeypatch.setattr(serving.subprocess, "Popen", record)
    with pytest.raises(DeepnbError) as failed:
        serving.serve(port=free_port(), timeout=0.0)
    log = project / ".deepnb" / "served" / "langgraph-dev.log"
    assert str(failed.value).endswith(f"within 0 s: see {log}.") and "\n" not in str(failed.value)
    (process,) = started
    assert process.poll() is not None and group_gone(process.pid)
    assert serving.current() is None


def test_the_kernels_exit_stops_the_server_it_started(project: Path) -> None:
    code = textwrap.dedent(
        f"""
        import deepnb
        server = deepnb.serve(port={free_port()})
        print(server.process.pid, server.url, flush=True)
        """
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    command = [sys.executable, "-c", code]
    done = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    pid, url = done.stdout.split()
    try:
        assert group_gone(int(pid)) and not answers(url)
    finally:
        if not group_gone(int(pid)):  # the test failed: still end what it started
            os.killpg(int(pid), signal.SIGKILL)


def test_a_kernel_killed_with_sigkill_still_stops_the_server_it_started(project: Path) -> None:
    code = textwrap.dedent(
        f"""
        import time
        import deepnb
        server = deepnb.serve(port={free_port()})
        print(server.process.pid, server.url, flush=True)
        time.sleep(600)
        """
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    kernel = subprocess.Popen(
        [sys.executable, "-c", code], cwd=project, env=env, stdout=subprocess.PIPE, text=True
    )
    pid = 0
    try:
        assert kernel.stdout is not None
        pid_text, url = kernel.stdout.readline().split()
        pid = int(pid_text)
        assert answers(url)
        kernel.send_signal(signal.SIGKILL)  # no atexit, no finally: only the pipe tells
        kernel.wait(10)
        deadline = time.monotonic() + 30
        while not group_gone(pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert group_gone(pid) and not answers(url)
    finally:
        kernel.kill()
        kernel.wait(10)
        if pid and not group_gone(pid):  # the test failed: still end what it started
            os.killpg(pid, signal.SIGKILL)


STAMP_SCRIPT = """
agents:
  main:
    - tool_calls: [{name: stamp, args: {text: kelp}}]
    - text: "Stamped."
"""


def test_served_agents_take_the_extensions_the_kernels_agents_take(project: Path) -> None:
    from langgraph_sdk import get_sync_client

    from deepnb import extensions

    write(project / "scripts" / "stamper.yaml", STAMP_SCRIPT)
    config = (project / "deepnb.toml").read_text(encoding="utf-8")
    write(project / "deepnb.toml", config + '\n[agents.stamper]\nmodel = "scripted:scripts/stamper.yaml"\n')
    write(  # a trusted project's extension, which imports a module of its own folder
        project / ".deepnb" / "extensions" / "stamping" / "__init__.py",
        '''
        from .ink import INK

        def stamp(text: str) -> str:
            """Stamp a text."""
            return f"{INK} {text}"

        async def extension(d):
            d.register_tool(stamp)
        ''',
    )
    write(project / ".deepnb" / "extensions" / "stamping" / "ink.py", 'INK = "[stamped]"\n')
    extensions.shutdown()  # as a fresh kernel: the project's extensions load with its first agent
    try:
        server = deepnb.serve(["stamper"], port=free_port(), connect=False)
        try:
            recorded = json.loads((server.folder / "deepnb_agents.json").read_text())["extensions"]
            assert recorded == [
                {"path": "extensions/0-stamping/__init__.py", "package": True, "plugin": None}
            ]
            assert (server.folder / "extensions" / "0-stamping" / "ink.py").is_file()
            client = get_sync_client(url=server.url)
            state = client.runs.wait(None, "stamper", input={"messages": [{"role": "user", "content": "go"}]})
            assert [m["content"] for m in state["messages"] if m["type"] == "tool"] == ["[stamped] kelp"]
            assert state["messages"][-1]["content"] == "Stamped."
        finally:
            server.stop()
        deployed = deepnb.deploy(project / "app", agents=["stamper"])
        assert deployed.extensions == ("stamping",)
        assert repr(deployed).startswith("Deployed stamper with extensions stamping from deepnb.toml")
    finally:
        extensions.shutdown()


KEEPER_SCRIPT = """
agents:
  main:
    - tool_calls: [{name: read_file, args: {file_path: /seen.txt}}]
    - tool_calls: [{name: write_file, args: {file_path: /notes/kelp.md, content: "# Kelp\\n"}}]
    - text: "Noted."
"""


def test_a_served_disk_agent_works_on_the_projects_folder_and_a_new_serve_keeps_its_threads(
    project: Path,
) -> None:
    """As in the kernel: the disk backend's folder is the project's own (read and written there,
    same root and virtual mode), not a copy under .deepnb/served that the next serve replaces;
    and the server's threads stay through a new serve."""
    from langgraph_sdk import get_sync_client

    write(project / "scripts" / "keeper.yaml", KEEPER_SCRIPT)
    write(project / "data" / "seen.txt", "seen in the project\n")
    config = (project / "deepnb.toml").read_text(encoding="utf-8")
    keeper = """
    [agents.keeper]
    model = "scripted:scripts/keeper.yaml"
    backend = { type = "disk", root_dir = "data" }
    """
    write(project / "deepnb.toml", config + keeper)
    server = deepnb.serve(["keeper"], port=free_port(), connect=False)
    try:
        table = json.loads((server.folder / "deepnb_agents.json").read_text())["agents"]["keeper"]
        assert table["backend"] == {"type": "disk", "root_dir": str((project / "data").resolve())}
        client = get_sync_client(url=server.url)
        thread = client.threads.create()["thread_id"]
        state = client.runs.wait(thread, "keeper", input={"messages": [{"role": "user", "content": "go"}]})
        tools = [m["content"] for m in state["messages"] if m["type"] == "tool"]
        assert "seen in the project" in tools[0]
        assert (project / "data" / "notes" / "kelp.md").read_text() == "# Kelp\n"
        assert not (server.folder / "project" / "data").exists()  # no copy of it (the script is one)
    finally:
        server.stop()
    again = deepnb.serve(["keeper", "helper"], port=free_port(), connect=False)
    try:
        assert (project / "data" / "notes" / "kelp.md").read_text() == "# Kelp\n"
        kept = get_sync_client(url=again.url).threads.get_state(thread)["values"]["messages"]
        assert kept[-1]["content"] == "Noted."
    finally:
        again.stop()
