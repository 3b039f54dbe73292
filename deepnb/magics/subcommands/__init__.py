"""Every ``%deepagent`` subcommand, declared once (``deepnb/magics/declaring.py``), by the word
that names it, in the order ``%deepagent help`` lists them."""

from __future__ import annotations

from types import ModuleType

from deepnb.magics.declaring import Declared
from deepnb.magics.subcommands import agents, many, project, threads


def _declared_in(*modules: ModuleType) -> dict[str, Declared]:
    return {
        found.word: found
        for module in modules
        for found in vars(module).values()
        if isinstance(found, Declared)
    }


SUBCOMMANDS: dict[str, Declared] = _declared_in(agents, threads, project, many)
"""``%deepagent WORD``'s declaration, by ``WORD``."""
