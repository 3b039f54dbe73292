"""No piece of a secret is shown while it streams: a run whose model, subagent and tool stream a
secret (an environment value, and a key-shaped token) in 3-character pieces sends no comm
message, and gives no listener, repr, snapshot or log, that holds 8 or more of its first
characters — and the innocent text around it arrives whole once each stream ends."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import comm
import pytest
from langchain_core.messages import AIMessage, AIMessageChunk
from langgraph.config import get_stream_writer

import deepnb
from deepnb.core import events as ev
from deepnb.core.text.streamed import CHANNELS, StreamRedactor
from deepnb.models.resolve import online_environment
from deepnb.models.scripted import ScriptedChatModel, parse_script
from deepnb.session.run import Run
from deepnb.views.run.run_view import RunView
from deepnb.views.run.snapshot import snapshot_bundle
from tests.support.agents import unique

SECRET = "Zq7Wm2Lp9Xk4Rt8Vn3Kd6Str"
"""24 characters shaped like no known key: only the environment lookup can find it."""
KEY = "sk-proj-Ab3dEf6hIj9kLm2nOp5q"
"""Shaped like a provider key, in no variable: only its shape can find it."""
INNOCENT = ("Zq7Wm2L", "task-list-overview", "Bearer", "xoxo", "Abacus", "ghost")
"""Text that begins like a secret or a key but is none: it must arrive as it is."""
PIECE = 3
MIN_PREFIX = 8


def pieces(text: str) -> list[str]:
    return [text[i : i + PIECE] for i in range(0, len(text), PIECE)]


def said(who: str) -> str:
    return f"{who} says {SECRET}, then {KEY}; also {' '.join(INNOCENT)} end."


class ThreeCharacters(ScriptedChatModel):
    """The scripted model, its text and its thinking streamed 3 characters at a time (as real
    models often do)."""

    def _chunks(self, message: AIMessage) -> Iterator[AIMessageChunk]:
        for chunk in super()._chunks(message):
            if isinstance(chunk.content, str) and chunk.content:
                for piece in pieces(chunk.content):
                    yield AIMessageChunk(content=piece)
            elif isinstance(chunk.content, list) and chunk.content and chunk.content[0].get("thinking"):
                block = chunk.content[0]
                for piece in pieces(block["thinking"]):
                    yield AIMessageChunk(content=[{**block, "thinking": piece}])
            elif isinstance(chunk.content, list) and chunk.content and chunk.content[0].get("text"):
                block = chunk.content[0]
                for piece in pieces(block["text"]):
                    yield AIMessageChunk(content=[{**block, "text": piece}])
            else:
                yield chunk


def stream_report(topic: str) -> str:
    """Stream a report on ``topic`` as it is written."""
    write = get_stream_writer()
    for piece in pieces(said("the tool")):
        write(piece)
    return "reported"


def leaked(text: str) -> list[str]:
    """The prefixes (8+ characters) of the secret or the key that ``text`` holds."""
    return [
        secret[:n]
        for secret in (SECRET, KEY)
        for n in range(MIN_PREFIX, len(secret) + 1)
        if secret[:n] in text
    ]


@pytest.fixture
def streamed_run(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> dict[str, Any]:
    """One run through a real RunView, flushed at every event: every comm message it published,
    and at every event the listener's view of it (the event, the run's repr, its snapshot)."""
    for name in online_environment():
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DEEPNB_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("DEEPNB_TEST_API_KEY", SECRET)
    sent: list[str] = []

    def publish(self: Any, msg_type: str, data: Any = None, *args: Any, **keys: Any) -> None:
        sent.append(json.dumps(data or {}, default=repr, ensure_ascii=False))

    monkeypatch.setattr(comm.DummyComm, "publish_msg", publish)
    script = {
        "agents": {
            "main": [
                {
                    "thinking": said("the model's thinking"),
                    "text": said("the model"),
                    "tool_calls": [
                        {"name": "task", "args": {"description": "Look", "subagent_type": "general-purpose"}},
                        {"name": "stream_report", "args": {"topic": "keys"}},
                    ],
                },
                said("the answer"),
            ],
            "general-purpose": [{"thinking": said("the subagent's thinking"), "text": said("the subagent")}],
        }
    }
    model = ThreeCharacters(script=parse_script(script))
    bench = deepnb.agent(unique("streamed-secret"), model, tools=[stream_report])
    seen: list[str] = []
    kinds: set[str] = set()
    views: list[RunView] = []
    runs: list[Run] = []

    def listener(event: ev.Event) -> None:
        kinds.add(type(event).__name__ + ("@" + event.agent if type(event) in CHANNELS else ""))
        seen.append(repr(event))
        seen.append(repr(runs[0]))
        seen.append(json.dumps(snapshot_bundle(runs[0].state), ensure_ascii=False))
        for view in views:
            view._flush()

    opened = Run.__init__

    def listened(self: Run, *args: Any, **keys: Any) -> None:  # from the run's first event on
        opened(self, *args, **keys)
        runs.append(self)
        self.subscribe(listener)

    monkeypatch.setattr(Run, "__init__", listened)
    run = bench.start("Report the keys.")
    views.append(RunView(run))
    run.wait(60)
    assert run.status == "done", run.error
    return {"run": run, "sent": sent, "seen": seen, "kinds": kinds}


def test_no_prefix_of_a_secret_is_shown_while_it_streams(streamed_run: dict[str, Any]) -> None:
    run: Run = streamed_run["run"]
    # every streamed channel was exercised, in pieces: main and subagent text, a tool's stream
    assert {
        "TextDelta@main",
        "TextDelta@main/general-purpose",
        "ThinkingDelta@main",
        "ThinkingDelta@main/general-purpose",
        "Custom@main",
    } <= streamed_run["kinds"]
    shown = streamed_run["sent"] + streamed_run["seen"] + [repr(e) for e in run.log]
    shown += [json.dumps(run.state.to_json(), ensure_ascii=False), repr(run)]
    for where, text in enumerate(shown):
        assert not leaked(text), f"shown #{where} holds {leaked(text)}: {text[:300]}"
    # the innocent text arrives whole, in the transcript (streamed, then each turn's) and the tool's stream
    final = json.dumps(run.state.to_json(), ensure_ascii=False)
    for word in INNOCENT:
        assert word in final
    assert "the answer says [redacted], then [redacted]; also " + " ".join(INNOCENT) in final
    assert "the subagent's thinking says [redacted], then [redacted]; also " + " ".join(INNOCENT) in final


def test_held_text_is_let_go_at_every_end() -> None:
    """Each stream's held end is released, redacted, before the event that ends it — a model
    turn, a tool call, a subagent's end, the run's end, failure, stop or pause — never lost."""
    agent = "main/general-purpose"
    ends: list[ev.Event] = [
        ev.ModelTurn(agent, "x"),
        ev.ToolCallStarted(agent, "c", "ls", {}),
        ev.ToolCallFinished(agent, "c", "ls", "ok"),
        ev.SubagentFinished(ev.MAIN, "t", agent),
        ev.Interrupted(agent, ()),
        ev.RunFinished(ev.MAIN, "done"),
        ev.RunFailed(ev.MAIN, "boom"),
        ev.RunCancelled(ev.MAIN),
        ev.RunPaused(ev.MAIN, ()),
    ]
    for end in ends:
        redactor = StreamRedactor()
        out = []
        for piece in pieces("so the word is Zq7"):
            out += redactor.feed(ev.TextDelta(agent, piece))
        out += redactor.feed(ev.Custom(agent, "tool out: s"))
        out += redactor.feed(end)
        texts = "".join(e.text for e in out if isinstance(e, ev.TextDelta))
        data = "".join(e.data for e in out if isinstance(e, ev.Custom))
        assert (texts, data, out[-1]) == ("so the word is Zq7", "tool out: s", end), type(end).__name__


def test_only_text_is_streamed() -> None:
    """The streams :data:`CHANNELS` covers are all there are: a model's text and its thinking
    (thinking and reasoning blocks, one stream) are deltas of their own; tool-call argument pieces
    never become events (a new kind of delta must be added to the channels)."""
    translator = ev.EventTranslator()
    chunk = AIMessageChunk(
        content=[
            {"type": "thinking", "thinking": SECRET[:9]},
            {"type": "reasoning", "reasoning": SECRET[:9]},
            {"type": "text", "text": "hi"},
        ],
        tool_call_chunks=[{"name": "ls", "args": '{"p": "' + SECRET[:9], "id": "c1", "index": 0}],
    )
    events = list(translator.translate(((), "messages", (chunk, {"langgraph_node": "model"}))))
    assert events == [ev.ThinkingDelta(ev.MAIN, SECRET[:9] * 2), ev.TextDelta(ev.MAIN, "hi")]
    deltas = {
        kind for kind in vars(ev).values() if isinstance(kind, type) and kind.__name__.endswith("Delta")
    }
    assert deltas <= set(CHANNELS)


STREAMS = [
    f"plain {SECRET} text",
    f"{SECRET}{SECRET} twice, then Zq7Wm2Lp9Xk4 and Zq7W alone",
    f"key {KEY}, a longer {KEY}xyz0123 and {KEY}",
    "task-proj-abcdefghijklmnopq ask-abcdefghijklmnop: no key there",
    "Bearer abcdefghijklmnop. bearer\t\tzzzzzzzzzzzz and xbearer tok",
    "ghp_abcdefghijklmnopqrstuvwxyz AIzaSyA1234567890abcdefghijk xoxb-1234567890-abc",
    "lsv2_pt_abcdefghijklmnopqrstu, then lsv2_ and AIza and ghp_ cut short",
    'json "Zq7Wm2Lp9Xk4Rt8Vn3Kd6Str\\" and sk-proj-Ab3\\u00f6 html &lt;Zq7Wm2Lp9Xk4Rt8Vn3Kd6Str&gt;',
    "s sk sk- gh ghp ghp_ A AI AIz l ls lsv lsv2 x xo xox xoxa b be bea bear beare bearer",
]


@pytest.mark.parametrize("size", [1, 2, 3, 5, 8])
@pytest.mark.parametrize("text", STREAMS, ids=range(len(STREAMS)))
def test_a_stream_reads_as_its_whole_text_redacted(
    monkeypatch: pytest.MonkeyPatch, text: str, size: int
) -> None:
    """Streamed in pieces of any size, a text comes out as the redaction of the whole text — no
    innocent character redacted, none lost, none reordered. So each piece shown is a slice of the
    whole text redacted: no piece shows any part of a secret that the whole text hides."""
    from deepnb.core.text.secrets import redact

    monkeypatch.setenv("DEEPNB_TEST_API_KEY", SECRET)
    redactor = StreamRedactor()
    out: list[ev.Event] = []
    for start in range(0, len(text), size):
        out += redactor.feed(ev.TextDelta(ev.MAIN, text[start : start + size]))
    out += redactor.feed(ev.RunFinished(ev.MAIN, ""))
    assert "".join(e.text for e in out if isinstance(e, ev.TextDelta)) == redact(text)
