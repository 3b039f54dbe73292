"""The documentation's generated parts, read from the code so they cannot go stale.

MkDocs loads this file as a hook (``hooks:`` in ``mkdocs.yml``). A page asks for a part with an
HTML comment on a line of its own, ``<!-- deepnb:NAME -->``, replaced before the page is rendered:

- ``demo-models``: every ``demo:NAME`` model deepnb ships (``deepnb.models.resolve.demo_names``),
  each with the description its replay script opens with;
- ``providers``: the model providers whose package and API key deepnb names when one is missing;
- ``magic-options``: every ``%%deepagent`` option and ``%deepagent`` subcommand with its options,
  as the magics' parser declares them, with their help text.

The API reference's docstrings keep their Sphinx roles (``:class:`~deepnb.Run```) out of the
page: the name stays, as code.

It also adds the demo notebooks in ``notebooks/`` to the site as ``notebooks/NAME.ipynb``, so that
mkdocs-jupyter renders them from their saved outputs, and pages link to them by that path.

A file of the site that is a symlink (or lies under a symlinked folder) leading outside the
project is left out, with a warning (which fails ``mkdocs build --strict``, ``make docs-check``):
a cloned project's files are untrusted (docs/security.md), and the build must not read or
publish, say, ``~/.ssh/id_rsa`` because ``docs/notes.md`` or ``notebooks/demo.ipynb`` links to it.
A snippet (``--8<-- "PATH"``) that leads outside the project is refused the same way: pymdownx's
own check of its base path follows no symlink, so the hook wraps where it finds a snippet's file,
and the build fails on the snippet it cannot include.
"""

from __future__ import annotations

import argparse
import html
import logging
import re
from importlib import resources
from pathlib import Path
from typing import Any

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files
from pymdownx.snippets import SnippetPreprocessor

from deepnb.magics.cell_options import cell
from deepnb.magics.subcommands import SUBCOMMANDS
from deepnb.models.resolve import PROVIDERS, demo_names

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
MARKER = re.compile(r"^<!-- deepnb:([a-z-]+) -->$", re.MULTILINE)
LOG = logging.getLogger("mkdocs.hooks.deepnb")
"""Under ``mkdocs``: its warnings count for ``--strict``."""
SPHINX_ROLE = re.compile(r":(?:attr|class|func|meth|mod|obj):<code>~?")
"""A Sphinx role in a docstring (``:class:`~deepnb.Run```) as Markdown renders it."""


def _cell(text: str) -> str:
    """Text for a Markdown table cell: escaped, one line, pipes kept literal."""
    return html.escape(" ".join(text.split()), quote=False).replace("|", "&#124;")


def inside(path: Path) -> bool:
    """Whether ``path``, its symlinks followed, is a file of the project."""
    try:
        return path.resolve().is_relative_to(ROOT.resolve())
    except (OSError, RuntimeError):  # a symlink loop
        return False


def notebooks() -> list[Path]:
    """The demo notebooks in ``notebooks/`` that are files of the project (the others are left out
    of the site, with a warning)."""
    found = []
    for notebook in sorted(NOTEBOOKS.glob("*.ipynb")):
        if inside(notebook):
            found.append(notebook)
        else:
            LOG.warning("Left out of the site: %s leads outside the project.", notebook)
    return found


def _inside_only(find: Any) -> Any:
    """``find`` (pymdownx snippets' ``get_snippet_path``), refusing a file outside the project."""

    def get_snippet_path(self: Any, path: str) -> str | None:
        found = find(self, path)
        if found is not None and not inside(Path(found)):
            LOG.warning("Snippet %s left out: it leads outside the project.", path)
            return None
        return found

    get_snippet_path.inside_only = True  # type: ignore[attr-defined]
    return get_snippet_path


def on_config(config: Any) -> Any:
    """Snippets include only files of the project (see the module's docstring)."""
    if not getattr(SnippetPreprocessor.get_snippet_path, "inside_only", False):
        SnippetPreprocessor.get_snippet_path = _inside_only(SnippetPreprocessor.get_snippet_path)
    return config


def demo_description(name: str) -> str:
    """The comment a shipped replay script opens with, as one line."""
    script = resources.files("deepnb") / "demos" / f"{name}.yaml"
    lines = []
    for line in script.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        lines.append(line.lstrip("#").strip())
    return " ".join(lines)


def demo_models() -> str:
    """A table of every ``demo:`` model and what its script does."""
    texts = {p.stem: p.read_text(encoding="utf-8") for p in notebooks()}
    rows = ["| model | what it does | used in |", "|---|---|---|"]
    for name in demo_names():
        used = [
            f"[{stem}](notebooks/{stem}.ipynb)"
            for stem, text in texts.items()
            if re.search(rf"demo:{re.escape(name)}(?![\w-])", text)
        ]
        rows.append(f"| `demo:{name}` | {_cell(demo_description(name))} | {', '.join(used) or '—'} |")
    return "\n".join(rows)


def _spelling(action: argparse.Action) -> str:
    flags = " / ".join(f"`{flag}`" for flag in action.option_strings)
    if action.nargs == 0:
        return flags
    return f"{flags} `{action.metavar or action.dest.upper()}`"


def _options_table(parser: argparse.ArgumentParser) -> str:
    actions = [a for a in parser._actions if a.dest != "help"]
    if not actions:
        return "No options.\n"
    rows = ["| option | what it does |", "|---|---|"]
    for action in actions:
        spelled = _spelling(action) if action.option_strings else f"`{action.metavar or action.dest.upper()}`"
        rows.append(f"| {spelled} | {_cell(action.help or '')} |")
    return "\n".join(rows) + "\n"


def magic_options() -> str:
    """Every option of ``%%deepagent`` and of each ``%deepagent`` subcommand, with its help."""
    parts = ["### `%%deepagent`\n", f"{_cell(cell.summary)}\n", _options_table(cell.parser)]
    for name, command in SUBCOMMANDS.items():
        parts += [f"### `%deepagent {name}`\n", f"{_cell(command.summary)}\n", _options_table(command.parser)]
    return "\n".join(parts)


def providers() -> str:
    """The providers deepnb knows the package and key of, as ``deepnb.models.resolve`` lists them."""
    rows = ["| provider | package | key from | install |", "|---|---|---|---|"]
    for name, (package, extra, key) in PROVIDERS.items():
        how = f"`pip install 'deepnb[{extra}]'`" if extra else f"`pip install {package}`"
        rows.append(f"| `{name}:` | `{package}` | {f'`{key}`' if key else '—'} | {how} |")
    return "\n".join(rows)


PARTS = {"demo-models": demo_models, "magic-options": magic_options, "providers": providers}


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """Replace each ``<!-- deepnb:NAME -->`` line with the part it names."""

    def part(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in PARTS:
            raise ValueError(f"{page.file.src_uri}: no generated part {name!r} (known: {', '.join(PARTS)})")
        return PARTS[name]()

    return MARKER.sub(part, markdown)


def on_page_content(html: str, page: Any, config: Any, files: Files) -> str:
    """Drop the Sphinx roles the docstrings use from the API reference: the name stays as code."""
    return SPHINX_ROLE.sub("<code>", html)


@event_priority(100)  # before mkdocs-jupyter's on_files, which turns notebooks into pages
def on_files(files: Files, config: Any) -> Files:
    """Leave out every file of ``docs/`` that leads outside the project; add the demo notebooks
    of ``notebooks/`` (those inside it) to the site under ``notebooks/``."""
    for file in list(files):
        if file.abs_src_path is not None and not inside(Path(file.abs_src_path)):
            LOG.warning("Left out of the site: %s leads outside the project.", file.abs_src_path)
            files.remove(file)
    for notebook in notebooks():
        files.append(
            File(
                f"notebooks/{notebook.name}",
                src_dir=str(ROOT),
                dest_dir=config["site_dir"],
                use_directory_urls=config["use_directory_urls"],
            )
        )
    return files
