"""Long runs stay within bounds: no front-end message over 64 KB at any point (the view's code
included: it comes once per kernel in code parts, see deepnb.views.shared_code, and
test_view_code_once.py for every kind of view), through a long run (opening, live patches, a view
that asks for everything mid-run, the pause and the end, the whole
transcript on request, a large file peeked), and a saved snapshot that folds old steps but keeps
the final answer, the errors and the approvals. A short run's snapshot is left as it was."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import comm
import pytest

import deepnb
from deepnb.models.resolve import online_environment
from tests.support.view_messages import message_size

LIMIT = 64 * 1024
STEPS = 300
HUGE_WORD = "abcdefghij" * 900  # one streamed token of 9,000 characters
FINAL = "All 300 steps are done; the notes are under /notes."


def long_script(steps: int = STEPS) -> dict[str, Any]:
    """A scripted run well past the fold: a text and a tool call per step, a failing tool call
    and a gated write early on, a very long answer and a very large file halfway, many todos."""
    todos = [{"content": f"Check part {n} of the corpus with care", "status": "pending"} for n in range(600)]
    turns: list[dict[str, Any]] = []
    for step in range(steps - 1):
        text = f"Step {step}: the agent notes what it found and moves on to the next part."
        call: dict[str, Any] = {"name": "ls", "args": {"path": "/"}}
        if step == 2:
            call = {"name": "no_such_tool", "args": {"x": 1}}
        elif step == 4:
            call = {"name": "write_file", "args": {"file_path": "/notes/plan.md", "content": "# Plan\n"}}
        elif step == 6:
            call = {"name": "write_todos", "args": {"todos": todos}}
        elif step == steps // 2:
            text = " ".join([HUGE_WORD] * 12)  # a 108 KB answer in one turn
            call = {"name": "write_file", "args": {"file_path": "/big.md", "content": "# Big\n" + text}}
        turns.append({"text": text, "tool_calls": [call]})
    turns.append({"text": FINAL})
    return {"delay": 0, "agents": {"main": turns}}


@pytest.fixture(scope="module")
def long_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """One long run through a real RunView, every comm message it published recorded."""
    from deepnb.views.run.run_view import RunView
    from deepnb.views.run.snapshot import snapshot_bundle
    from deepnb.views.shared_code import forget_parts

    forget_parts()  # as in a new kernel: the view's code parts open with it, and are counted
    home = tmp_path_factory.mktemp("home")
    script = home / "long.json"
    script.write_text(json.dumps(long_script()), encoding="utf-8")
    sent: list[tuple[str, dict[str, Any]]] = []

    def publish(self: Any, msg_type: str, data: Any = None, *args: Any, **keys: Any) -> None:
        sent.append((msg_type, data or {}))

    with pytest.MonkeyPatch.context() as mp:
        for name in online_environment():
            mp.delenv(name, raising=False)
        mp.setenv("DEEPNB_HOME", str(home / "deepnb-home"))
        mp.setattr(comm.DummyComm, "publish_msg", publish)
        wb = deepnb.agent(
            f"long-{uuid.uuid4().hex[:6]}", f"scripted:{script}", interrupt_on={"write_file": True}
        )
        run = wb.start("Work through the long plan.")
        view = RunView(run)
        run.wait(120)
        assert run.status == "interrupted"  # the first write, gated
        (request,) = run.pending
        request.approve()  # a person's decision, early in the run
        wb.always_approve(run.thread_id, "write_file")
        run.wait(300)  # resumed in the background, to the end
        view.sync()
        view._on_front_end_message(view, {"type": "sync"}, [])  # as a view rendered now asks
        ended = len(sent)
        view._on_front_end_message(view, {"type": "expand"}, [])  # "show all" on the folded notice
        view._on_front_end_message(view, {"type": "open_file", "path": "/big.md"}, [])
        late = RunView(run)  # the run displayed again once it is over
        yield {
            "run": run,
            "view": view,
            "late": late,
            "sent": sent,
            "expanded": sent[ended:],
            "bundle": snapshot_bundle(run.state),
        }
        late.close()
        view.close()


def test_no_message_of_a_long_run_is_over_64_kb(long_run: dict[str, Any]) -> None:
    run, sent = long_run["run"], long_run["sent"]
    assert run.status == "done" and run.result == FINAL
    kinds = {msg_type for msg_type, _ in sent}
    assert {"comm_open", "comm_msg"} <= kinds and len(sent) > 10
    parts = [d for k, d in sent if k == "comm_open" and d["state"].get("_model_name") == "WidgetModel"]
    assert parts, "the view's code parts were not opened with the first view"
    sizes = sorted(((message_size(data), kind, str(data)[:120]) for kind, data in sent), reverse=True)
    assert sizes[0][0] <= LIMIT, f"largest message {sizes[0][0]:,} bytes: {sizes[0][1]} {sizes[0][2]}"


def test_the_whole_transcript_is_a_click_away_in_parts(long_run: dict[str, Any]) -> None:
    """After "show all", the patches, applied in order as the front-end does, hold every item."""
    run, view = long_run["run"], long_run["view"]
    patches = [d["content"] for t, d in long_run["expanded"] if d.get("method") == "custom"]
    patches = [p for p in patches if p.get("type") == "patch"]
    assert len(patches) > 1  # it could not fit in one
    items: dict[str, dict] = {item["id"]: item for item in view.items}
    order = [item["id"] for item in view.items]
    for patch in patches:
        items.update({item["id"]: item for item in patch.get("upsert", [])})
        order = patch["ids"] if "ids" in patch else order + patch.get("append_ids", [])
        order = [i for i in order if i in items]
    assert order == [item["id"] for item in run.state.items]
    huge = next(items[i] for i in order if items[i].get("text", "").startswith(HUGE_WORD[:100]))
    assert huge.get("clipped") and "the thread keeps the whole text" in huge["text"]
    reply = next(d["content"] for _, d in long_run["expanded"] if d.get("content", {}).get("type") == "file")
    assert reply["text"].startswith("# Big") and len(reply["text"]) < 20_000
    assert "has all of it" in reply["html"]


def test_a_long_runs_snapshot_is_folded_and_keeps_what_matters(long_run: dict[str, Any]) -> None:
    bundle = long_run["bundle"]
    assert message_size(bundle) <= 160 * 1024, f"snapshot of {STEPS} steps is {message_size(bundle):,} bytes"
    for mime in ("text/html", "text/plain"):
        text = bundle[mime]
        assert FINAL in text  # the final answer
        assert "no_such_tool" in text  # the failed tool call, early in the run
        assert "write_file: ✓ approved by you" in text  # the decision a person made
        assert "folded:" in text and "see the live view or the thread" in text
    assert "Work through the long plan." in bundle["text/plain"]  # the prompt
    # the live view's own traits are bounded too, and fold the same way
    assert any(item.get("expand") for item in long_run["late"].items)


def test_a_short_runs_snapshot_is_unchanged(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The demo runs are far below the fold: the snapshot is the one rendered with no folding."""
    from deepnb.views.run import snapshot

    wb = deepnb.agent(f"short-{uuid.uuid4().hex[:6]}", "demo:research")
    run = wb.run("Research how deep agents plan.")
    assert run.status == "done" and len(run.state.items) > 5
    bundle = snapshot.snapshot_bundle(run.state)
    monkeypatch.setattr(snapshot, "hidden_ids", lambda items, **_: frozenset())
    monkeypatch.setattr(snapshot, "clip_item", dict)
    assert snapshot.snapshot_bundle(run.state) == bundle


def test_a_streaming_view_keeps_a_few_hundred_items_however_long_the_run(long_run: dict[str, Any]) -> None:
    """The front end's transcript, rebuilt from every message in order as the browser applies them
    (openings and full syncs replace it, patches change it), never holds the whole long run: old
    steps are folded again while it streams, so the browser's DOM stays small."""
    from deepnb.views.run.run_view import LIVE_ITEMS

    run, sent = long_run["run"], long_run["sent"]
    before_expand = sent[: len(sent) - len(long_run["expanded"])]
    assert len(run.state.items) > LIVE_ITEMS + 150  # long enough to need it
    order: list[str] = []
    largest = 0
    for kind, data in before_expand:
        state = data.get("state") or {}
        if kind == "comm_open" and state.get("_model_name") != "AnyModel":
            continue  # a code part
        if "items" in state:  # an opening or a full sync
            order = [item["id"] for item in state["items"]]
        content = data.get("content") or {}
        if data.get("method") == "custom" and content.get("type") == "patch":
            if "ids" in content:
                order = list(content["ids"])
            else:
                order += content.get("append_ids", [])
        largest = max(largest, len(order))
    assert largest <= LIVE_ITEMS + 150, f"the view held {largest} items at once"
