"""The scripted chat model: parsing, routing, turn positions, streaming, loading from files."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import yaml
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from deepnb.core.errors import DeepnbError
from deepnb.models.scripted import ScriptedChatModel, ScriptError, load_script, parse_script
from tests.support.agents import scripted

# -- parsing -------------------------------------------------------------------------------------


def test_script_error_is_a_deepnb_error() -> None:
    assert issubclass(ScriptError, DeepnbError)


@pytest.mark.parametrize("data", [None, [], {"delay": 1}, {"agents": ["main"]}, "agents: x"])
def test_missing_agents_mapping(data: object) -> None:
    with pytest.raises(ScriptError, match=r"^demo\.yaml: .*'agents:' mapping"):
        parse_script(data, source="demo.yaml")


@pytest.mark.parametrize("delay", [-1, "fast", None])
def test_bad_delay(delay: object) -> None:
    with pytest.raises(ScriptError, match="'delay' must be a number"):
        parse_script({"delay": delay, "agents": {"main": ["hi"]}})


def test_bad_turn_key_names_agent_turn_and_key() -> None:
    data = {"agents": {"main": ["hello", {"text": "x", "tool_call": []}]}}
    with pytest.raises(ScriptError) as info:
        parse_script(data, source="s.yaml")
    message = str(info.value)
    assert message.startswith("s.yaml: agents.main, turn 1:")
    assert "'tool_call'" in message


def test_bad_key_inside_a_match_conversation() -> None:
    data = {"agents": {"researcher": [{"match": "x", "turns": [{"txt": "oops"}]}]}}
    with pytest.raises(ScriptError, match=r"agents\.researcher, turn 0: unknown key\(s\) \['txt'\]"):
        parse_script(data)


def test_bad_regex_names_the_agent() -> None:
    data = {"agents": {"critic": [{"match": "([unclosed", "turns": ["hi"]}]}}
    with pytest.raises(ScriptError, match=r"agents\.critic: 'match' is not a valid regex"):
        parse_script(data)


def test_non_mapping_args_names_the_tool() -> None:
    data = {"agents": {"main": [{"tool_calls": [{"name": "write_file", "args": ["a", "b"]}]}]}}
    with pytest.raises(ScriptError, match=r"agents\.main, turn 0: 'args' of write_file must be a mapping"):
        parse_script(data)


@pytest.mark.parametrize(
    ("entry", "fragment"),
    [
        ({"turns": ["x"]}, "must be a list of turns"),
        ("just text", "must be a list of turns"),
        ([], "'turns' must be a non-empty list"),
        ([{"match": "x", "turns": []}], "'turns' must be a non-empty list"),
        ([42], "turn 0: a turn is a mapping or a string"),
        ([{"tool_calls": [{"args": {}}]}], "turn 0: each tool call needs a 'name'"),
    ],
)
def test_malformed_agent_entries(entry: object, fragment: str) -> None:
    with pytest.raises(ScriptError) as info:
        parse_script({"agents": {"helper": entry}}, source="x.json")
    assert "x.json: agents.helper" in str(info.value)
    assert fragment in str(info.value)


def test_empty_text_key_means_no_text() -> None:
    script = parse_script(yaml.safe_load("agents:\n  main:\n    - text:\n      tool_calls: [{name: ls}]\n"))
    assert script.agents["main"][0].turns[0].text == ""


# -- routing and positions -----------------------------------------------------------------------

ROUTED = {
    "main": [
        {"match": "(?i)weather", "turns": ["Sunny.", "Still sunny."]},
        {"turns": ["Main fallback one.", "Main fallback two."]},
    ],
    "researcher": ["Research reply."],
}


def test_routes_by_match_then_fallback() -> None:
    model = scripted(ROUTED)
    assert model.invoke([HumanMessage("What's the WEATHER?")]).content == "Sunny."
    assert model.invoke([HumanMessage("Tell me a joke")]).content == "Main fallback one."


def test_routes_by_agent_name_from_metadata() -> None:
    model = scripted(ROUTED)
    config = {"metadata": {"lc_agent_name": "researcher"}}
    assert model.invoke([HumanMessage("weather")], config=config).content == "Research reply."
    # A top-level agent whose name the script doesn't know plays 'main'.
    config = {"metadata": {"lc_agent_name": "some-notebook-agent"}}
    assert model.invoke([HumanMessage("weather")], config=config).content == "Sunny."


def test_routes_by_agent_name_attribute() -> None:
    model = ScriptedChatModel(script=parse_script({"agents": ROUTED}), agent_name="researcher")
    assert model.invoke([HumanMessage("anything")]).content == "Research reply."


def test_a_subagent_not_in_the_script_is_an_error_naming_it() -> None:
    model = scripted(ROUTED)
    config = {"metadata": {"lc_agent_name": "critic", "langgraph_checkpoint_ns": "tools:abc"}}
    with pytest.raises(
        ScriptError, match=r"no turns for agent 'critic' \(the script has: main, researcher\)"
    ):
        model.invoke([HumanMessage("hi")], config=config)


def test_no_matching_conversation() -> None:
    model = scripted({"main": [{"match": "^only$", "turns": ["x"]}]})
    with pytest.raises(ScriptError, match="no conversation of agent 'main' matches the prompt 'other'"):
        model.invoke([HumanMessage("other")])


def test_turn_index_counts_ai_messages_after_the_latest_human_message() -> None:
    model = scripted(ROUTED)
    call = {"name": "ls", "args": {}, "id": "c1", "type": "tool_call"}
    history = [
        SystemMessage("sys"),
        HumanMessage("Tell me a joke"),
        AIMessage("", tool_calls=[call]),
        ToolMessage("ok", tool_call_id="c1"),
    ]
    assert model.invoke(history).content == "Main fallback two."
    history += [AIMessage("Main fallback two."), HumanMessage("weather now?")]
    # A new human message restarts the count, and its own text picks the conversation.
    assert model.invoke(history).content == "Sunny."
    history += [AIMessage("Sunny.")]
    assert model.invoke(history).content == "Still sunny."


def test_exhausted_script_names_the_agent() -> None:
    model = scripted(ROUTED)
    history = [HumanMessage("weather"), AIMessage("Sunny."), AIMessage("Still sunny.")]
    with pytest.raises(ScriptError) as info:
        model.invoke(history)
    assert "agent 'main' has 2 turn(s)" in str(info.value)
    assert "turn 3" in str(info.value)


def test_error_turn_raises_its_message() -> None:
    model = scripted({"main": ["fine", {"error": "rate limited (429)"}]})
    with pytest.raises(RuntimeError, match=r"rate limited \(429\)"):
        model.invoke([HumanMessage("x"), AIMessage("fine")])


def test_usage_metadata_estimated_and_explicit() -> None:
    model = scripted(
        {"main": ["one two three", {"text": "x", "usage": {"input_tokens": 7, "output_tokens": 2}}]}
    )
    first = model.invoke([HumanMessage("a" * 40)])
    usage = first.usage_metadata
    assert usage["input_tokens"] >= 10
    assert usage["output_tokens"] == 3
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"]
    second = model.invoke([HumanMessage("a" * 40), first])
    assert dict(second.usage_metadata) == {"input_tokens": 7, "output_tokens": 2, "total_tokens": 9}


def test_tool_call_ids_are_stable_and_distinct() -> None:
    turn = {"text": "", "tool_calls": [{"name": "ls", "args": {"path": "/"}}, {"name": "ls", "args": {}}]}
    model = scripted({"main": [turn]})
    a = model.invoke([HumanMessage("same")]).tool_calls
    b = model.invoke([HumanMessage("same")]).tool_calls
    c = model.invoke([HumanMessage("different")]).tool_calls
    assert [x["id"] for x in a] == [x["id"] for x in b]
    assert len({x["id"] for x in a + c}) == 4
    assert a[0]["args"] == {"path": "/"}
    assert a[1]["args"] == {}


# -- streaming -----------------------------------------------------------------------------------

STREAMED = {
    "main": [
        {
            "text": "Looking at the **files** now.",
            "tool_calls": [{"name": "ls", "args": {"path": "/"}}, {"name": "glob", "args": {"pattern": "*"}}],
        }
    ]
}


def test_stream_yields_tokens_then_a_last_chunk_with_tool_calls() -> None:
    chunks = list(scripted(STREAMED).stream([HumanMessage("go")]))
    *tokens, last = chunks
    assert len(tokens) >= 4
    assert all(not c.tool_calls for c in tokens)
    assert "".join(c.content for c in tokens) == "Looking at the **files** now."
    assert last.content == ""
    assert last.chunk_position == "last"
    assert [(c["name"], c["args"]) for c in last.tool_calls] == [
        ("ls", {"path": "/"}),
        ("glob", {"pattern": "*"}),
    ]
    assert last.usage_metadata["output_tokens"] > 0


def test_astream_matches_stream() -> None:
    model = scripted(STREAMED)

    async def collect() -> list:
        return [c async for c in model.astream([HumanMessage("go")])]

    chunks = asyncio.run(collect())
    merged = chunks[0]
    for chunk in chunks[1:]:
        merged = merged + chunk
    assert merged.content == "Looking at the **files** now."
    assert [c["name"] for c in merged.tool_calls] == ["ls", "glob"]


# -- loading -------------------------------------------------------------------------------------

DOC = {"delay": 0.5, "agents": {"main": [{"match": "hi", "turns": ["Hello!"]}]}}


def test_load_yaml_and_json(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(DOC), encoding="utf-8")
    (tmp_path / "s.json").write_text(json.dumps(DOC), encoding="utf-8")
    for name in ("s.yaml", "s.json"):
        script = load_script(tmp_path / name)
        assert script.delay == 0.5
        assert script.source == str(tmp_path / name)
        (conversation,) = script.agents["main"]
        assert conversation.match.pattern == "hi"
        assert conversation.turns[0].text == "Hello!"


def test_load_errors_name_the_file(tmp_path: Path) -> None:
    missing = tmp_path / "nope.yaml"
    with pytest.raises(ScriptError, match=r"No replay script at .*nope\.yaml.*'scripted:'"):
        load_script(missing)
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ScriptError, match=r"bad\.json: not valid JSON"):
        load_script(tmp_path / "bad.json")
    (tmp_path / "empty.yaml").write_text("agents:\n  main: hello\n", encoding="utf-8")
    with pytest.raises(ScriptError, match=r"empty\.yaml: agents\.main must be a list"):
        load_script(tmp_path / "empty.yaml")


def test_malformed_yaml_is_a_script_error(tmp_path: Path) -> None:
    (tmp_path / "broken.yaml").write_text("agents: [unclosed\n", encoding="utf-8")
    with pytest.raises(ScriptError, match=r"broken\.yaml: not valid YAML"):
        load_script(tmp_path / "broken.yaml")


def test_a_reply_remembers_its_place_so_summarization_does_not_lose_it() -> None:
    model = scripted({"main": ["One.", "Two.", "Three."]})
    first = model.invoke([HumanMessage("go")])
    assert first.content == "One."
    # Summarization replaced the prompt and the first reply with a summary message.
    summary = HumanMessage("Here is a summary…", additional_kwargs={"lc_source": "summarization"})
    assert model.invoke([summary, first, HumanMessage("ignored?")]).content == "One."  # a new prompt
    assert model.invoke([summary, first]).content == "Two."
    second = model.invoke([HumanMessage("go"), first])
    assert model.invoke([summary, second]).content == "Three."


def test_summarization_calls_play_the_agents_summary() -> None:
    from langchain_core.runnables import RunnableConfig

    script = parse_script(
        {"summaries": {"main": "The gist."}, "profile": {"max_input_tokens": 7000}, "agents": {"main": ["x"]}}
    )
    model = ScriptedChatModel(script=script)
    assert model.profile == {"max_input_tokens": 7000}
    config = RunnableConfig(metadata={"lc_source": "summarization"})
    assert (
        model.invoke([HumanMessage("Summarize <messages>…</messages>")], config=config).content == "The gist."
    )
    bare = ScriptedChatModel(script=parse_script({"agents": {"main": ["x"]}}))
    with pytest.raises(ScriptError, match="add 'main: <summary text>' under 'summaries:'"):
        bare.invoke([HumanMessage("Summarize")], config=config)


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [({"profile": 9000}, "'profile' must be a mapping"), ({"summaries": ["x"]}, "'summaries' must map")],
)
def test_bad_profile_or_summaries(extra: dict, fragment: str) -> None:
    with pytest.raises(ScriptError, match=fragment):
        parse_script({"agents": {"main": ["x"]}, **extra})
