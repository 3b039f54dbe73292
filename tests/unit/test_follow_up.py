"""``run.follow_up``: the next turn of the same thread, with the context the run was given;
refused in one line while the run still runs or waits."""

from __future__ import annotations

import pytest

import deepnb
from deepnb.core.errors import DeepnbError
from tests.support.agents import scripted, unique


def conversation(delay: float = 0.0) -> object:
    return scripted(
        {
            "main": [
                {"match": "Plan", "turns": ["Step one: pack."]},
                {"match": "then", "turns": ["Step two: go."]},
            ]
        },
        delay=delay,
    )


def test_a_follow_up_goes_on_the_same_thread_with_the_same_context() -> None:
    bench = deepnb.agent(unique("follow-up"), conversation())
    first = bench.run("Plan a trip", context={"user_id": "u-7"})
    assert first.status == "done", first.error
    second = first.follow_up("And then?").wait(30)
    assert second.status == "done", second.error
    assert second.thread_id == first.thread_id and second is not first
    assert (first.result, second.result) == ("Step one: pack.", "Step two: go.")
    said = [m.content for m in bench.state_values(first.thread_id)["messages"]]
    assert said == ["Plan a trip", "Step one: pack.", "And then?", "Step two: go."]
    assert second._context == {"user_id": "u-7"}


def test_a_follow_up_is_refused_while_the_run_still_runs() -> None:
    bench = deepnb.agent(unique("follow-up-busy"), conversation(delay=0.2))
    run = bench.start("Plan a long trip")
    try:
        with pytest.raises(DeepnbError, match=r"still runs on thread .*then follow up"):
            run.follow_up("And then?")
    finally:
        run.stop()
        run.wait(30)
    assert run.follow_up("And then?").wait(30).result == "Step two: go."
