"""Every kind of run failure says what helps: the retry hint only where re-running can help (a
model, a provider, the network), the tool or middleware and its file:line for a bug in one; and
no failure is shown cut mid-sentence (a card clips at a sentence, saying how much run.error
still holds)."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware
from langchain_core.tools import tool

import deepnb
from deepnb.core.explain import SHOWN_LIMIT, clip_failure, explain
from tests.support.agents import scripted, unique

RETRY = "re-run the cell to retry"
CALL = [{"tool_calls": [{"name": "lookup", "args": {"key": "zz"}}]}, "after"]
LONG = " ".join(f"Sentence {i} says a little more about what went wrong." for i in range(40))


def _line(function: Callable[..., Any], text: str) -> str:
    """``file.py:N`` of the line of ``function`` holding ``text``."""
    lines, start = inspect.getsourcelines(function)
    index = next(i for i, line in enumerate(lines) if text in line)
    return f"test_failure_messages.py:{start + index}"


def _tool_raising(error: BaseException) -> Any:
    @tool
    async def lookup(key: str) -> str:
        """Look a key up."""
        raise error

    return lookup


async def _buggy_lookup(key: str) -> str:
    """Look a key up (with a bug)."""
    return {"a": "1"}[key]


def _shout(state: dict[str, Any]) -> dict[str, Any]:
    """A graph node with a bug: what it reads may be missing."""
    text = state.get("summary")
    return {"messages": [text.upper()]}


class RateLimitError(Exception):
    """What a provider's client raises for HTTP 429."""

    status_code = 429


class BuggyHook(AgentMiddleware):
    async def abefore_model(self, state: Any, runtime: Any) -> None:
        return state["no such key"]


class SyncOnly(AgentMiddleware):
    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        return handler(request)


class RateLimited(AgentMiddleware):
    async def awrap_model_call(self, request: Any, handler: Any) -> Any:
        raise RateLimitError("Rate limit reached for requests. Try again in 20s.")


def _bench(kind: str) -> deepnb.Workbench:
    name = unique(f"fail-{kind}")
    lookup = tool("lookup")(_buggy_lookup) if kind == "tool bug" else None
    if kind == "model":
        return deepnb.agent(name, model=scripted({"main": [{"error": "upstream refused the request"}]}))
    if kind == "provider rate limit":
        return deepnb.agent(name, model=scripted({"main": ["never"]}), middleware=[RateLimited()])
    if kind == "network in a tool":
        tools = [_tool_raising(ConnectionError("Connection reset by peer"))]
        return deepnb.agent(name, model=scripted({"main": CALL}), tools=tools)
    if kind == "tool bug":
        return deepnb.agent(name, model=scripted({"main": CALL}), tools=[lookup])
    if kind == "middleware bug":
        return deepnb.agent(name, model=scripted({"main": ["never"]}), middleware=[BuggyHook()])
    if kind == "sync-only middleware":  # in a graph compiled outside deepnb, which adapts its own
        tools = [tool("lookup")(_buggy_lookup)]
        graph = create_agent(scripted({"main": CALL}), tools=tools, middleware=[SyncOnly()])
        return deepnb.attach(graph, name=name)
    if kind == "graph node bug":
        from langgraph.graph import START, MessagesState, StateGraph

        builder = StateGraph(MessagesState)
        builder.add_node("shout", _shout)
        builder.add_edge(START, "shout")
        return deepnb.attach(builder.compile(), name=name)
    if kind == "exit in a tool":
        return deepnb.agent(name, model=scripted({"main": CALL}), tools=[_tool_raising(SystemExit(3))])
    raise AssertionError(kind)


EXPECTED: dict[str, tuple[str, bool, list[str]]] = {
    # kind: (the run's error starts with, retry hint?, what it names)
    "model": ("RuntimeError: upstream refused the request", True, []),
    "provider rate limit": ("RateLimitError: Rate limit reached for requests.", True, []),
    "network in a tool": ("ConnectionError: Connection reset by peer", True, ["the tool lookup met"]),
    "graph node bug": (
        "AttributeError: 'NoneType' object has no attribute 'upper'",
        False,
        [
            "a bug in the graph's own code",
            "shout() in " + _line(_shout, ".upper()"),
        ],
    ),
    "tool bug": (
        "KeyError: 'zz'",
        False,
        ["the tool lookup", "_buggy_lookup() in " + _line(_buggy_lookup, "[key]")],
    ),
    "middleware bug": (
        "KeyError: 'no such key'",
        False,
        ["the middleware BuggyHook", "abefore_model() in " + _line(BuggyHook.abefore_model, "no such key")],
    ),
    "sync-only middleware": (
        "NotImplementedError: Asynchronous implementation of awrap_tool_call is not available.",
        False,
        ["the middleware SyncOnly", "class SyncOnly in " + _line(SyncOnly, "class Sync"), "awrap_tool_call"],
    ),
    "exit in a tool": ("The tool lookup raised SystemExit: 3", False, ["deepnb stopped the run"]),
}


@pytest.mark.parametrize("kind", list(EXPECTED))
def test_each_kind_of_failure_says_what_helps(kind: str) -> None:
    run = _bench(kind).start("go", new_thread=True).wait(30)
    start, retry, names = EXPECTED[kind]
    assert run.status == "error"
    assert run.error.startswith(start), run.error
    assert (RETRY in run.error) is retry, run.error
    assert ("retry" in run.error) is retry  # no other wording of it either
    for name in names:
        assert name in run.error, run.error
    assert run.state.items[-1]["text"] == run.error  # short enough: the card shows it whole


def test_a_long_failure_is_clipped_at_a_sentence_and_says_where_the_rest_is() -> None:
    bench = deepnb.agent(unique("fail-long"), model=scripted({"main": [{"error": LONG}]}))
    run = bench.start("go", new_thread=True).wait(30)
    assert run.error == f"RuntimeError: {LONG} — {RETRY} from the last checkpoint."  # whole
    card = run.state.items[-1]["text"]
    shown, note = card.split(" … (")
    assert shown.endswith("wrong.") and len(shown) <= SHOWN_LIMIT
    left = len(f"RuntimeError: {LONG}") - len(shown)
    assert note.startswith(f"{left:,} more characters: run.error has all of it)")
    assert card.endswith(f" — {RETRY} from the last checkpoint.")  # what helps is never cut


@pytest.mark.parametrize("limit", [40, 160, 600])
def test_clipping_never_ends_inside_a_word(limit: int) -> None:
    text = "ValueError: " + "x" * 30 + " " + LONG + " — fix it."
    clipped = clip_failure(text, limit)
    shown = clipped.split(" … (")[0]
    assert shown and text.startswith(shown)
    assert text[len(shown)] in " \n"  # the cut falls between words
    assert re.search(r"\(\d[\d,]* more characters: run.error has all of it\) — fix it\.$", clipped)


def test_a_failure_without_a_traceback_is_a_model_failure() -> None:
    assert explain(RuntimeError("Error code: 500")).kind == "model"
    assert explain(RateLimitError("slow down")).kind == "transient"
