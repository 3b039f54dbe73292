"""AgentSpec options and build; parse_interrupt_on; resolve_model's strings and messages."""

from __future__ import annotations

import importlib.util
import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml
from langchain.agents.middleware import TodoListMiddleware
from langchain_core.messages import HumanMessage

from deepnb.core.errors import DeepnbError
from deepnb.engine.spec import AGENT_OPTIONS, AgentSpec, model_label, parse_interrupt_on
from deepnb.models.resolve import demo_names, resolve_model
from deepnb.models.scripted import ScriptedChatModel, ScriptError
from tests.support.agents import scripted

TODOS = [{"content": "Plan", "status": "completed"}, {"content": "Do", "status": "in_progress"}]
WRITES_TODOS = {
    "main": [
        {"tool_calls": [{"name": "write_todos", "args": {"todos": TODOS}}]},
        "Planned.",
    ]
}


# -- AgentSpec -----------------------------------------------------------------------------------


def test_unknown_options_are_named() -> None:
    with pytest.raises(DeepnbError) as info:
        AgentSpec(object(), "m", options={"tools": [], "temperature": 0.2, "modle": "x"})
    message = str(info.value)
    named = message.split(":")[0]
    assert "modle" in named and "temperature" in named
    assert "tools" not in named
    assert "system_prompt" in message  # the valid choices are listed


def test_known_options_pass() -> None:
    spec = AgentSpec(object(), "m", options=dict.fromkeys(AGENT_OPTIONS))
    assert set(spec.options) == AGENT_OPTIONS


def test_with_options_merges_and_ignores_none() -> None:
    spec = AgentSpec(object(), "m", options={"system_prompt": "a", "debug": True})
    changed = spec.with_options(system_prompt="b", interrupt_on=None)
    assert changed.options == {"system_prompt": "b", "debug": True}
    assert spec.options == {"system_prompt": "a", "debug": True}
    with pytest.raises(DeepnbError, match="bogus"):
        spec.with_options(bogus=1)


def _run_turn(graph: Any) -> dict[str, Any]:
    config = {"configurable": {"thread_id": uuid.uuid4().hex}}
    return graph.invoke({"messages": [{"role": "user", "content": "plan it"}]}, config)


def _tool_names(graph: Any) -> set[str]:
    return set(graph.nodes["tools"].bound.tools_by_name)


def _todo_results(out: dict[str, Any]) -> list[Any]:
    return [m for m in out["messages"] if m.type == "tool" and m.name == "write_todos"]


@pytest.mark.parametrize("user_middleware", [False, True])
def test_build_binds_write_todos_exactly_once(user_middleware: bool) -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    options = {"middleware": [TodoListMiddleware()]} if user_middleware else {}
    spec = AgentSpec(scripted(WRITES_TODOS), "scripted", options=options)
    # create_deep_agent refuses duplicate middleware, so a second TodoListMiddleware would raise here.
    graph = spec.build(name=f"spec-{uuid.uuid4().hex[:6]}", checkpointer=InMemorySaver())
    assert "write_todos" in _tool_names(graph)
    out = _run_turn(graph)
    (result,) = _todo_results(out)
    assert result.status == "success"
    assert out["todos"] == TODOS
    assert out["messages"][-1].content == "Planned."
    assert spec.options == options  # build() does not change the spec


def test_build_without_todos() -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    spec = AgentSpec(scripted(WRITES_TODOS), "scripted", todos=False)
    graph = spec.build(name="no-todos", checkpointer=InMemorySaver())
    assert "write_todos" not in _tool_names(graph)
    out = _run_turn(graph)
    (result,) = _todo_results(out)
    assert result.status == "error"
    assert "todos" not in out


def test_model_label() -> None:
    assert model_label("openai:gpt-5.5") == "openai:gpt-5.5"
    assert model_label(scripted({"main": ["x"]})) == "ScriptedChatModel"

    class Named:
        model_name = "big-model"

    assert model_label(Named()) == "Named(big-model)"


# -- parse_interrupt_on --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, None),
        ("write_file", {"write_file": True}),
        (" write_file , edit_file ,", {"write_file": True, "edit_file": True}),
        (["execute", " task "], {"execute": True, "task": True}),
        (
            {"write_file": {"allowed_decisions": ["approve"]}},
            {"write_file": {"allowed_decisions": ["approve"]}},
        ),
    ],
)
def test_parse_interrupt_on(value: Any, expected: Any) -> None:
    assert parse_interrupt_on(value) == expected


@pytest.mark.parametrize("value", ["", " , ", []])
def test_parse_interrupt_on_needs_names(value: Any) -> None:
    with pytest.raises(DeepnbError, match="--interrupt-on needs tool names"):
        parse_interrupt_on(value)


# -- resolve_model -------------------------------------------------------------------------------


@pytest.mark.paced
def test_demo_names_and_quickstart() -> None:
    assert "quickstart" in demo_names()
    model = resolve_model("demo:quickstart")
    assert isinstance(model, ScriptedChatModel)
    assert model.script.source.endswith("quickstart.yaml")
    assert model.script.delay > 0
    first = model.invoke([HumanMessage("anything")])
    assert [c["name"] for c in first.tool_calls] == ["write_todos"]


def test_unknown_demo_lists_choices() -> None:
    with pytest.raises(DeepnbError) as info:
        resolve_model("demo:nope")
    assert "'nope'" in str(info.value)
    for name in demo_names():
        assert name in str(info.value)


def test_scripted_path(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump({"agents": {"main": ["From the file."]}}), encoding="utf-8")
    model = resolve_model(f"scripted:{path}")
    assert model.invoke([HumanMessage("hi")]).content == "From the file."
    with pytest.raises(ScriptError, match=r"No replay script at .*missing\.yaml.*scripted:"):
        resolve_model(f"scripted:{tmp_path / 'missing.yaml'}")


@pytest.mark.parametrize("text", ["gpt-4o", "openai:", ":gpt-4o", "  ", "demo:"])
def test_malformed_strings(text: str) -> None:
    with pytest.raises(DeepnbError, match="Malformed model") as info:
        resolve_model(text)
    assert "provider:model" in str(info.value)


def test_namespace_variable_holding_a_chat_model() -> None:
    model = scripted({"main": ["x"]})
    assert resolve_model("my_llm", {"my_llm": model}) is model
    assert resolve_model(" my_llm ", {"my_llm": model}) is model
    # A variable holding a model string resolves that string.
    assert isinstance(resolve_model("which", {"which": "demo:quickstart"}), ScriptedChatModel)
    # Without the namespace the same name is just a malformed model string.
    with pytest.raises(DeepnbError, match="Malformed model 'my_llm'"):
        resolve_model("my_llm")


def test_a_chat_model_object_passes_through_and_others_are_refused() -> None:
    model = scripted({"main": ["x"]})
    assert resolve_model(model) is model
    with pytest.raises(DeepnbError, match="int is not a chat model"):
        resolve_model(42)
    with pytest.raises(DeepnbError, match="dict is not a chat model"):
        resolve_model("cfg", {"cfg": {"model": "x"}})


def test_no_model_and_no_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DEEPNB_MODEL", raising=False)
    with pytest.raises(DeepnbError) as info:
        resolve_model(None)
    assert "DEEPNB_MODEL" in str(info.value)
    assert "demo:quickstart" in str(info.value)


def test_model_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEPNB_MODEL", "demo:quickstart")
    assert isinstance(resolve_model(None), ScriptedChatModel)
    monkeypatch.setenv("DEEPNB_MODEL", "")
    with pytest.raises(DeepnbError, match="DEEPNB_MODEL"):
        resolve_model(None)


@pytest.mark.skipif(
    importlib.util.find_spec("langchain_groq") is not None, reason="langchain-groq is installed here"
)
def test_uninstalled_provider_names_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GROQ_API_KEY", "gsk-not-used")
    with pytest.raises(DeepnbError) as info:
        resolve_model("groq:llama-3.3-70b")
    assert "langchain-groq" in str(info.value)
    assert "pip install langchain-groq" in str(info.value)


@pytest.mark.skipif(importlib.util.find_spec("langchain_openai") is None, reason="needs langchain-openai")
def test_missing_api_key_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(DeepnbError) as info:
        resolve_model("openai:gpt-test")
    assert "OPENAI_API_KEY" in str(info.value)


def test_a_provider_deepnb_does_not_list_is_handed_to_init_chat_model(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The models page: any other provider ``init_chat_model`` accepts is handed to it as written."""
    made: dict[str, Any] = {}

    def init_chat_model(model: str, *, model_provider: str, **options: Any) -> Any:
        made.update(model=model, provider=model_provider, options=options)
        return made

    monkeypatch.setattr("langchain.chat_models.init_chat_model", init_chat_model)
    assert resolve_model("nvidia:meta/llama-3.3-70b-instruct") is made
    assert made == {"model": "meta/llama-3.3-70b-instruct", "provider": "nvidia", "options": {}}
