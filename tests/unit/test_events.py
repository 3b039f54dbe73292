"""EventTranslator on real deepagents stream chunks, and on hand-made chunks for rarer shapes."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

import pytest
from langchain_core.messages import AIMessage, AIMessageChunk, ToolMessage

from deepnb.core import events as ev
from tests.support.agents import scripted, stream_chunks

TODOS = [
    {"content": "Read the brief", "status": "completed"},
    {"content": "Write <the> notes", "status": "in_progress"},
]
MAIN_SCRIPT = {
    "main": [
        {
            "text": "Let me plan this first.",
            "tool_calls": [
                {"name": "write_todos", "args": {"todos": TODOS}},
                {"name": "write_file", "args": {"file_path": "/notes/a.md", "content": "hello"}},
            ],
        },
        {"text": "All done: the notes are in /notes/a.md."},
    ]
}


def _deep_agent(model: Any, **options: Any) -> Any:
    from deepagents import create_deep_agent
    from langchain.agents.middleware import TodoListMiddleware
    from langgraph.checkpoint.memory import InMemorySaver

    return create_deep_agent(
        model=model, middleware=[TodoListMiddleware()], checkpointer=InMemorySaver(), **options
    )


def _translate(chunks: list[tuple]) -> list[ev.Event]:
    """The events of ``chunks`` but the nodes' starts and ends (test_graph_path.py has those)."""
    translator = ev.EventTranslator()
    nodes = (ev.NodeStarted, ev.NodeFinished)
    return [
        event for chunk in chunks for event in translator.translate(chunk) if not isinstance(event, nodes)
    ]


def _collapse(kinds: list[str]) -> list[str]:
    """Event type names with runs of TextDelta folded into one."""
    out: list[str] = []
    for kind in kinds:
        if not (kind == "TextDelta" and out and out[-1] == "TextDelta"):
            out.append(kind)
    return out


def _check_text_matches_turns(events: list[ev.Event]) -> None:
    """For every agent, the deltas since its previous ModelTurn concatenate to the turn's text."""
    pending: dict[str, str] = defaultdict(str)
    for event in events:
        if isinstance(event, ev.TextDelta):
            pending[event.agent] += event.text
        elif isinstance(event, ev.ModelTurn):
            assert pending.pop(event.agent, "") == event.text, event
    assert not any(pending.values()), f"text deltas with no model turn: {dict(pending)}"


def _check_tool_pairs(events: list[ev.Event]) -> None:
    started: dict[str, ev.ToolCallStarted] = {}
    finished: set[str] = set()
    for event in events:
        if isinstance(event, ev.ToolCallStarted):
            assert event.call_id not in started, f"call id {event.call_id} started twice"
            started[event.call_id] = event
        elif isinstance(event, ev.ToolCallFinished):
            assert event.call_id in started, f"{event.call_id} finished before it started"
            assert event.call_id not in finished
            assert event.name == started[event.call_id].name
            assert event.agent == started[event.call_id].agent
            finished.add(event.call_id)
    assert finished == set(started)


# -- the main agent ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def main_events() -> list[ev.Event]:
    graph = _deep_agent(scripted(MAIN_SCRIPT))
    return _translate(stream_chunks(graph, "Take some notes"))


def test_main_agent_event_sequence(main_events: list[ev.Event]) -> None:
    kinds = _collapse([type(e).__name__ for e in main_events])
    # The two tool calls run in parallel: their results may come in either order.
    assert kinds[:4] == ["TextDelta", "ModelTurn", "ToolCallStarted", "ToolCallStarted"]
    assert Counter(kinds[4:8]) == Counter(
        ["ToolCallFinished", "TodosChanged", "ToolCallFinished", "FilesChanged"]
    )
    assert kinds[8:] == ["TextDelta", "ModelTurn"]
    assert {e.agent for e in main_events} == {"main"}
    # A state change follows the result of the tool that made it.
    for index, event in enumerate(main_events):
        if isinstance(event, ev.TodosChanged | ev.FilesChanged):
            before = main_events[index - 1]
            assert isinstance(before, ev.ToolCallFinished)
            expected = "write_todos" if isinstance(event, ev.TodosChanged) else "write_file"
            assert before.name == expected


def test_main_agent_text_and_turns(main_events: list[ev.Event]) -> None:
    _check_text_matches_turns(main_events)
    turns = [e for e in main_events if isinstance(e, ev.ModelTurn)]
    assert [t.text for t in turns] == [turn["text"] for turn in MAIN_SCRIPT["main"]]
    assert [c["name"] for c in turns[0].tool_calls] == ["write_todos", "write_file"]
    assert turns[1].tool_calls == ()
    assert all(t.input_tokens > 0 and t.output_tokens > 0 for t in turns)
    # Several deltas per turn: the text streams rather than arriving whole.
    assert sum(isinstance(e, ev.TextDelta) for e in main_events) > 2


def test_main_agent_tool_calls_pair_up(main_events: list[ev.Event]) -> None:
    _check_tool_pairs(main_events)
    started = {e.name: e for e in main_events if isinstance(e, ev.ToolCallStarted)}
    assert started["write_file"].args == {"file_path": "/notes/a.md", "content": "hello"}
    finished = [e for e in main_events if isinstance(e, ev.ToolCallFinished)]
    assert not any(e.is_error for e in finished)
    assert "/notes/a.md" in next(e.content for e in finished if e.name == "write_file")


def test_main_agent_todos_and_files(main_events: list[ev.Event]) -> None:
    (todos,) = [e for e in main_events if isinstance(e, ev.TodosChanged)]
    assert [dict(t) for t in todos.todos] == TODOS
    (files,) = [e for e in main_events if isinstance(e, ev.FilesChanged)]
    assert files.written == ("/notes/a.md",)
    assert files.deleted == ()


# -- subagents -----------------------------------------------------------------------------------

SUBAGENT_SCRIPT = {
    "main": [
        {
            "text": "Delegating.",
            "tool_calls": [
                {"name": "task", "args": {"subagent_type": "general-purpose", "description": "count fish"}}
            ],
        },
        {"text": "The subagent counted them."},
    ],
    "general-purpose": [
        {
            "text": "Counting now.",
            "tool_calls": [{"name": "write_file", "args": {"file_path": "/fish.md", "content": "3"}}],
        },
        {"text": "There are three fish."},
    ],
}


def test_task_call_starts_a_subagent_whose_events_carry_its_path() -> None:
    events = _translate(stream_chunks(_deep_agent(scripted(SUBAGENT_SCRIPT)), "How many fish?"))
    (started,) = [e for e in events if isinstance(e, ev.SubagentStarted)]
    (finished,) = [e for e in events if isinstance(e, ev.SubagentFinished)]
    task_call = next(e for e in events if isinstance(e, ev.ToolCallStarted) and e.name == "task")
    assert started.agent == "main"
    assert started.path == "main/general-purpose"
    assert started.subagent_type == "general-purpose"
    assert started.description == "count fish"
    assert started.call_id == task_call.call_id
    assert (finished.task_id, finished.path, finished.error) == (started.task_id, started.path, None)

    sub = [e for e in events if e.agent == "main/general-purpose"]
    first, last = events.index(started), events.index(finished)
    assert sub and all(first < events.index(e) < last for e in sub)
    assert [e.text for e in sub if isinstance(e, ev.ModelTurn)] == [
        "Counting now.",
        "There are three fish.",
    ]
    assert [e.name for e in sub if isinstance(e, ev.ToolCallStarted)] == ["write_file"]
    assert "".join(e.text for e in sub if isinstance(e, ev.TextDelta)) == (
        "Counting now.There are three fish."
    )
    # Nothing of the subagent leaks into the main agent's transcript.
    main_turns = [e.text for e in events if isinstance(e, ev.ModelTurn) and e.agent == "main"]
    assert main_turns == ["Delegating.", "The subagent counted them."]
    _check_text_matches_turns(events)
    _check_tool_pairs(events)


PARALLEL_SCRIPT = {
    "main": [
        {
            "text": "Two jobs at once.",
            "tool_calls": [
                {"name": "task", "args": {"subagent_type": "general-purpose", "description": "survey crabs"}},
                {"name": "task", "args": {"subagent_type": "general-purpose", "description": "survey kelp"}},
            ],
        },
        {"text": "Both surveys are in."},
    ],
    "general-purpose": [
        {
            "match": "crabs",
            "turns": [
                {
                    "text": "Crab survey started.",
                    "tool_calls": [
                        {"name": "write_file", "args": {"file_path": "/crabs.md", "content": "7"}}
                    ],
                },
                {"text": "Seven crabs counted."},
            ],
        },
        {
            "match": "kelp",
            "turns": [
                {
                    "text": "Kelp survey started.",
                    "tool_calls": [
                        {"name": "write_file", "args": {"file_path": "/kelp.md", "content": "lots"}}
                    ],
                },
                {"text": "Kelp everywhere."},
            ],
        },
    ],
}
EXPECTED_BY_DESCRIPTION = {
    "survey crabs": ("Crab survey started.Seven crabs counted.", "/crabs.md"),
    "survey kelp": ("Kelp survey started.Kelp everywhere.", "/kelp.md"),
}


@pytest.mark.parametrize("attempt", range(3))
def test_parallel_subagents_are_attributed_by_task(attempt: int) -> None:
    """Each chunk's namespace names the pregel task it came from; every event of that chunk must
    carry the path the translator announced for that task, whatever order the two run in."""
    graph = _deep_agent(scripted(PARALLEL_SCRIPT))
    chunks = stream_chunks(graph, "Survey the pool")
    translator = ev.EventTranslator()
    started: dict[str, ev.SubagentStarted] = {}
    text_by_task: dict[str, str] = defaultdict(str)
    written_by_task: dict[str, list[str]] = defaultdict(list)
    finished: list[ev.SubagentFinished] = []
    for namespace, mode, data in chunks:
        task = namespace[0].partition(":")[2] if namespace else None
        for event in translator.translate((namespace, mode, data)):
            if task is None:
                if isinstance(event, ev.SubagentStarted):
                    started[event.task_id] = event
                elif isinstance(event, ev.SubagentFinished):
                    finished.append(event)
                assert event.agent == "main"
                continue
            assert event.agent == started[task].path, (event, started[task])
            if isinstance(event, ev.TextDelta):
                text_by_task[task] += event.text
            elif isinstance(event, ev.ToolCallStarted):
                written_by_task[task].append(event.args["file_path"])

    assert len(started) == 2
    assert {s.description for s in started.values()} == set(EXPECTED_BY_DESCRIPTION)
    assert len({s.call_id for s in started.values()}) == 2
    for task_id, start in started.items():
        text, path = EXPECTED_BY_DESCRIPTION[start.description]
        assert text_by_task[task_id] == text
        assert written_by_task[task_id] == [path]
    assert sorted(f.task_id for f in finished) == sorted(started)
    assert all(f.error is None for f in finished)


def test_parallel_subagents_of_one_type_get_distinct_paths() -> None:
    events = _translate(stream_chunks(_deep_agent(scripted(PARALLEL_SCRIPT)), "Survey the pool"))
    starts = [e for e in events if isinstance(e, ev.SubagentStarted)]
    assert len({s.task_id for s in starts}) == 2
    assert len({s.path for s in starts}) == 2
    for start in starts:
        text, _ = EXPECTED_BY_DESCRIPTION[start.description]
        deltas = "".join(e.text for e in events if isinstance(e, ev.TextDelta) and e.agent == start.path)
        assert deltas == text


def test_parallel_subagents_of_different_types() -> None:
    agents = {
        "main": [
            {
                "text": "Split.",
                "tool_calls": [
                    {"name": "task", "args": {"subagent_type": "crabber", "description": "crabs please"}},
                    {"name": "task", "args": {"subagent_type": "kelper", "description": "kelp please"}},
                ],
            },
            "Joined.",
        ],
        "crabber": [{"text": "crab one two three"}],
        "kelper": [{"text": "kelp four five six"}],
    }
    subagents = [
        {"name": "crabber", "description": "Counts crabs.", "system_prompt": "Count crabs."},
        {"name": "kelper", "description": "Measures kelp.", "system_prompt": "Measure kelp."},
    ]
    for _ in range(2):
        events = _translate(stream_chunks(_deep_agent(scripted(agents), subagents=subagents), "go"))
        paths = {e.subagent_type: e.path for e in events if isinstance(e, ev.SubagentStarted)}
        assert paths == {"crabber": "main/crabber", "kelper": "main/kelper"}
        for kind, text in (("crabber", "crab one two three"), ("kelper", "kelp four five six")):
            deltas = [e.text for e in events if isinstance(e, ev.TextDelta) and e.agent == paths[kind]]
            assert "".join(deltas) == text
        _check_text_matches_turns(events)


# -- synthetic chunks ----------------------------------------------------------------------------


def test_interrupt_update_becomes_interrupted() -> None:
    from langgraph.types import Interrupt

    value = {
        "action_requests": [{"name": "write_file", "args": {"file_path": "/x"}, "description": "d"}],
        "review_configs": [{"action_name": "write_file", "allowed_decisions": ["approve", "reject"]}],
    }
    chunk = ((), "updates", {"__interrupt__": (Interrupt(value=value, id="int-1"),)})
    (event,) = ev.EventTranslator().translate(chunk)
    assert event == ev.Interrupted("main", (ev.InterruptRequest("int-1", value),))


def test_empty_interrupt_update_yields_nothing() -> None:
    assert list(ev.EventTranslator().translate(((), "updates", {"__interrupt__": ()}))) == []


def test_interrupt_inside_a_subagent_carries_its_path() -> None:
    from langgraph.types import Interrupt

    translator = ev.EventTranslator()
    call = {"name": "task", "args": {"subagent_type": "helper", "description": "d"}, "id": "c1"}
    list(translator.translate(((), "tasks", {"id": "T1", "name": "tools", "input": [call]})))
    (event,) = translator.translate(
        (("tools:T1",), "updates", {"__interrupt__": (Interrupt(value={}, id="i"),)})
    )
    assert isinstance(event, ev.Interrupted)
    assert event.agent == "main/helper"


def test_summarization_update_becomes_summarized_before_the_turn_it_made_room_for() -> None:
    from langchain_core.messages import AIMessage, HumanMessage

    translator = ev.EventTranslator()
    framed = (
        "You are in the middle of a conversation that has been summarized.\n\nA condensed summary "
        "follows:\n\n<summary>\nThe user wants tide-pool notes.\n</summary>"
    )
    before = AIMessage("reading", id="a1", usage_metadata=_usage(1800, 5))
    after = AIMessage("done", id="a2", usage_metadata=_usage(700, 3))
    list(translator.translate(((), "updates", {"model": {"messages": [before]}})))
    event = {
        "cutoff_index": 4,
        "summary_message": HumanMessage(framed),
        "file_path": "/conversation_history/session_ab.md",
    }
    first, turn = translator.translate(
        ((), "updates", {"model": {"messages": [after], "_summarization_event": event}})
    )
    assert first == ev.Summarized(
        "main",
        cutoff=4,
        summary="The user wants tide-pool notes.",
        file_path="/conversation_history/session_ab.md",
        messages=4,
        tokens_before=1800,
        tokens_after=700,
    )
    assert isinstance(turn, ev.ModelTurn)
    again = {
        "cutoff_index": 9,
        "summary_message": HumanMessage("Here is a summary of the conversation to date:\n\nMore."),
    }
    (second,) = translator.translate(((), "updates", {"model": {"_summarization_event": again}}))
    assert (second.messages, second.summary, second.file_path, second.tokens_before) == (
        5,
        "More.",
        None,
        700,
    )


def _usage(inp: int, out: int) -> dict[str, int]:
    return {"input_tokens": inp, "output_tokens": out, "total_tokens": inp + out}


def test_js_task_events_become_subagent_nodes_and_own_their_namespace() -> None:
    translator = ev.EventTranslator()
    call = {"name": "eval", "args": {"code": "await task(...)"}, "id": "e1"}
    list(translator.translate(((), "tasks", {"id": "T9", "name": "tools", "input": [call]})))
    start = {
        "type": "subagent",
        "phase": "start",
        "id": "d1",
        "subagent_type": "researcher",
        "label": "tides",
        "description": "Find tide tables",
        "eval_id": "e1",
    }
    started = [e for e in translator.translate(((), "custom", start)) if not isinstance(e, ev.Custom)]
    assert started == [
        ev.SubagentStarted(
            "main",
            "js:d1",
            "js:d1",
            "researcher",
            "Find tide tables",
            "main/researcher",
            source="js",
            label="tides",
        )
    ]
    assert translator.agent_path(("tools:T9",)) == "main/researcher"
    done = {
        "type": "subagent",
        "phase": "error",
        "id": "d1",
        "eval_id": "e1",
        "error": "boom",
        "duration_ms": 5,
    }
    finished = [e for e in translator.translate(((), "custom", done)) if not isinstance(e, ev.Custom)]
    assert finished == [ev.SubagentFinished("main", "js:d1", "main/researcher", "boom")]
    assert translator.agent_path(("tools:T9",)) == "main"


def test_async_task_state_updates_become_async_tasks_changed() -> None:
    tasks = {"t1": {"task_id": "t1", "agent_name": "researcher", "status": "running"}}
    (event,) = ev.EventTranslator().translate(((), "updates", {"tools": {"async_tasks": tasks}}))
    assert event == ev.AsyncTasksChanged("main", tasks)


def test_custom_mode_becomes_custom() -> None:
    data = {"type": "progress", "step": 3}
    assert list(ev.EventTranslator().translate(((), "custom", data))) == [ev.Custom("main", data)]


def test_tool_error_status_sets_is_error() -> None:
    update = {
        "tools": {
            "messages": [
                ToolMessage(
                    content="Error: no such file", tool_call_id="c9", name="read_file", status="error"
                ),
                ToolMessage(content="fine", tool_call_id="c10", name="ls"),
            ]
        }
    }
    events = list(ev.EventTranslator().translate(((), "updates", update)))
    assert events == [
        ev.ToolCallFinished("main", "c9", "read_file", "Error: no such file", True),
        ev.ToolCallFinished("main", "c10", "ls", "fine", False),
    ]


def test_subagent_failure_is_reported_on_finish() -> None:
    translator = ev.EventTranslator()
    call = {"name": "task", "args": {"subagent_type": "general-purpose"}, "id": "c1"}
    list(translator.translate(((), "tasks", {"id": "T1", "name": "tools", "input": [call]})))
    (event,) = translator.translate(((), "tasks", {"id": "T1", "result": None, "error": "boom"}))
    assert event == ev.SubagentFinished("main", "T1", "main/general-purpose", "boom")
    # A task end of a plain tool call is no subagent's end.
    assert list(translator.translate(((), "tasks", {"id": "T2", "result": [], "error": None}))) == []


def test_non_ai_message_chunks_and_content_blocks() -> None:
    translator = ev.EventTranslator()
    blocks = [{"type": "text", "text": "Hi "}, {"type": "reasoning", "text": "hidden"}, "there"]
    (delta,) = translator.translate(((), "messages", (AIMessageChunk(content=blocks), {})))
    assert delta == ev.TextDelta("main", "Hi there")
    tool_chunk = (ToolMessage(content="x", tool_call_id="c"), {})
    assert list(translator.translate(((), "messages", tool_chunk))) == []
    assert list(translator.translate(((), "messages", (AIMessageChunk(content=""), {})))) == []


def test_model_turn_from_an_update_list_with_usage() -> None:
    message = AIMessage(
        content="ok",
        tool_calls=[{"name": "ls", "args": {"path": "/"}, "id": "c1", "type": "tool_call"}],
        usage_metadata={"input_tokens": 11, "output_tokens": 5, "total_tokens": 16},
    )
    events = list(ev.EventTranslator().translate(((), "updates", {"model": [{"messages": [message]}]})))
    assert [type(e).__name__ for e in events] == ["ModelTurn", "ToolCallStarted"]
    assert (events[0].input_tokens, events[0].output_tokens) == (11, 5)
    assert events[1] == ev.ToolCallStarted("main", "c1", "ls", {"path": "/"})
