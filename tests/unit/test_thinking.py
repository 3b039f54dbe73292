"""What a model thinks: read from every provider's shape, streamed as its own item kind, folded
once the answer starts, never in the result, redacted and escaped, counted apart."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult

import deepnb
from deepnb.core import events as ev
from deepnb.core.text.streamed import StreamRedactor
from deepnb.models.resolve import online_environment
from deepnb.views.run.snapshot import snapshot_bundle
from deepnb.views.run.tokens import tokens_words
from tests.support import anthropic_server
from tests.support.agents import scripted, unique
from tests.support.lab_sanitizer import unstyled

HOSTILE = "Weigh <script>window.__pwned=1</script> the **sources** first."

# Each provider's way of carrying what a model thought, as langchain's clients hand it over.
SHAPES: dict[str, AIMessageChunk] = {
    "anthropic thinking": AIMessageChunk(
        content=[{"type": "thinking", "thinking": "Weigh it.", "index": 0}, {"type": "text", "text": "Hi"}]
    ),
    "anthropic redacted": AIMessageChunk(content=[{"type": "redacted_thinking", "data": "x"}, "Hi"]),
    "standard reasoning": AIMessageChunk(content=[{"type": "reasoning", "reasoning": "Weigh it."}, "Hi"]),
    "openai responses": AIMessageChunk(
        content=[
            {
                "type": "reasoning",
                "id": "rs_1",
                "summary": [{"type": "summary_text", "text": "Weigh it.", "index": 0}],
            },
            {"type": "text", "text": "Hi"},
        ]
    ),
    "reasoning_content": AIMessageChunk(content="Hi", additional_kwargs={"reasoning_content": "Weigh it."}),
    "openai responses, older output": AIMessageChunk(
        content="Hi",
        additional_kwargs={"reasoning": {"summary": [{"type": "summary_text", "text": "Weigh it."}]}},
    ),
}


@pytest.mark.parametrize("shape", SHAPES, ids=list(SHAPES))
def test_every_provider_shape_is_read_and_kept_out_of_the_text(shape: str) -> None:
    chunk = SHAPES[shape]
    expected = ev.WITHHELD if shape == "anthropic redacted" else "Weigh it."
    assert ev.message_thinking(chunk) == expected
    assert ev.message_text(chunk.content) == "Hi"
    events = list(ev.EventTranslator().translate(((), "messages", (chunk, {"langgraph_node": "model"}))))
    assert events == [ev.ThinkingDelta(ev.MAIN, expected), ev.TextDelta(ev.MAIN, "Hi")]


def test_a_finished_turn_carries_its_thinking_and_reasoning_tokens() -> None:
    message = AIMessage(
        content=[
            {"type": "thinking", "thinking": "Weigh it.", "signature": "s"},
            {"type": "text", "text": "Hi"},
        ],
        id="m1",
        usage_metadata={
            "input_tokens": 10,
            "output_tokens": 7,
            "total_tokens": 17,
            "output_token_details": {"reasoning": 5},
        },
    )
    (turn,) = ev.EventTranslator().translate(((), "updates", {"model": {"messages": [message]}}))
    assert isinstance(turn, ev.ModelTurn)
    assert (turn.text, turn.thinking, turn.reasoning_tokens, turn.usage_reported) == (
        "Hi",
        "Weigh it.",
        5,
        True,
    )
    bare = AIMessage(content="Hi", id="m2")
    (turn,) = ev.EventTranslator().translate(((), "updates", {"model": {"messages": [bare]}}))
    assert isinstance(turn, ev.ModelTurn)
    assert (turn.usage_reported, turn.reasoning_tokens) == (False, None)


def test_the_answer_lets_go_of_the_thinking_held_back_first() -> None:
    redactor = StreamRedactor()
    out: list[ev.Event] = []
    for piece in ("I think about sk", "-"):  # a tail that could still become a key is held back
        out += redactor.feed(ev.ThinkingDelta(ev.MAIN, piece))
    out += redactor.feed(ev.TextDelta(ev.MAIN, "Answer"))
    assert [type(e).__name__ for e in out][-1] == "TextDelta"
    assert "".join(e.text for e in out if isinstance(e, ev.ThinkingDelta)) == "I think about sk-"


@pytest.fixture
def thought() -> Any:
    """A run whose main agent thinks (hostile text), calls a subagent that thinks, and answers."""
    model = scripted(
        {
            "main": [
                {
                    "thinking": HOSTILE,
                    "tool_calls": [
                        {"name": "task", "args": {"description": "Look", "subagent_type": "general-purpose"}}
                    ],
                },
                {"thinking": "Now answer.", "text": "The **answer**."},
            ],
            "general-purpose": [{"thinking": "Search the shelf.", "text": "Found it."}],
        }
    )
    run = deepnb.agent(unique("thinking"), model).run("Find it")
    assert run.status == "done", run.error
    return run


def test_thinking_is_its_own_item_before_the_answer_and_never_the_result(thought: Any) -> None:
    items = thought.state.items
    kinds = [(item["kind"], item["agent"]) for item in items if item["kind"] in ("thinking", "text")]
    assert kinds == [
        ("thinking", "main"),
        ("thinking", "main/general-purpose"),
        ("text", "main/general-purpose"),
        ("thinking", "main"),
        ("text", "main"),
    ]
    first = next(item for item in items if item["kind"] == "thinking")
    assert first["text"] == HOSTILE
    assert first["html"] is not None and "<script>" not in first["html"]
    assert thought.result == "The **answer**."
    assert "Now answer" not in json.dumps(thought.output, default=str)
    subagent = thought.tree.find("general-purpose")
    assert "Search the shelf" not in subagent.result


def test_reasoning_tokens_are_counted_apart(thought: Any) -> None:
    progress = thought.state.progress()
    assert progress["tokens_reasoning"] > 0
    assert progress["tokens_reasoning"] < progress["tokens_out"]
    assert "tokens_unreported" not in progress
    assert f"({progress['tokens_reasoning']:,} reasoning)" in snapshot_bundle(thought.state)["text/plain"]
    node = thought.state.nodes["main/general-purpose"]
    assert node["tokens_reasoning"] > 0


def test_the_snapshot_folds_thinking_and_escapes_it(thought: Any) -> None:
    bundle = snapshot_bundle(thought.state)
    html, text = unstyled(bundle["text/html"]), bundle["text/plain"]
    assert '<details class="dnb-thinking"><summary class="dnb-muted">Thinking</summary>' in html
    assert '<details class="dnb-thinking" open' not in html
    assert "<script>window.__pwned" not in html
    assert "Thinking\n  │ Weigh <script>" in text


def test_a_secret_in_thinking_is_redacted(monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "Zq7Wm2Lp9Xk4Rt8Vn3Kd6Str"
    monkeypatch.setenv("DEEPNB_TEST_API_KEY", secret)
    model = scripted({"main": [{"thinking": f"The key is {secret}, keep it.", "text": "Done."}]})
    run = deepnb.agent(unique("thinking-secret"), model).run("Go")
    shown = json.dumps(run.state.to_json()) + repr(run) + json.dumps(snapshot_bundle(run.state))
    shown += "".join(repr(event) for event in run.log)
    assert secret not in shown and "[redacted]" in shown


class Unreporting(GenericFakeChatModel):
    """A chat model that reports no usage (as some local servers and older clients do)."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> Unreporting:
        return self


def test_tokens_a_provider_did_not_report_are_unknown_not_zero() -> None:
    model = Unreporting(messages=iter([AIMessage(content="Hello.")]))
    run = deepnb.agent(unique("unreported"), model).run("Hi")
    assert run.status == "done", run.error
    progress = run.state.progress()
    assert progress["tokens_unreported"] == 1
    assert "tokens unknown" in snapshot_bundle(run.state)["text/plain"]
    assert tokens_words({"tokens_in": 5, "tokens_out": 2, "tokens_unreported": 2}) == (
        "tokens 5 in / 2 out · 2 model calls unreported"
    )


def test_a_recording_keeps_the_thinking(thought: Any, tmp_path: Any) -> None:
    path = thought.record(tmp_path / "replay.yaml")
    replayed = deepnb.agent(unique("replayed"), f"scripted:{path.path}").run("Find it")
    assert replayed.status == "done", replayed.error
    thinking = [item["text"] for item in replayed.state.items if item["kind"] == "thinking"]
    assert thinking[0] == HOSTILE and "Now answer." in thinking


# -- the real Anthropic client, against a local server speaking its streaming protocol ------------


@pytest.fixture
def offline_anthropic(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in online_environment() | {"ANTHROPIC_BASE_URL", "ANTHROPIC_API_URL"}:
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
def test_anthropic_thinking_blocks_through_the_real_client(offline_anthropic: None, stream: bool) -> None:
    pytest.importorskip("langchain_anthropic")
    from langchain_anthropic import ChatAnthropic

    script = [
        anthropic_server.Reply(
            thinking="Plan: list the files.", tool_uses=(("ls", {"path": "/"}),), usage=(300, 60)
        ),
        anthropic_server.Reply(redacted=True, text="Nothing there yet.", usage=(340, 20)),
    ]
    with anthropic_server.serve(script) as server:
        model = ChatAnthropic(
            model="claude-test",
            base_url=server.url,
            api_key="sk-ant-test-0000",
            streaming=stream,
            max_retries=0,
            thinking={"type": "enabled", "budget_tokens": 1024},
            max_tokens=2048,
        )
        run = deepnb.agent(unique("anthropic-thinking"), model).run("What files are there?")
    assert run.status == "done", run.error
    thinking = [item["text"] for item in run.state.items if item["kind"] == "thinking"]
    assert thinking == ["Plan: list the files.", ev.WITHHELD]
    assert run.result == "Nothing there yet."
    assert run.state.tokens_in == 640 and run.state.tokens_out == 80
    # the thinking went back to the model with its signature, as Anthropic requires
    second = server.requests[-1]["messages"][1]["content"]
    assert second[0]["type"] == "thinking" and second[0]["signature"].startswith("sig-")


# -- the real OpenAI client on the Responses API, against a local server speaking its stream -------


@pytest.fixture
def offline_openai(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in online_environment() | {"OPENAI_BASE_URL", "OPENAI_API_BASE", "OPENAI_ORG_ID"}:
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
def test_openai_reasoning_summaries_through_the_real_client(offline_openai: None, stream: bool) -> None:
    """``ChatOpenAI(use_responses_api=True, reasoning={"summary": "auto"})``: each turn's
    reasoning summary is a thinking item, streamed live ahead of the turn's text and kept in
    the snapshot, never in ``run.result``; its reasoning tokens are counted apart."""
    from langchain_openai import ChatOpenAI

    from tests.support import openai_responses_server as responses

    script = [
        responses.Reply(
            reasoning="Plan: <list> the files.", calls=(("ls", {"path": "/"}),), usage=(300, 60, 40)
        ),
        responses.Reply(reasoning="Nothing is there yet.", text="The folder is empty.", usage=(340, 20, 12)),
    ]
    with responses.serve(script) as server:
        model = ChatOpenAI(
            model="o-test",
            base_url=server.url,
            api_key="sk-test-0000",
            use_responses_api=True,
            reasoning={"summary": "auto"},
            streaming=stream,
            max_retries=0,
        )
        seen: list[ev.Event] = []
        run = deepnb.agent(unique("openai-reasoning"), model).start("What files are there?")
        run.subscribe(seen.append)
        run.wait(30)
    assert run.status == "done", run.error
    assert len(server.requests) == 2 and all(bool(r.get("stream")) is stream for r in server.requests)
    assert server.requests[0]["reasoning"] == {"summary": "auto"}
    thinking = [item["text"] for item in run.state.items if item["kind"] == "thinking"]
    assert thinking == ["Plan: <list> the files.", "Nothing is there yet."]
    assert run.result == "The folder is empty."
    assert run.state.steps == 2  # one model call each, though its chunks carry two ids
    assert run.state.tokens_in == 640 and run.state.tokens_out == 80 and run.state.tokens_reasoning == 52
    live = "".join(e.text for e in seen if isinstance(e, ev.ThinkingDelta))
    assert live == "Plan: <list> the files.Nothing is there yet."
    if stream:  # streamed: in pieces, each turn's reasoning ahead of its text
        kinds = [type(e).__name__ for e in seen]
        assert kinds.count("ThinkingDelta") > 2
        assert kinds.index("ThinkingDelta", kinds.index("ToolCallFinished")) < kinds.index("TextDelta")
    bundle = snapshot_bundle(run.snapshot().state)
    assert "Thinking\n  │ Plan: <list> the files." in bundle["text/plain"]
    assert "Plan: &lt;list&gt; the files." in bundle["text/html"] and "<list>" not in bundle["text/html"]


# -- the reasoning_content LangChain's DeepSeek, Groq, xAI and Ollama clients keep -----------------

# Where each released client puts a model's reasoning: in the message's
# ``additional_kwargs["reasoning_content"]``, streamed (one chunk per delta, ``content`` the
# delta's text) and whole (one message).
KEEPERS = {
    "deepseek": "langchain-deepseek 1.1.1, ChatDeepSeek._convert_chunk_to_generation_chunk and "
    "_create_chat_result: the delta's or message's reasoning_content",
    "groq": "langchain-groq 1.1.3 (reasoning_format='parsed'), _convert_chunk_to_message_chunk and "
    "_convert_dict_to_message: the delta's or message's reasoning",
    "xai": "langchain-xai 1.3.0, ChatXAI._convert_chunk_to_generation_chunk and _create_chat_result: "
    "the delta's or message's reasoning_content",
    "ollama": "langchain-ollama 1.1.0 (reasoning=True), ChatOllama._iterate_over_stream: each "
    "response's message.thinking; _generate keeps the streamed chunks' additional_kwargs",
}
THOUGHT = ("The user asks for the <capital>; ", "Lisbon is it.")
ANSWER = "Lisbon."


class KeptReasoning(BaseChatModel):
    """A chat model handing over its reasoning as ``provider``'s LangChain client does."""

    provider: str

    @property
    def _llm_type(self) -> str:
        return f"kept-reasoning-{self.provider}"

    def bind_tools(self, tools: Any, **kwargs: Any) -> KeptReasoning:
        return self

    def _stream(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> Iterator[ChatGenerationChunk]:
        kept = {"model_provider": self.provider}
        for piece in THOUGHT:
            yield ChatGenerationChunk(
                message=AIMessageChunk(
                    content="", additional_kwargs={"reasoning_content": piece}, response_metadata=kept
                )
            )
        for piece in ("Lis", "bon."):
            yield ChatGenerationChunk(message=AIMessageChunk(content=piece, response_metadata=kept))

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        message = AIMessage(
            content=ANSWER,
            additional_kwargs={"reasoning_content": "".join(THOUGHT)},
            response_metadata={"model_provider": self.provider},
        )
        return ChatResult(generations=[ChatGeneration(message=message)])


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
@pytest.mark.parametrize("provider", KEEPERS)
def test_the_reasoning_content_langchains_clients_keep_is_a_thinking_item(
    provider: str, stream: bool
) -> None:
    """DeepSeek, Groq, xAI and Ollama (through their LangChain clients, see ``KEEPERS``): the
    reasoning is one Thinking item, live ahead of the answer when streamed, escaped in the
    snapshot, never in ``run.result``."""
    model = KeptReasoning(provider=provider, disable_streaming=not stream)
    seen: list[ev.Event] = []
    run = deepnb.agent(unique(f"kept-{provider}"), model).start("What is the capital?")
    run.subscribe(seen.append)
    run.wait(30)
    assert run.status == "done", run.error
    thought = "".join(THOUGHT)
    assert [(i["kind"], i["text"]) for i in run.state.items if i["kind"] in ("thinking", "text")] == [
        ("thinking", thought),
        ("text", ANSWER),
    ]
    assert run.result == ANSWER
    kinds = [type(e).__name__ for e in seen]
    assert "".join(e.text for e in seen if isinstance(e, ev.ThinkingDelta)) == thought
    assert kinds.index("ThinkingDelta") < kinds.index("TextDelta")
    if stream:
        assert kinds.count("ThinkingDelta") == len(THOUGHT)
    html = snapshot_bundle(run.snapshot().state)["text/html"]
    assert "the &lt;capital&gt;" in html and "<capital>" not in html
