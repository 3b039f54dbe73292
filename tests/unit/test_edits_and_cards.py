"""After an Edit the tool card shows the approved arguments, marked edited, and the decision log
the change; an approval card shows a description only when someone wrote one."""

from __future__ import annotations

from deepnb.core import events as ev
from deepnb.engine.card_text import args_diff, own_description, readable_args
from deepnb.engine.state import RunState
from deepnb.views.run.snapshot import snapshot_html, snapshot_text
from tests.support.lab_sanitizer import unstyled

ARGS = {"file_path": "/report.md", "content": "# Report\nDraft one\n"}
EDITED = {"file_path": "/report.md", "content": "# Report\nFinal copy\n"}
GENERATED = f"Tool execution requires approval\n\nTool: write_file\nArgs: {ARGS}"


def gate(description: str = GENERATED) -> ev.InterruptRequest:
    return ev.InterruptRequest(
        "i1",
        {
            "action_requests": [{"name": "write_file", "args": ARGS, "description": description}],
            "review_configs": [{"action_name": "write_file", "allowed_decisions": ["approve", "edit"]}],
        },
    )


def paused(description: str = GENERATED) -> RunState:
    state = RunState(agent="a", thread_id="t")
    for event in (
        ev.RunStarted("main", "t", "write it"),
        ev.ToolCallStarted("main", "c1", "read_file", {"file_path": "/notes.md"}),
        ev.ToolCallStarted("main", "c2", "write_file", dict(ARGS)),
        ev.RunPaused("main", (gate(description),)),
    ):
        state.apply(event)
    return state


def edit(state: RunState) -> None:
    decision = {"type": "edit", "edited_action": {"name": "write_file", "args": EDITED}}
    state.apply(ev.DecisionMade("main", "i1", 0, "write_file", decision))


def test_an_edit_shows_on_the_tool_card_it_gated() -> None:
    state = paused()
    edit(state)
    cards = {item["id"]: item for item in state.items if item["kind"] == "tool"}
    assert cards["tool-c2"]["edited"] is True
    assert "Final copy" in cards["tool-c2"]["args_full"] and "Draft one" not in cards["tool-c2"]["args_full"]
    assert "Final copy" in cards["tool-c2"]["args"]
    assert "edited" not in cards["tool-c1"]
    html, text = unstyled(snapshot_html(state.to_json())), snapshot_text(state.to_json())
    assert 'class="dnb-badge dnb-edited"' in html
    assert "write_file(file_path='/report.md', content='# Report Final copy') [✎ edited]" in text


def test_the_decision_log_shows_the_diff_from_proposed_to_approved() -> None:
    state = paused()
    edit(state)
    (entry,) = state.decisions
    diff = entry["diff"].splitlines()
    assert diff[:2] == ["--- proposed", "+++ approved"]
    assert diff[3:] == [" content:", "   # Report", "-  Draft one", "+  Final copy"]  # the text, line by line
    html, text = unstyled(snapshot_html(state.to_json())), snapshot_text(state.to_json())
    assert '<span class="dnb-del">-  Draft one\n</span><span class="dnb-add">+  Final copy\n</span>' in html
    assert "    +  Final copy" in text


def test_an_approval_leaves_the_card_unmarked() -> None:
    state = paused()
    state.apply(ev.DecisionMade("main", "i1", 0, "write_file", {"type": "approve"}))
    card = next(i for i in state.items if i["id"] == "tool-c2")
    assert "edited" not in card and "diff" not in state.decisions[0]


def test_the_middlewares_own_description_is_left_out_a_written_one_kept() -> None:
    assert paused().pending[0]["actions"][0]["description"] == ""
    assert paused("Check the path first").pending[0]["actions"][0]["description"] == "Check the path first"
    custom_prefix = f"Careful: writes to disk\n\nTool: write_file\nArgs: {ARGS}"
    assert own_description(custom_prefix, "write_file") == "Careful: writes to disk"


def test_args_diff_is_empty_when_nothing_changed() -> None:
    assert args_diff('{\n  "a": 1\n}', '{\n  "a": 1\n}') == ""


def test_the_snapshot_shows_a_written_description_and_not_the_generated_one() -> None:
    written, generated = paused("Check the path first").to_json(), paused().to_json()
    assert "<i>Check the path first</i>" in snapshot_html(written)
    assert "\n  Check the path first" in snapshot_text(written)
    assert "Tool execution requires approval" not in snapshot_html(generated) + snapshot_text(generated)


def test_a_cards_arguments_read_as_values_a_files_content_as_its_lines() -> None:
    state = paused()
    card = next(i for i in state.items if i["kind"] == "tool" and i["name"] == "write_file")
    assert card["args_full"] == "file_path: /report.md\ncontent:\n  # Report\n  Draft one\n"
    listed = readable_args({"todos": [{"content": "a", "status": "pending"}], "limit": 5, "flag": True})
    assert listed.splitlines() == [
        "todos:",
        "  [",
        "    {",
        '      "content": "a",',
        '      "status": "pending"',
        "    }",
        "  ]",
        "limit: 5",
        "flag: true",
    ]
