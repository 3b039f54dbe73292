"""The README's magics synopsis names every option and subcommand the parser defines, and its
notebook table every demo notebook."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from deepnb.magics.parser import SUBCOMMANDS, cell

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _section(title: str) -> str:
    start = README.index(f"\n{title}\n")
    end = README.find("\n#", start + len(title) + 2)
    return README[start : end if end != -1 else len(README)]


def _synopsis() -> set[str]:
    block = re.search(r"```\n(%%deepagent .*?)```", _section("### Magics"), re.S)
    assert block, "the Magics section opens with the synopsis in a code block"
    return set(re.findall(r"[%\w][-\w%]*|--?[\w-]+", block.group(1)))


def _options(parser: object) -> list[list[str]]:
    """Each option's spellings (``-m``, ``--model``): the synopsis writes one of them."""
    return [a.option_strings for a in parser._actions if a.option_strings and a.dest != "help"]  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", ["%%deepagent", *SUBCOMMANDS])
def test_the_synopsis_names_every_subcommand_and_its_options(name: str) -> None:
    words = _synopsis()
    parser = cell.parser if name == "%%deepagent" else SUBCOMMANDS[name].parser
    assert name in words
    missing = [spellings[-1] for spellings in _options(parser) if not words.intersection(spellings)]
    assert not missing, f"README's synopsis lacks {missing} of {name}"


def test_the_notebook_table_lists_every_demo_notebook() -> None:
    table = _section("## Demo notebooks")
    missing = [p.name for p in sorted((ROOT / "notebooks").glob("*.ipynb")) if f"`{p.name}`" not in table]
    assert not missing, f"README's notebook table lacks {missing}"


def test_the_quick_start_has_a_pip_install_path() -> None:
    quick_start = _section("## Quick start")
    assert "pip install ." in quick_start
    extras = {"interpreter", "openai"}
    assert all(f'pip install ".[{extra}]"' in quick_start for extra in extras)
