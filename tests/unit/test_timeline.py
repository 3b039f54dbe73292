"""``run.timeline``: a record per model call and per tool call, timed as the events came, with
tokens for model calls, subagents on their own lanes, and the main agent's steps once it ended."""

from __future__ import annotations

import deepnb
from deepnb.core import events as ev
from deepnb.engine.timeline import Timeline
from tests.support.agents import scripted, unique

AGENTS = {
    "main": [
        {
            "text": "Delegating.",
            "tool_calls": [
                {"name": "task", "args": {"subagent_type": "general-purpose", "description": "look up A"}},
                {"name": "ls", "args": {"path": "/"}},
            ],
        },
        "All done.",
    ],
    "general-purpose": [
        {"text": "Checking.", "tool_calls": [{"name": "ls", "args": {"path": "/"}}]},
        "Found it.",
    ],
}


def test_a_runs_timeline_times_model_and_tool_calls_per_agent() -> None:
    workbench = deepnb.agent(name=unique("timeline"), model=scripted(AGENTS, delay=0.01))
    run = workbench.run("go")
    assert run.status == "done", run.error
    records = run.timeline
    models = [r for r in records if r["kind"] == "model"]
    tools = [r for r in records if r["kind"] == "tool"]
    assert [(r["agent"], r["agent_name"]) for r in models] == [
        ("main", "main"),
        ("main/general-purpose", "general-purpose"),
        ("main/general-purpose", "general-purpose"),
        ("main", "main"),
    ]
    assert all(r["latency"] and r["latency"] > 0 for r in models)  # the model's delay per token
    assert all(r["tokens_out"] > 0 for r in models)
    assert sorted((r["agent"], r["name"]) for r in tools) == [
        ("main", "ls"),
        ("main", "task"),
        ("main/general-purpose", "ls"),
    ]
    for record in records:
        assert record["end"] is not None and record["start"] <= record["end"]
        assert record["latency"] == round(record["end"] - record["start"], 4)
    task = next(r for r in tools if r["name"] == "task")
    inner = [r for r in records if r["agent"] == "main/general-purpose"]
    assert all(task["start"] <= r["start"] and r["end"] <= task["end"] for r in inner)
    history = workbench.history(run.thread_id)
    main_models = [r for r in models if r["agent"] == "main"]
    assert [r["step"] for r in main_models] == list(history.fork_at) == [1, 2]  # the steps history lists
    assert all(r["step"] is None for r in records if r not in main_models)


def test_the_timeline_of_a_second_run_maps_only_its_own_steps() -> None:
    workbench = deepnb.agent(name=unique("timeline2"), model="demo:quickstart")
    first = workbench.run("Write a brief about tide pools")
    second = workbench.run("And another", thread=first.thread_id)
    steps = [r["step"] for r in second.timeline if r["step"] is not None]
    assert steps and min(steps) > max(r["step"] for r in first.timeline if r["step"] is not None)


def test_the_steps_come_from_the_stream_not_from_reading_the_threads_history(monkeypatch) -> None:
    """Reading every checkpoint back to find the model's steps cost seconds at a run's end and
    grew with the square of its length: each step comes with the model's own stream."""
    workbench = deepnb.agent(name=unique("timeline3"), model=scripted(AGENTS, delay=0))

    def read_back(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("a run read the thread's history back")

    monkeypatch.setattr(type(workbench.graph), "aget_state_history", read_back)
    monkeypatch.setattr(type(workbench.checkpointer), "alist", read_back)
    run = workbench.run("go", new_thread=True)
    assert run.status == "done", run.error
    steps = [r["step"] for r in run.timeline if r["agent"] == "main" and r["kind"] == "model"]
    assert len(steps) == 2 and None not in steps and steps == sorted(steps)


def test_an_open_call_has_no_end_and_a_resume_restarts_the_main_agents_clock() -> None:
    timeline = Timeline()
    timeline.note(ev.RunStarted(ev.MAIN, "t", "go"), 10.0)
    timeline.note(ev.ModelTurn(ev.MAIN, "x", input_tokens=3, output_tokens=4), 11.5)
    timeline.note(ev.ToolCallStarted(ev.MAIN, "c1", "edit_file", {}), 11.5)
    (model, tool) = timeline.records()
    assert (model["start"], model["end"], model["latency"], model["tokens_in"]) == (0.0, 1.5, 1.5, 3)
    assert (tool["name"], tool["end"], tool["latency"]) == ("edit_file", None, None)
    timeline.note(ev.RunResumed(ev.MAIN, ("i1",)), 20.0)
    timeline.note(ev.ModelTurn(ev.MAIN, "y"), 21.0)
    assert timeline.records()[-1]["start"] == 10.0


def test_a_model_turn_takes_the_step_its_own_stream_named_never_the_one_before() -> None:
    from langchain_core.messages import AIMessage, AIMessageChunk

    translator = ev.EventTranslator()
    metadata = {"langgraph_node": "model", "langgraph_step": 4}
    list(translator.translate(((), "messages", (AIMessageChunk(content="hi"), metadata))))

    def turn(text: str, message_id: str) -> ev.Event:
        update = {"model": {"messages": [AIMessage(text, id=message_id)]}}
        (event,) = translator.translate(((), "updates", update))
        return event

    first, second = turn("hi", "a1"), turn("no stream", "a2")
    assert (first.step, second.step) == (4, None)
