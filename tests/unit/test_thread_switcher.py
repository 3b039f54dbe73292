"""The run view's thread switcher, as Python answers it through the session protocol: the agent's
threads, and one thread's latest state, read-only, escaped, secrets removed, one message each."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

import deepnb
from deepnb.views.run.thread_preview import PREVIEW_BUDGET, message_html, thread_html
from tests.support.view_messages import message_size


@pytest.fixture(scope="module")
def two_threads() -> Any:
    wb = deepnb.agent(f"switch-{uuid.uuid4().hex[:6]}", "demo:research")
    first = wb.run("Research how deep agents plan.")
    wb.new_thread()
    second = wb.run("Research how tide pools <b>breathe</b>.")
    assert first.status == second.status == "done" and first.thread_id != second.thread_id
    return first, second


def _replies(view: Any, message: dict[str, Any]) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []
    view.send = sent.append
    view._on_front_end_message(view, message, [])
    return sent


def test_the_switcher_lists_the_agents_threads_and_shows_one(two_threads: Any) -> None:
    from deepnb.views.run.run_view import RunView

    first, second = two_threads
    view = RunView(second)
    try:
        (listing,) = _replies(view, {"type": "threads"})
        assert listing["type"] == "threads" and listing["error"] == ""
        ids = [row["thread_id"] for row in listing["threads"]]
        assert ids[:2] == [second.thread_id, first.thread_id]  # newest first
        assert all(row["steps"] > 0 for row in listing["threads"][:2])

        (shown,) = _replies(view, {"type": "show_thread", "thread_id": first.thread_id})
        assert shown["type"] == "thread" and shown["error"] == "" and shown["thread_id"] == first.thread_id
        assert "Research how deep agents plan." in shown["html"] and shown["messages"] > 2
        assert "tide pools" not in shown["html"]  # the other thread's
        assert view.run is second and view.thread_id == second.thread_id  # read-only: the view stays
        assert message_size(shown) <= 64 * 1024

        (other,) = _replies(view, {"type": "show_thread", "thread_id": second.thread_id})
        assert "&lt;b&gt;breathe&lt;/b&gt;" in other["html"] and "<b>breathe" not in other["html"]

        (missing,) = _replies(view, {"type": "show_thread", "thread_id": "not-a-thread"})
        assert missing["html"] == "" and "has no thread 'not-a-thread'" in missing["error"]
    finally:
        view.close()


def test_a_long_threads_preview_keeps_its_newest_messages_within_budget() -> None:
    messages = [{"type": "human", "content": "the first question"}]
    for n in range(400):
        messages.append({"type": "ai", "content": f"answer {n} " + "word " * 200, "tool_calls": []})
    html = thread_html({"messages": messages, "todos": [{"content": "check", "status": "in_progress"}]})
    assert message_size(html) <= PREVIEW_BUDGET + 1024
    assert "answer 399" in html and "the first question" not in html
    assert "earlier messages not shown" in html and "check" in html


def test_each_message_kind_is_escaped_and_secrets_are_removed(monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-live-" + "a1b2c3d4" * 4
    monkeypatch.setenv("DEEPNB_TEST_API_KEY", secret)
    call = {"name": "write_file", "args": {"file_path": "/<x>.md", "content": secret}}
    html = "".join(
        message_html(m)
        for m in (
            {"type": "human", "content": f"<script>alert(1)</script> {secret}"},
            {"type": "ai", "content": [{"type": "text", "text": "**done**"}], "tool_calls": [call]},
            {"type": "tool", "name": "write_file", "content": "Updated file /<x>.md"},
        )
    )
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "<strong>done</strong>" in html and "→ write_file(" in html and "/&lt;x&gt;.md" in html
    assert secret not in html
