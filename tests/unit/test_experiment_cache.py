"""``cache=``: model responses kept on disk and reused for the same model, parameters, messages
and epoch (never another epoch's, never another script's), so a re-run after a kernel restart
makes no model call; hits are marked in the record, the log and the matrix; a cache file from
someone else is data (JSON, bounded), a bad entry ignored with a warning."""

from __future__ import annotations

import json
import pickle
import threading
from pathlib import Path
from typing import Any

import pytest

import deepnb
from deepnb import scorers
from deepnb.core.errors import DeepnbError
from deepnb.many.caching import MAX_ENTRY_BYTES, CacheWarning
from deepnb.models.scripted import ScriptedChatModel, parse_script
from deepnb.views.experiment.experiment_view import CACHED_MARK, experiment_text
from tests.support.agents import unique
from tests.support.waiting import WAIT

ROWS = [{"q": f"q{i}", "reference": f"a{i}"} for i in range(3)]


class Counted(ScriptedChatModel):
    """A scripted model that counts the calls it answers itself (a cache hit never gets here)."""

    calls: Any = None

    def _reply(self, messages: Any, run_manager: Any) -> Any:
        lock, count = self.calls
        with lock:
            count[0] += 1
        return super()._reply(messages, run_manager)


def counted(answer: str = "a") -> tuple[Counted, list[int]]:
    count = [0]
    conversations = [{"match": f"^q{i}$", "turns": [{"text": f"{answer}{i}"}]} for i in range(3)]
    script = {"agents": {"main": conversations}}
    return Counted(script=parse_script(script), calls=(threading.Lock(), count)), count


def run(name: str, cache: Path, log: Path, **options: Any) -> deepnb.Experiment:
    return deepnb.experiment(
        ROWS, agent=name, scorers=[scorers.exact], template="{q}", epochs=2, cache=cache, log=log, **options
    ).wait(WAIT)


def test_a_rerun_reuses_every_answer_of_its_own_epoch_and_no_other(tmp_path: Path) -> None:
    name = unique("cached")
    model, calls = counted()
    deepnb.agent(name=name, model=model)
    cache = tmp_path / "cache"
    first = run(name, cache, tmp_path / "1.jsonl")
    assert calls[0] == len(ROWS) * 2  # each epoch asked the model itself: never another's answer
    assert {r.cached for r in first.records.values()} == {0}
    assert all(json.loads(p.read_text())["replies"] for p in cache.glob("*/*.json"))

    again, calls_again = counted()  # a kernel restart: a new model object, the same script
    deepnb.agent(name=name, model=again)
    second = run(name, cache, tmp_path / "2.jsonl")
    assert calls_again[0] == 0
    records = second.records
    assert {k: r.result for k, r in records.items()} == {k: r.result for k, r in first.records.items()}
    assert {r.cached for r in records.values()} == {1} and {r.tokens_in for r in records.values()} == {0}
    assert {r.scores["exact"].score for r in records.values()} == {1.0}
    logged = [json.loads(line) for line in (tmp_path / "2.jsonl").read_text().splitlines()]
    assert {d["cached"] for d in logged if d["type"] == "run"} == {1}
    assert f"{CACHED_MARK} 2 cached" in experiment_text(second)  # the cell of a row's two epochs
    assert CACHED_MARK not in experiment_text(first)

    other, other_calls = counted("b")  # another script: another model, never its answers
    deepnb.agent(name=name, model=other)
    third = run(name, cache, tmp_path / "3.jsonl")
    assert other_calls[0] == len(ROWS) * 2
    assert {r.result for r in third.records.values()} == {"b0", "b1", "b2"}

    epochs = deepnb.experiment(
        ROWS, agent=name, template="{q}", epochs=3, cache=cache, log=tmp_path / "4.jsonl"
    ).wait(WAIT)
    assert other_calls[0] == len(ROWS) * 3  # a third epoch is asked afresh, the first two reused
    assert sorted(r.cached for r in epochs.records.values()) == [0] * 3 + [1] * 6


def test_a_rerun_of_a_multi_turn_agent_reuses_every_call_not_only_the_first(tmp_path: Path) -> None:
    """A later call's messages hold the earlier replies, whose usage a hit zeroes: the key leaves
    usage out, so every call of a re-run matches (before, only each run's first call did)."""
    turns = [
        {
            "tool_calls": [
                {"name": "write_todos", "args": {"todos": [{"content": "Answer", "status": "in_progress"}]}}
            ]
        },
        {
            "tool_calls": [{"name": "ls", "args": {"path": "/"}}],
            "usage": {"input_tokens": 9, "output_tokens": 3},
        },
        {"text": "a0", "usage": {"input_tokens": 12, "output_tokens": 2}},
    ]
    count = [0]
    script = parse_script({"agents": {"main": [{"match": "^q0$", "turns": turns}]}})
    name = unique("cached-turns")
    deepnb.agent(name=name, model=Counted(script=script, calls=(threading.Lock(), count)))
    options = {"agent": name, "scorers": [scorers.exact], "template": "{q}", "cache": tmp_path / "cache"}
    first = deepnb.experiment(ROWS[:1], log=tmp_path / "1.jsonl", **options).wait(WAIT)
    assert count[0] == 3 and [r.cached for r in first.records.values()] == [0]
    second = deepnb.experiment(ROWS[:1], log=tmp_path / "2.jsonl", **options).wait(WAIT)
    assert count[0] == 3  # no call reached the model
    assert [r.cached for r in second.records.values()] == [3]
    assert [r.result for r in second.records.values()] == ["a0"]


def never_called() -> None:  # what a pickle from someone else would run if it were unpickled
    raise AssertionError("a cache file was unpickled")


class Payload:
    def __reduce__(self) -> tuple[Any, ...]:
        return (never_called, ())


def test_a_cache_file_from_someone_else_is_data_and_a_bad_entry_is_ignored(tmp_path: Path) -> None:
    name = unique("foreign")
    model, calls = counted()
    deepnb.agent(name=name, model=model)
    cache = tmp_path / "cache"
    run(name, cache, tmp_path / "1.jsonl")
    entries = sorted(cache.glob("*/*.json"))
    assert len(entries) == 6
    bad = [
        pickle.dumps(Payload()),
        b"{not json",
        json.dumps({"format": 1, "replies": [{"type": "human", "data": {"content": "a0"}}]}).encode(),
        json.dumps({"format": 1, "replies": [{"type": "ai"}]}).encode(),
        b'{"format": 1, "replies": [' + b"[" * 100_000 + b"]" * 100_000 + b"]}",
        b" " * (MAX_ENTRY_BYTES + 1),
    ]
    for path, content in zip(entries, bad, strict=True):
        path.write_bytes(content)
    with pytest.warns(CacheWarning, match="is ignored") as warned:
        again = run(name, cache, tmp_path / "2.jsonl")
    assert len({str(w.message) for w in warned}) == 6
    assert calls[0] == 12 and {r.cached for r in again.records.values()} == {0}  # answered afresh
    assert {r.scores["exact"].score for r in again.records.values()} == {1.0}
    third = run(name, cache, tmp_path / "3.jsonl")  # the fresh answers replaced the bad entries
    assert calls[0] == 12 and {r.cached for r in third.records.values()} == {1}


def test_cache_is_off_by_default_and_checked_first(tmp_path: Path) -> None:
    name = unique("uncached")
    model, calls = counted()
    deepnb.agent(name=name, model=model)
    for log in ("1.jsonl", "2.jsonl"):
        deepnb.experiment(ROWS, agent=name, template="{q}", log=tmp_path / log).wait(WAIT)
    assert calls[0] == 6
    with pytest.raises(DeepnbError, match="cache= is True"):
        deepnb.experiment(ROWS, agent=name, template="{q}", cache=3)  # type: ignore[arg-type]
