"""Record and replay: a run written as a ``scripted:`` script replays offline to the same transcript
(text, tool calls with their arguments, the subagent tree, todos, files), parallel subagents of one
type in any order, approvals with the same cards, a thread's prompts in order; secrets never reach
the file; what cannot be replayed is refused in one line with nothing written."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

import deepnb
from deepnb.core import events as ev
from deepnb.core.errors import DeepnbError
from deepnb.engine.recording import check_target, script_of, to_yaml, write_text
from deepnb.models.scripted import load_script
from deepnb.session.run import Run
from tests.support.agents import scripted, unique
from tests.support.waiting import WAIT

RESEARCH = "Write a short report on how coral reefs recover after bleaching"
SESSION = re.compile(r"session_[0-9a-f]+|Summarized at [0-9T:.+-]+")
"""What differs between two runs of one script: the summaries' history file and when it was written."""


TIMES = ("started_at", "finished_at", "waited", "waited_at_start")
"""A subagent node's times: when it ran, and how long its run waited for approvals meanwhile."""


def transcript(run: Run) -> dict[str, Any]:
    """What a run showed, per agent (parallel subagents interleave differently from run to run):
    each item without its position-based id, the subagent tree without times, the todos, and
    the summaries' history file with its random session id blanked."""
    state = run.state.to_json()
    per_agent: dict[str, list[Any]] = {}
    for item in state["items"]:
        shown = {k: v for k, v in item.items() if not (k == "id" and item["kind"] != "tool")}
        per_agent.setdefault(item["agent"], []).append(json.loads(SESSION.sub("session", json.dumps(shown))))

    def tree(nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [
            {
                **{k: v for k, v in node.items() if k not in TIMES and k != "children"},
                "children": tree(node["children"]),
            }
            for node in nodes
        ]

    return {
        "items": per_agent,
        "tree": tree(state["tree"]),
        "todos": state["todos"],
        "status": state["status"],
    }


def files(bench: Any, thread: str) -> dict[str, str]:
    """The thread's files, the summaries' history file under one name and without its times."""
    return {
        SESSION.sub("session", path): SESSION.sub("session", text)
        for path, text in bench.files(thread).items()
    }


def replay(path: Path, prompts: list[str], **options: Any) -> tuple[Any, Run]:
    """Run ``prompts`` in order on a fresh thread of a new agent whose model is ``scripted:path``."""
    bench = deepnb.agent(unique("replay"), f"scripted:{path}", **options)
    run = bench.start(prompts[0], new_thread=True).wait(WAIT)
    for prompt in prompts[1:]:
        run = bench.start(prompt).wait(WAIT)
    return bench, run


@pytest.fixture(scope="module")
def research(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Run]:
    """A run of the research demo (without its streaming delay): a plan, three parallel
    general-purpose subagents that write notes, reading them back (which summarizes), a report."""
    demo = yaml.safe_load(
        (Path(deepnb.__file__).parent / "demos" / "research.yaml").read_text(encoding="utf-8")
    )
    path = tmp_path_factory.mktemp("demo") / "research.yaml"
    path.write_text(yaml.safe_dump({**demo, "delay": 0}), encoding="utf-8")
    bench = deepnb.agent(unique("research"), f"scripted:{path}")
    run = bench.start(RESEARCH, new_thread=True).wait(WAIT)
    assert run.status == "done"
    return bench, run


def test_a_research_run_replays_to_the_same_transcript_subagents_todos_and_files(
    research: tuple[Any, Run], tmp_path: Path
) -> None:
    bench, run = research
    path = tmp_path / "research.yaml"
    recorded = run.record(path)
    assert (recorded.prompts, recorded.turns, recorded.subagents) == (1, 13, 3)
    assert run.recording == recorded
    assert repr(recorded).startswith(
        f"Recorded {run.id} to {path}: 1 prompt(s), 13 model turn(s), 3 subagent"
    )
    script = load_script(path)
    assert sorted(c.match.pattern for c in script.agents["general-purpose"] if c.match) == sorted(
        rf"\A{re.escape(t.description).replace(chr(92) + ' ', ' ')}\Z"
        for t in run.log
        if isinstance(t, ev.SubagentStarted)
    )
    assert script.profile == {"max_input_tokens": 7000}  # the demo's model summarizes: so does the replay
    assert set(script.summaries) == {"main"}
    again, replayed = replay(path, [RESEARCH])
    assert replayed.status == "done"
    assert replayed.result == run.result
    assert transcript(replayed) == transcript(run)
    assert files(again, replayed.thread_id) == files(bench, run.thread_id)
    assert len(replayed.state.summaries) == len(run.state.summaries) == 1
    assert [s["tokens_in"] for s in transcript(replayed)["tree"]] == [
        s["tokens_in"] for s in transcript(run)["tree"]
    ]


def test_parallel_subagents_replay_whatever_order_their_conversations_are_in(
    research: tuple[Any, Run], tmp_path: Path
) -> None:
    _, run = research
    path = tmp_path / "research.yaml"
    run.record(path)
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["agents"]["general-purpose"].reverse()
    reversed_path = tmp_path / "reversed.yaml"
    reversed_path.write_text(yaml.safe_dump(data), encoding="utf-8")
    _, replayed = replay(reversed_path, [RESEARCH])
    assert transcript(replayed) == transcript(run)


def test_a_thread_of_two_prompts_replays_prompt_by_prompt(tmp_path: Path) -> None:
    model = scripted(
        {
            "main": [
                {
                    "match": "first",
                    "turns": [
                        {
                            "text": "Noting it.",
                            "tool_calls": [
                                {"name": "write_file", "args": {"file_path": "/a.md", "content": "one"}}
                            ],
                        },
                        "First done.",
                    ],
                },
                {
                    "match": "second",
                    "turns": [
                        {
                            "tool_calls": [
                                {
                                    "name": "edit_file",
                                    "args": {"file_path": "/a.md", "old_string": "one", "new_string": "two"},
                                }
                            ]
                        },
                        "Second done.",
                    ],
                },
            ]
        }
    )
    bench = deepnb.agent(unique("two"), model)
    first = bench.start("the first task", new_thread=True).wait(WAIT)
    second = bench.start("the second task").wait(WAIT)
    assert second.previous is not None and second.previous.id == first.id
    recorded = second.record(tmp_path / "two.yaml")
    assert recorded.prompts == 2
    assert recorded.replays == ("the first task", "the second task")
    again, replayed = replay(tmp_path / "two.yaml", ["the first task", "the second task"])
    assert transcript(replayed) == transcript(second)
    paced = second.record(tmp_path / "paced.yaml", delay=0.01)
    assert load_script(paced.path).delay == 0.01
    assert load_script(tmp_path / "two.yaml").delay == 0
    with pytest.raises(DeepnbError, match="delay"):
        second.record(tmp_path / "bad.yaml", delay=-1)
    assert files(again, replayed.thread_id) == files(bench, second.thread_id) == {"/a.md": "two"}


GATED = {
    "main": [
        {
            "text": "Writing it.",
            "tool_calls": [{"name": "write_file", "args": {"file_path": "/n.md", "content": "hi"}}],
        },
        "Written.",
    ]
}


def test_a_run_with_approvals_replays_with_the_same_cards(tmp_path: Path) -> None:
    bench = deepnb.agent(unique("gated"), scripted(GATED), interrupt_on={"write_file": True})
    run = bench.start("write a note", new_thread=True).wait(WAIT)
    assert run.status == "interrupted"
    cards = [(r.name, r.args, r.description, r.allowed, r.agent) for r in run.pending]
    at_the_cards = transcript(run)
    waiting = run.record(tmp_path / "gated.yaml")
    assert waiting.waiting and "waits for approval" in repr(waiting)
    run.pending[0].approve()
    run.wait(WAIT)
    assert run.status == "done"
    with pytest.raises(DeepnbError, match="exists"):
        run.record(tmp_path / "gated.yaml")
    assert not run.record(tmp_path / "gated.yaml", force=True).waiting

    again, replayed = replay(tmp_path / "gated.yaml", ["write a note"], interrupt_on={"write_file": True})
    assert replayed.status == "interrupted"
    assert [(r.name, r.args, r.description, r.allowed, r.agent) for r in replayed.pending] == cards
    assert transcript(replayed) == at_the_cards
    replayed.pending[0].approve()
    replayed.wait(WAIT)
    assert transcript(replayed) == transcript(run)
    assert files(again, replayed.thread_id) == {"/n.md": "hi"}


SECRET = "sentinel-recorded-secret-4242"


def test_secrets_in_text_and_tool_arguments_are_not_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEEPNB_RECORDING_TEST_TOKEN", SECRET)
    model = scripted(
        {
            "main": [
                {
                    "text": f"The key is {SECRET}.",
                    "tool_calls": [
                        {"name": "write_file", "args": {"file_path": "/k.md", "content": f"key={SECRET}"}}
                    ],
                },
                f"Done with {SECRET}",
            ]
        }
    )
    bench = deepnb.agent(unique("secret"), model)
    run = bench.start("keep the key", new_thread=True).wait(WAIT)
    path = tmp_path / "secret.yaml"
    run.record(path)
    text = path.read_text(encoding="utf-8")
    assert SECRET not in text
    assert text.count("[redacted]") == 3
    _, replayed = replay(path, ["keep the key"])
    assert replayed.result == "Done with [redacted]"


def test_what_cannot_be_replayed_is_refused_in_one_line_with_nothing_written(tmp_path: Path) -> None:
    failing = deepnb.agent(unique("fails"), scripted({"main": [{"error": "the model is down"}]}))
    failed = failing.start("try", new_thread=True).wait(WAIT)
    assert failed.status == "error"
    bench = deepnb.agent(unique("forked"), scripted({"main": ["one", "two"]}))
    first = bench.start("one", new_thread=True).wait(WAIT)
    fork = bench.fork(first.thread_id, first.checkpoint_after or "")
    forked = bench.start("two", thread=fork).wait(WAIT)
    mixed = deepnb.agent(
        unique("mixed"),
        scripted({"main": [{"match": "bad", "turns": [{"error": "down"}]}, {"turns": ["ok"]}]}),
    )
    bad = mixed.start("bad", new_thread=True).wait(WAIT)
    good = mixed.start("good").wait(WAIT)
    assert (bad.status, good.status) == ("error", "done")
    assert good.previous is not None and good.previous.status == "error"
    cases = [
        (failed, "x.yaml", "run-[0-9]+ failed"),
        (good, "x.yaml", "an earlier run on thread .* is error"),
        (forked, "x.yaml", "had prompts this kernel did not run"),
        (first, "x.json", "ending in .yaml"),
        (first, "missing/x.yaml", "does not exist"),
    ]
    for run, name, message in cases:
        with pytest.raises(DeepnbError, match=message) as caught:
            run.record(tmp_path / name)
        assert "\n" not in str(caught.value)
    assert list(tmp_path.iterdir()) == []


# -- the writer -----------------------------------------------------------------------------------


class FakeRun:
    """A run as a recording sees it: its events."""

    def __init__(self, log: list[ev.Event], *, previous: Any = None, status: str = "done") -> None:
        self.id, self.thread_id, self.checkpoint_before = "run-x", "t", None
        self.previous, self.status, self.log = previous, status, log


def turn(agent: str, text: str, *calls: dict[str, Any]) -> ev.ModelTurn:
    return ev.ModelTurn(agent, text, calls, 10, 2)


def started(path: str, kind: str, description: str) -> ev.SubagentStarted:
    return ev.SubagentStarted("main", "task", f"call-{path}", kind, description, path)


def test_the_script_files_turns_by_agent_with_anchored_matches_ids_and_usage() -> None:
    log: list[ev.Event] = [
        ev.RunStarted("main", "t", "Find (a) cat?"),
        turn(
            "main",
            "Asking.",
            {"name": "task", "args": {"subagent_type": "r", "description": "d.1"}, "id": "c1"},
        ),
        started("main/r", "r", "d.1"),
        turn("main/r", "Found."),
        turn("main", "Done."),
    ]
    data, counts = script_of([FakeRun(log)])
    assert data["agents"]["main"] == [
        {
            "match": r"\A\s*Find \(a\) cat\?\s*\Z",
            "turns": [
                {
                    "text": "Asking.",
                    "tool_calls": [
                        {"name": "task", "args": {"subagent_type": "r", "description": "d.1"}, "id": "c1"}
                    ],
                    "usage": {"input_tokens": 10, "output_tokens": 2},
                },
                {"text": "Done.", "usage": {"input_tokens": 10, "output_tokens": 2}},
            ],
        }
    ]
    assert data["agents"]["r"] == [
        {
            "match": r"\Ad\.1\Z",
            "turns": [{"text": "Found.", "usage": {"input_tokens": 10, "output_tokens": 2}}],
        }
    ]
    assert (counts.turns, counts.tasks) == (3, 1)
    assert "profile" not in data


def test_two_different_replies_to_one_task_or_two_summaries_are_refused() -> None:
    same_task = [
        ev.RunStarted("main", "t", "go"),
        started("main/r", "r", "same"),
        started("main/r#2", "r", "same"),
        turn("main/r", "one"),
        turn("main/r#2", "two"),
    ]
    with pytest.raises(DeepnbError, match="same task twice"):
        script_of([FakeRun(same_task)])
    alike = [*same_task[:4], turn("main/r#2", "one")]
    assert len(script_of([FakeRun(alike)])[0]["agents"]["r"]) == 1  # the same reply: one conversation
    summaries = [
        ev.RunStarted("main", "t", "go"),
        ev.Summarized("main", 3, "a"),
        ev.Summarized("main", 5, "b"),
    ]
    with pytest.raises(DeepnbError, match="summarized its context twice"):
        script_of([FakeRun(summaries)], profile={"max_input_tokens": 100})
    with pytest.raises(DeepnbError, match="profile"):
        script_of([FakeRun(summaries[:2])])
    with pytest.raises(DeepnbError, match="graph input"):
        script_of([FakeRun([ev.RunStarted("main", "t", None)])])


@pytest.mark.parametrize(
    "text",
    ["plain", "two\nlines\n", "trailing space \nx", "  leading\n\ttab", "ünïcode — ✓\n\n", "a: b # c", ""],
)
def test_any_text_reads_back_exactly(text: str) -> None:
    data, _ = script_of(
        [
            FakeRun(
                [
                    ev.RunStarted("main", "t", text or "p"),
                    turn("main", text, {"name": "w", "args": {"c": text}}),
                ]
            )
        ]
    )
    assert yaml.safe_load(to_yaml(data, header="a\n\nb")) == data


def test_a_path_that_exists_is_kept_and_a_failed_write_leaves_nothing(tmp_path: Path) -> None:
    target = tmp_path / "r.yaml"
    target.write_text("mine", encoding="utf-8")
    with pytest.raises(DeepnbError, match="exists"):
        check_target(target)
    assert check_target(target, force=True) == target
    with pytest.raises(DeepnbError, match="exists"):
        write_text(target, "theirs")
    assert target.read_text(encoding="utf-8") == "mine"
    assert [p.name for p in tmp_path.iterdir()] == ["r.yaml"]
    write_text(target, "theirs", force=True)
    assert target.read_text(encoding="utf-8") == "theirs"
    assert [p.name for p in tmp_path.iterdir()] == ["r.yaml"]


def _write(path: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "write_file", "args": {"file_path": path, "content": path}}]}


GATED_SUBAGENTS = {
    "main": [
        {
            "tool_calls": [
                {"name": "task", "args": {"subagent_type": "general-purpose", "description": f"write {n}"}}
                for n in ("x", "y")
            ]
        },
        "Both done.",
    ],
    "general-purpose": [
        {"match": "x", "turns": [_write("/x.md"), "x ok"]},
        {"match": "y", "turns": [_write("/y.md"), "y ok"]},
    ],
}


def test_parallel_subagents_waiting_for_approval_replay_with_the_same_cards(tmp_path: Path) -> None:
    bench = deepnb.agent(
        unique("gated-subagents"), scripted(GATED_SUBAGENTS), interrupt_on={"write_file": True}
    )
    run = bench.start("go", new_thread=True).wait(WAIT)
    cards = sorted((r.name, str(r.args), r.agent) for r in run.pending)
    assert [agent for *_, agent in cards] == ["main/general-purpose", "main/general-purpose#2"]
    for request in run.pending:
        request.approve()
    run.wait(WAIT)
    assert run.status == "done"
    run.record(tmp_path / "gated.yaml")
    again, replayed = replay(tmp_path / "gated.yaml", ["go"], interrupt_on={"write_file": True})
    assert sorted((r.name, str(r.args), r.agent) for r in replayed.pending) == cards
    for request in replayed.pending:
        request.approve()
    replayed.wait(WAIT)
    assert transcript(replayed) == transcript(run)
    assert (
        files(again, replayed.thread_id)
        == files(bench, run.thread_id)
        == {"/x.md": "/x.md", "/y.md": "/y.md"}
    )
