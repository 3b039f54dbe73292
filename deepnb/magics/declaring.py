"""How a command of the magics is declared: its arguments, its help and what runs it, in one place.

Each ``%deepagent`` subcommand is one declaration in ``deepnb/magics/subcommands/``::

    @subcommand("todos", handler="threads:todos")
    @thread_options
    def todos() -> None:
        \"\"\"Show a thread's todo list.\"\"\"

The docstring is the line ``%deepagent help`` and the docs give it; the ``@argument`` lines are
IPython's (``add_argument``'s options); the handler, ``MODULE:FUNCTION`` of
``deepnb/magics/commands/``, is called with the parsed arguments and the kernel's namespace. The
handlers reach every layer (agents, extensions, views), so they are imported on the command's first
use: ``%load_ext deepnb`` and ``%deepagent help`` load the declarations only.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from IPython.core import magic_arguments as ipython_arguments

HANDLERS = "deepnb.magics.commands"
"""The package a declaration's ``handler`` names a module of."""

_Stub = TypeVar("_Stub", bound=Callable[..., Any])


@dataclass(frozen=True, eq=False)
class Declared:
    """A command of the magics as declared: ``%%deepagent``'s options or a ``%deepagent``
    subcommand's arguments, help and handler."""

    name: str
    """As messages name it: ``%%deepagent``, ``deepagent todos``."""
    summary: str
    """What it does, in one sentence (``%deepagent help``, the docs)."""
    parser: argparse.ArgumentParser
    handler: str = ""
    """``MODULE:FUNCTION`` under :data:`HANDLERS`; empty for the cell, which the magic runs itself."""
    rest: str | None = None
    """The argument (its dest) that takes the rest of the line as typed: code, a message."""
    assigns: tuple[str, ...] = ()
    """Options whose value names a kernel variable deepnb assigns."""
    conflicts: tuple[tuple[str, str, str], ...] = ()
    """Options that contradict each other: (dest, dest, why)."""

    @property
    def word(self) -> str:
        """The subcommand as typed after ``%deepagent`` (``todos``)."""
        return self.name.removeprefix("deepagent ")

    def handle(self, args: argparse.Namespace, namespace: dict[str, Any]) -> Any:
        """Run the handler on the parsed ``args`` (importing its module on first use)."""
        return self.resolve()(args, namespace)

    def resolve(self) -> Callable[[argparse.Namespace, dict[str, Any]], Any]:
        """The handler function the declaration names."""
        module, _, function = self.handler.partition(":")
        found: Callable[[argparse.Namespace, dict[str, Any]], Any] = getattr(
            importlib.import_module(f"{HANDLERS}.{module}"), function
        )
        return found


def argument(*args: Any, **kwargs: Any) -> Callable[[_Stub], _Stub]:
    """IPython's ``@argument`` (``add_argument``'s options), typed: it returns what it decorates."""
    declare: Callable[[_Stub], _Stub] = ipython_arguments.argument(*args, **kwargs)
    return declare


def agent_option(stub: _Stub) -> _Stub:
    """``-a AGENT``, as every command on one agent takes it."""
    return argument("-a", "--agent", help="Agent name (default: the current agent).")(stub)


def thread_options(stub: _Stub) -> _Stub:
    """``-a AGENT`` and ``-t THREAD``, as every command on one thread of one agent takes them."""
    return agent_option(
        argument("-t", "--thread", help="Thread id (default: the agent's current thread).")(stub)
    )


def _declared(name: str, stub: Callable[..., Any], **settings: Any) -> Declared:
    summary = " ".join(inspect.cleandoc(stub.__doc__ or "").split())
    if not summary:
        raise TypeError(f"{name} is declared without a docstring: it is the command's help")
    parser: argparse.ArgumentParser = ipython_arguments.magic_arguments(name=name)(stub).parser
    return Declared(name, summary, parser, **settings)


def subcommand(
    word: str,
    *,
    handler: str,
    rest: str | None = None,
    assigns: tuple[str, ...] = (),
) -> Callable[[Callable[..., Any]], Declared]:
    """Declare ``%deepagent WORD``: the decorated function's ``@argument`` lines and docstring,
    run by ``handler`` (``MODULE:FUNCTION`` under :data:`HANDLERS`)."""
    return lambda stub: _declared(f"deepagent {word}", stub, handler=handler, rest=rest, assigns=assigns)


def cell_command(
    *, assigns: tuple[str, ...] = (), conflicts: tuple[tuple[str, str, str], ...] = ()
) -> Callable[[Callable[..., Any]], Declared]:
    """Declare ``%%deepagent``'s options: the decorated function's ``@argument`` lines and docstring."""
    return lambda stub: _declared("%%deepagent", stub, assigns=assigns, conflicts=conflicts)
