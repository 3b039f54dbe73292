"""Structured output: ``response_format`` (a Pydantic model, a dataclass, a TypedDict or a JSON
schema) through ``deepnb.agent``; ``run.output`` is the parsed object, shown as an escaped
key/value table in the snapshot and the live view's ``output`` trait."""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

import pytest
from pydantic import BaseModel
from typing_extensions import TypedDict

import deepnb
from deepnb.core.errors import DeepnbError
from deepnb.core.graphs.structured import check_schema, output_rows
from deepnb.views.output import run_bundle
from deepnb.views.run.run_view import RunView
from deepnb.views.run.snapshot import snapshot_bundle
from tests.support.agents import scripted, unique


class Person(BaseModel):
    name: str
    age: int


@dataclasses.dataclass
class PersonRecord:
    name: str
    age: int


class PersonDict(TypedDict):
    name: str
    age: int


PERSON_SCHEMA = {
    "title": "PersonSchema",
    "type": "object",
    "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
    "required": ["name", "age"],
}


def answering(tool: str, **args: Any) -> Any:
    """A scripted model that answers with the structured-output tool call named ``tool``."""
    return scripted({"main": [{"tool_calls": [{"name": tool, "args": args}]}]})


@pytest.mark.parametrize(
    ("schema", "tool", "expected"),
    [
        (Person, "Person", Person(name="Ada", age=36)),
        (PersonRecord, "PersonRecord", PersonRecord(name="Ada", age=36)),
        (PersonDict, "PersonDict", {"name": "Ada", "age": 36}),
        (PERSON_SCHEMA, "PersonSchema", {"name": "Ada", "age": 36}),
    ],
    ids=["pydantic", "dataclass", "typeddict", "json-schema"],
)
def test_run_output_is_the_parsed_object_for_each_kind_of_schema(
    schema: Any, tool: str, expected: Any
) -> None:
    bench = deepnb.agent(unique("structured"), answering(tool, name="Ada", age=36), response_format=schema)
    run = bench.run("Who wrote the first program?")
    assert run.status == "done", run.error
    assert run.output == expected
    assert type(run.output) is type(expected)
    assert output_rows(run.output) == [("name", "Ada"), ("age", "36")]


def test_the_snapshot_and_the_live_view_show_the_output_escaped() -> None:
    bench = deepnb.agent(
        unique("structured"), answering("Person", name="<b>Ada</b>", age=36), response_format=Person
    )
    run = bench.run("Who?")
    html = run_bundle(run)["text/html"]
    assert "Structured output" in html
    assert "&lt;b&gt;Ada&lt;/b&gt;" in html and "<b>Ada</b>" not in html
    assert "Output\n  name: <b>Ada</b>\n  age: 36" in run_bundle(run)["text/plain"]
    view = RunView(run)
    assert view.output == [["name", "<b>Ada</b>"], ["age", "36"]]
    view.close()


def test_a_run_without_structured_output_shows_no_table() -> None:
    bench = deepnb.agent(unique("plain"), scripted({"main": [{"text": "Hello."}]}))
    run = bench.run("Hi")
    assert run.output is None
    assert "Structured output" not in snapshot_bundle(run.state, output=output_rows(run.output))["text/html"]
    view = RunView(run)
    assert view.output == []
    view.close()


def test_a_graph_without_messages_gives_its_final_state_as_output() -> None:
    from langgraph.graph import END, START, StateGraph

    class Joke(TypedDict, total=False):
        topic: str
        joke: str

    builder = StateGraph(Joke)
    builder.add_node("write", lambda state: {"joke": f"A joke about {state['topic']}."})
    builder.add_edge(START, "write")
    builder.add_edge("write", END)
    bench = deepnb.attach(builder.compile(), unique("joke"))
    run = bench.run({"topic": "cats"})
    assert run.output == {"topic": "cats", "joke": "A joke about cats."}
    assert output_rows(run.output) == [("topic", "cats"), ("joke", "A joke about cats.")]


@pytest.mark.parametrize(
    ("value", "said"),
    [
        (42, "holds int"),
        ("Person", "holds str"),
        (int, "the class int"),
        ({"name": "Ada"}, "no JSON schema"),
    ],
)
def test_what_is_no_schema_is_refused_in_one_line(value: Any, said: str) -> None:
    with pytest.raises(DeepnbError) as caught:
        check_schema(value, variable="shape")
    message = str(caught.value)
    assert said in message and "\n" not in message
    assert message.startswith("shape holds")


def test_each_kind_of_schema_is_accepted() -> None:
    for schema in (Person, PersonRecord, PersonDict, PERSON_SCHEMA):
        assert check_schema(schema, variable="shape") is schema


def test_a_long_output_is_shortened_and_many_fields_cut() -> None:
    rows = output_rows({f"f{i}": "x" * 500 for i in range(60)})
    assert len(rows) == 41
    assert all(len(value) <= 200 for _, value in rows[:40])
    assert rows[-1] == ("…", "20 more fields (run.output has them all)")


class QuietShape(BaseModel):
    """Only the test below uses it: LangGraph warns once per class and process."""

    name: str
    age: int


class OtherShape(BaseModel):
    name: str


def test_a_response_format_class_comes_back_from_the_checkpoint_without_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    shape, other = QuietShape, OtherShape
    script = {
        "main": [{"turns": [{"tool_calls": [{"name": shape.__name__, "args": {"name": "Ada", "age": 36}}]}]}]
    }
    bench = deepnb.agent(unique("quiet"), model=scripted(script), response_format=shape)
    with caplog.at_level("WARNING", logger="langgraph.checkpoint.serde.jsonplus"):
        run = bench.run("Who?")
        assert run.status == "done" and run.output == shape(name="Ada", age=36)
        # a type the user named nowhere is still warned about
        logger = logging.getLogger("langgraph.checkpoint.serde.jsonplus")
        logger.warning(
            "Deserializing unregistered type %s.%s from checkpoint.", other.__module__, other.__name__
        )
    unregistered = [r.getMessage() for r in caplog.records if "unregistered type" in r.getMessage()]
    assert unregistered == [
        f"Deserializing unregistered type {other.__module__}.{other.__name__} from checkpoint."
    ]
