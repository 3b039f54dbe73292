"""The text of ``%deepagent help``: the cell's options and every subcommand, from their
declarations."""

from __future__ import annotations

import argparse
import textwrap
from functools import partial

from deepnb.magics.cell_options import cell
from deepnb.magics.subcommands import SUBCOMMANDS

HELP_WIDTH = 96
"""Columns of ``%deepagent help``: lines wrap at word boundaries within it."""


def _entry(head: str, text: str, *, column: int) -> list[str]:
    """``head`` then ``text`` in a column from ``column``, each wrapped at word boundaries; a
    head too wide for its column puts the text on the lines below it."""
    wrap = partial(textwrap.wrap, width=HELP_WIDTH, break_long_words=False, break_on_hyphens=False)
    heads = wrap(head, initial_indent="  ", subsequent_indent="      ")
    if len(heads[-1]) < column:
        first = heads.pop()
        body = wrap(text, initial_indent=f"{first:<{column}}", subsequent_indent=" " * column)
    else:
        body = wrap(text, initial_indent=" " * column, subsequent_indent=" " * column)
    return heads + body


def _positional(action: argparse.Action) -> str:
    """A positional argument as the help writes it: its metavar (``[PATH]`` when optional)."""
    name = action.metavar if isinstance(action.metavar, str) else action.dest.upper()
    return f"[{name}]" if action.nargs == "?" else name


def usage() -> str:
    """The help text: the cell magic's options and each subcommand with its options, wrapped at
    word boundaries to :data:`HELP_WIDTH` columns."""
    lines = ["%%deepagent [options]  — the cell body is the task; {name} inserts a variable.", ""]
    for action in cell.parser._actions:
        if action.option_strings and action.dest != "help":
            flags = ", ".join(action.option_strings)
            meta = f" {action.metavar or action.dest.upper()}" if action.nargs != 0 else ""
            lines += _entry(flags + meta, str(action.help), column=31)
    lines += ["", "%deepagent SUBCOMMAND [options]:"]
    for name, declared in SUBCOMMANDS.items():
        words = [_positional(a) for a in declared.parser._actions if not a.option_strings]
        options = " ".join(
            f"[{a.option_strings[0]}]"
            for a in declared.parser._actions
            if a.option_strings and a.dest != "help"
        )
        command = " ".join(["%deepagent", name, *words, options]).strip()
        lines += _entry(command, declared.summary, column=45)
    lines += _entry("%deepagent /NAME [ARGS]", "Run an extension's command (register_command).", column=45)
    return "\n".join(lines)
