"""``%%deepagent --record PATH``: the run is written when it ends and ``-m scripted:PATH`` replays
it; a path that can't take the recording is refused in one line before the run starts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
import pytest
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output

PROMPT = "Write a brief about tide pools"


def test_a_recorded_cell_replays_offline_to_the_same_run(ip: Any, tmp_path: Path) -> None:
    path = tmp_path / "brief.yaml"
    with capture_output() as shown:
        ip.run_cell(
            f"%%deepagent -m demo:quickstart -a recorder --new --record '{path}' -o recorded\n" + PROMPT
        )
    run = ip.user_ns["recorded"]
    assert run.status == "done"
    assert f"Recorded {run.id} to {path}: 1 prompt(s)" in shown.stdout
    assert f"-m scripted:{path}" in shown.stdout
    with capture_output():
        ip.run_cell(f"%%deepagent -m 'scripted:{path}' -a replayer --new -o replayed\n{PROMPT}")
    replayed = ip.user_ns["replayed"]
    assert replayed.status == "done"
    assert replayed.result == run.result
    assert shown_items(replayed) == shown_items(run)
    assert dict(replayed.files) == dict(run.files)


def shown_items(run: Any) -> list[tuple[str, str, str | None, str | None]]:
    items = run.state.to_json()["items"]
    return [(i["kind"], i["agent"], i.get("text"), i.get("args_full")) for i in items]


def _refused(ip: Any, source: str) -> str:
    with capture_output():
        result = ip.run_cell(source)
    assert isinstance(result.error_in_exec, UsageError), result.error_in_exec
    assert "\n" not in str(result.error_in_exec)
    return str(result.error_in_exec)


def test_an_existing_path_is_refused_before_the_run_unless_forced(ip: Any, tmp_path: Path) -> None:
    path = tmp_path / "kept.yaml"
    path.write_text("mine", encoding="utf-8")
    ip.user_ns.pop("never", None)
    cell = f"%%deepagent -m demo:quickstart -a recorder2 --record '{path}'"
    message = _refused(ip, f"{cell} -o never\n{PROMPT}")
    assert "exists" in message and "--force" in message
    assert "never" not in ip.user_ns  # no run started
    assert path.read_text(encoding="utf-8") == "mine"
    with capture_output():
        ip.run_cell(f"{cell} --force -o forced\n{PROMPT}")
    assert ip.user_ns["forced"].status == "done"
    assert path.read_text(encoding="utf-8").startswith("# Recorded by deepnb")
    assert [p.name for p in tmp_path.iterdir()] == ["kept.yaml"]


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ("--force", "give --record PATH too"),
        ("--record x.yaml --bg", "use either --bg or --record"),
        ("--record x.txt", "ending in .yaml"),
    ],
)
def test_bad_record_options_are_one_line(ip: Any, options: str, error: str) -> None:
    assert error in _refused(ip, f"%%deepagent -m demo:quickstart -a recorder3 {options}\n{PROMPT}")


GATED = """
agents:
  main:
    - text: Writing it.
      tool_calls: [{name: write_file, args: {file_path: /n.md, content: hi}}]
    - text: Written.
"""


def test_a_run_waiting_for_approval_is_written_again_when_it_finishes(ip: Any, tmp_path: Path) -> None:
    script = tmp_path / "gated-model.yaml"
    script.write_text(GATED, encoding="utf-8")
    path = tmp_path / "gated.yaml"
    cell = (
        f"%%deepagent -m 'scripted:{script}' -a recorder4 --new --interrupt-on write_file --record '{path}'"
    )
    with capture_output() as shown:
        ip.run_cell(f"{cell} -o gated\nwrite a note")
    run = ip.user_ns["gated"]
    assert run.status == "interrupted"
    assert "It ends where the run waits for approval. The file is written again when the run finishes." in (
        shown.stdout
    )
    assert "Written." not in path.read_text(encoding="utf-8")
    run.pending[0].approve()
    run.wait(30)
    assert run.status == "done"
    assert "text: Written." in path.read_text(encoding="utf-8")
    assert run.recording is not None and not run.recording.waiting


def test_an_export_of_a_recorded_cell_ends_with_its_replay(ip: Any, tmp_path: Path) -> None:
    path = tmp_path / "brief.yaml"
    with capture_output():
        ip.run_cell(f"%%deepagent -m demo:quickstart -a recorder5 --new --record '{path}'\n{PROMPT}")
    shown = ip.run_line_magic("deepagent", f"export '{tmp_path / 'brief.ipynb'}' -a recorder5")
    assert repr(shown).endswith("Its last cells replay the run offline from brief.replay.yaml.")
    assert (tmp_path / "brief.replay.yaml").read_text(encoding="utf-8") == path.read_text(encoding="utf-8")
    notebook = nbformat.read(tmp_path / "brief.ipynb", as_version=4)
    assert notebook.cells[-1].source == (
        f"%%deepagent -m scripted:brief.replay.yaml -a recorder5 --new --no-interpolate\n{PROMPT}"
    )
