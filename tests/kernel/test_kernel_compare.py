"""Compare and structured output over the kernel protocol: a ``--compare`` cell opens one run view
per model, each ending with its own answer; a ``--schema`` class defined in the notebook comes back
as that class (read back from the checkpoint through the kernel's ``__main__``) and reaches the
front-end as the view's ``output`` rows."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.kernel_session import KernelSession, deepnb_kernel

pytestmark = pytest.mark.kernel


@pytest.fixture(scope="module")
def kernel(tmp_path_factory) -> Iterator[KernelSession]:
    folder = tmp_path_factory.mktemp("compare")
    for name, answer in (("a", "Paris, says A."), ("b", "Lyon, says B.")):
        (folder / f"{name}.yaml").write_text(f"agents:\n  main:\n    - turns: [{{text: '{answer}'}}]\n")
    (folder / "person.yaml").write_text(
        "agents:\n  main:\n    - tool_calls: [{name: Person, args: {name: Ada, age: 36}}]\n"
    )
    with deepnb_kernel(str(folder)) as session:
        yield session


def test_a_compare_cell_opens_a_view_per_model(kernel: KernelSession) -> None:
    before = len(kernel.run_views())
    execution = kernel.execute("%%deepagent --compare scripted:a.yaml,scripted:b.yaml -o cmp\nCapital?")
    assert execution.ok, execution.text()
    views = kernel.wait_for(lambda: len(kernel.run_views()) == before + 2 and kernel.run_views()[before:])
    done = kernel.wait_for(lambda: all(state["status"] == "done" for _, state in views) and views)
    answers = [[i["text"] for i in state["items"] if i["kind"] == "text"] for _, state in done]
    assert answers == [["Paris, says A."], ["Lyon, says B."]]
    assert len({state["thread_id"] for _, state in done}) == 2
    shown = kernel.execute("print(cmp.table())").text()
    assert "Paris, says A." in shown and "Lyon, says B." in shown


def test_a_schema_class_of_the_notebook_comes_back_as_itself(kernel: KernelSession) -> None:
    assert kernel.execute(
        "from pydantic import BaseModel\nclass Person(BaseModel):\n    name: str\n    age: int"
    ).ok
    before = len(kernel.run_views())
    assert kernel.execute("%%deepagent -m scripted:person.yaml --new --schema Person -o r\nWho?").ok
    comm_id, _ = kernel.newest_view(before)
    state = kernel.wait_for(lambda: kernel.widgets[comm_id]["status"] == "done" and kernel.widgets[comm_id])
    assert state["output"] == [["name", "Ada"], ["age", "36"]]
    assert (
        kernel.execute("print(type(r.output) is Person, r.output)").text().strip() == "True name='Ada' age=36"
    )
