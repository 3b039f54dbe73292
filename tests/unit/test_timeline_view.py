"""The timeline as the views show it: the static snapshot's waterfall (escaped, a lane per agent)
and the main agent's steps with their fork commands; the live view's bounded payload, and "fork
here" answered in Python against the steps the run wrote."""

from __future__ import annotations

from typing import Any

import deepnb
from deepnb.magics import parser
from deepnb.magics.subcommands import SUBCOMMANDS
from deepnb.views.run.snapshot import snapshot_bundle
from deepnb.views.run.timeline_view import TIMELINE_BUDGET, fork_command, timeline_payload
from tests.support.agents import scripted, unique
from tests.support.lab_sanitizer import unstyled
from tests.support.view_messages import message_size
from tests.support.waiting import wait_until

AGENTS = {
    "main": [
        {
            "text": "Delegating.",
            "tool_calls": [
                {"name": "task", "args": {"subagent_type": "general-purpose", "description": "look A"}},
            ],
        },
        "All done.",
    ],
    "general-purpose": [
        {"text": "Checking.", "tool_calls": [{"name": "ls", "args": {"path": "/"}}]},
        "Found it.",
    ],
}


def _run() -> Any:
    run = deepnb.agent(name=unique("tlview"), model=scripted(AGENTS, delay=0.005)).run("go")
    assert run.status == "done", run.error
    return run


def test_the_snapshot_draws_the_waterfall_and_lists_the_steps_to_fork() -> None:
    run = _run()
    bundle = snapshot_bundle(run.state, run.timeline)
    html, text = unstyled(bundle["text/html"]), bundle["text/plain"]
    assert '<details class="dnb-timeline">' in html and 'role="img"' in html
    assert html.count('data-kind="model"') == 4 and html.count('data-kind="tool"') == 2
    assert "<title>main/general-purpose</title>" in html  # the subagent's own lane
    steps = [r["step"] for r in run.timeline if r["step"] is not None]
    assert len(steps) == 2
    for step in steps:
        assert f"%deepagent fork -t {run.thread_id} --at {step}" in html
        assert f"  step {step} · " in text
    assert "Timeline: 4 model calls, 2 tool calls over " in text
    task_call = next(r for r in run.timeline if r["name"] == "task")
    main_calls = [r for r in run.timeline if r["step"] is not None]
    assert main_calls[0]["calls"] == [task_call["call_id"]] and main_calls[1]["calls"] == []
    first, last = (
        f'title="%deepagent fork -t {run.thread_id} --at {r["step"]}">step {r["step"]}</div>'
        for r in main_calls
    )
    assert html.count(first) == html.count(last) == 1  # on the task's card, and on the final answer
    assert html.index(first) < html.index("Final answer") < html.index(last)
    assert "dnb-timeline" not in snapshot_bundle(run.state)["text/html"]  # no timeline given: none


def test_names_in_the_chart_are_escaped() -> None:
    record = {
        "kind": "tool",
        "agent": "main/<img src=x>",
        "agent_name": "<img src=x>",
        "name": "<script>",
        "start": 0.0,
        "end": 1.0,
        "latency": 1.0,
        "tokens_in": 0,
        "tokens_out": 0,
        "step": None,
        "checkpoint": None,
    }
    html = snapshot_bundle(_run().state, [record])["text/html"]
    assert "<img" not in html and "<script>" not in html and "&lt;script&gt;" in html


def test_the_live_payload_keeps_within_its_budget_latest_bars_first() -> None:
    many = [
        {
            "kind": "tool",
            "agent": f"main/sub#{n % 7}",
            "agent_name": "sub",
            "name": "t" * 40,
            "start": float(n),
            "end": n + 0.5,
            "latency": 0.5,
            "tokens_in": 0,
            "tokens_out": 0,
            "step": None,
        }
        for n in range(5000)
    ]
    payload = timeline_payload(many, thread="t1")
    assert message_size(payload) <= TIMELINE_BUDGET
    assert payload["left_out"] > 0 and payload["bars"][-1]["start"] == 4999.0
    assert payload["left_out"] + len(payload["bars"]) == 5000
    assert len(payload["lanes"]) == 7


def test_fork_here_forks_at_a_step_the_run_wrote() -> None:
    from deepnb.views.run.run_view import RunView

    run = _run()
    view = RunView(run)
    sent: list[dict[str, Any]] = []
    view.send = lambda message, buffers=None: sent.append(message)
    try:
        view._flush()
        bars = view.timeline["bars"]
        first = next(b for b in bars if "step" in b)
        assert {b["lane"] for b in bars} == {0, 1} and view.timeline["thread"] == run.thread_id
        view._handle_custom_msg({"type": "fork", "step": first["step"]}, [])
        (reply,) = [m for m in sent if m.get("type") == "forked"]
        assert reply["error"] == "" and reply["step"] == first["step"]
        new = reply["thread_id"]
        assert new != run.thread_id
        history = run.workbench.history(run.thread_id)
        original = next(c for c in history if c.checkpoint_id == history.fork_at[first["step"]])
        assert run.workbench.history(new)[0].next == original.next  # the same nodes run next
        assert original.step == first["step"] and original.waiting == ()  # the step's tools answered
    finally:
        view.close()


def test_a_live_view_gets_the_timeline_with_its_steps_when_the_run_ends() -> None:
    from deepnb.views.run.run_view import RunView

    workbench = deepnb.agent(name=unique("tllive"), model=scripted(AGENTS, delay=0.005))
    run = workbench.start("go")
    view = RunView(run)  # made as the run starts: its timeline comes as the run goes and ends
    try:
        run.wait(30)
        assert run.status == "done", run.error
        wait_until(
            lambda: (
                len(view.timeline.get("bars") or []) >= len(run.timeline)
                and any("step" in b for b in view.timeline["bars"])
            ),
            "the view's timeline with its steps",
        )
        bars = view.timeline["bars"]
        assert [b["label"] for b in bars] == [
            timeline_payload(run.timeline, thread=run.thread_id)["bars"][n]["label"] for n in range(len(bars))
        ]
        steps = [r["step"] for r in run.timeline if r["step"] is not None]
        assert [b["step"] for b in bars if "step" in b] == steps and steps
        assert message_size(view.timeline) <= 64 * 1024
    finally:
        view.close()


def test_a_fork_command_reads_back_as_the_thread_it_names() -> None:
    for thread in ["3f9a0c1b2d4e", "my thread", 'it\'s "quoted"']:
        line = fork_command(thread, 4).removeprefix("%deepagent fork ")
        args = parser.parse(SUBCOMMANDS["fork"], line)
        assert (args.thread, args.at) == (thread, "4")


def test_a_long_runs_saved_timeline_stays_the_same_size() -> None:
    """The static chart drew every call and listed every step's fork command: a 2,000-step run
    left about a megabyte of timeline in the saved notebook. It keeps the latest ones."""
    from deepnb.views.run.timeline_view import SNAPSHOT_BARS, SNAPSHOT_STEPS, timeline_html, timeline_lines

    def record(n: int) -> dict[str, Any]:
        model = n % 2 == 0
        return {
            "kind": "model" if model else "tool",
            "agent": "main",
            "agent_name": "main",
            "name": "" if model else "ls",
            "start": float(n),
            "end": n + 0.5,
            "latency": 0.5,
            "tokens_in": 10,
            "tokens_out": 2,
            "step": n if model else None,
        }

    sizes = {}
    for calls in (1_000, 4_000):
        records = [record(n) for n in range(calls)]
        html, lines = timeline_html(records, thread="t1"), timeline_lines(records, thread="t1")
        assert html.count("<rect") == SNAPSHOT_BARS and html.count("<li data-step") == SNAPSHOT_STEPS
        assert f"{calls - SNAPSHOT_BARS:,} earlier calls are in run.timeline" in html
        earlier = f"… {calls // 2 - SNAPSHOT_STEPS:,} earlier steps: %deepagent history -t t1 lists them"
        assert earlier in html and lines[1] == f"  {earlier}" and len(lines) == SNAPSHOT_STEPS + 2
        assert lines[-1].endswith(f"%deepagent fork -t t1 --at {calls - 2}")  # the latest step
        sizes[calls] = len(html) + sum(map(len, lines))
    assert sizes[4_000] < sizes[1_000] * 1.05 and sizes[4_000] < 64 * 1024
