"""The session protocol: the local workbench implements it, with the protocol's exact signatures
(so the two cannot drift apart), and its session methods do what the protocol says."""

from __future__ import annotations

import inspect

import pytest

import deepnb
from deepnb.core.errors import DeepnbError
from deepnb.session.local import Workbench
from deepnb.session.protocol import Session
from deepnb.session.remote import RemoteWorkbench
from deepnb.session.remote.client import Server
from tests.support.waiting import WAIT
from tests.unit.conftest import unique

MEMBERS = sorted(name for name in vars(Session) if not name.startswith("_"))


def test_the_protocol_names_what_magics_and_views_ask_of_a_session() -> None:
    expected = {
        "name",
        "label",
        "start",
        "resume",
        "stop",
        "state_values",
        "history",
        "threads",
        "files",
        "map",
    }
    assert expected <= set(MEMBERS)


def test_a_local_workbench_is_a_session() -> None:
    workbench = deepnb.agent(name=unique("session"), model="demo:quickstart")
    assert isinstance(workbench, Session)
    for name in MEMBERS:
        assert hasattr(workbench, name), name


def remote_workbench() -> RemoteWorkbench:
    """A remote workbench that talks to no server (nothing here sends a request)."""
    server = Server("http://127.0.0.1:9", api_key="secret-key-123")
    return RemoteWorkbench(unique("remote"), server, None, {"assistant_id": "a1", "graph_id": "deep"})


def test_a_remote_workbench_is_a_session_and_hides_its_key() -> None:
    workbench = remote_workbench()
    for name in MEMBERS:  # read statically: current_thread would ask the server (isinstance too,
        # before Python 3.12; tests/served/test_remote_connect.py checks isinstance)
        inspect.getattr_static(workbench, name)
    assert "secret-key-123" not in repr(workbench) + repr(workbench.server) + repr(workbench.graph)


def test_both_workbenches_are_graph_sessions_and_neither_is_the_other() -> None:
    """What a local and a served agent share is one base, each saying what is its own (where
    threads are listed from, how one is deleted, what it cannot do): the served one inherits
    nothing of the local one's checkpointer, spec or anatomy."""
    from deepnb.session.graph_session import GraphSession

    remote = remote_workbench()
    assert isinstance(remote, GraphSession) and not isinstance(remote, Workbench)
    assert issubclass(Workbench, GraphSession) and not issubclass(RemoteWorkbench, Workbench)
    for kind in (Workbench, RemoteWorkbench):
        assert not kind.__abstractmethods__, kind  # every part left to a kind is written
    own = {name for name in vars(RemoteWorkbench) if not name.startswith("__")}
    assert {"threads", "inspect", "mcp", "file_setup", "cannot_rebuild", "_discard_thread"} <= own
    assert remote.checkpointer is None and remote.spec is None and remote.declared_spec is None


def test_something_without_the_session_methods_is_not_a_session() -> None:
    class Partial:
        name = "partial"
        label = "nothing"

        def start(self, prompt: str) -> None: ...

    assert not isinstance(Partial(), Session)


@pytest.mark.parametrize("kind", [Workbench, RemoteWorkbench])
@pytest.mark.parametrize("name", MEMBERS)
def test_the_workbench_keeps_the_protocols_signatures(name: str, kind: type) -> None:
    declared = vars(Session)[name]
    implemented = inspect.getattr_static(kind, name, None)
    if isinstance(declared, property):
        if implemented is None:  # an attribute set in __init__ (name, label)
            assert name in inspect.signature(Workbench.__init__).parameters, name
            return
        assert isinstance(implemented, property), f"{kind.__name__}.{name} should be a property"
        declared, implemented = declared.fget, implemented.fget
    assert implemented is not None, f"{kind.__name__} has no {name}"
    assert inspect.signature(implemented) == inspect.signature(declared), name


def test_history_lists_the_threads_checkpoints_newest_first() -> None:
    workbench = deepnb.agent(name=unique("history"), model="demo:quickstart")
    run = workbench.start("Write a brief about tide pools").wait(WAIT)
    assert run.status == "done", run.error
    steps = workbench.history(run.thread_id)
    assert len(steps) > 1
    assert [s.step for s in steps] == sorted((s.step for s in steps), reverse=True)
    assert steps[0].next == ()  # the run ended
    assert len({s.checkpoint_id for s in steps}) == len(steps)
    assert workbench.history("no-such-thread") == []


def test_stop_without_a_run_says_so() -> None:
    workbench = deepnb.agent(name=unique("stop"), model="demo:quickstart")
    with pytest.raises(DeepnbError, match="Nothing is running on thread 'idle'"):
        workbench.stop("idle")


def test_resume_with_decisions_decides_the_waiting_requests() -> None:
    gated = {"write_file": True, "edit_file": True}
    workbench = deepnb.agent(unique("decide"), "demo:approvals", interrupt_on=gated)
    run = workbench.run("Plan the launch")
    assert run.status == "interrupted"
    with pytest.raises(DeepnbError, match=r"waits for 1 decision\(s\), not 2"):
        workbench.resume(run.thread_id, decisions=[{"type": "approve"}, {"type": "approve"}])
    assert run.status == "interrupted" and len(run.pending) == 1  # nothing was sent
    resumed = workbench.resume(run.thread_id, decisions=[{"type": "approve"}])
    assert resumed is run
    run.wait(WAIT)
    assert {p.args["file_path"] for p in run.pending} == {"/announce.md", "/risks.md"}


def test_map_runs_a_batch_through_the_session() -> None:
    workbench = deepnb.agent(name=unique("mapped"), model="demo:quickstart")
    batch = workbench.map(["Write a brief about tide pools", "Write a brief about kelp"], concurrency=2)
    assert batch.session is workbench
    batch.wait(WAIT)
    assert batch.statuses == ["done", "done"], [run.error for run in batch.runs if run]
    assert all(isinstance(result, str) and result for result in batch.results)
