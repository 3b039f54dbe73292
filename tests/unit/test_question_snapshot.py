"""A raw interrupt's value in the static snapshot: a string as text, an object as fields with
nested values as JSON, everything escaped; a huge value is clipped to fit the view's messages."""

from __future__ import annotations

from deepnb.core import events as ev
from deepnb.engine.state import RunState
from deepnb.views.bounds import TRAIT_BUDGETS, bounded_pending, size
from deepnb.views.run.snapshot import snapshot_html, snapshot_text
from tests.support.lab_sanitizer import unstyled


def paused(*values: object, agent: str = "main") -> RunState:
    state = RunState(agent="a", thread_id="t")
    requests = tuple(ev.InterruptRequest(id=f"q{n}", value=v) for n, v in enumerate(values))
    state.apply(ev.Interrupted(agent, requests))
    state.apply(ev.RunPaused(ev.MAIN, requests))
    return state


def test_a_string_question_is_shown_as_escaped_text() -> None:
    state = paused("<img src=x onerror=alert(1)> Your name?").to_json()
    html, text = unstyled(snapshot_html(state)), snapshot_text(state)
    assert "waiting for your answer" in html and "waiting for your approval" not in html
    assert "&lt;img src=x onerror=alert(1)&gt; Your name?" in html
    assert "<img" not in html
    assert "Waiting for your answer:\n  <img src=x onerror=alert(1)> Your name?" in text


def test_a_dict_is_shown_as_fields_with_nested_values_as_json() -> None:
    form = {"title": "Pick <b>one</b>", "options": ["a", "<script>"], "limit": 3}
    state = paused(form, agent="main/general-purpose")
    state.apply(ev.Interrupted("main/general-purpose", (ev.InterruptRequest("q0", form),)))
    html = unstyled(snapshot_html(state.to_json()))
    assert "<dt>title</dt><dd>Pick &lt;b&gt;one&lt;/b&gt;</dd>" in html
    assert (
        "<dt>options</dt><dd><code>[\n  &quot;a&quot;,\n  &quot;&lt;script&gt;&quot;\n]</code></dd>" in html
    )
    assert "<dt>limit</dt><dd><code>3</code></dd>" in html
    assert "<script>" not in html
    text = snapshot_text(state.to_json())
    assert "Waiting for your answer (in subagent general-purpose):\n  title: Pick <b>one</b>" in text
    assert '  options: [\n  "a",' in text


def test_an_answered_question_says_so_and_the_head_follows_the_pending_kind() -> None:
    state = paused("Name?")
    state.apply(ev.InterruptAnswered(ev.MAIN, "q0", "Ada"))
    assert state.pending[0]["answer"] == "Ada"
    assert "Answered: Ada" in snapshot_html(state.to_json())
    mixed = paused("Name?", {"action_requests": [{"name": "write_file", "args": {}}], "review_configs": []})
    assert "waiting for your approval" in snapshot_text(mixed.to_json())


def test_huge_questions_are_clipped_to_the_pending_budget() -> None:
    state = paused(*({"blob": "x" * 1900, "n": n} for n in range(30)))
    assert all(p["value"] is not None for p in state.pending)
    bounded = bounded_pending(state.to_json()["pending"])
    assert size(bounded) <= TRAIT_BUDGETS["pending"]
    assert all(p["value"] is None and p["value_json"] for p in bounded)
