"""Parsing a ``%%deepagent`` line and a ``%deepagent`` subcommand's words against their
declarations (``deepnb/magics/cell_options.py``, ``deepnb/magics/subcommands/``).

A line is split the way a shell splits it (``shlex``): ``-t 'my thread'`` gives the thread id
``my thread``, and ``%deepagent files '/a b.md'`` the path ``/a b.md``. Parsing errors raise
IPython's ``UsageError``: one line, no traceback.
"""

from __future__ import annotations

import argparse
import io
import keyword
import os
import shlex

from IPython import get_ipython
from IPython.core.error import UsageError

from deepnb.core.errors import DeepnbError
from deepnb.magics.declaring import Declared
from deepnb.magics.subcommands import SUBCOMMANDS


def _options(declared: Declared) -> str:
    flags = [a.option_strings[-1] for a in declared.parser._actions if a.option_strings and a.dest != "help"]
    return ", ".join(flags) or "none"


def _lexer(text: str | io.StringIO) -> shlex.shlex:
    lexer = shlex.shlex(text, posix=True)
    lexer.whitespace_split = True
    lexer.commenters = ""
    if os.name == "nt":  # Windows paths use backslashes: no escapes there
        lexer.escape = ""
    return lexer


def _unclosed(command: str, line: str) -> UsageError:
    return UsageError(
        f"{command}: a quote is not closed in {line.strip()!r}: close it, or escape it with a backslash."
    )


def split(line: str, command: str) -> list[str]:
    """``line`` split into words the way a shell splits them (quotes group and are removed; on
    POSIX a backslash escapes the next character). An unclosed quote raises ``UsageError``."""
    try:
        return list(_lexer(line))
    except ValueError:
        raise _unclosed(command, line) from None


def _flag(declared: Declared, dest: str) -> str:
    for action in declared.parser._actions:
        if action.dest == dest:
            return action.option_strings[0] if action.option_strings else dest.upper()
    return dest


def _split_code(line: str, command: str) -> list[str]:
    """The words of a command whose last argument is the rest of the line (``Declared.rest``):
    its leading options split like any line, then the rest of the line kept exactly as written
    (JavaScript's own quotes stay, and so does the apostrophe of "don't"); ``--`` ends the
    options."""
    words: list[str] = []
    rest = line.strip()
    while rest.startswith("-"):
        flag, *tail = rest.split(None, 1)
        rest = tail[0] if tail else ""
        if flag == "--":
            break
        words.append(flag)
        if flag in ("-a", "--agent", "-t", "--thread") and rest:
            stream = io.StringIO(rest)  # read by the lexer: where it stopped is where the code starts
            try:
                words.append(_lexer(stream).get_token() or "")
            except ValueError:
                raise _unclosed(command, line) from None
            rest = rest[stream.tell() :].strip()
    return [*words, "--", rest] if rest else words


def _check(declared: Declared, args: argparse.Namespace) -> None:
    """Refuse empty values, contradicting options, and variable names deepnb must not assign."""
    command = declared.name
    for dest, value in vars(args).items():
        values = value if isinstance(value, list) else [value]  # an option given more than once
        if any(isinstance(v, str) and not v.strip() for v in values):
            raise UsageError(f"{command}: {_flag(declared, dest)} needs a value, not an empty string.")
    for first, second, why in declared.conflicts:
        if getattr(args, first) and getattr(args, second):
            both = f"{_flag(declared, first)} or {_flag(declared, second)}"
            raise UsageError(f"{command}: use either {both}, not both ({why}).")
    for dest in declared.assigns:
        name = getattr(args, dest)
        if name is not None:
            check_variable_name(name, f"{command} {_flag(declared, dest)}")


def _ipython_names() -> frozenset[str]:
    """Names IPython keeps in the kernel's namespace (``In``, ``Out``, ``get_ipython``, …)."""
    shell = get_ipython()
    return frozenset(getattr(shell, "user_ns_hidden", ()) or ())


def check_variable_name(name: str, option: str) -> None:
    """Refuse ``name`` as a variable for deepnb to assign unless it is a plain Python identifier:
    not a keyword, not a ``__dunder__`` name, not a name IPython itself keeps."""
    dunder = name.startswith("__") and name.endswith("__")
    if not name.isidentifier() or keyword.iskeyword(name) or dunder or name in _ipython_names():
        raise UsageError(
            f"{option} {name!r} is not a variable name deepnb will assign: use letters, digits and _ "
            "(not starting with a digit), not a Python keyword, a __dunder__ name, or a name IPython "
            "keeps (In, Out, get_ipython, ...)."
        )


def parse(declared: Declared, line: str) -> argparse.Namespace:
    """Parse ``line`` for the ``declared`` command's arguments; errors raise ``UsageError``
    naming the valid options."""
    command = declared.name
    words = _split_code(line, command) if declared.rest else split(line, command)
    try:
        args = declared.parser.parse_args(words)
    except UsageError as exc:
        raise UsageError(f"{command}: {exc}. Valid options: {_options(declared)}.") from None
    _check(declared, args)
    return args


def whole_number(text: str | None, flag: str, default: int, what: str, *, least: int = 1) -> int:
    """``text`` as a whole number of at least ``least`` (``default`` without one), else one line."""
    if text is None:
        return default
    try:
        value = int(text)
    except ValueError:
        value = least - 1
    if value < least:
        raise DeepnbError(f"{flag} takes {what}, a whole number of at least {least}, not {text!r}.")
    return value


def split_subcommand(line: str) -> tuple[str, str]:
    """``"threads -a x"`` → ``("threads", "-a x")``; unknown subcommands raise ``UsageError``."""
    words = split(line, "%deepagent")
    if not words:
        raise UsageError(f"%deepagent needs a subcommand: {', '.join(SUBCOMMANDS)}. Try %deepagent help.")
    name, *rest = line.split(None, 1)
    if name not in SUBCOMMANDS:
        raise UsageError(
            f"Unknown subcommand {name!r}: use one of {', '.join(SUBCOMMANDS)} "
            "(a task goes in a %%deepagent cell)."
        )
    return name, rest[0] if rest else ""
