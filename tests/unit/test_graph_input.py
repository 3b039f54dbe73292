"""Graphs that don't speak messages: a dict in, each node's update in the transcript, the final
state in ``run.output``; and ``run.output`` for agents (their structured response, else None)."""

from __future__ import annotations

import pytest
from deepagents import create_deep_agent
from langgraph.graph import END, START, StateGraph
from pydantic import BaseModel
from typing_extensions import TypedDict

import deepnb
from deepnb.core import events as ev
from deepnb.core.errors import DeepnbError
from deepnb.core.graphs.inputs import input_for, input_keys, input_line, output_of, speaks_messages
from deepnb.engine.state import RunState
from deepnb.views.run.items import item_html, item_text
from tests.support.agents import scripted
from tests.support.waiting import WAIT
from tests.unit.conftest import unique


class Joke(TypedDict):
    topic: str
    joke: str


def joke_graph(punchline: str = "To get to the other side.") -> object:
    def write(state: Joke) -> dict[str, str]:
        return {"joke": f"Why did the {state['topic']} cross the road?"}

    def polish(state: Joke) -> dict[str, str]:
        return {"joke": f"{state['joke']} {punchline}"}

    builder = StateGraph(Joke)
    builder.add_node("write", write)
    builder.add_node("polish", polish)
    builder.add_edge(START, "write")
    builder.add_edge("write", "polish")
    builder.add_edge("polish", END)
    return builder.compile()


def test_what_a_graph_takes() -> None:
    jokes = joke_graph()
    agent = create_deep_agent(model=scripted({"main": [{"text": "ok"}]}))
    assert input_keys(jokes) == ["topic", "joke"] and not speaks_messages(jokes)
    assert "messages" in input_keys(agent) and speaks_messages(agent)
    assert speaks_messages(object())  # a graph that does not say is given a prompt
    assert input_for(jokes, {"topic": "cats"}, agent="j") == {"topic": "cats"}
    assert input_for(agent, "hi", agent="a") == {"messages": [{"role": "user", "content": "hi"}]}
    with pytest.raises(DeepnbError) as info:
        input_for(jokes, "cats", agent="jokes")
    message = str(info.value)
    assert "\n" not in message and "its input keys are topic, joke" in message and "--input VAR" in message
    assert input_line({"topic": "cats"}) == '{"topic": "cats"}'
    assert output_of(jokes, {"topic": "cats", "joke": "j"}) == {"topic": "cats", "joke": "j"}
    assert output_of(agent, {"messages": []}) is None
    assert output_of(agent, {"messages": [], "structured_response": {"a": 1}}) == {"a": 1}


def test_a_dict_runs_a_graph_without_messages_and_each_node_shows() -> None:
    bench = deepnb.attach(joke_graph(), unique("jokes"))
    run = bench.run({"topic": "chicken"}).wait(WAIT)
    assert run.status == "done", run.error
    joke = "Why did the chicken cross the road? To get to the other side."
    assert run.output == {"topic": "chicken", "joke": joke}
    items = run.state.to_json()["items"]
    assert [i["kind"] for i in items] == ["prompt", "update", "update"]
    assert items[0]["text"] == '{"topic": "chicken"}'
    assert [i["node"] for i in items[1:]] == ["write", "polish"]
    assert '"joke": "Why did the chicken cross the road?"' in items[1]["text"]
    assert run.state.steps == 2
    with pytest.raises(DeepnbError, match="takes no prompt: its input keys are topic, joke"):
        bench.run("chicken")


class Forecast(BaseModel):
    city: str
    degrees: int


def test_an_agent_gives_its_structured_response_as_output() -> None:
    call = {"name": "Forecast", "args": {"city": "Oslo", "degrees": 4}}
    model = scripted({"main": [{"tool_calls": [call]}]})
    bench = deepnb.attach(create_deep_agent(model=model, response_format=Forecast), unique("forecast"))
    run = bench.run("Weather in Oslo?").wait(WAIT)
    assert run.status == "done", run.error
    assert run.output == Forecast(city="Oslo", degrees=4)
    plain = deepnb.agent(unique("plain"), model="demo:quickstart").run("A brief").wait(WAIT)
    assert plain.status == "done" and plain.output is None
    assert not [i for i in plain.state.to_json()["items"] if i["kind"] == "update"]


def test_node_updates_are_events_only_for_graphs_without_messages() -> None:
    chunk = ((), "updates", {"write": {"joke": "j"}})
    assert not [e for e in ev.EventTranslator().translate(chunk) if isinstance(e, ev.NodeUpdated)]
    translator = ev.EventTranslator(node_updates=True)
    assert list(translator.translate(chunk)) == [ev.NodeUpdated("main", "write", {"joke": "j"})]
    assert list(translator.translate(((), "updates", {"noop": None}))) == [ev.NodeUpdated("main", "noop", {})]
    inner = (("write:1",), "updates", {"model": {"x": 1}})  # a graph run inside a node: not its story
    assert not [e for e in translator.translate(inner) if isinstance(e, ev.NodeUpdated)]


def test_an_update_item_is_escaped_in_html_and_text() -> None:
    state = RunState(agent="a", thread_id="t")
    state.apply(ev.NodeUpdated("main", "<b>write</b>", {"joke": "<img src=x onerror=alert(1)>"}))
    (item,) = state.items
    html = item_html(item)
    assert "<img" not in html and "&lt;img src=x" in html and "&lt;b&gt;write&lt;/b&gt;" in html
    assert item_text(item).splitlines()[0] == "<b>write</b>:"
    assert '"joke": "<img src=x onerror=alert(1)>"' in item_text(item)


def test_a_graph_without_messages_that_asks_a_question_gives_its_output_once_answered() -> None:
    from langgraph.types import interrupt

    def write(state: Joke) -> dict[str, str]:
        return {"joke": f"Why did the {state['topic']} cross the road?"}

    def review(state: Joke) -> dict[str, str]:
        return {"joke": f"{state['joke']} {interrupt({'question': 'Punchline?'})}"}

    builder = StateGraph(Joke)
    builder.add_node("write", write)
    builder.add_node("review", review)
    builder.add_edge(START, "write")
    builder.add_edge("write", "review")
    builder.add_edge("review", END)
    bench = deepnb.attach(builder.compile(), unique("asking"))
    run = bench.run({"topic": "chicken"}).wait(WAIT)
    assert run.status == "interrupted" and run.output is None
    run.pending[0].resume("To get to the other side.")
    run.wait(WAIT)
    assert run.status == "done", run.error
    joke = "Why did the chicken cross the road? To get to the other side."
    assert run.output == {"topic": "chicken", "joke": joke}
    items = run.state.to_json()["items"]
    assert [i["node"] for i in items if i["kind"] == "update"] == ["write", "review"]
