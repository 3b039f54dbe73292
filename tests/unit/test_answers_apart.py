"""The final answer is set apart from the last tool card, and an opened subagent shows its answer
once (its own transcript ends with it): in the static snapshot as in the live view."""

from __future__ import annotations

import deepnb
from deepnb.core import events as ev
from deepnb.engine.state import RunState
from deepnb.views.run.snapshot import final_answer_id, snapshot_html, snapshot_text
from deepnb.views.run.subagent_tree import same_answer
from tests.support.agents import scripted, unique
from tests.support.lab_sanitizer import unstyled

SUB = "main/general-purpose"
ANSWER = "The market grew 12% in 2025, led by exports."


def a_run(*, finished: bool = True) -> RunState:
    state = RunState(agent="a", thread_id="t")
    events: list[ev.Event] = [
        ev.RunStarted("main", "t", "Research it"),
        ev.ToolCallStarted(
            "main", "c1", "task", {"description": "research", "subagent_type": "general-purpose"}
        ),
        ev.SubagentStarted("main", "T1", "c1", "general-purpose", "research", SUB),
        ev.ModelTurn(SUB, ANSWER, (), 10, 5),
        ev.ToolCallFinished("main", "c1", "task", ANSWER),
        ev.ModelTurn("main", "Growth was **12%**.", (), 10, 5),
    ]
    if finished:
        events.append(ev.RunFinished("main", "Growth was 12%."))
    for event in events:
        state.apply(event)
    return state


def test_the_final_answer_is_set_apart_once_the_run_is_done() -> None:
    html = unstyled(snapshot_html(a_run().to_json()))
    final = html.split('<div class="dnb-final-answer"', 1)
    assert len(final) == 2 and '<span class="dnb-final-label">Answer</span>' in final[1]
    assert "Growth was <strong>12%</strong>" in final[1] and "task" not in final[1].split("</div></div>")[0]
    assert '<div class="dnb-final-answer"' not in snapshot_html(a_run(finished=False).to_json())


def test_final_answer_id_wants_the_main_agents_text_last() -> None:
    text = {"kind": "text", "id": "i9", "agent": "main"}
    tool = {"kind": "tool", "id": "tool-c1", "agent": "main"}
    assert final_answer_id([tool, text], "done") == "i9"
    assert final_answer_id([text, tool], "done") is None
    assert final_answer_id([tool, text], "error") is None
    assert final_answer_id([tool, {**text, "agent": SUB}], "done") is None


def test_a_subagents_answer_shows_once_in_the_tree() -> None:
    data = a_run().to_json()
    html, text = unstyled(snapshot_html(data)), snapshot_text(data)
    tree_html = html.split('<div class="deepnb-tree">', 1)[1].split("</ul></div>", 1)[0]
    assert tree_html.count("12% in 2025") == 1 and "Result:" not in tree_html
    tree_text = text.split("Subagents (1):", 1)[1].split("› Research it", 1)[0]
    assert tree_text.count("12% in 2025") == 1


def test_same_answer_matches_the_words_or_a_clipped_preview() -> None:
    assert same_answer("The  market\ngrew.", "The market grew.")
    assert same_answer("The market grew 12% in 2025.", "The market grew…")
    assert not same_answer("The market shrank.", "The market grew.")
    assert not same_answer("", "x") and not same_answer("x", "")


def test_a_subagents_answer_is_shown_once_in_the_whole_run() -> None:
    """A real run on a scripted model: the tree shows the answer, the task card points to it."""
    answer = "High tide at 06:12, low at 12:30."
    model = scripted(
        {
            "main": [
                {
                    "tool_calls": [
                        {"name": "task", "args": {"subagent_type": "general-purpose", "description": "Tides"}}
                    ]
                },
                {"text": "Done."},
            ],
            "general-purpose": [{"text": answer}],
        }
    )
    run = deepnb.agent(unique("once"), model).start("go").wait(60)
    assert run.status == "done", run.error
    data = run.state.to_json()
    html, text = snapshot_html(data), snapshot_text(data)
    assert text.count("High tide at 06:12") == 1 and html.count("High tide at 06:12") == 1
    (card,) = [item for item in data["items"] if item["kind"] == "tool"]
    assert card["result"] == "answered: see general-purpose in Subagents"
    assert card["result_full"] == answer  # opened, the card still holds what the parent received
