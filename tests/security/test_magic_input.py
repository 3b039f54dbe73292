"""Magic arguments are read the way a shell reads them, everywhere: quotes group and are removed, an
unclosed quote is one line; ``-o`` assigns only plain variable names; contradicting options are
refused with one line. Every option of every command comes from the declarations, so a new option
is covered too."""

from __future__ import annotations

import builtins
from typing import Any

import pytest
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output

from deepnb.magics import parser
from deepnb.magics.cell_options import cell
from deepnb.magics.declaring import Declared
from deepnb.magics.subcommands import SUBCOMMANDS
from deepnb.session import agents, building


def _usage_error(shell: Any, source: str) -> str:
    with capture_output():
        result = shell.run_cell(source)
    assert isinstance(result.error_in_exec, UsageError), (source, result.error_in_exec)
    message = str(result.error_in_exec)
    assert "\n" not in message, message
    return message


COMMANDS: dict[str, Declared] = {"%%deepagent": cell, **SUBCOMMANDS}
REQUIRED = {
    "define": "x",
    "use": "x",
    "extension": "x",
    "deploy": "x",
    "connect": "x",
    "export": "x.ipynb",
    "fork": "--at 1",
    "map": "x",
    "eval": "x",
}
"""A value for each command's required positional argument (or option), so the rest can be tried alone."""
CODE = {"js": "1 + 1", "steer": "don't use tables"}
"""What follows the options of a command whose last argument is the rest of the line as typed."""
QUOTED = {"output": ("'my_var'", "my_var")}
"""Options whose value must take a particular form: (as typed, as parsed)."""


def _before(func: Declared, dest: str) -> str:
    """A word for each positional argument declared before ``dest``'s, so that a value typed
    after them is the one ``dest`` reads (an optional positional takes the first word)."""
    words = []
    for action in func.parser._actions:
        if action.option_strings:
            continue
        if action.dest == dest:
            break
        words.append("x")
    return " ".join(words)


def _value_options() -> list[tuple[str, str, str]]:
    """(command, option or positional, dest) for every argument that takes a value."""
    found = []
    for command, func in COMMANDS.items():
        for action in func.parser._actions:
            if action.nargs == 0 or action.dest == "help" or func.rest == action.dest:
                continue
            found.append((command, action.option_strings[0] if action.option_strings else "", action.dest))
    return found


@pytest.mark.parametrize(("command", "flag", "dest"), _value_options())
@pytest.mark.parametrize(
    ("typed", "parsed"), [("'a b'", "a b"), ('"a b"', "a b"), ("a\\ b", "a b"), ("'it''s'", "its")]
)
def test_every_value_is_read_shell_style(command: str, flag: str, dest: str, typed: str, parsed: str) -> None:
    func = COMMANDS[command]
    typed, parsed = QUOTED.get(dest, (typed, parsed))
    required = REQUIRED.get(command, "") if flag else _before(func, dest)
    args = parser.parse(func, f"{required} {flag} {typed} {CODE.get(command, '')}".strip())
    value = getattr(args, dest)
    assert (value[0] if isinstance(value, list) else value) == parsed


@pytest.mark.parametrize(("command", "flag", "dest"), _value_options())
def test_an_unclosed_quote_or_an_empty_value_is_one_line(command: str, flag: str, dest: str) -> None:
    func = COMMANDS[command]
    required = REQUIRED.get(command, "") if flag else _before(func, dest)
    with pytest.raises(UsageError, match="a quote is not closed") as unclosed:
        parser.parse(func, f"{required} {flag} 'a b".strip())
    with pytest.raises(UsageError, match="needs a value, not an empty string") as empty:
        parser.parse(func, f"{required} {flag} '' {CODE.get(command, '')}".strip())
    assert "\n" not in str(unclosed.value) + str(empty.value)


def test_js_code_keeps_its_own_quotes_after_the_options() -> None:
    args = parser.parse(SUBCOMMANDS["js"], "-a 'my agent' -t \"my thread\" 'a b'.split(\" \").length")
    assert (args.agent, args.thread, args.code) == ("my agent", "my thread", ["'a b'.split(\" \").length"])
    assert parser.parse(SUBCOMMANDS["js"], "-- -1 + 2").code == ["-1 + 2"]
    assert parser.parse(SUBCOMMANDS["js"], "it's").code == ["it's"]


def test_a_steering_message_keeps_its_apostrophes_and_quotes() -> None:
    args = parser.parse(SUBCOMMANDS["steer"], "-t 'my thread' don't say \"never\"")
    assert (args.thread, args.message) == ("my thread", ['don\'t say "never"'])


CONFLICTS = [
    ("--bg --wait", "use either --bg or --wait, not both"),
    ("-t abc --new", "use either -t or --new, not both"),
    ("--new --thread abc", "use either -t or --new, not both"),
]


@pytest.mark.parametrize(("options", "expected"), CONFLICTS)
def test_contradicting_options_are_refused_before_anything_runs(ip: Any, options: str, expected: str) -> None:
    message = _usage_error(ip, f"%%deepagent -m demo:quickstart {options} -o conflicted\nA brief")
    assert expected in message
    assert "conflicted" not in ip.user_ns and not agents.registered()


def _given(dest: str) -> str:
    """The cell's option for ``dest`` as it would be typed, with a value where it takes one."""
    action = next(a for a in cell.parser._actions if a.dest == dest)
    flag = max(action.option_strings, key=len)
    return flag if action.nargs == 0 else f"{flag} x"


@pytest.mark.parametrize(("first", "second", "why"), cell.conflicts, ids=lambda value: str(value)[:24])
def test_every_declared_conflict_of_the_cell_is_refused(ip: Any, first: str, second: str, why: str) -> None:
    message = _usage_error(ip, f"%%deepagent {_given(first)} {_given(second)} -o conflicted\nA brief")
    assert "not both" in message and why in message
    assert "conflicted" not in ip.user_ns and not agents.registered()


BAD_NAMES = ["__builtins__", "__name__", "class", "None", "1x", "a-b", "a.b", "get_ipython", "In", "Out"]


@pytest.mark.parametrize("name", BAD_NAMES)
def test_o_assigns_only_plain_variable_names(ip: Any, name: str) -> None:
    before = ip.user_ns.get(name, "absent")
    message = _usage_error(ip, f"%%deepagent -m demo:quickstart -o {name}\nA brief")
    assert f"-o {name!r} is not a variable name deepnb will assign: use letters, digits and _" in message
    assert ip.user_ns.get(name, "absent") is before and not agents.registered()
    assert ip.user_ns["__builtins__"] is builtins or ip.user_ns["__builtins__"] is builtins.__dict__


def test_quoted_thread_ids_and_paths_reach_the_engine_without_quotes(ip: Any) -> None:
    ip.user_ns["topic"] = "tide pools"
    with capture_output():
        ip.run_cell("%%deepagent -m demo:quickstart -t 'my thread' -o quoted\nA brief on {topic}")
    run = ip.user_ns["quoted"]
    assert run.thread_id == "my thread" and run.status == "done"
    assert "tide pools" in str(building.get().state_values("my thread")["messages"][0].content)
    message = _usage_error(ip, "%deepagent files -t 'my thread' '/a b.md'")
    assert "Nothing at /a b.md in this thread's files" in message
    assert _usage_error(ip, "%deepagent files '/a b.md") == (
        '%deepagent: a quote is not closed in "files \'/a b.md": close it, or escape it with a backslash.'
    )
