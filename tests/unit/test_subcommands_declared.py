"""Each ``%deepagent`` subcommand is declared once, and the declaration holds: its word, its
help line, and a handler that exists and takes the parsed arguments and the kernel's namespace."""

from __future__ import annotations

import inspect
import subprocess
import sys
from argparse import Namespace

import pytest

from deepnb.magics.declaring import HANDLERS, subcommand
from deepnb.magics.help import usage
from deepnb.magics.subcommands import SUBCOMMANDS


@pytest.mark.parametrize("word", list(SUBCOMMANDS))
def test_the_handler_exists_and_takes_the_arguments_and_the_namespace(word: str) -> None:
    declared = SUBCOMMANDS[word]
    assert declared.word == word and declared.name == f"deepagent {word}"
    module, _, function = declared.handler.partition(":")
    assert module and function, f"{word}: handler {declared.handler!r} is not MODULE:FUNCTION"
    handler = declared.resolve()
    assert handler.__module__ == f"{HANDLERS}.{module}" and handler.__name__ == function
    inspect.signature(handler).bind(Namespace(), {})


@pytest.mark.parametrize("word", list(SUBCOMMANDS))
def test_the_help_line_is_one_sentence_the_help_shows(word: str) -> None:
    summary = SUBCOMMANDS[word].summary
    assert summary.endswith(".") and "\n" not in summary
    assert " ".join(summary.split()) in " ".join(usage().split())


def test_a_declaration_without_a_docstring_is_refused() -> None:
    def undocumented() -> None:
        pass

    with pytest.raises(TypeError, match="without a docstring"):
        subcommand("undocumented", handler="agents:help_")(undocumented)


def test_the_handlers_are_not_loaded_by_the_declarations() -> None:
    """Help and parsing load the declarations only; a handler module comes with its command."""
    probe = (
        "import sys\n"
        "from deepnb.magics import help, parser\n"
        "from deepnb.magics.subcommands import SUBCOMMANDS\n"
        "help.usage(); parser.parse(SUBCOMMANDS['todos'], '-a x')\n"
        "print(sorted(m for m in sys.modules if m.startswith(('deepnb.magics.commands', 'langchain'))))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
