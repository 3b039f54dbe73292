"""``%%deepagent --record PATH``: the run is written when it ends and ``-m scripted:PATH`` replays
it; a path that can't take the recording is refused in one line before the run starts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

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
