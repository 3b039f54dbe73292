"""``%deepagent steer TEXT`` gives the run on a thread a message for its next model call; with
nothing running it says what to do instead."""

from __future__ import annotations

import pytest
from IPython.utils.capture import capture_output

import deepnb
from tests.support.agents import scripted, unique
from tests.support.waiting import WAIT, Gate


def test_steer_magic(ip) -> None:
    gate = Gate()

    def slow_step(topic: str) -> str:
        """A slow step."""
        gate.hold()  # until the steer is given
        return "ok"

    model = scripted(
        {
            "main": [
                {
                    "match": "Start",
                    "turns": [{"tool_calls": [{"name": "slow_step", "args": {"topic": "x"}}]}],
                },
                {"match": "shorter", "turns": ["Short."]},
            ]
        }
    )
    name = unique("steer-magic")
    bench = deepnb.agent(name, model, tools=[slow_step])
    run = bench.start("Start")
    gate.wait_reached()  # the tool runs: the next model call is after it
    with capture_output():
        said = ip.run_cell(f"%deepagent steer -a {name} Make it shorter").result
    assert repr(said).startswith(f"Given to the run on thread {run.thread_id} of agent {name}")
    gate.open()
    assert run.wait(WAIT).result == "Short."
    with capture_output():
        result = ip.run_cell(f"%deepagent steer -a {name} Again")
    assert result.error_in_exec is not None
    with pytest.raises(Exception, match="Nothing is running on thread"):
        raise result.error_in_exec
