"""An exported thread whose run was recorded ends with cells that replay it offline, and the
recording is written next to the notebook (refused, with nothing written, where one is already)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
import pytest

import deepnb
from deepnb.core.errors import DeepnbError
from deepnb.models.scripted import load_script
from deepnb.session.run import Run
from tests.support.agents import scripted, unique
from tests.support.waiting import WAIT

WRITE = {"name": "write_file", "args": {"file_path": "/a.md", "content": "a"}}
MODEL = {
    "main": [
        {"match": "first", "turns": [{"tool_calls": [WRITE]}, "One."]},
        {"match": "second", "turns": ["Two {not a variable}."]},
    ]
}


@pytest.fixture
def recorded(tmp_path: Path) -> tuple[Any, Run]:
    bench = deepnb.agent(unique("replayable"), scripted(MODEL), interrupt_on={"edit_file": True})
    bench.start("the first {task}", new_thread=True).wait(WAIT)
    run = bench.start("the second task\nover two lines").wait(WAIT)
    (tmp_path / "kept").mkdir()
    run.record(tmp_path / "kept" / "run.yaml")
    return bench, run


def test_the_notebook_ends_with_replay_cells_and_the_recording_is_alongside(
    recorded: tuple[Any, Run], tmp_path: Path
) -> None:
    bench, _ = recorded
    path = tmp_path / "thread.ipynb"
    exported = deepnb.export(path, agent=bench.name)
    assert exported.replay == tmp_path / "thread.replay.yaml"
    assert repr(exported).endswith("Its last cells replay the run offline from thread.replay.yaml.")
    assert path_text(exported.replay) == path_text(tmp_path / "kept" / "run.yaml")
    load_script(exported.replay)
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    heading, load, first, second = notebook.cells[-4:]
    assert heading.cell_type == "markdown" and "thread\\.replay\\.yaml" in heading.source
    assert "approval cards" in heading.source  # the agent gates edit_file
    assert (load.cell_type, load.source) == ("code", "%load_ext deepnb")
    head = f"%%deepagent -m scripted:thread.replay.yaml -a {bench.name}"
    assert first.source == f"{head} --new --interrupt-on edit_file --no-interpolate\nthe first {{task}}"
    assert (
        second.source == f"{head} --interrupt-on edit_file --no-interpolate\nthe second task\nover two lines"
    )
    assert all(c.outputs == [] for c in (load, first, second))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept", "thread.ipynb", "thread.replay.yaml"]


def test_a_recording_already_next_to_the_notebook_is_refused_unless_forced(
    recorded: tuple[Any, Run], tmp_path: Path
) -> None:
    bench, _ = recorded
    (tmp_path / "thread.replay.yaml").write_text("mine", encoding="utf-8")
    with pytest.raises(DeepnbError, match=r"thread\.replay\.yaml exists") as caught:
        deepnb.export(tmp_path / "thread.ipynb", agent=bench.name)
    assert "\n" not in str(caught.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept", "thread.replay.yaml"]
    assert (tmp_path / "thread.replay.yaml").read_text(encoding="utf-8") == "mine"
    deepnb.export(tmp_path / "thread.ipynb", agent=bench.name, force=True)
    assert (tmp_path / "thread.replay.yaml").read_text(encoding="utf-8").startswith("# Recorded by deepnb")


def test_a_recording_gone_from_disk_or_of_an_older_run_adds_no_replay(
    recorded: tuple[Any, Run], tmp_path: Path
) -> None:
    bench, run = recorded
    (tmp_path / "kept" / "run.yaml").unlink()
    assert deepnb.export(tmp_path / "gone.ipynb", agent=bench.name).replay is None
    run.record(tmp_path / "kept" / "run.yaml")
    bench.start("the first again").wait(WAIT)  # the latest run is not recorded
    exported = deepnb.export(tmp_path / "newer.ipynb", agent=bench.name)
    assert exported.replay is None
    newer = path_text(tmp_path / "newer.ipynb")
    assert "Replay offline" not in newer and "Run the conversation again" in newer  # the prompts again
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gone.ipynb", "kept", "newer.ipynb"]


def path_text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def test_a_secret_set_after_the_recording_is_redacted_in_the_exported_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    late = "latecomer-value-77"
    bench = deepnb.agent(unique("late"), scripted({"main": [f"[{late}]: the answer"]}))
    run = bench.start("answer", new_thread=True).wait(WAIT)
    run.record(tmp_path / "run.yaml")
    assert late in path_text(tmp_path / "run.yaml")  # not a secret when it was recorded
    monkeypatch.setenv("DEEPNB_LATE_TEST_TOKEN", late)
    exported = deepnb.export(tmp_path / "late.ipynb", agent=bench.name)
    assert exported.replay is not None
    assert late not in path_text(exported.replay)
    script = load_script(exported.replay)
    assert script.agents["main"][0].turns[0].text == "[[redacted]]: the answer"
