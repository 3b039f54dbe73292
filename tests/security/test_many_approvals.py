"""Many approvals at once keep the 64 KB-per-message rule: 300 parallel gated calls (a hostile
server's 3,000) reach the front end a page of cards at a time, never in a message over 64 KB;
the page says how many wait in all, the front end pages through them, and Approve all / Reject
all decide every one of them, on every page, once the count matches what the button showed."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any

import comm
import pytest

import deepnb
from deepnb.models.scripted import ScriptedChatModel, parse_script
from deepnb.views.bounds import MESSAGE_LIMIT
from deepnb.views.run.approval_pages import PAGE_CARDS
from deepnb.views.run.snapshot import snapshot_html, snapshot_text
from tests.support.agents import unique
from tests.support.view_messages import message_size


def _turns(count: int) -> list[Any]:
    calls = [
        {"name": "write_file", "args": {"file_path": f"/notes/{n:05d}.md", "content": f"note {n} " * 20}}
        for n in range(count)
    ]
    return [{"text": f"Writing {count} notes at once.", "tool_calls": calls}, "Done."]


@pytest.fixture(params=[300, 3000], ids=["300", "3000"])
def waiting(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """A run paused on ``count`` gated writes, shown in a RunView, every comm message recorded."""
    from deepnb.views.run.run_view import RunView

    count = request.param
    sent: list[dict[str, Any]] = []

    def publish(self: Any, msg_type: str, data: Any = None, *args: Any, **keys: Any) -> None:
        sent.append(data or {})

    monkeypatch.setattr(comm.DummyComm, "publish_msg", publish)
    model = ScriptedChatModel(
        script=parse_script({"agents": {"main": _turns(count)}, "summaries": {"main": "Notes written."}})
    )  # thousands of tool results make the conversation long enough to be summarized
    bench = deepnb.agent(unique("many"), model, interrupt_on={"write_file": True})
    run = bench.start("Write the notes.", thread=uuid.uuid4().hex).wait(120)
    assert run.status == "interrupted" and len(run.pending) == count
    view = RunView(run)
    view.sync()
    yield {"count": count, "run": run, "view": view, "sent": sent}
    view.close()
    if run.status == "interrupted":
        run.stop()


def _cards(view: Any) -> list[dict[str, Any]]:
    return [action for request in view.pending for action in request["actions"]]


def _send(view: Any, content: dict[str, Any]) -> None:
    view._on_front_end_message(view, content, [])


def test_a_page_of_cards_at_a_time_and_no_message_over_the_limit(waiting: dict[str, Any]) -> None:
    count, view, sent = waiting["count"], waiting["view"], waiting["sent"]
    assert max(message_size(data) for data in sent) <= MESSAGE_LIMIT
    assert len(_cards(view)) == PAGE_CARDS
    page = view.pending_page
    assert (page["page"], page["first"], page["last"], page["cards"]) == (0, 1, PAGE_CARDS, count)
    assert page["pages"] == -(-count // PAGE_CARDS) and page["approvable"] == page["rejectable"] == count

    _send(view, {"type": "pending_page", "page": 3})
    assert view.pending_page["first"] == 3 * PAGE_CARDS + 1
    assert [c["index"] for c in _cards(view)] == list(range(3 * PAGE_CARDS, 4 * PAGE_CARDS))
    _send(view, {"type": "pending_page", "page": 10**6})  # past the last: the last
    assert view.pending_page["page"] == view.pending_page["pages"] - 1
    assert max(message_size(data) for data in sent) <= MESSAGE_LIMIT


def test_a_decision_from_another_page_names_its_card(waiting: dict[str, Any]) -> None:
    view, run = waiting["view"], waiting["run"]
    _send(view, {"type": "pending_page", "page": 2})
    card = _cards(view)[5]
    iid = view.pending[0]["id"]
    _send(
        view, {"type": "decide", "interrupt_id": iid, "index": card["index"], "decision": {"type": "reject"}}
    )
    assert view.card_errors == {}
    assert len(run.pending) == waiting["count"] - 1


def test_reject_all_needs_the_count_the_button_showed(waiting: dict[str, Any]) -> None:
    count, view, run = waiting["count"], waiting["view"], waiting["run"]
    _send(view, {"type": "decide_every", "act": "reject", "expected": count - 1})
    assert "nothing was sent" in view.card_errors["every"] and len(run.pending) == count
    _send(view, {"type": "decide_every", "act": "launch", "expected": count})
    assert "Approve all or Reject all" in view.card_errors["every"] and len(run.pending) == count


# 300 only: 3,000 approved writes then take the graph itself about 40 s to run, while deciding
# them takes under a second (the test above, run with 3,000, checks every one is decided)
@pytest.mark.parametrize("waiting", [300], indirect=True, ids=["300"])
def test_approve_all_decides_every_page_and_the_run_ends(waiting: dict[str, Any]) -> None:
    count, view, run = waiting["count"], waiting["view"], waiting["run"]
    started = time.monotonic()
    _send(view, {"type": "decide_every", "act": "approve", "expected": count})
    assert "every" not in view.card_errors
    assert len(run.decisions) == count and {d["type"] for d in run.decisions} == {"approve"}
    run.wait(240)
    assert run.status == "done", run.error
    assert len([p for p in run.files if p.startswith("/notes/")]) == count
    assert time.monotonic() - started < 240
    view.sync()
    assert max(message_size(data) for data in waiting["sent"]) <= MESSAGE_LIMIT


def test_a_snapshot_draws_a_page_and_counts_the_rest(waiting: dict[str, Any]) -> None:
    count, run = waiting["count"], waiting["run"]
    state = run.state.to_json()
    html, text = snapshot_html(state), snapshot_text(state)
    assert html.count("Waiting for approval:") == PAGE_CARDS
    assert f"… and {count - PAGE_CARDS:,} more waiting" in text and f"{count - PAGE_CARDS:,} more" in html
