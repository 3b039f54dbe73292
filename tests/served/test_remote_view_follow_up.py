"""The run view's box on a connected agent (a real ``langgraph dev``, offline, scripted): a
follow-up sent from the view of a failed run goes on the same server thread and streams in the
same view, approval cards included; steering it is refused in one line, as the view shows it."""

from __future__ import annotations

from typing import Any

import deepnb
from deepnb.views.output import view_snapshot
from deepnb.views.run.run_view import RunView
from tests.support.agents import unique
from tests.support.servers import AgentServer, agent_server_fixture, offline_client_fixture
from tests.support.waiting import WAIT

RESULT = "Done: the launch is in May, notes in /notes.md."

agent_server = agent_server_fixture()
offline_client = offline_client_fixture()


def test_a_follow_up_from_the_view_of_a_connected_agent(agent_server: AgentServer) -> None:
    bench = deepnb.connect(agent_server.url, "deep", name=unique("remote-box"))
    first = bench.run("Fail now", new_thread=True)
    assert first.status == "error"
    view = RunView(first)
    replies: list[dict[str, Any]] = []
    view.send = lambda content, buffers=None: replies.append(content)  # type: ignore[method-assign]

    view._on_front_end_message(view, {"type": "follow_up", "prompt": "Plan the launch"}, [])
    assert [r for r in replies if r.get("type") == "composed"] == [
        {"type": "composed", "kind": "follow_up", "error": ""}
    ]
    later = view.run.wait(WAIT)
    assert later is not first and first.follow_ups == [later] and later.thread_id == first.thread_id
    assert later.status == "interrupted", later.error
    view.sync()
    assert view.status == "interrupted" and [a["name"] for p in view.pending for a in p["actions"]] == [
        "write_file"
    ]
    (turn,) = view.turns
    assert turn["status"] == "error" and "The model broke." in turn["error"]

    # a connected agent cannot be steered: one line, and nothing changes
    view._on_front_end_message(view, {"type": "steer", "message": "Be quick."}, [])
    refusal = [r for r in replies if r.get("type") == "composed"][-1]
    assert "cannot be steered" in refusal["error"] and "\n" not in refusal["error"]

    # the new turn's approval card works like any other
    (request,) = view.pending
    card = {"type": "decide", "interrupt_id": request["id"], "index": 0, "decision": {"type": "approve"}}
    view._on_front_end_message(view, card, [])
    later.wait(WAIT)
    assert later.status == "done" and later.result == RESULT, later.error
    text = view_snapshot(view)["text/plain"]
    assert text.index("Fail now") < text.index("Follow-up 1") < text.index("Plan the launch")
    assert f"-a {bench.name} -t {first.thread_id}" in text
    view.close()
