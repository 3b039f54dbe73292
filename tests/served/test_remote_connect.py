"""deepnb.connect: a deep agent served by a real ``langgraph dev`` (offline, scripted), driven
through the same Run, events and views as a local agent.

The served graph is tests/support/agent_server/deep_graph.py: todos, a ``researcher`` subagent
(``task``), ``write_file`` gated by ``interrupt_on``, a slow tool, files in the agent's state.
"""

from __future__ import annotations

import time
from argparse import Namespace
from typing import Any

import pytest
from IPython.core.error import UsageError

import deepnb
from deepnb.core.errors import DeepnbError
from deepnb.core.loop import run_sync
from deepnb.core.text.secrets import redact
from deepnb.magics.commands import agents as agent_commands
from deepnb.session import agents, building
from deepnb.session.protocol import Session
from deepnb.session.remote import RemoteWorkbench
from deepnb.session.run import KERNEL_INTERRUPT
from deepnb.views.compare_view import CompareView, comparison_static
from deepnb.views.output import run_bundle
from tests.support.agent_server.key_check import ACCEPTED_KEY
from tests.support.agents import unique
from tests.support.servers import (
    AgentServer,
    agent_server_fixture,
    free_port,
    offline_client_fixture,
)
from tests.support.waiting import WAIT

RESULT = "Done: the launch is in May, notes in /notes.md."
FOUND = "Found it: the launch moved to May."
RESEARCH_PROMPT = "Write a short report on how coral reefs recover after bleaching."

agent_server = agent_server_fixture()


offline_client = offline_client_fixture()


def connect(server: AgentServer, **options: Any) -> RemoteWorkbench:
    return deepnb.connect(server.url, "deep", name=options.pop("name", unique("remote")), **options)


def server_run(server: AgentServer, bench: RemoteWorkbench, thread_id: str) -> dict[str, Any]:
    """The newest run of a thread, as the server reports it."""
    runs = run_sync(bench.graph.client.runs.list(thread_id, limit=1))
    return dict(runs[0])


def test_connect_registers_a_session_under_its_name(agent_server: AgentServer) -> None:
    bench = connect(agent_server, name=unique("named"))
    assert isinstance(bench, Session)
    assert agents.find(bench.name) is bench
    assert deepnb.connect(agent_server.url, "deep") is agents.find("deep")  # default: the assistant
    assert bench.url in bench.label and "deep" in bench.label
    listed = repr(agent_commands.agents(Namespace(), {}))
    assert bench.name in listed and bench.url in listed


def test_a_remote_run_streams_todos_tools_subagents_and_waits_for_approval(agent_server: AgentServer) -> None:
    bench = connect(agent_server)
    run = bench.run("Plan the launch", new_thread=True)
    assert run.status == "interrupted", run.error
    assert [t["content"] for t in run.todos] == ["Ask the researcher", "Write the notes"]
    (node,) = run.tree.children
    assert (node.name, node.status, node.result) == ("researcher", "done", FOUND)
    (request,) = run.pending
    assert (request.name, request.args["file_path"]) == ("write_file", "/notes.md")
    items = run.state.to_json()["items"]
    tools = [(i["agent"], i["name"], i["status"]) for i in items if i["kind"] == "tool"]
    assert tools == [
        ("main", "write_todos", "done"),
        ("main", "task", "done"),
        ("main", "write_file", "waiting"),
    ]
    assert ("main/researcher", FOUND) in [(i["agent"], i.get("text")) for i in items if i["kind"] == "text"]
    shown = run_bundle(run)["text/plain"]
    assert "Subagents (1):" in shown and "researcher [done]" in shown, shown
    assert "Waiting for approval: write_file" in shown, shown

    request.approve()
    run.wait(WAIT)
    assert run.status == "done", run.error
    assert run.result == RESULT
    assert run.files["/notes.md"] == "Launch: May\n"
    assert [m.type for m in bench.state_values(run.thread_id)["messages"]][-1] == "ai"


def wait_for(condition: Any, what: str, timeout: float = WAIT) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def tool_started(run: Any, name: str) -> bool:
    return any(i["kind"] == "tool" and i["name"] == name for i in run.state.to_json()["items"])


def test_edit_and_reject_resume_the_server_run(agent_server: AgentServer) -> None:
    bench = connect(agent_server)
    edited = bench.run("Plan the launch", new_thread=True)
    (request,) = edited.pending
    request.edit({"file_path": "/notes.md", "content": "Launch: June\n"})
    edited.wait(WAIT)
    assert edited.status == "done", edited.error
    assert edited.files["/notes.md"] == "Launch: June\n"

    rejected = bench.run("Plan the launch", new_thread=True)
    rejected.pending[0].reject("Not now.")
    rejected.wait(WAIT)
    assert rejected.status == "done", rejected.error
    assert "/notes.md" not in rejected.files
    tool_messages = [m for m in bench.state_values(rejected.thread_id)["messages"] if m.type == "tool"]
    assert "Not now." in tool_messages[-1].content


@pytest.mark.parametrize("how", ["stop", "kernel interrupt"])
def test_stop_cancels_the_server_run(agent_server: AgentServer, how: str) -> None:
    bench = connect(agent_server)
    run = bench.start("Do the slow thing", new_thread=True)
    wait_for(lambda: tool_started(run, "slow_step"), "the slow tool")
    # the server writes checkpoints in the background: stop once the tool's step is saved, so
    # the stopped run has a checkpoint to go on from (on a busy machine the write comes later)
    wait_for(lambda: tuple(bench.read_state(run.thread_id).next) == ("tools",), "the tool step saved")
    if how == "stop":
        assert bench.stop(run.thread_id) is run
    else:
        run.stop(reason=KERNEL_INTERRUPT)  # what the ■ button (Ctrl-C) does to a cell's run
    run.wait(WAIT)
    assert run.status == "cancelled"
    wait_for(lambda: server_run(agent_server, bench, run.thread_id)["status"] != "running", "the server")
    assert server_run(agent_server, bench, run.thread_id)["status"] == "interrupted"
    resumed = bench.resume(run.thread_id)  # the stopped run goes on from its last checkpoint
    resumed.wait(WAIT)
    assert resumed.status == "done", resumed.error
    assert resumed.result == "Slow work done."


def test_files_are_read_and_written_through_the_thread_state(agent_server: AgentServer) -> None:
    bench = connect(agent_server)
    run = bench.run("Plan the launch", new_thread=True)
    run.pending[0].approve()
    run.wait(WAIT)
    files = bench.files(run.thread_id)
    assert dict(files) == {"/notes.md": "Launch: May\n"}
    (change,) = run.changes()  # against the thread's files before the run, read at its checkpoint
    assert (change.path, change.kind) == ("/notes.md", "added") and "+Launch: May" in change.diff
    steps = bench.history(run.thread_id)
    assert [s.step for s in steps] == sorted((s.step for s in steps), reverse=True) and steps[0].next == ()
    files.write("/draft.md", "From the notebook.\n")
    assert bench.state_values(run.thread_id)["files"]["/draft.md"]["content"] in (
        "From the notebook.\n",
        ["From the notebook."],
    )
    assert bench.files(run.thread_id)["/draft.md"] == "From the notebook.\n"
    assert bench.todos(run.thread_id) == run.todos
    assert [node.name for node in bench.tree(run.thread_id).children] == ["researcher"]


def test_the_magics_work_on_a_connected_agent(agent_server: AgentServer, ip: Any) -> None:
    name = unique("magic")
    said = ip.run_line_magic("deepagent", f"connect {agent_server.url} --assistant deep -a {name}")
    assert f"Connected agent {name!r}" in str(said)
    ip.run_cell_magic("deepagent", f"-a {name} --new -o run", "Plan the launch")
    run = ip.user_ns["run"]
    assert run.status == "interrupted", run.error
    listed = repr(ip.run_line_magic("deepagent", f"threads -a {name}"))
    assert run.thread_id in listed
    pending = ip.run_line_magic("deepagent", f"approvals -a {name} -t {run.thread_id}")
    assert pending is run
    pending.pending[0].approve()
    run.wait(WAIT)
    todos = ip.run_line_magic("deepagent", f"todos -a {name} -t {run.thread_id}")
    assert "Ask the researcher" in repr(todos)
    files = ip.run_line_magic("deepagent", f"files -a {name} -t {run.thread_id} /notes.md")
    assert "Launch: May" in repr(files) + str(getattr(files, "data", ""))


def test_bad_input_says_what_to_do_in_one_line(
    agent_server: AgentServer, ip: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    local = deepnb.agent(unique("local"), "demo:quickstart")
    before = local.run("Write a brief about tide pools")
    with pytest.raises(
        DeepnbError,
        match=r"has no assistant 'nope': it has contextual, counter, deep, disk, given, research, "
        r"researcher, supervisor, thinking\.",
    ) as caught:
        deepnb.connect(agent_server.url, "nope")
    assert "\n" not in str(caught.value)
    with pytest.raises(DeepnbError, match=r"Cannot reach an Agent Protocol server at http://127\.0\.0\.1:"):
        deepnb.connect(f"http://127.0.0.1:{free_port()}", "deep")
    with pytest.raises(
        DeepnbError, match=r"refused the request \(HTTP 401\).*pass a key it accepts"
    ) as caught:
        deepnb.connect(agent_server.url, "deep", api_key="not-the-key")
    assert "not-the-key" not in str(caught.value)
    keyed = deepnb.connect(agent_server.url, "deep", api_key=ACCEPTED_KEY, name=unique("keyed"))
    assert ACCEPTED_KEY not in repr(keyed) + repr(keyed.server) + repr(keyed.graph)
    assert redact(f"the key is {ACCEPTED_KEY}") == "the key is [redacted]"  # wherever it shows up

    monkeypatch.setenv("DEEPNB_TEST_WRONG_KEY", "not-the-key")
    line = f"connect {agent_server.url} --assistant deep --api-key-env"
    with pytest.raises(UsageError, match="HTTP 401"):
        ip.run_line_magic("deepagent", f"{line} DEEPNB_TEST_WRONG_KEY")
    with pytest.raises(
        UsageError,
        match=r"Name the agent to run with --assistant ID: .* has contextual, counter, deep, disk, given, ",
    ):
        ip.run_line_magic("deepagent", f"connect {agent_server.url}")
    with pytest.raises(UsageError, match="DEEPNB_TEST_UNSET is not set"):
        ip.run_line_magic("deepagent", f"{line} DEEPNB_TEST_UNSET")
    bench = connect(agent_server)
    with pytest.raises(
        UsageError,
        match=rf"Agent '{bench.name}' cannot take -m, .* \(it is served by {agent_server.url}\): change",
    ):
        ip.run_cell_magic("deepagent", f"-a {bench.name} -m demo:quickstart", "Plan the launch")
    with pytest.raises(DeepnbError, match="its threads are UUIDs"):
        bench.start("Plan the launch", thread="my-thread")
    assert local.threads()[0].thread_id == before.thread_id  # the local agent is untouched
    assert local.run("Write a brief about tide pools", thread=before.thread_id).status == "done"


def test_respond_and_a_raw_interrupt_resume_the_server_run(agent_server: AgentServer) -> None:
    bench = connect(agent_server)
    run = bench.run("Ask the team", new_thread=True)
    (note,) = run.pending
    assert note.name == "send_note" and "respond" in note.allowed
    note.respond("Nobody is around.")
    run.wait(WAIT)
    assert run.status == "interrupted", run.error
    (question,) = run.pending
    assert question.value == {"question": "When?"}
    question.resume("In May")
    run.wait(WAIT)
    assert run.status == "done", run.error
    assert run.result == "Thanks."
    tools = [(m.name, m.content) for m in bench.state_values(run.thread_id)["messages"] if m.type == "tool"]
    assert tools == [("send_note", "Nobody is around."), ("ask_user", "The user says: In May")]


def test_the_research_demo_served_shows_what_it_shows_in_the_kernel(agent_server: AgentServer) -> None:
    local = deepnb.agent(unique("local"), "demo:research").run(RESEARCH_PROMPT)
    served = deepnb.connect(agent_server.url, "research", name=unique("research"))
    remote = served.run(RESEARCH_PROMPT, new_thread=True)
    assert (local.status, remote.status) == ("done", "done"), remote.error
    assert remote.result == local.result
    assert remote.todos == local.todos
    assert [n.path for n in remote.tree.children] == [n.path for n in local.tree.children]
    assert [n.result for n in remote.tree.children] == [n.result for n in local.tree.children]
    (summary,) = remote.summaries
    (expected,) = local.summaries
    assert (summary.agent, summary.text) == (expected.agent, expected.text)
    event = served.state_values(remote.thread_id)["_summarization_event"]  # the server's own count
    assert summary.messages == event["cutoff_index"] > 0
    assert summary.tokens_before and summary.tokens_after and summary.tokens_after < summary.tokens_before
    assert summary.file_path and "coral" in remote.files[summary.file_path]

    def shown(run: Any) -> list[tuple[str, str, str]]:
        return sorted((i["kind"], i["agent"], i.get("name") or "") for i in run.state.to_json()["items"])

    assert shown(remote) == shown(local)
    text = run_bundle(remote)["text/plain"]
    assert "Subagents (3):" in text and "Context summarized" in text


def test_a_run_that_fails_on_the_server_shows_why(agent_server: AgentServer) -> None:
    bench = connect(agent_server)
    run = bench.run("Fail now", new_thread=True)
    assert run.status == "error"
    assert run.error is not None and "The model broke." in run.error and "\n" not in run.error
    assert bench.threads()[0].thread_id == run.thread_id  # the thread is there, to look at or retry


def test_a_served_agent_and_a_local_one_compare_side_by_side(agent_server: AgentServer) -> None:
    local = unique("local")
    deepnb.agent(local, "demo:research")
    served = deepnb.connect(agent_server.url, "research", name=unique("served"))
    comparison = deepnb.compare(RESEARCH_PROMPT, agents=[served.name, local]).wait(WAIT)
    runs = comparison.runs
    assert [run.status for run in runs.values()] == ["done", "done"], [r.error for r in runs.values()]
    assert runs[served.name].result == runs[local].result  # the same demo, here and there
    assert runs[served.name].thread_id in {t.thread_id for t in served.threads()}
    assert served.current_thread == runs[served.name].thread_id  # its own new thread
    records = comparison.to_records()
    assert [r["agent"] for r in records] == [served.name, local]
    assert records[0]["steps"] == records[1]["steps"] and records[0]["tool_calls"] == records[1]["tool_calls"]
    html = comparison_static(comparison)["text/html"]
    assert html.count('class="dnb-compare-column"') == 2 and served.name in html
    view = CompareView(comparison)
    assert len(view.views) == 2
    view.close()


def test_a_served_agent_is_compared_as_it_is_in_one_line_otherwise(agent_server: AgentServer) -> None:
    served = deepnb.connect(agent_server.url, "research", name=unique("served"))
    deepnb.agent(other := unique("local"), "demo:research")
    for call, said in (
        (
            lambda: deepnb.compare("Go", models=["demo:quickstart", "demo:research"], agent=served.name),
            f"served by {agent_server.url}",
        ),
        (
            lambda: deepnb.compare("Go", agents=[served.name, other], system_prompt="Be brief."),
            f"served by {agent_server.url}",
        ),
        (lambda: building.reload(served.name), "change it where it is served"),
    ):
        with pytest.raises(DeepnbError) as caught:
            call()
        assert said in str(caught.value) and "\n" not in str(caught.value)
