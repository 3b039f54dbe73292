"""``%%deepagent map VAR``: one run per input of a kernel variable, the cell body as the template;
``%deepagent map VAR`` without one; bad input is one line and starts nothing."""

from __future__ import annotations

from typing import Any

import pytest
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output

import deepnb
from deepnb.many.batch import Batch
from tests.support.agents import scripted, unique

ECHO = {"main": [{"match": "Paris", "turns": [{"text": "France"}]}, {"turns": [{"text": "Elsewhere"}]}]}


def _agent() -> str:
    name = unique("mapper")
    deepnb.agent(name=name, model=scripted(ECHO))
    return name


def _cell(ip: Any, source: str) -> Any:
    with capture_output() as shown:
        result = ip.run_cell(source)
    assert result.error_in_exec is None, result.error_in_exec
    return shown


def test_the_cell_body_is_the_template_and_the_cell_waits_for_the_batch(ip: Any) -> None:
    name = _agent()
    ip.user_ns["cities"] = [{"city": "Paris"}, {"city": "Oslo"}, {"city": "Lima"}]
    shown = _cell(ip, f"%%deepagent map cities -c 2 -a {name} -o batch\nWhich country is {{city}} in?")
    batch = ip.user_ns["batch"]
    assert isinstance(batch, Batch) and batch.done and batch.concurrency == 2
    assert [i.given for i in batch.inputs] == [f"Which country is {c} in?" for c in ("Paris", "Oslo", "Lima")]
    assert batch.results == ["France", "Elsewhere", "Elsewhere"]
    assert [r["city"] for r in batch.to_records()] == ["Paris", "Oslo", "Lima"]
    bundle = shown.outputs[0].data
    assert (
        "application/vnd.jupyter.widget-view+json" in bundle
        and "deepnb-batch-snapshot" in bundle["text/html"]
    )


def test_bg_returns_before_the_batch_ends_and_the_line_form_takes_prompts(ip: Any) -> None:
    name = _agent()
    ip.user_ns["prompts"] = ["Paris?", "Rome?"]
    _cell(ip, f"%%deepagent map prompts -a {name} --bg -o later\n")
    batch = ip.user_ns["later"].wait(60)
    assert [i.given for i in batch.inputs] == ["Paris?", "Rome?"]
    assert batch.results == ["France", "Elsewhere"]
    line = ip.run_line_magic("deepagent", f"map prompts -a {name} -c 1")
    assert isinstance(line, Batch) and line.wait(60).results == ["France", "Elsewhere"]


@pytest.mark.parametrize(
    ("value", "line", "body", "expected"),
    [
        ([], "map xs", "", "The batch is empty: give at least one input"),
        (
            ["a"],
            "map xs -c 0",
            "",
            "a whole number of at least 1, not '0'",
        ),
        (["a"], "map xs -c many", "", "not 'many'"),
        ([{"city": "Paris"}, {"town": "Oslo"}], "map xs", "About {city}", "Input 1 has no field 'city'"),
        (["a", 3], "map xs", "", "Input 1 is a int: a batch's inputs are strings or dicts."),
        ("one", "map xs", "", "A batch takes a list of inputs (strings or dicts), not a single one"),
        (["a"], "map nothing_here", "", "No variable named 'nothing_here'"),
    ],
)
def test_bad_input_is_one_line_and_starts_nothing(
    ip: Any, value: Any, line: str, body: str, expected: str
) -> None:
    name = _agent()
    bench = deepnb.session.building.get(name)
    ip.user_ns["xs"] = value
    ip.user_ns.pop("nothing_here", None)
    ip.user_ns.pop("failed", None)  # the shell's namespace outlives a test
    with capture_output():
        result = ip.run_cell(f"%%deepagent {line} -a {name} -o failed\n{body}")
    error = result.error_in_exec
    assert isinstance(error, UsageError), error
    assert expected in str(error) and "\n" not in str(error)
    assert "failed" not in ip.user_ns and bench.threads() == []
