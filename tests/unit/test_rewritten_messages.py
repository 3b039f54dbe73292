"""An update that writes a thread's messages whole again (deepagents' patch of tool calls left
without a result, a summarization keeping the newest messages) sends back every message the
thread held: a run shows only the messages it added, never the thread's history again."""

from __future__ import annotations

from collections import Counter
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, ToolMessage

import deepnb
from deepnb.core import events as ev
from tests.support.waiting import WAIT
from tests.unit.conftest import unique

PATCH_NODE = "PatchToolCallsMiddleware.before_agent"


def _kinds(run: Any) -> list[tuple[str, str, str]]:
    return [(i["kind"], i.get("name", ""), i.get("status", "")) for i in run.state.to_json()["items"]]


def _tool_cards(run: Any) -> Counter[str]:
    return Counter(name for kind, name, _ in _kinds(run) if kind == "tool")


def test_a_prompt_at_a_fork_holding_a_tool_call_shows_that_call_not_run_and_nothing_older() -> None:
    workbench = deepnb.agent(name=unique("patched"), model="demo:quickstart")
    first = workbench.start("Write a brief about tide pools").wait(WAIT)
    assert first.status == "done", first.error
    pending = next(s for s in workbench.history(first.thread_id) if s.next == ("tools",))
    forked = workbench.fork(first.thread_id, pending.checkpoint_id)
    second = workbench.start("Now a brief about kelp", thread=forked).wait(WAIT)  # not the same prompt
    assert second.status == "done", second.error
    kinds = _kinds(second)
    assert kinds[0][0] == "prompt"
    cards = [i for i in second.state.to_json()["items"] if i["kind"] == "tool"]
    # the call the prompt came before, first of the run's cards (an older LangGraph streams the
    # model's first words before the update that patched it)
    assert (cards[0]["name"], cards[0]["status"]) == ("write_todos", "declined")
    assert "did not complete" in cards[0]["result_full"]
    assert [c for c in cards if c["status"] == "declined"] == cards[:1]
    # then the model's own turns of this run: the cards of a whole run of the script, no more
    expected = _tool_cards(first)
    expected["write_todos"] += 1
    assert _tool_cards(second) == expected
    assert [k for k in kinds if k[0] == "prompt"] == [kinds[0]]


def test_a_prompt_after_a_run_stopped_at_an_approval_shows_only_its_own_messages() -> None:
    workbench = deepnb.agent(unique("stopped"), "demo:approvals", interrupt_on={"write_file": True})
    waiting = workbench.run("Plan the launch")
    assert waiting.status == "interrupted"
    asked = len(waiting.pending)
    workbench.stop(waiting.thread_id)
    assert waiting.wait(WAIT).status == "cancelled"
    again = workbench.start("Plan the launch party", thread=waiting.thread_id, auto_approve=True).wait(WAIT)
    assert again.status == "done", again.error
    tools = [k for k in _kinds(again) if k[0] == "tool"]
    not_run = [k for k in tools if k[2] == "declined"]
    assert len(not_run) == asked  # the calls left waiting, told apart from the ones this run made
    assert tools[:asked] == not_run  # before the run's own
    fresh = workbench.start("Plan the launch party", new_thread=True, auto_approve=True).wait(WAIT)
    assert sum(_tool_cards(again).values()) == sum(_tool_cards(fresh).values()) + asked


def _translated(update: dict[str, Any], held: list[Any]) -> list[ev.Event]:
    translator = ev.EventTranslator()
    translator.thread_held(held)
    return list(translator.translate(((), "updates", update)))


def test_every_rewrite_sends_back_only_what_it_adds() -> None:
    asked = HumanMessage("hi", id="h1")
    said = AIMessage("on it", id="a1", tool_calls=[{"name": "ls", "args": {"path": "/"}, "id": "c1"}])
    done = ToolMessage("[]", tool_call_id="c1", name="ls", id="t1")
    read = {"name": "read_file", "args": {"file_path": "/x"}, "id": "c2"}
    later = AIMessage("", id="a2", tool_calls=[read])
    held = [asked, said, done, later]
    remove_all = RemoveMessage(id=ev.REMOVE_ALL_MESSAGES)
    patched = ToolMessage("did not complete", tool_call_id="c2", name="read_file", status="error", id="t2")
    summary = HumanMessage("Here is a summary of the conversation so far", id="s1")
    rewrites = {
        "a patch of a call left without a result": {PATCH_NODE: {"messages": [remove_all, *held, patched]}},
        "a summarization keeping the newest": {
            "SummarizationMiddleware.before_model": {"messages": [remove_all, summary, later]}
        },
    }
    for what, update in rewrites.items():
        events = _translated(update, held)
        assert not [e for e in events if isinstance(e, ev.ModelTurn)], what
        calls = [e.call_id for e in events if isinstance(e, ev.ToolCallStarted | ev.ToolCallFinished)]
        assert calls == (["c2", "c2"] if "patch" in what else []), what
    patch = _translated(rewrites["a patch of a call left without a result"], held)
    started, finished = patch
    assert isinstance(started, ev.ToolCallStarted) and started.name == "read_file"
    assert isinstance(finished, ev.ToolCallFinished) and not finished.executed and finished.is_error
    # without a rewrite, messages are reported as they come (a node may write an id of its own)
    plain = list(ev.EventTranslator().translate(((), "updates", {"model": {"messages": [said]}})))
    assert [type(e) for e in plain] == [ev.ModelTurn, ev.ToolCallStarted]
