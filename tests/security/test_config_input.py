"""Bad input in a project's config is caught when the file is read, in one line naming the file
and the key, never as a raw error at run time."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import deepnb
from deepnb.core.errors import DeepnbError
from deepnb.session import agents, config
from tests.support.fresh_session import fresh_session

BAD_SCRIPT_TURNS = [
    ("usage: 5", "'usage' must map input_tokens and output_tokens to numbers"),
    ("usage: {input_tokens: lots}", "'usage' must map input_tokens and output_tokens to numbers"),
    ("error: [1, 2]", "'error' must be the error's message, a string"),
    ("tool_calls: 5", "'tool_calls' must be a list of {name, args}"),
]


@pytest.fixture(autouse=True)
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    (tmp_path / ".git").mkdir()
    (tmp_path / "data").mkdir()
    monkeypatch.chdir(tmp_path)
    with fresh_session():
        yield tmp_path


def _refused(text: str, key: str, expected: str) -> str:
    Path("deepnb.toml").write_text(text, encoding="utf-8")
    with pytest.raises(DeepnbError) as raised:
        deepnb.get("r")
    message = str(raised.value)
    assert message.startswith(f"deepnb.toml: agents.r.{key}: "), message
    assert expected in message and "\n" not in message
    assert agents.registered() == {}
    return message


@pytest.mark.parametrize("folder", ["data", "/tmp", "."])
def test_a_sqlite_checkpointer_naming_a_folder(folder: str) -> None:
    _refused(
        f"[agents.r]\nmodel = 'demo:quickstart'\ncheckpointer = 'sqlite:{folder}'\n",
        "checkpointer",
        f"'sqlite:{folder}' is a folder: name a database file in it, e.g. sqlite:threads.db",
    )


CLIMBING = [
    ("memory[0]", "memory = ['/../etc/passwd']"),
    ("memory[1]", "memory = ['/AGENTS.md', '/notes/../../etc/passwd']"),
    ("skills[0]", "skills = ['/skills/../../']"),
    ("subagents[0].skills[0]", "subagents = [{ name = 'a', description = 'd', skills = ['/..'] }]"),
]


@pytest.mark.parametrize(("key", "line"), CLIMBING, ids=[c[0] for c in CLIMBING])
def test_memory_and_skills_paths_may_not_climb_out(key: str, line: str) -> None:
    _refused(f"[agents.r]\nmodel = 'demo:quickstart'\n{line}\n", key, "a path may not climb out with '..'")


@pytest.mark.parametrize(
    ("value", "key"),
    [
        ("['task']", "interpreter.ptc[0]"),
        ("['read_file', 'task']", "interpreter.ptc[1]"),
        ("'glob,task'", "interpreter.ptc[1]"),
    ],
)
def test_the_interpreter_cannot_call_task(value: str, key: str) -> None:
    _refused(
        f"[agents.r]\nmodel = 'demo:quickstart'\ninterpreter = {{ ptc = {value} }}\n",
        key,
        "'task' — the interpreter's code cannot call task",
    )


def test_a_utf8_bom_is_no_mistake() -> None:
    Path("deepnb.toml").write_bytes("\ufeff[agents.r]\nmodel = 'demo:quickstart'\n".encode())
    assert config.agent_names() == ["r"]
    assert deepnb.get("r").origin == "deepnb.toml"


@pytest.mark.parametrize(("turn", "expected"), BAD_SCRIPT_TURNS, ids=[t[0] for t in BAD_SCRIPT_TURNS])
def test_a_bad_scripted_model_is_refused_when_the_config_is_read(turn: str, expected: str) -> None:
    Path("script.yaml").write_text(f"agents:\n  main:\n    - text: hi\n      {turn}\n", encoding="utf-8")
    message = _refused("[agents.r]\nmodel = 'scripted:script.yaml'\n", "model", expected)
    assert "script.yaml: agents.main, turn 0" in message


def test_a_bad_scripted_model_of_a_subagent_names_its_key() -> None:
    Path("script.yaml").write_text("agents:\n  main:\n    - text: hi\n      usage: 5\n", encoding="utf-8")
    _refused(
        "[agents.r]\nmodel = 'demo:quickstart'\n"
        "[[agents.r.subagents]]\nname = 'a'\ndescription = 'd'\nmodel = 'scripted:script.yaml'\n",
        "subagents[0].model",
        "'usage' must map",
    )
