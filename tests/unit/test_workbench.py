"""Workbenches end to end on the engine loop, with scripted models: runs, stop, retry, threads."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

import pytest
import yaml

import deepnb
from deepnb.core.errors import DeepnbError
from deepnb.session import local
from deepnb.session.agents import registered
from deepnb.session.building import get
from deepnb.session.local import Workbench
from deepnb.session.run import Run
from tests.support.agents import scripted, unique
from tests.support.lab_sanitizer import unstyled
from tests.support.waiting import WAIT


def finish(run: Run) -> Run:
    return run.wait(WAIT)


def humans(workbench: Workbench, thread_id: str) -> list[str]:
    return [m.content for m in workbench.state_values(thread_id)["messages"] if m.type == "human"]


# -- the quickstart demo -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def quickstart() -> tuple[Workbench, Run]:
    workbench = deepnb.agent(name=unique("quick"), model="demo:quickstart")
    return workbench, finish(workbench.start("Write a brief about tide pools"))


def _demo_turns() -> list[dict[str, Any]]:
    path = resources.files("deepnb") / "demos" / "quickstart.yaml"
    return yaml.safe_load(path.read_text(encoding="utf-8"))["agents"]["main"][0]["turns"]


def test_quickstart_run_is_done(quickstart: tuple[Workbench, Run]) -> None:
    workbench, run = quickstart
    turns = _demo_turns()
    assert run.status == "done", run.error
    assert run.error is None
    assert run.done
    assert run.result == turns[-1]["text"]
    assert registered()[workbench.name] is workbench
    assert get(workbench.name) is workbench


def test_quickstart_todos_and_files(quickstart: tuple[Workbench, Run]) -> None:
    workbench, run = quickstart
    calls = [c for t in _demo_turns() for c in t.get("tool_calls", [])]
    last_todos = [c["args"]["todos"] for c in calls if c["name"] == "write_todos"][-1]
    assert run.todos == last_todos
    assert workbench.todos(run.thread_id) == last_todos

    write = next(c["args"] for c in calls if c["name"] == "write_file")
    edit = next(c["args"] for c in calls if c["name"] == "edit_file")
    expected = write["content"].replace(edit["old_string"], edit["new_string"])
    files = run.files
    assert list(files) == [write["file_path"]]
    assert len(files) == 1
    assert files[write["file_path"]].rstrip("\n") == expected.rstrip("\n")
    assert dict(workbench.files(run.thread_id)) == dict(files)
    with pytest.raises(KeyError):
        files["/nope.md"]


def test_quickstart_state_and_snapshot(quickstart: tuple[Workbench, Run]) -> None:
    workbench, run = quickstart
    turns = _demo_turns()
    progress = run.state.progress()
    assert progress["steps"] == len(turns)
    assert progress["tool_calls"] == sum(len(t.get("tool_calls", [])) for t in turns)
    assert progress["todo_progress"] == f"All {len(run.todos)} done"
    assert progress["tokens_in"] > 0 and progress["tokens_out"] > 0
    cards = [i for i in run.state.items if i["kind"] == "tool"]
    assert cards and all(c["status"] == "done" for c in cards)
    bundle = run._repr_mimebundle_()
    assert "<table>" in unstyled(bundle["text/html"])
    assert "write_file(file_path='/notes/stresses.md'" in bundle["text/plain"]
    assert run.thread_id in {t.thread_id for t in workbench.threads()}
    assert workbench.active_run(run.thread_id) is None


# -- one run per thread, stop --------------------------------------------------------------------

SLOW = {
    "main": [
        {"match": "^slow", "turns": [{"text": " ".join(["word"] * 200)}]},
        {"turns": ["Quick answer."]},
    ]
}


def test_second_start_on_a_busy_thread_is_refused_then_stop() -> None:
    workbench = deepnb.agent(name=unique("busy"), model=scripted(SLOW, delay=0.02))
    run = workbench.start("slow job")
    try:
        assert workbench.active_run(run.thread_id) is run
        with pytest.raises(DeepnbError) as info:
            workbench.start("another", thread=run.thread_id)
        assert "--new" in str(info.value)
        assert run.thread_id in str(info.value)
        other = finish(workbench.start("fast on a new thread", new_thread=True))
        assert other.status == "done"
        assert other.thread_id != run.thread_id
        assert not run.done
    finally:
        run.stop()
    finish(run)
    assert run.status == "cancelled"
    assert run.state.items[-1]["level"] == "cancelled"
    assert workbench.active_run(run.thread_id) is None

    again = finish(workbench.start("fast follow-up", thread=run.thread_id))
    assert again.status == "done", again.error
    assert again.result == "Quick answer."
    assert again.thread_id == run.thread_id
    assert humans(workbench, run.thread_id) == ["slow job", "fast follow-up"]


def test_stop_before_the_run_streams() -> None:
    workbench = deepnb.agent(name=unique("early"), model=scripted(SLOW, delay=0.02))
    run = workbench.start("slow job")
    run.stop()
    assert finish(run).status == "cancelled"


def test_thread_and_new_are_exclusive() -> None:
    workbench = deepnb.agent(name=unique("excl"), model=scripted(SLOW))
    with pytest.raises(DeepnbError, match="not both"):
        workbench.start("x", thread="t1", new_thread=True)


# -- failures and retries ------------------------------------------------------------------------

FIRST_TURN = {"tool_calls": [{"name": "write_file", "args": {"file_path": "/draft.md", "content": "v1"}}]}


def test_failed_turn_then_retry_continues_from_the_checkpoint() -> None:
    name = unique("retry")
    failing = scripted({"main": [FIRST_TURN, {"error": "provider overloaded (529)"}, "never played"]})
    workbench = deepnb.agent(name=name, model=failing)
    run = finish(workbench.start("Draft it"))
    assert run.status == "error"
    assert "provider overloaded (529)" in run.error
    assert run.state.items[-1]["kind"] == "error"
    assert workbench.active_run(run.thread_id) is None
    assert dict(run.files) == {"/draft.md": "v1"}

    # The provider recovers (the same agent is rebuilt; its threads stay).
    fixed = scripted({"main": [FIRST_TURN, "Recovered and finished."]})
    rebuilt = deepnb.agent(name=name, model=fixed)
    assert rebuilt.current_thread == run.thread_id
    retry = finish(rebuilt.start("Draft it"))
    assert retry.status == "done", retry.error
    assert retry.result == "Recovered and finished."
    messages = rebuilt.state_values(run.thread_id)["messages"]
    assert [m.type for m in messages] == ["human", "ai", "tool", "ai"]
    assert humans(rebuilt, run.thread_id) == ["Draft it"]

    # The thread stays usable for new prompts.
    more = finish(rebuilt.start("Now something else"))
    assert more.status == "done"
    assert humans(rebuilt, run.thread_id) == ["Draft it", "Now something else"]


def test_a_failure_leaves_the_thread_usable_without_rebuilding() -> None:
    agents = {
        "main": [
            {"match": "fail", "turns": [{"error": "boom"}]},
            {"turns": ["Fine now."]},
        ]
    }
    workbench = deepnb.agent(name=unique("usable"), model=scripted(agents))
    assert finish(workbench.start("please fail")).status == "error"
    ok = finish(workbench.start("please work"))
    assert ok.status == "done"
    assert ok.result == "Fine now."


def test_script_exhaustion_is_a_failed_run() -> None:
    workbench = deepnb.agent(name=unique("exhaust"), model=scripted({"main": [FIRST_TURN]}))
    run = finish(workbench.start("go"))
    assert run.status == "error"
    assert "ScriptError" in run.error
    assert "turn 2" in run.error


# -- threads -------------------------------------------------------------------------------------

PER_PROMPT = {
    "main": [
        {
            "match": "alpha",
            "turns": [
                {
                    "tool_calls": [
                        {"name": "write_file", "args": {"file_path": "/alpha.md", "content": "A"}},
                        {
                            "name": "write_todos",
                            "args": {"todos": [{"content": "alpha", "status": "completed"}]},
                        },
                    ]
                },
                "alpha done",
            ],
        },
        {
            "match": "beta",
            "turns": [
                {
                    "tool_calls": [
                        {"name": "write_file", "args": {"file_path": "/beta.md", "content": "B"}},
                        {
                            "name": "write_todos",
                            "args": {"todos": [{"content": "beta", "status": "pending"}]},
                        },
                    ]
                },
                "beta done",
            ],
        },
        {"turns": ["ok"]},
    ]
}


def test_threads_newest_first() -> None:
    workbench = deepnb.agent(name=unique("order"), model=scripted(PER_PROMPT))
    first = finish(workbench.start("alpha"))
    second = finish(workbench.start("beta", new_thread=True))
    assert workbench.current_thread == second.thread_id
    assert [t.thread_id for t in workbench.threads()] == [second.thread_id, first.thread_id]
    finish(workbench.start("again", thread=first.thread_id))
    threads = workbench.threads()
    assert [t.thread_id for t in threads] == [first.thread_id, second.thread_id]
    assert threads[0].updated_at > threads[1].updated_at
    assert threads[0].steps > threads[1].steps


@pytest.mark.parametrize("kind", ["memory", "sqlite", "another saver"])
def test_listing_threads_reads_the_latest_checkpoint_of_each_not_all(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = f"sqlite:{tmp_path / 'threads.db'}" if kind == "sqlite" else "memory"
    workbench = deepnb.agent(name=unique("listing"), model=scripted(PER_PROMPT), checkpointer=spec)
    first = finish(workbench.start("alpha"))
    second = finish(workbench.start("beta", new_thread=True))
    finish(workbench.start("again", thread=first.thread_id))
    saver = workbench.checkpointer
    listed = saver.alist

    def alist(config: Any, **options: Any) -> Any:
        assert config is not None or kind == "another saver", "listed every checkpoint of every thread"
        return listed(config, **options)

    monkeypatch.setattr(saver, "alist", alist)
    if kind == "another saver":  # one deepnb cannot ask for its threads: it lists checkpoints

        async def unknown(_saver: Any) -> None:
            return None

        monkeypatch.setattr(local, "thread_ids", unknown)
    threads = workbench.threads()
    assert [(t.thread_id, t.steps) for t in threads] == [(first.thread_id, 3), (second.thread_id, 2)], threads
    assert threads[0].updated_at > threads[1].updated_at


def test_sqlite_threads_survive_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "threads.db"
    before = deepnb.agent(name=unique("sqlite"), model=scripted(PER_PROMPT), checkpointer=f"sqlite:{db}")
    alpha = finish(before.start("alpha"))
    beta = finish(before.start("beta", new_thread=True))
    assert (alpha.status, beta.status) == ("done", "done")
    assert db.stat().st_size > 0

    # A new workbench on the same file, as after a kernel restart (the connection closed first).
    from deepnb.core.threads import checkpointers as checkpoint

    assert checkpoint.close(before.checkpointer)
    after = deepnb.agent(name=unique("sqlite"), model=scripted(PER_PROMPT), checkpointer=f"sqlite:{db}")
    assert after.checkpointer is not before.checkpointer
    assert [t.thread_id for t in after.threads()] == [beta.thread_id, alpha.thread_id]
    assert after.current_thread == beta.thread_id
    assert dict(after.files()) == {"/beta.md": "B"}
    assert after.todos() == [{"content": "beta", "status": "pending"}]
    assert dict(after.files(alpha.thread_id)) == {"/alpha.md": "A"}
    assert after.todos(alpha.thread_id) == [{"content": "alpha", "status": "completed"}]
    # And it continues the thread.
    more = finish(after.start("follow up"))
    assert more.thread_id == beta.thread_id
    assert humans(after, beta.thread_id) == ["beta", "follow up"]


def test_one_connection_per_database_however_often_the_cell_runs(tmp_path: Path) -> None:
    from deepnb.core.threads import checkpointers as checkpoint

    name = unique("reopen")
    first = deepnb.agent(name, scripted(PER_PROMPT), checkpointer=f"sqlite:{tmp_path / 'a.db'}")
    alpha = finish(first.start("alpha"))
    # The same cell run again (the path spelled differently): the same saver, no new connection,
    # and the run made before still reads its thread.
    again = deepnb.agent(name, scripted(PER_PROMPT), checkpointer=f"sqlite:{tmp_path}/./a.db")
    assert again.checkpointer is first.checkpointer
    assert dict(alpha.files) == {"/alpha.md": "A"}
    other = deepnb.agent(unique("other"), scripted(PER_PROMPT), checkpointer=f"sqlite:{tmp_path / 'b.db'}")
    assert other.checkpointer is not first.checkpointer

    connection = first.checkpointer.conn
    assert checkpoint.close(first.checkpointer) is True
    assert connection._connection is None  # closed, not left for the garbage collector
    assert checkpoint.close(first.checkpointer) is False  # once
    assert checkpoint.close(other.checkpointer) is True


def test_sqlite_in_a_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(DeepnbError, match="does not exist"):
        deepnb.agent(
            name=unique("nofolder"),
            model=scripted(PER_PROMPT),
            checkpointer=f"sqlite:{tmp_path / 'no' / 'x.db'}",
        )


def test_unknown_checkpointer_spec() -> None:
    with pytest.raises(DeepnbError, match="Unknown checkpointer 'redis:x'"):
        deepnb.agent(name=unique("ckpt"), model=scripted(PER_PROMPT), checkpointer="redis:x")


# -- attach and the registry ---------------------------------------------------------------------


def test_attach_gives_a_graph_without_checkpointer_one() -> None:
    from deepagents import create_deep_agent

    graph = create_deep_agent(model=scripted({"main": ["Attached and answering."]}))
    assert graph.checkpointer is None
    workbench = deepnb.attach(graph, unique("attached"))
    assert workbench.checkpointer is not None
    assert workbench.graph.checkpointer is workbench.checkpointer
    run = finish(workbench.start("hello"))
    assert run.status == "done", run.error
    assert run.result == "Attached and answering."
    assert [t.thread_id for t in workbench.threads()] == [run.thread_id]


def test_attach_keeps_a_graph_checkpointer() -> None:
    from deepagents import create_deep_agent
    from langgraph.checkpoint.memory import InMemorySaver

    saver = InMemorySaver()
    graph = create_deep_agent(model=scripted({"main": ["x"]}), checkpointer=saver)
    workbench = deepnb.attach(graph, unique("attached"))
    assert workbench.checkpointer is saver
    assert workbench.graph is graph


@pytest.mark.parametrize("thing", [object(), "not a graph", scripted({"main": ["x"]})])
def test_attach_refuses_a_non_graph(thing: Any) -> None:
    with pytest.raises(DeepnbError, match="is not a compiled LangGraph agent"):
        deepnb.attach(thing, unique("bad"))


def test_get_unknown_agent_lists_known_ones() -> None:
    workbench = deepnb.agent(name=unique("known"), model=scripted(PER_PROMPT))
    with pytest.raises(DeepnbError) as info:
        get("no-such-agent-here")
    assert workbench.name in str(info.value)
    assert "%deepagent define no-such-agent-here" in str(info.value)


def test_a_failed_start_does_not_lock_the_thread() -> None:
    from deepagents import create_deep_agent
    from langgraph.checkpoint.memory import InMemorySaver

    class FlakySaver(InMemorySaver):
        failures = 1

        async def aget_tuple(self, config: Any) -> Any:
            if self.failures:
                self.failures -= 1
                raise OSError("database is locked")
            return await super().aget_tuple(config)

    graph = create_deep_agent(model=scripted({"main": ["Answered."]}), checkpointer=FlakySaver())
    workbench = deepnb.attach(graph, unique("flaky"))
    with pytest.raises(OSError, match="database is locked"):
        workbench.start("hello", thread="t1")
    assert workbench.active_run("t1") is None
    run = finish(workbench.start("hello", thread="t1"))
    assert run.result == "Answered."
