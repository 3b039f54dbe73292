"""Approval cards stay within the message bounds: a gated ``write_file`` of a 200 KB file (and a
second gated call beside it) reaches the front-end shortened, in no message over 64 KB, its card
marked ``clipped``; approving it writes the whole file, and an edit from that card (which could
only hold the shortened text) is refused with nothing sent."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import comm
import pytest

import deepnb
from deepnb.views.bounds import MESSAGE_LIMIT
from tests.support.agents import scripted, unique
from tests.support.view_messages import message_size

CONTENT = "".join(f"line {n:06d}: the agent writes a long report, part by part.\n" for n in range(3500))
SMALL = {"file_path": "/small.md", "content": "small"}
TURNS = [
    {
        "text": "Writing the report and a note.",
        "tool_calls": [
            {"name": "write_file", "args": {"file_path": "/report.md", "content": CONTENT}},
            {"name": "write_file", "args": SMALL},
        ],
    },
    "Done.",
]


@pytest.fixture
def gated(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """A run paused on the two writes, shown in a real RunView, every comm message recorded."""
    from deepnb.views.run.run_view import RunView

    assert len(CONTENT) > 200_000
    sent: list[dict[str, Any]] = []

    def publish(self: Any, msg_type: str, data: Any = None, *args: Any, **keys: Any) -> None:
        sent.append(data or {})

    monkeypatch.setattr(comm.DummyComm, "publish_msg", publish)
    wb = deepnb.agent(unique("card-bounds"), scripted({"main": TURNS}), interrupt_on={"write_file": True})
    run = wb.start("Write the report.", thread=uuid.uuid4().hex).wait(60)
    assert run.status == "interrupted" and [p.name for p in run.pending] == ["write_file", "write_file"]
    view = RunView(run)
    view.sync()
    late = RunView(run)  # displayed again while it waits
    yield {"run": run, "view": view, "sent": sent}
    late.close()
    view.close()
    run.stop()


def _cards(view: Any) -> list[dict[str, Any]]:
    return [action for request in view.pending for action in request["actions"]]


def test_no_message_carries_the_whole_arguments(gated: dict[str, Any]) -> None:
    sent = gated["sent"]
    assert len(sent) > 2
    largest = max(message_size(data) for data in sent)  # the view's code included
    assert largest <= MESSAGE_LIMIT, f"largest message {largest:,} bytes"
    big, small = _cards(gated["view"])
    assert big["clipped"] is True and "run.pending[i].edit({...})" in big["args_json"]
    assert len(big["args_json"]) < len(CONTENT) and len(big["description"]) < len(CONTENT)
    assert not small.get("clipped") and json.loads(small["args_json"]) == SMALL  # still editable


def test_approving_a_clipped_card_writes_the_whole_file(gated: dict[str, Any]) -> None:
    run, view = gated["run"], gated["view"]
    iid = view.pending[0]["id"]
    for index in (0, 1):
        view._on_front_end_message(
            view, {"type": "decide", "interrupt_id": iid, "index": index, "decision": {"type": "approve"}}, []
        )
    assert view.card_errors == {}
    run.wait(60)
    assert run.status == "done"
    assert run.files.read_bytes("/report.md").decode() == CONTENT
    assert run.files.read_bytes("/small.md").decode() == "small"


def test_an_edit_from_a_clipped_card_is_refused(gated: dict[str, Any]) -> None:
    run, view = gated["run"], gated["view"]
    iid = view.pending[0]["id"]
    sent: list[Any] = []
    run.decide = lambda *args, **keys: sent.append(args)  # nothing may reach the engine
    shown = json.loads(_cards(view)[1]["args_json"])
    forged = {"file_path": "/report.md", "content": CONTENT[:5000]}  # what the card could hold
    for args in (forged, json.dumps(forged)):
        view._on_front_end_message(
            view,
            {"type": "decide", "interrupt_id": iid, "index": 0, "decision": {"type": "edit", "args": args}},
            [],
        )
        error = view.card_errors[f"{iid}:0"]
        assert "shortened" in error and "run.pending[i].edit" in error and "\n" not in error
    assert sent == [] and run.status == "interrupted"
    # the card whose arguments were shown whole can still be edited
    view._on_front_end_message(
        view,
        {"type": "decide", "interrupt_id": iid, "index": 1, "decision": {"type": "edit", "args": shown}},
        [],
    )
    assert len(sent) == 1 and f"{iid}:1" not in view.card_errors
