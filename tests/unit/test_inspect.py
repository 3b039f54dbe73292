"""``workbench.inspect()``: an agent's anatomy read from its compiled graph — the middleware stack
of the main agent and each subagent in order, what a harness profile added or excluded and why,
the tools the model sees, interrupt rules, backend and routes, model and profiles — for agents
deepnb builds and graphs attached as they are; escaped in HTML, with no secret in it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, TypedDict

import pytest
from deepagents import HarnessProfile, create_deep_agent, register_harness_profile
from deepagents.backends import CompositeBackend, FilesystemBackend, StateBackend
from deepagents.profiles.harness import harness_profiles
from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from langgraph.graph import END, START, StateGraph

import deepnb
from deepnb.engine.anatomy import Anatomy
from tests.support.agents import scripted, unique

HOSTILE = '<img src=x onerror="alert(1)">'


@tool
def search(query: str) -> str:
    """Search the web. <img src=x onerror="alert(1)">"""
    return query


class Audit(AgentMiddleware):
    """A middleware of the user's own, with one hook."""

    async def abefore_model(self, state: Any, runtime: Any) -> None:
        return None


class Marker(AgentMiddleware):
    """What a harness profile adds."""

    async def abefore_agent(self, state: Any, runtime: Any) -> None:
        return None


def _names(part: Any) -> list[str]:
    return [layer.name for layer in part.middleware]


def test_a_built_agent_shows_each_stack_in_order_with_tools_rules_and_backend(tmp_path) -> None:
    bench = deepnb.agent(
        unique("anatomy"),
        model=scripted({"main": ["hi"]}),
        tools=[search],
        middleware=[Audit()],
        memory=["/AGENTS.md"],
        skills=["/skills/"],
        interrupt_on={"write_file": True, "search": {"allowed_decisions": ["approve", "reject"]}},
        subagents=[{"name": "critic", "description": "Reviews.", "system_prompt": "Be sharp.", "tools": []}],
    )
    anatomy = bench.inspect()
    main, general, critic = anatomy.agents
    assert (main.role, general.name, critic.name) == ("main agent", "general-purpose", "critic")
    # create_deep_agent's order: core, then yours (todos, Audit), then skills, caching, memory, approval
    assert _names(main) == [
        "FilesystemMiddleware",
        "SubAgentMiddleware",
        "_ParentNotifierMiddleware",
        "SummarizationMiddleware",
        "PatchToolCallsMiddleware",
        "TodoListMiddleware",
        "Audit",
        "deepnb_extension_tools",
        "DeepnbSteeringMiddleware",
        "SkillsMiddleware",
        "AnthropicPromptCachingMiddleware",
        "MemoryMiddleware",
        "HumanInTheLoopMiddleware",
        "UnsupportedContentMiddleware",
    ]
    assert _names(critic) == [
        "FilesystemMiddleware",
        "SummarizationMiddleware",
        "PatchToolCallsMiddleware",
        "AnthropicPromptCachingMiddleware",
        "HumanInTheLoopMiddleware",
        "UnsupportedContentMiddleware",
    ]
    audit = next(layer for layer in main.middleware if layer.name == "Audit")
    assert audit.why.startswith("yours")
    tools = [name for name, _ in main.tools]
    assert tools[:7] == ["ls", "read_file", "write_file", "edit_file", "delete", "glob", "grep"]
    assert {"task", "write_todos", "search"} <= set(tools) and "execute" not in tools
    assert ("execute", "StateBackend can't run commands") in main.hidden
    assert "task" not in [name for name, _ in critic.tools]  # subagents don't delegate
    assert dict(main.interrupts) == {
        "write_file": "approve, edit, reject, respond",
        "search": "approve, reject",
    }
    assert dict(critic.interrupts)["write_file"] == "approve, edit, reject, respond"  # inherited
    backend = dict(anatomy.backend)
    assert backend["backend"].startswith("StateBackend")
    assert (backend["memory"], backend["skills"]) == ("/AGENTS.md", "/skills/")
    assert anatomy.source == "built by deepnb"


@pytest.fixture
def profile() -> Iterator[str]:
    """A harness profile registered for the scripted model's provider (removed afterwards)."""
    key = "scriptedchatmodel"
    register_harness_profile(
        key,
        HarnessProfile(
            excluded_middleware=frozenset({"PatchToolCallsMiddleware"}),
            extra_middleware=[Marker()],
            excluded_tools=frozenset({"grep"}),
            system_prompt_suffix="Be brief.",
        ),
    )
    yield key
    harness_profiles._HARNESS_PROFILES.pop(key, None)


def test_what_a_harness_profile_added_and_excluded_and_why(profile: str) -> None:
    anatomy = deepnb.agent(unique("profiled"), model=scripted({"main": ["hi"]})).inspect()
    harness = dict(anatomy.harness)
    assert harness["harness profile"] == profile
    assert harness["why"] == f"the profile of the provider {profile!r}"
    assert harness["adds middleware"] == "Marker"
    assert harness["excludes middleware"] == "PatchToolCallsMiddleware"
    assert harness["hides tools"] == "grep"
    assert harness["system prompt suffix"] == "9 characters"
    main = anatomy.agents[0]
    assert "PatchToolCallsMiddleware" not in _names(main)
    assert main.excluded == ("PatchToolCallsMiddleware",)
    marker = next(layer for layer in main.middleware if layer.name == "Marker")
    assert marker.why.startswith(f"added by the harness profile {profile!r}")
    assert ("grep", "excluded by the harness profile") in main.hidden
    assert "grep" not in [name for name, _ in main.tools]
    text = repr(anatomy)
    assert "excluded by the harness profile: PatchToolCallsMiddleware" in text


def test_an_attached_graph_shows_its_backend_routes_and_stacks(tmp_path) -> None:
    backend = CompositeBackend(
        default=FilesystemBackend(root_dir=str(tmp_path), virtual_mode=True),
        routes={"/memories/": StateBackend()},
    )
    model = scripted({"main": ["hi"]})
    graph = create_deep_agent(model=model, backend=backend, interrupt_on={"edit_file": True})
    anatomy = deepnb.attach(graph, name=unique("attached")).inspect()
    assert anatomy.source == "attached graph (CompiledStateGraph)"
    shown = dict(anatomy.backend)
    folder = f"FilesystemBackend: the folder {tmp_path} (virtual paths)"
    assert shown["backend"] == f"CompositeBackend, by default {folder}"
    assert shown["route /memories/"].startswith("StateBackend")
    assert "HumanInTheLoopMiddleware" in _names(anatomy.agents[0])
    assert dict(anatomy.agents[0].interrupts) == {"edit_file": "approve, edit, reject, respond"}


def test_a_create_agent_graph_and_a_graph_that_is_no_agent(tmp_path) -> None:
    plain = create_agent(scripted({"main": ["hi"]}), tools=[search], middleware=[Audit()])
    anatomy = deepnb.attach(plain, name=unique("plain")).inspect()
    (main,) = anatomy.agents
    assert _names(main) == ["Audit"]
    assert [name for name, _ in main.tools] == ["search"]
    assert dict(anatomy.backend)["backend"].startswith("none")
    folder = FilesystemBackend(root_dir=str(tmp_path), virtual_mode=True)
    given = deepnb.attach(plain, name=unique("plain-files"), backend=folder).inspect()
    read_through = dict(given.backend)["files read through"]
    assert read_through == f"FilesystemBackend: the folder {tmp_path} (virtual paths)"

    class Joke(TypedDict):
        topic: str
        joke: str

    builder = StateGraph(Joke)
    builder.add_node("write", lambda state: {"joke": state["topic"]})
    builder.add_edge(START, "write")
    builder.add_edge("write", END)
    other = deepnb.attach(builder.compile(), name=unique("joke")).inspect()
    assert other.agents == ()
    assert other.notes[0].startswith("Not a LangChain agent (no model step)")
    assert "Its nodes: write." in other.notes[0]


def test_no_secret_and_no_markup_from_the_agent_reaches_the_output(monkeypatch) -> None:
    secret = "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX"
    monkeypatch.setenv("MY_HEADER_TOKEN", "header-secret-value")
    model = ChatOpenAI(
        model="gpt-5.2-codex",
        api_key=secret,
        default_headers={"X-Api-Token": "header-secret-value"},
        max_retries=7,
    )
    bench = deepnb.agent(unique("secrets"), model=model, tools=[search])
    anatomy = bench.inspect()
    shown = [repr(anatomy), anatomy._repr_html_() or ""]
    for text in shown:
        assert secret not in text and "header-secret-value" not in text and "ABCDEFGHIJKLMNOP" not in text
    html = shown[1]
    assert HOSTILE not in html and "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in html
    model_fields = dict(anatomy.model)
    assert model_fields["model"] == "ChatOpenAI(gpt-5.2-codex)" and model_fields["max_retries"] == "7"
    assert dict(anatomy.harness)["why"] == "registered for 'openai:gpt-5.2-codex'"
    assert isinstance(anatomy, Anatomy)


def test_model_settings_librarys_middleware_and_fallback_models_are_named() -> None:
    from langchain.agents.middleware import ModelCallLimitMiddleware, ModelFallbackMiddleware

    secret = "sk-inspect-0123456789abcdefghijklmnop"
    model = ChatOpenAI(
        model="gpt-5", reasoning={"effort": "high", "summary": "auto"}, max_tokens=500, api_key=secret
    )
    fallback = ChatOpenAI(model="gpt-5-mini", api_key=secret)
    graph = create_agent(
        model,
        tools=[search],
        middleware=[ModelFallbackMiddleware(fallback), ModelCallLimitMiddleware(run_limit=5), Audit()],
    )
    anatomy = deepnb.attach(graph, name=unique("settings")).inspect()
    fields = dict(anatomy.model)
    assert fields["max_tokens"] == "500"
    assert fields["reasoning"] == '{"effort": "high", "summary": "auto"}'
    layers = {layer.kind: layer.why for layer in anatomy.agents[0].middleware}
    assert (
        layers["ModelFallbackMiddleware"]
        == "LangChain's: when a model call fails, tries ChatOpenAI(gpt-5-mini) in turn"
    )
    assert layers["ModelCallLimitMiddleware"].startswith("LangChain's ModelCallLimitMiddleware (langchain.")
    assert layers["Audit"].startswith("yours")
    assert secret not in repr(anatomy) and secret not in anatomy._repr_html_()


def test_anthropic_thinking_and_its_budget_are_shown() -> None:
    anthropic = pytest.importorskip("langchain_anthropic", reason="the anthropic extra")
    model = anthropic.ChatAnthropic(
        model="claude-sonnet-4-5",
        thinking={"type": "enabled", "budget_tokens": 2000},
        max_tokens=4000,
        api_key="x",
    )
    graph = create_agent(model, tools=[search])
    fields = dict(deepnb.attach(graph, name=unique("thinking")).inspect().model)
    assert fields["thinking"] == '{"budget_tokens": 2000, "type": "enabled"}'
    assert fields["max_tokens"] == "4000"
