"""No tool runs around its approval rule: interpreter code (PTC, JS ``task()``) that could reach a
gated tool is refused when the agent is built, for every code path in ``deepnb.engine.gating.PATHS``
and every kind of rule (``interrupt_on``, inherited by subagents, filesystem ``interrupt``
permissions, a ``HumanInTheLoopMiddleware`` of the user's or of an extension) — from Python, a
magic and ``deepnb.toml`` alike. An ungated PTC tool still works."""

from __future__ import annotations

import re
import textwrap
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import deepnb
from deepnb import extensions
from deepnb.core.errors import DeepnbError
from deepnb.session import agents
from tests.support.agents import unique

pytest.importorskip("langchain_quickjs", reason="the interpreter extra: pip install 'deepnb[interpreter]'")

SUB = {"name": "clerk", "description": "Files things.", "system_prompt": "You file things."}


def hitl(tool: str) -> Any:
    from langchain.agents.middleware import HumanInTheLoopMiddleware

    return HumanInTheLoopMiddleware(interrupt_on={tool: True})


def fs_interrupt(tool: str) -> Any:
    from deepagents.middleware.filesystem import FilesystemPermission

    operation = "read" if tool in ("read_file", "ls", "glob", "grep") else "write"
    return FilesystemPermission(operations=[operation], paths=["/**"], mode="interrupt")


# Each code path: (the interpreter option that opens it, the agent whose tool it reaches, the tool).
PATH_SETUPS: dict[str, tuple[dict[str, Any], str, str]] = {
    "ptc": ({"ptc": ["write_file"], "subagents": False}, "main", "write_file"),
    "task": ({"subagents": True}, "main", "task"),
    "subagent": ({"subagents": True}, "clerk", "write_file"),
}

# Each kind of rule, as options that make ``tool`` gated in ``agent`` (and only there, where it can).
Rule = Callable[[str, str], dict[str, Any]]


def _own_interrupt_on(agent: str, tool: str) -> dict[str, Any]:
    if agent == "main":
        return {"interrupt_on": {tool: True}, "subagents": [SUB]}
    return {"subagents": [{**SUB, "interrupt_on": {tool: True}}]}


def _inherited_interrupt_on(agent: str, tool: str) -> dict[str, Any]:
    return {"interrupt_on": {tool: True}, "subagents": [SUB]}


def _permission(agent: str, tool: str) -> dict[str, Any]:
    if agent == "main":
        return {"permissions": [fs_interrupt(tool)], "subagents": [SUB]}
    return {"subagents": [{**SUB, "permissions": [fs_interrupt(tool)]}]}


def _middleware(agent: str, tool: str) -> dict[str, Any]:
    if agent == "main":
        return {"middleware": [hitl(tool)], "subagents": [SUB]}
    return {"subagents": [{**SUB, "middleware": [hitl(tool)]}]}


def _forked_middleware(agent: str, tool: str) -> dict[str, Any]:
    return {"middleware": [hitl(tool)], "subagents": [{**SUB, "mode": "fork"}]}


def _compiled(agent: str, tool: str) -> dict[str, Any]:
    from langchain.agents import create_agent

    from tests.support.agents import scripted

    def file_it(note: str) -> str:
        """File a note."""
        return note

    graph = create_agent(scripted({"main": ["Filed."]}), tools=[file_it], middleware=[hitl("file_it")])
    return {"subagents": [{"name": agent, "description": "Files things.", "runnable": graph}]}


RULES: dict[str, Rule] = {
    "interrupt_on": _own_interrupt_on,
    "inherited interrupt_on": _inherited_interrupt_on,
    "FilesystemPermission interrupt": _permission,
    "HumanInTheLoopMiddleware": _middleware,
    "forked subagent's inherited middleware": _forked_middleware,
    "compiled subagent's own middleware": _compiled,
}
NOT_A_RULE_FOR = {
    # filesystem permissions gate filesystem tools only, and only a forked subagent takes the
    # main agent's middleware
    ("FilesystemPermission interrupt", "task"),
    ("forked subagent's inherited middleware", "main"),
    ("compiled subagent's own middleware", "main"),
}


def test_every_code_path_has_a_setup_here() -> None:
    from deepnb.engine import gating

    assert {path.name for path in gating.PATHS} == set(PATH_SETUPS)


COMBINATIONS = [
    pytest.param(path, rule, id=f"{path}-{rule}")
    for path, (_, agent, tool) in PATH_SETUPS.items()
    for rule in RULES
    if (rule, tool) not in NOT_A_RULE_FOR and (rule, agent) not in NOT_A_RULE_FOR
]


@pytest.mark.parametrize(("path", "rule"), COMBINATIONS)
def test_code_reaching_a_gated_tool_is_refused_at_build(path: str, rule: str) -> None:
    interpreter, agent, tool = PATH_SETUPS[path]
    options = RULES[rule](agent, tool)
    with pytest.raises(DeepnbError) as refused:
        deepnb.agent(unique("gated"), "demo:interpreter", interpreter=interpreter, **options)
    message = str(refused.value)
    assert "\n" not in message and (tool in message or rule.startswith("compiled"))
    says = {"ptc": "interpreter ptc lets code", "task": "interpreter task() lets code call the task tool"}
    assert says.get(path, f"interpreter task() lets code start subagent '{agent}'") in message


def test_an_extension_s_approval_middleware_counts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    source = tmp_path / "asks.py"
    source.write_text(
        textwrap.dedent(
            """
            from langchain.agents.middleware import HumanInTheLoopMiddleware

            async def extension(d):
                d.register_middleware(HumanInTheLoopMiddleware(interrupt_on={"write_file": True}))
            """
        )
    )
    extensions.shutdown()
    try:
        [(_, error)] = extensions.load(source)
        assert error is None
        with pytest.raises(
            DeepnbError, match="ptc lets code call write_file, which a HumanInTheLoopMiddleware"
        ):
            deepnb.agent(unique("ext"), "demo:interpreter", interpreter={"ptc": ["write_file"]})
    finally:
        extensions.shutdown()


def test_the_issue_s_example_says_what_to_change() -> None:
    with pytest.raises(DeepnbError) as refused:
        deepnb.agent(
            unique("issue"),
            "demo:interpreter",
            interrupt_on={"write_file": True},
            interpreter={"ptc": ["write_file"]},
        )
    assert str(refused.value).startswith(
        "Cannot build this agent: interpreter ptc lets code call write_file, which interrupt_on gates: "
        "code calls skip approval — remove write_file from ptc or from interrupt_on."
    )


def test_the_magic_and_deepnb_toml_reach_the_same_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ip: Any
) -> None:
    from IPython.core.error import UsageError
    from IPython.utils.capture import capture_output

    name = unique("magic")
    with capture_output():
        result = ip.run_cell(
            f"%%deepagent -a {name} -m demo:interpreter --interrupt-on write_file --ptc write_file\nGo."
        )
    assert isinstance(result.error_in_exec, UsageError)
    assert "ptc lets code call write_file, which interrupt_on gates" in str(result.error_in_exec)
    assert name not in agents.registered()

    (tmp_path / ".git").mkdir()
    (tmp_path / "deepnb.toml").write_text(
        "[agents.filer]\nmodel = 'demo:interpreter'\ninterrupt_on = { write_file = true }\n"
        "interpreter = { ptc = ['write_file'] }\n"
    )
    monkeypatch.chdir(tmp_path)
    agents.forget_all()
    with pytest.raises(DeepnbError, match="ptc lets code call write_file, which interrupt_on gates"):
        deepnb.get("filer")
    agents.forget_all()


@pytest.mark.parametrize(
    ("ptc", "says"),
    [
        (True, "interpreter ptc takes a list of tool names"),
        ("*", "interpreter ptc takes a list of tool names"),
        (["task"], "interpreter ptc cannot take 'task'"),
    ],
)
def test_ptc_forms_the_interpreter_does_not_take_are_refused_at_build(ptc: Any, says: str) -> None:
    """Not a list of tool names (an "all tools" form) or ``task``: refused when built, not at the
    first model call."""
    from deepnb.engine import gating

    with pytest.raises(DeepnbError, match=re.escape(says)):
        gating.check({}, [_interpreter(ptc)])


def _interpreter(ptc: Any) -> Any:
    from langchain_quickjs import CodeInterpreterMiddleware

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return CodeInterpreterMiddleware(ptc=ptc)


def test_an_ungated_ptc_tool_still_runs_from_code() -> None:
    """The positive control: gating other tools leaves PTC and JS task() usable."""
    bench = deepnb.agent(
        unique("free"),
        "demo:interpreter",
        interrupt_on={"edit_file": True},
        interpreter={"ptc": ["write_file"], "subagents": False},
    )
    run = bench.run("Which station has the widest tidal range?").wait(60)
    assert run.status == "done", run.error
    assert '"station": "Half Moon Bay"' in run.files["/tides/ranges.json"]
    assert run.pending == []
