"""Human-in-the-loop approvals through the Python API: main-agent and subagent interrupts,
parallel ones, each decision type, exactly-once, rules, and resuming from SQLite."""

from __future__ import annotations

import json
import threading
import uuid
from pathlib import Path

import pytest

import deepnb
from deepnb.core import events as ev
from deepnb.core.errors import DeepnbError
from deepnb.session.local import Workbench
from deepnb.views.run.snapshot import snapshot_text
from tests.support.waiting import wait_until

GATED = {"write_file": True, "edit_file": True}


def demo(**options) -> Workbench:
    return deepnb.agent(f"approvals-{uuid.uuid4().hex[:6]}", "demo:approvals", interrupt_on=GATED, **options)


def resumes(run) -> list[ev.RunResumed]:
    seen: list[ev.RunResumed] = []
    run.subscribe(lambda e: seen.append(e) if isinstance(e, ev.RunResumed) else None)
    return seen


def test_main_then_parallel_subagent_interrupts_then_a_diff() -> None:
    run = demo().run("Plan the launch")
    assert run.status == "interrupted"
    (plan,) = run.pending
    assert (plan.name, plan.agent, plan.args["file_path"]) == ("write_file", "main", "/plan.md")
    preview = run.state.pending[0]["actions"][0]["preview"]
    assert preview == {"kind": "content", "text": plan.args["content"]}

    plan.approve()
    run.wait()
    assert run.status == "interrupted"
    # Two subagents stopped in parallel: one card each, keyed by its own interrupt id.
    by_path = {p.args["file_path"]: p for p in run.pending}
    assert set(by_path) == {"/announce.md", "/risks.md"}
    assert {p.agent for p in by_path.values()} == {"main/general-purpose", "main/general-purpose#2"}
    assert len({p.interrupt_id for p in by_path.values()}) == 2

    seen = resumes(run)
    by_path["/risks.md"].approve()  # resumes that subagent alone…
    run.wait()
    assert [p.args["file_path"] for p in run.pending] == ["/announce.md"]  # …the other still waits
    by_path["/announce.md"].approve()
    run.wait()
    assert len(seen) == 2

    (link,) = run.pending
    assert link.name == "edit_file"
    diff = run.state.pending[0]["actions"][0]["preview"]
    assert diff["kind"] == "diff" and "+See /announce.md and /risks.md." in diff["text"]
    link.approve()
    run.wait()
    assert run.status == "done"
    assert sorted(run.files) == ["/announce.md", "/plan.md", "/risks.md"]
    assert run.files["/plan.md"].endswith("See /announce.md and /risks.md.\n")
    assert [(d["tool"], d["type"], d["auto"]) for d in run.decisions] == [
        ("write_file", "approve", False)
    ] * 3 + [("edit_file", "approve", False)]


def test_edit_reject_and_respond_reach_the_agent() -> None:
    run = demo().run("Plan the launch")
    run.pending[0].edit({"file_path": "/plan.md", "content": "# Edited plan\n"})
    run.wait()
    assert run.files["/plan.md"] == "# Edited plan\n"
    first, second = sorted(run.pending, key=lambda p: p.args["file_path"])
    first.reject("Not needed")
    second.respond("Risks are tracked elsewhere.")
    run.wait()
    messages = run.workbench.state_values(run.thread_id)["messages"]
    tool_results = [m.content for m in messages if m.type == "tool" and m.name == "task"]
    assert len(tool_results) == 2
    assert "/announce.md" not in run.files and "/risks.md" not in run.files
    types = [(d["type"], d["message"]) for d in run.decisions]
    assert types[0] == ("edit", "")
    assert ("reject", "Not needed") in types and ("respond", "Risks are tracked elsewhere.") in types
    assert "content='# Edited plan" in run.decisions[0]["args"]
    # the two calls never ran: their cards say so, with what the decision gave in their place
    cards = {
        item["args_full"]: item
        for item in run.state.items
        if item["kind"] == "tool" and item["name"] == "write_file" and "/plan.md" not in item["args_full"]
    }
    by_path = {("announce" if "/announce.md" in args else "risks"): card for args, card in cards.items()}
    assert by_path["announce"]["status"] == "declined" and "Not needed" in by_path["announce"]["result"]
    assert by_path["announce"]["decision"]["type"] == "reject"
    assert by_path["risks"]["status"] == "responded"  # not "done": the person's response stood in
    assert by_path["risks"]["result"] == "Risks are tracked elsewhere."
    edited = next(i for i in run.state.items if i["kind"] == "tool" and "/plan.md" in i["args_full"])
    assert edited["status"] == "done"  # an edited call ran, with the edited arguments
    text = snapshot_text(run.state.to_json())
    assert "[declined]" in text and "Not run: declined by you — Not needed" in text
    assert "[responded]" in text and "Not run: you responded in its place" in text


def test_bad_decisions_are_refused_and_nothing_is_sent() -> None:
    run = demo().run("Plan the launch")
    (plan,) = run.pending
    with pytest.raises(DeepnbError, match="not valid JSON"):
        run.decide(plan.interrupt_id, 0, {"type": "edit", "args": '{"file_path": 3'})
    with pytest.raises(DeepnbError, match="don't fit write_file"):
        plan.edit({"file_path": "/plan.md"})
    with pytest.raises(DeepnbError, match="needs a message"):
        plan.respond("  ")
    with pytest.raises(DeepnbError, match="Unknown decision"):
        run.decide(plan.interrupt_id, 0, {"type": "maybe"})
    assert run.status == "interrupted" and run.decisions == [] and len(run.pending) == 1

    plan.approve()
    with pytest.raises(DeepnbError, match="already decided"):
        plan.approve()
    run.wait()
    run.stop()  # abandon the run waiting on the subagents
    assert run.status == "cancelled"
    with pytest.raises(DeepnbError, match="no longer waiting"):
        run.decide(run.state.pending[0]["id"] if run.state.pending else "gone", 0, {"type": "approve"})


def test_allowed_decisions_are_enforced() -> None:
    bench = deepnb.agent(
        f"approvals-{uuid.uuid4().hex[:6]}",
        "demo:approvals",
        interrupt_on={"write_file": {"allowed_decisions": ["approve", "reject"]}},
    )
    run = bench.run("Plan the launch")
    assert run.state.pending[0]["actions"][0]["allowed"] == ["approve", "reject"]
    with pytest.raises(DeepnbError, match="does not allow 'edit'"):
        run.pending[0].edit({"file_path": "/x", "content": "y"})


def test_a_double_click_from_two_threads_resumes_once() -> None:
    run = demo().run("Plan the launch")
    (plan,) = run.pending
    seen = resumes(run)
    outcomes: list[str] = []
    barrier = threading.Barrier(2)

    def click() -> None:
        barrier.wait()
        try:
            plan.approve()
            outcomes.append("sent")
        except DeepnbError as exc:
            outcomes.append(str(exc))

    threads = [threading.Thread(target=click) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    run.wait()
    assert outcomes.count("sent") == 1
    assert len(seen) == 1
    assert len(run.decisions) == 1


def test_auto_approve_and_always_approve_rules() -> None:
    bench = demo()
    run = bench.run("Plan the launch", auto_approve=True)
    assert run.status == "done"
    assert len(run.decisions) == 4 and all(d["auto"] for d in run.decisions)

    other = bench.run("Plan the launch", new_thread=True)
    bench.always_approve(other.thread_id, "write_file")
    other.pending[0].approve()
    other.wait()
    # Both subagents' write_file calls were approved by the rule; only edit_file asks now.
    assert [p.name for p in other.pending] == ["edit_file"]
    assert [d["auto"] for d in other.decisions] == [False, True, True]


def test_a_new_task_on_a_thread_waiting_for_approval_is_refused() -> None:
    bench = demo()
    run = bench.run("Plan the launch")
    with pytest.raises(DeepnbError, match="waiting for your approval"):
        bench.start("Something else", thread=run.thread_id)


def test_pending_approvals_survive_a_restart_with_sqlite(tmp_path: Path) -> None:
    db = f"sqlite:{tmp_path / 'threads.db'}"
    name = f"approvals-{uuid.uuid4().hex[:6]}"
    before = deepnb.agent(name, "demo:approvals", interrupt_on=GATED, checkpointer=db)
    run = before.run("Plan the launch")
    run.pending[0].approve()
    run.wait()
    thread = run.thread_id

    # A new workbench on the same file stands for the kernel after a restart, which no longer
    # has the run in memory (the thread keeps its interrupts): one run per thread per database.
    run.stop()
    after = deepnb.agent(f"{name}-restarted", "demo:approvals", interrupt_on=GATED, checkpointer=db)
    assert after.current_thread == thread
    restored = after.pending_run(thread)
    assert restored is not run and restored.status == "interrupted"
    assert sorted(p.args["file_path"] for p in restored.pending) == ["/announce.md", "/risks.md"]
    for request in restored.pending:
        request.approve()
    restored.wait()
    restored.pending[0].approve()
    restored.wait()
    assert restored.status == "done"
    assert "See /announce.md" in after.files(thread)["/plan.md"]
    with pytest.raises(DeepnbError, match="Nothing on thread"):
        after.pending_run(thread)


def test_resume_continues_a_stopped_run(tmp_path: Path) -> None:
    script = tmp_path / "slow.yaml"
    script.write_text(
        "delay: 0.05\nagents:\n  main:\n"
        "    - text: 'one two three four five six seven eight nine ten eleven twelve'\n"
        "      tool_calls: [{name: ls, args: {path: /}}]\n"
        "    - text: 'Finished.'\n"
    )
    bench = deepnb.agent(f"resume-{uuid.uuid4().hex[:6]}", f"scripted:{script}")
    run = bench.start("Count")
    while not run.state.items[1:]:
        threading.Event().wait(0.02)
    run.stop()
    run.wait()
    assert run.status == "cancelled"
    resumed = bench.resume(run.thread_id)
    resumed.wait()
    assert resumed.status == "done" and resumed.result == "Finished."
    with pytest.raises(DeepnbError, match="nothing to resume"):
        bench.resume(run.thread_id)


def test_filesystem_permission_rules_raise_approvals(tmp_path: Path) -> None:
    from deepagents import FilesystemPermission

    script = tmp_path / "perm.yaml"
    script.write_text(
        "agents:\n  main:\n"
        "    - text: 'Writing.'\n"
        "      tool_calls: [{name: write_file, args: {file_path: /secret/key.md, content: x}}]\n"
        "    - text: 'Done.'\n"
    )
    rule = FilesystemPermission(operations=["write"], paths=["/secret/**"], mode="interrupt")
    bench = deepnb.agent(f"perm-{uuid.uuid4().hex[:6]}", f"scripted:{script}", permissions=[rule])
    run = bench.run("Write the key file")
    assert run.status == "interrupted"
    (request,) = run.pending
    assert (request.name, request.args["file_path"]) == ("write_file", "/secret/key.md")
    request.reject("Not in /secret")
    run.wait()
    assert run.status == "done" and "/secret/key.md" not in run.files


def test_a_card_edit_keeps_secrets_the_card_hid(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A card shows arguments with secrets as [redacted]; an edit elsewhere sends the real value,
    and changing the hidden part itself is refused with nothing sent."""
    from deepnb.views.run.run_view import RunView

    secret = "sk-test-0123456789abcdefghij"
    monkeypatch.setenv("DEMO_SERVICE_TOKEN", secret)
    script = tmp_path / "secret.yaml"
    script.write_text(
        "agents:\n  main:\n"
        "    - text: Saving the config.\n"
        "      tool_calls:\n"
        f"        - {{name: write_file, args: {{file_path: /config.md, content: 'service key {secret}'}}}}\n"
        "    - text: Saved.\n"
    )
    bench = deepnb.agent(
        f"secret-{uuid.uuid4().hex[:6]}", f"scripted:{script}", interrupt_on={"write_file": True}
    )
    run = bench.run("Save the config")
    (request,) = run.pending
    view = RunView(run)
    shown = json.loads(view.pending[0]["actions"][0]["args_json"])
    assert shown == {"file_path": "/config.md", "content": "service key [redacted]"}

    def edit(args: dict) -> str:
        decision = {"type": "edit", "args": json.dumps(args)}
        message = {"type": "decide", "interrupt_id": request.interrupt_id, "index": 0, "decision": decision}
        view._on_front_end_message(view, message, [])
        return view.card_errors.get(f"{request.interrupt_id}:0", "")

    error = edit({**shown, "content": "service key [redacted], rotated"})
    assert error.startswith("content held a secret the card hides, and the edit changed it")
    assert run.status == "interrupted" and run.decisions == []

    assert edit({**shown, "file_path": "/settings.md"}) == ""
    run.wait()
    assert run.status == "done"
    assert run.files["/settings.md"] == f"service key {secret}"  # the real value, not the placeholder


def test_a_run_stopped_while_waiting_withdraws_its_cards_and_says_how_many() -> None:
    bench = deepnb.agent(
        f"withdraw-{uuid.uuid4().hex[:6]}",
        "demo:approvals",
        interrupt_on={"write_file": True, "edit_file": True},
    )
    run = bench.start("Plan the launch")
    assert _paused(run)
    assert run.status == "interrupted" and len(run.state.pending) == 1
    run.stop()
    run.wait(30)
    assert run.status == "cancelled" and run.state.pending == []
    assert run.state.items[-1]["text"] == (
        "Run stopped while waiting for approval (1 undecided approval card withdrawn). "
        "The thread keeps everything up to the last step."
    )
    cards = [i for i in run.state.items if i["kind"] == "tool"]
    assert cards and not [c for c in cards if c["status"] in ("running", "waiting")], cards
    assert cards[-1]["name"] == "write_file" and cards[-1]["status"] == "cancelled"


def test_every_card_a_stopped_run_left_waiting_says_it_was_stopped() -> None:
    name = f"withdraw-{uuid.uuid4().hex[:6]}"
    bench = deepnb.agent(name, "demo:approvals", interrupt_on={"write_file": True})
    run = bench.start("Plan the launch", auto_approve=False)
    assert _paused(run)
    run.pending[0].approve()  # the main agent's write_file: two subagents go off and each asks
    wait_until(lambda: run.status == "interrupted" and len(run.pending) >= 2, "both subagents' requests")
    waiting = [i["id"] for i in run.state.items if i["kind"] == "tool" and i["status"] == "waiting"]
    assert len(waiting) == 4  # the two task calls, and the write_file each subagent asks about
    run.stop()
    run.wait(30)
    left = {i["id"]: i["status"] for i in run.state.items if i["kind"] == "tool" and i["id"] in waiting}
    assert left == dict.fromkeys(waiting, "cancelled")


def _paused(run: deepnb.Run) -> bool:
    wait_until(lambda: run.status == "interrupted", "the run to wait for approval")
    return True


def test_a_run_started_just_after_a_stop_waits_for_it_to_end_instead_of_being_refused() -> None:
    """Stop, then the next cell at once on the same thread: the stopped run is given a moment to
    end (its stop is on its way), and the new run goes, with nothing refused."""
    bench = deepnb.agent(f"restop-{uuid.uuid4().hex[:6]}", "demo:quickstart")
    first = bench.start("Write a brief about tide pools")
    first.stop()
    again = bench.start("Now a brief about kelp", thread=first.thread_id).wait(30)
    assert first.status == "cancelled" and again.status == "done", again.error
