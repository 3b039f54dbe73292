"""``%deepagent help`` wraps its lines at word boundaries, never inside a word."""

from __future__ import annotations

from deepnb.magics.cell_options import cell
from deepnb.magics.help import HELP_WIDTH, usage
from deepnb.magics.subcommands import SUBCOMMANDS


def _texts() -> list[str]:
    options = [str(a.help) for a in cell.parser._actions if a.option_strings and a.dest != "help"]
    return [*options, *(declared.summary for declared in SUBCOMMANDS.values())]


def test_every_line_fits_the_width() -> None:
    lines = usage().splitlines()
    assert max(len(line) for line in lines) <= HELP_WIDTH
    assert any(len(line) > HELP_WIDTH - 20 for line in lines), "the long entries do wrap"


def test_no_word_is_split_across_lines() -> None:
    words = set(usage().split())
    for text in _texts():
        for word in text.split():
            assert word in words, f"{word!r} of {text!r} was split"


def test_each_subcommand_and_its_summary_is_there_in_order() -> None:
    flat = " ".join(usage().split())
    at = 0
    for name in SUBCOMMANDS:
        found = flat.find(" ".join(f"%deepagent {name}".split()), at)
        assert found >= at, name
        summary = flat.find(" ".join(SUBCOMMANDS[name].summary.split()), found)
        assert summary > found, name
        at = summary
