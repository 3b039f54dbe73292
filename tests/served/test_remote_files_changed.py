"""A connected run lists the files its served agent's tools changed outside the thread's state
(a folder of the server's machine), as a run in the kernel lists those of a local agent: under
"Files changed", and through the run's events that open file views of its thread follow;
against a real ``langgraph dev`` server."""

from __future__ import annotations

import deepnb
from deepnb.core import events as ev
from deepnb.views.run.snapshot import snapshot_text
from tests.support.agents import unique
from tests.support.servers import AgentServer, agent_server_fixture, offline_client_fixture
from tests.support.waiting import WAIT

CHANGED = ["/kept.txt", "/made.txt", "/report.md", "/gone.txt"]

agent_server = agent_server_fixture()
offline_client = offline_client_fixture()


def test_files_a_served_agents_tools_changed_on_its_server_are_listed(agent_server: AgentServer) -> None:
    bench = deepnb.connect(agent_server.url, "disk", name=unique("disk"))
    seen: list[ev.Event] = []
    run = bench.start("Tidy up")
    run.subscribe(seen.append)
    assert run.wait(WAIT).status == "done", run.error
    assert run.state.files_changed == CHANGED
    assert "Files changed: " + ", ".join(sorted(CHANGED)) in snapshot_text(run.snapshot().state).splitlines()
    told = [e for e in seen if isinstance(e, ev.FilesChanged)]
    assert [(e.written, e.deleted) for e in told] == [
        (("/kept.txt", "/made.txt"), ()),
        (("/report.md",), ()),
        ((), ("/gone.txt",)),
    ]
    # each as its tool call returns, before the model's next turn
    kinds = [type(e).__name__ for e in seen]
    first = kinds.index("FilesChanged")
    assert kinds.index("ModelTurn", first) > first > kinds.index("ToolCallStarted")
