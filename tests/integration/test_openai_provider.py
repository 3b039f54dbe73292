"""deepnb's real provider path, end to end and offline: ``model="openai:..."`` builds the real
``langchain-openai`` client, which talks to a local OpenAI-compatible server."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from langchain_openai import ChatOpenAI

import deepnb
from deepnb.core.errors import DeepnbError
from deepnb.models.resolve import online_environment
from deepnb.session.agents import registered
from deepnb.session.run import Run
from deepnb.views.run.snapshot import snapshot_text
from tests.support.openai_server import (
    OpenAIServer,
    Reply,
    error,
    serve,
    text,
    tool_call,
)

SENTINEL = "sk-test-SENTINEL-0123456789"
MODEL = "openai:gpt-test"

# Variables that would send the client elsewhere, trace to LangSmith or change its defaults.
_FOREIGN_ENV = online_environment() | {
    "OPENAI_API_BASE",
    "OPENAI_ORG_ID",
    "OPENAI_ORGANIZATION",
    "OPENAI_PROJECT_ID",
    "OPENAI_PROXY",
    "OPENAI_WEBHOOK_SECRET",
    "LANGSMITH_GATEWAY",
    "LANGSMITH_GATEWAY_API_KEY",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
}

TODOS = [
    {"content": "Outline the release notes", "status": "in_progress"},
    {"content": "Write them to /notes/release.md", "status": "pending"},
]
NOTES = "# Release notes\n\n- Faster runs\n- Fewer surprises\n"
ANSWER = "Done: the release notes are in **/notes/release.md**."


def happy_script(usage: tuple[int, int] | None = None) -> list:
    return [
        tool_call("write_todos", {"todos": TODOS}, text="I'll plan first.", usage=usage),
        tool_call("write_file", {"file_path": "/notes/release.md", "content": NOTES}, usage=usage),
        text(ANSWER, usage=usage),
    ]


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[OpenAIServer]:
    """A local OpenAI-compatible server, with the environment pointing the OpenAI client at it."""
    for name in _FOREIGN_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    with serve() as running:
        monkeypatch.setenv("OPENAI_API_KEY", SENTINEL)
        monkeypatch.setenv("OPENAI_BASE_URL", running.url)
        yield running


def tool_cards(run: Run) -> list[tuple[str, str]]:
    return [(item["name"], item["status"]) for item in run.state.items if item["kind"] == "tool"]


def test_scripted_conversation_through_the_real_openai_client(server: OpenAIServer) -> None:
    server.script = happy_script()
    workbench = deepnb.agent(name="openai-e2e-happy", model=MODEL)

    run = workbench.run("Write the release notes.")

    assert run.status == "done", run.error
    assert run.error is None
    assert run.result == ANSWER
    assert run.todos == TODOS
    assert "/notes/release.md" in run.files
    assert run.files["/notes/release.md"] == NOTES
    assert tool_cards(run) == [("write_todos", "done"), ("write_file", "done")]
    texts = [item["text"] for item in run.state.items if item["kind"] == "text"]
    assert texts == ["I'll plan first.", ANSWER]
    assert run.state.steps == 3

    requests = server.completions()
    assert len(requests) == 3
    assert len(server.requests) == 3  # nothing but chat completions (no /responses, no retries)
    for request in requests:
        assert request.path == "/v1/chat/completions"
        assert request.stream, "deepnb streams model calls"
        assert request.api_key == SENTINEL
        assert request.body["model"] == "gpt-test"
        assert {"write_todos", "write_file", "read_file", "task"} <= set(request.tool_names)
    # Each call carries the previous tool results back, paired to the streamed call ids.
    last = requests[-1].messages
    assert [m["role"] for m in last] == ["system", "user", "assistant", "tool", "assistant", "tool"]
    calls = [m["tool_calls"][0] for m in last if m["role"] == "assistant"]
    assert [c["function"]["name"] for c in calls] == ["write_todos", "write_file"]
    assert json.loads(calls[1]["function"]["arguments"]) == {
        "file_path": "/notes/release.md",
        "content": NOTES,
    }
    assert [m["tool_call_id"] for m in last if m["role"] == "tool"] == [c["id"] for c in calls]


def test_token_usage_is_counted_for_a_provider_string(server: OpenAIServer) -> None:
    server.script = happy_script()
    run = deepnb.agent(name="openai-e2e-usage", model=MODEL).run("Write the release notes.")

    assert run.status == "done", run.error
    assert run.state.tokens_in > 0
    assert run.state.tokens_out > 0


def test_token_usage_is_counted_when_the_client_asks_for_it(server: OpenAIServer) -> None:
    from langchain_openai import ChatOpenAI

    server.script = happy_script(usage=(100, 7))
    model = ChatOpenAI(model="gpt-test", stream_usage=True)
    run = deepnb.agent(name="openai-e2e-usage-object", model=model).run("Write the release notes.")

    assert run.status == "done", run.error
    assert (run.state.tokens_in, run.state.tokens_out) == (300, 21)
    for request in server.completions():
        assert request.body.get("stream_options") == {"include_usage": True}


def test_provider_error_is_one_redacted_line_and_the_thread_recovers(server: OpenAIServer) -> None:
    server.script = [error(401)]  # the body echoes the key it was sent, worst case
    workbench = deepnb.agent(name="openai-e2e-401", model=MODEL)

    failed = workbench.run("Summarise the notes.")

    assert failed.status == "error"
    assert failed.result is None
    assert failed.error and "\n" not in failed.error
    assert "401" in failed.error
    assert len(server.completions()) == 1  # a 401 is not retried
    assert server.completions()[0].api_key == SENTINEL  # the key went out, so it could leak
    for shown in (failed.error, repr(failed.state.to_json()), repr(failed)):
        assert SENTINEL not in shown
        assert "SENTINEL" not in shown
    assert [item["kind"] for item in failed.state.items][-1] == "error"

    # Re-running the same prompt retries from the last checkpoint.
    server.script = [text("The notes are short.")]
    retried = workbench.run("Summarise the notes.")
    assert retried.status == "done", retried.error
    assert retried.result == "The notes are short."
    assert retried.thread_id == failed.thread_id
    sent = server.completions()[-1].messages
    assert [m["role"] for m in sent] == ["system", "user"]  # the prompt is not sent twice

    # And the thread takes new prompts.
    server.script = [text("Yes.")]
    followup = workbench.run("Anything else?")
    assert followup.status == "done", followup.error
    assert followup.result == "Yes."
    roles = [m["role"] for m in server.completions()[-1].messages]
    assert roles == ["system", "user", "assistant", "user"]


def test_missing_api_key_is_a_deepnb_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)

    with pytest.raises(DeepnbError, match="OPENAI_API_KEY"):
        deepnb.agent(name="openai-e2e-no-key", model=MODEL)
    assert "openai-e2e-no-key" not in registered()


def test_model_without_a_provider_is_a_deepnb_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SENTINEL)

    with pytest.raises(DeepnbError, match="provider:model"):
        deepnb.agent(name="openai-e2e-malformed", model="gpt-4o")
    assert "openai-e2e-malformed" not in registered()


def test_server_speaks_the_openai_protocol(server: OpenAIServer) -> None:
    """The test server itself, through the ``openai`` SDK: models, both completion modes,
    usage, errors and unknown routes."""
    import openai

    client = openai.OpenAI(base_url=server.url, api_key=SENTINEL, max_retries=0)
    assert [m.id for m in client.models.list()] == ["gpt-test"]

    server.script = {
        "*": [text("plain")],
        "weather": [tool_call("get_weather", {"city": "Oslo"}), text("Sunny.", usage=(9, 2))],
    }
    done = client.chat.completions.create(
        model="gpt-test", messages=[{"role": "user", "content": "What's the weather?"}]
    )
    assert done.choices[0].finish_reason == "tool_calls"
    call = done.choices[0].message.tool_calls[0]
    assert call.function.name == "get_weather"
    assert json.loads(call.function.arguments) == {"city": "Oslo"}
    assert done.usage.prompt_tokens > 0 and done.usage.completion_tokens > 0

    history = [
        {"role": "user", "content": "What's the weather?"},
        {"role": "assistant", "content": None, "tool_calls": [call.model_dump()]},
        {"role": "tool", "tool_call_id": call.id, "content": "sunny"},
    ]
    chunks = list(
        client.chat.completions.create(
            model="gpt-test", messages=history, stream=True, stream_options={"include_usage": True}
        )
    )
    deltas = [c.choices[0].delta.content for c in chunks if c.choices]
    deltas = [d for d in deltas if d]
    assert len(deltas) > 1 and "".join(deltas) == "Sunny."
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert chunks[-1].choices == [] and chunks[-1].usage.total_tokens == 11

    plain = client.chat.completions.create(
        model="gpt-test",
        messages=[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}],
        stream=True,
    )
    assert "".join(c.choices[0].delta.content or "" for c in plain if c.choices) == "plain"

    server.script = [error(401)]
    with pytest.raises(openai.AuthenticationError) as raised:
        client.chat.completions.create(model="gpt-test", messages=[{"role": "user", "content": "x"}])
    assert raised.value.code == "invalid_api_key"

    with pytest.raises(openai.NotFoundError):
        client.post("/nowhere", cast_to=object, body={})


def test_reasoning_an_openai_compatible_server_sends_is_a_thinking_item(server: OpenAIServer) -> None:
    """vLLM (and other OpenAI-compatible servers) stream ``reasoning_content`` beside ``content``;
    ``openai:MODEL`` keeps it: a Thinking item before the answer, never part of the result."""
    thought = "The user wants release notes; plan them, then write them."
    server.script = [Reply(text=ANSWER, reasoning=thought)]
    run = deepnb.agent(name="openai-e2e-reasoning", model=MODEL).run("Write the release notes.")

    assert run.status == "done", run.error
    assert [r.stream for r in server.requests] == [True]  # streamed: reasoning_content came as deltas
    kinds = [(item["kind"], item.get("text")) for item in run.state.items if item["kind"] != "prompt"]
    assert kinds == [("thinking", thought), ("text", ANSWER)]
    assert run.result == ANSWER and thought not in run.result
    assert thought in snapshot_text(run.state.to_json())


def test_a_chatopenai_built_by_hand_shows_no_reasoning_from_such_a_server(server: OpenAIServer) -> None:
    """As the models page says: ``langchain-openai``'s own ``ChatOpenAI`` drops the
    ``reasoning_content`` deltas, so only ``openai:MODEL`` shows them."""
    server.script = [Reply(text=ANSWER, reasoning="Plan the notes first.")]
    model = ChatOpenAI(model="gpt-test", max_retries=0)
    run = deepnb.agent(name="openai-e2e-hand-built", model=model).run("Write the release notes.")

    assert run.status == "done", run.error
    assert [r.stream for r in server.requests] == [True]
    assert [item["kind"] for item in run.state.items if item["kind"] != "prompt"] == ["text"]
    assert run.result == ANSWER
