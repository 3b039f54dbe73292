"""``%%deepagent --schema VAR``: the cell's run answers in that structure (``run.output``); a
variable that is missing or holds no schema is one line."""

from __future__ import annotations

import textwrap

import pytest
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output
from pydantic import BaseModel

from tests.support.agents import unique

SCRIPT = """
agents:
  main:
    - turns:
        - tool_calls:
            - name: Person
              args: {name: Ada, age: 36}
"""


class Person(BaseModel):
    """Defined here, not in a cell: the testing shell's ``__main__`` is pytest's, so a class made in
    a cell could not be read back from the checkpoint (in a kernel, ``__main__`` is the notebook)."""

    name: str
    age: int


def run_cell(ip, source: str):
    with capture_output() as captured:
        result = ip.run_cell(source)
    return result, captured


def test_schema_sets_the_structure_of_the_cells_run(ip, tmp_path) -> None:
    script = tmp_path / "person.yaml"
    script.write_text(textwrap.dedent(SCRIPT))
    ip.user_ns["Person"] = Person
    name = unique("schema")
    cell = f"%%deepagent -a {name} -m scripted:{script} --schema Person -o run\nWho?"
    result, captured = run_cell(ip, cell)
    assert result.error_in_exec is None, result.error_in_exec
    run = ip.user_ns["run"]
    assert run.status == "done", run.error
    assert run.output == Person(name="Ada", age=36)
    shown = captured.outputs[-1].data
    assert "Structured output" in shown["text/html"]
    assert "name: Ada" in shown["text/plain"]


@pytest.mark.parametrize(
    ("setup", "said"),
    [
        ("", "No variable named 'shape'"),
        ("shape = 42", "shape holds int"),
        ("shape = {'name': 'Ada'}", "no JSON schema"),
    ],
)
def test_a_wrong_schema_variable_is_one_line(ip, setup: str, said: str) -> None:
    ip.user_ns.pop("shape", None)
    ip.run_cell(setup)
    result, _ = run_cell(ip, f"%%deepagent -a {unique('schema')} -m demo:quickstart --schema shape\nWho?")
    assert isinstance(result.error_in_exec, UsageError), result.error_in_exec
    message = str(result.error_in_exec)
    assert said in message and "\n" not in message
