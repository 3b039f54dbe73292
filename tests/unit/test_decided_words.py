"""A decision and a call answered in the tool's place are said as the live view says them
(``widgets/src/run/decided.ts``; the same cases are in ``widgets/test/decided.test.ts``), in a
snapshot's HTML and text, and escaped."""

from __future__ import annotations

from typing import Any

from deepnb.core import events as ev
from deepnb.engine.state import RunState
from deepnb.views.run.decided import decision_words, not_run_words
from deepnb.views.run.snapshot import snapshot_html, snapshot_text


def you(kind: str, message: str = "", args: str = "", auto: bool = False) -> dict[str, Any]:
    return {"type": kind, "message": message, "args": args, "auto": auto}


DECISIONS = [
    (you("approve"), "✓ approved by you"),
    (you("approve", auto=True), "✓ approved by a rule"),
    (you("reject", "too risky"), "✗ rejected by you: too risky"),
    (you("respond", "use /b.md"), "↩ responded by you: use /b.md"),
    (you("edit", "ignored", "path='/b.md'"), "✎ edited by you: path='/b.md'"),
]

NOT_RUN = [
    ({"status": "done", "decision": you("respond", "x")}, ""),
    ({"status": "responded", "decision": you("respond", "use /b.md")}, "Not run: you responded in its place"),
    ({"status": "declined", "decision": you("reject", "too risky")}, "Not run: declined by you — too risky"),
    ({"status": "declined", "decision": you("reject", auto=True)}, "Not run: declined by a rule"),
    ({"status": "declined"}, "Not run: a result was given in its place"),
]


def test_words_are_the_live_views() -> None:
    for decision, words in DECISIONS:
        assert decision_words(decision) == words
    for item, words in NOT_RUN:
        assert not_run_words(item) == words


def gated(*calls: tuple[str, str]) -> RunState:
    """A run paused on one request gating ``calls`` (call id, path): each a waiting write_file card."""
    state = RunState(agent="a", thread_id="t")
    actions = []
    for call_id, path in calls:
        args = {"file_path": path, "content": "x"}
        state.apply(ev.ToolCallStarted("main", call_id, "write_file", args))
        actions.append({"name": "write_file", "args": args})
    value = {
        "action_requests": actions,
        "review_configs": [
            {"action_name": "write_file", "allowed_decisions": ["approve", "edit", "reject", "respond"]}
        ],
    }
    request = (ev.InterruptRequest("I1", value),)
    state.apply(ev.Interrupted("main", request))
    state.apply(ev.RunPaused("main", request))
    return state


def test_a_rejected_call_of_a_request_that_still_waits_says_who_declined_it() -> None:
    state = gated(("c1", "/a.md"), ("c2", "/b.md"))
    reject = {"type": "reject", "message": "<b>too</b> risky"}
    state.apply(ev.DecisionMade("main", "I1", 0, "write_file", reject))
    html, text = snapshot_html(state.to_json()), snapshot_text(state.to_json())
    assert "— ✗ rejected by you: &lt;b&gt;too&lt;/b&gt; risky" in html and "<b>too</b>" not in html
    assert "write_file(file_path='/a.md', content='x') — ✗ rejected by you: <b>too</b> risky" in text
    assert "Waiting for approval: write_file(file_path='/b.md', content='x')" in text
    assert "write_file: ✗ rejected by you: <b>too</b> risky" in text  # the decision log, in the same words


def test_a_responded_call_says_it_never_ran_and_the_response_stood_in() -> None:
    state = gated(("c1", "/a.md"), ("c2", "/b.md"))
    state.apply(
        ev.DecisionMade("main", "I1", 0, "write_file", {"type": "respond", "message": "use <i>/c.md</i>"})
    )
    state.apply(ev.DecisionMade("main", "I1", 1, "write_file", {"type": "reject", "message": ""}, auto=True))
    state.apply(ev.RunResumed("main", ("I1",)))
    state.apply(ev.ToolCallFinished("main", "c1", "write_file", "use <i>/c.md</i>", executed=False))
    state.apply(ev.ToolCallFinished("main", "c2", "write_file", "Rejected", executed=False))
    cards = {item["id"]: item for item in state.to_json()["items"] if item["kind"] == "tool"}
    assert [card["status"] for card in cards.values()] == ["responded", "declined"]
    html, text = snapshot_html(state.to_json()), snapshot_text(state.to_json())
    assert 'data-status="responded"' in html and "✓" not in html.split("Decisions")[0]
    assert '<div class="dnb-tool-not-run"><i>Not run: you responded in its place</i></div>' in html
    assert "→ use &lt;i&gt;/c.md&lt;/i&gt;" in html and "<i>/c.md" not in html
    assert "[responded] → use <i>/c.md</i>\n    Not run: you responded in its place" in text
    assert "[declined] → Rejected\n    Not run: declined by a rule" in text


def test_a_long_message_is_clipped_on_the_card_and_kept_whole_in_the_log() -> None:
    state = gated(("c1", "/a.md"))
    long = "no " * 500
    state.apply(ev.DecisionMade("main", "I1", 0, "write_file", {"type": "reject", "message": long}))
    (card,) = [item for item in state.to_json()["items"] if item["kind"] == "tool"]
    assert len(card["decision"]["message"]) <= 160 < len(long)
    assert state.to_json()["decisions"][0]["message"] == long
