"""``%%deepagent --compare MODEL,MODEL``: the cell's task on each model at once, displayed side
by side with the table; bad input in one line."""

from __future__ import annotations

import textwrap

import pytest
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output
from pydantic import BaseModel

from deepnb.many.comparing import Comparison
from deepnb.session import agents, building
from tests.support.agents import unique

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def script(tmp_path, name: str, answer: str) -> str:
    path = tmp_path / f"{name}.yaml"
    path.write_text(textwrap.dedent(f"agents:\n  main:\n    - turns: [{{text: {answer!r}}}]\n"))
    return str(path)


def run_cell(ip, source: str):
    with capture_output() as captured:
        result = ip.run_cell(source)
    return result, captured


def test_compare_runs_each_model_and_shows_them_side_by_side(ip, tmp_path) -> None:
    first, second = script(tmp_path, "a", "Paris, says A."), script(tmp_path, "b", "Lyon, says B.")
    result, captured = run_cell(
        ip, f"%%deepagent --compare scripted:{first},scripted:{second} -o cmp\nCapital?"
    )
    assert result.error_in_exec is None, result.error_in_exec
    comparison = ip.user_ns["cmp"]
    assert isinstance(comparison, Comparison)
    assert list(comparison.runs) == [f"scripted:{first}", f"scripted:{second}"]
    assert [run.result for run in comparison.runs.values()] == ["Paris, says A.", "Lyon, says B."]
    shown = captured.outputs[-1].data
    assert WIDGET_MIME in shown
    assert shown["text/html"].count('class="dnb-compare-column"') == 2
    assert "Paris, says A." in shown["text/html"] and "Lyon, says B." in shown["text/html"]
    assert "Capital?" in shown["text/plain"]
    assert agents.registered() == {}  # the models ran on copies of the default: none was defined


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ("--compare demo:quickstart", "at least two models"),
        ("--compare demo:quickstart,demo:quickstart", "given twice"),
        ("--compare demo:quickstart,nocolon", "Malformed model 'nocolon'"),
        ("--compare demo:quickstart,,demo:research", "has an empty model"),
        ("-a nobody-here --compare demo:quickstart,demo:research", "No agent named 'nobody-here'"),
        ("-m demo:quickstart --compare demo:quickstart,demo:research", "use either -m"),
        ("-t abc --compare demo:quickstart,demo:research", "use either -t"),
    ],
)
def test_bad_compare_input_is_one_line(ip, options: str, said: str) -> None:
    result, _ = run_cell(ip, f"%%deepagent {options}\nGo")
    assert isinstance(result.error_in_exec, UsageError), result.error_in_exec
    message = str(result.error_in_exec)
    assert said in message and "\n" not in message


class Verdict(BaseModel):
    """Defined here: the testing shell's ``__main__`` is pytest's (see test_schema_magic.py)."""

    winner: str


def test_compare_on_a_named_agent_with_a_schema(ip, tmp_path) -> None:
    paths = []
    for name in ("x", "y"):
        path = tmp_path / f"{name}.yaml"
        path.write_text(
            f"agents:\n  main:\n    - tool_calls: [{{name: Verdict, args: {{winner: {name}}}}}]\n"
        )
        paths.append(f"scripted:{path}")
    agent = unique("judge")
    ip.run_line_magic("deepagent", f"define {agent} -m demo:quickstart")
    ip.user_ns["Verdict"] = Verdict
    result, captured = run_cell(
        ip, f"%%deepagent -a {agent} --compare {','.join(paths)} --schema Verdict -o judged\nWho wins?"
    )
    assert result.error_in_exec is None, result.error_in_exec
    records = ip.user_ns["judged"].to_records()
    assert [r["output"] for r in records] == [Verdict(winner="x"), Verdict(winner="y")]
    assert "winner=x" in captured.outputs[-1].data["text/html"]
    assert building.get(agent).spec.options.get("response_format") is None  # the agent: unchanged
