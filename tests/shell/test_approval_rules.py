"""An approval rule that names a tool the agent cannot call would gate nothing while the user
believes the tool waits for approval: it is refused, naming the tools the agent has, wherever
rules are given: Python, the cell magic, ``define``, ``deepnb.toml`` and a subagent's spec."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output

import deepnb
from deepnb.core import trust
from deepnb.core.errors import DeepnbError
from deepnb.session import building
from tests.support.agents import unique

TYPO = "write_fil"


def said(error: BaseException) -> str:
    text = str(error)
    assert "'write_fil'" in text and "Did you mean 'write_file'?" in text and "read_file" in text
    return text


def test_python_options_name_the_tools_the_agent_has() -> None:
    with pytest.raises(DeepnbError) as refused:
        deepnb.agent(unique("rules"), model="demo:quickstart", interrupt_on={TYPO: True})
    assert said(refused.value).startswith("interrupt_on names 'write_fil', which no agent here can call")
    assert "write_todos" in str(refused.value)


def test_a_subagents_own_rule_is_checked_against_its_tools() -> None:
    critic = {
        "name": "critic",
        "description": "Reviews.",
        "system_prompt": "Review.",
        "interrupt_on": {TYPO: True},
    }
    with pytest.raises(DeepnbError) as refused:
        deepnb.agent(unique("rules"), model="demo:quickstart", subagents=[critic])
    assert said(refused.value).startswith(
        "The critic subagent's interrupt_on names 'write_fil', which it cannot call"
    )


def test_a_rule_on_a_tool_the_agent_has_builds_and_gates() -> None:
    bench = deepnb.agent(unique("rules"), model="demo:quickstart", interrupt_on={"write_file": True})
    assert bench.spec.options["interrupt_on"] == {"write_file": True}


@pytest.mark.parametrize(
    "cell",
    [
        f"%%deepagent -m demo:quickstart --interrupt-on {TYPO}\nWrite a note.",
        f"%deepagent define {{name}} -m demo:quickstart --interrupt-on {TYPO}",
    ],
)
def test_the_magics_refuse_it_in_one_line_and_the_next_cell_runs(ip: Any, cell: str) -> None:
    name = unique("rules")
    with capture_output():
        result = ip.run_cell(cell.replace("{name}", name))
    assert isinstance(result.error_in_exec, UsageError), result.error_in_exec
    said(result.error_in_exec)
    with capture_output():
        after = ip.run_cell("%%deepagent -m demo:quickstart --interrupt-on write_file -o ok\nWrite a note.")
    assert after.error_in_exec is None


def test_deepnb_toml_rules_are_checked_when_the_agent_is_built(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("DEEPNB_HOME", str(tmp_path / "home"))
    (tmp_path / ".git").mkdir()
    (tmp_path / "deepnb.toml").write_text(
        textwrap.dedent(
            f"""
            [agents.typo]
            model = "demo:quickstart"
            interrupt_on = ["{TYPO}"]
            """
        )
    )
    monkeypatch.chdir(tmp_path)
    trust.trust(tmp_path)
    with pytest.raises(DeepnbError) as refused:
        building.get("typo")
    said(refused.value)
