"""The documentation follows the code: the magics' synopsis names every option and subcommand the
parser defines, every code example parses (and every magic line in it is one the parser takes),
the generated parts name every ``demo:`` model and every option, the troubleshooting page quotes
messages the code still writes, and every demo notebook has its page."""

from __future__ import annotations

import ast
import functools
import importlib.util
import re
import tomllib
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest
import yaml
from IPython.core.inputtransformer2 import TransformerManager

from deepnb.cli.main import main as command_line
from deepnb.magics.cell_options import cell
from deepnb.magics.parser import parse, split_subcommand
from deepnb.magics.subcommands import SUBCOMMANDS
from deepnb.models.resolve import demo_names

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def page(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def blocks(language: str) -> list[tuple[str, str]]:
    """``(page, code)`` of every fenced block in ``language`` across the docs (and the README)."""
    found = []
    for path in [*PAGES, ROOT / "README.md"]:
        for match in FENCE.finditer(path.read_text(encoding="utf-8")):
            if match.group(1) == language:
                found.append((str(path.relative_to(ROOT)), match.group(2)))
    return found


def hook() -> ModuleType:
    """The site's build hook (it imports mkdocs: the docs extra, which the floors' virtualenv of
    ``make test-lowest`` leaves out, so there these tests are skipped)."""
    pytest.importorskip("mkdocs", reason="the docs extra is not installed")
    spec = importlib.util.spec_from_file_location("docs_hook", DOCS / "hooks" / "generated.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _options(parser: Any) -> list[list[str]]:
    """Each option's spellings (``-m``, ``--model``): the synopsis writes one of them."""
    return [a.option_strings for a in parser._actions if a.option_strings and a.dest != "help"]


def _synopsis() -> set[str]:
    block = re.search(r"## Synopsis\n\n```text\n(%%deepagent .*?)```", page("guide/magics.md"), re.S)
    assert block, "the magics page opens with the synopsis in a text block"
    return set(re.findall(r"[%\w][-\w%]*|--?[\w-]+", block.group(1)))


@pytest.mark.parametrize("name", ["%%deepagent", *SUBCOMMANDS])
def test_the_synopsis_names_every_subcommand_and_its_options(name: str) -> None:
    words = _synopsis()
    parser = cell.parser if name == "%%deepagent" else SUBCOMMANDS[name].parser
    assert name in words
    missing = [spellings[-1] for spellings in _options(parser) if not words.intersection(spellings)]
    assert not missing, f"the magics page's synopsis lacks {missing} of {name}"


def test_the_generated_option_reference_has_every_option_with_its_help() -> None:
    reference = hook().magic_options()
    for name, command in [("%%deepagent", cell), *((f"%deepagent {n}", c) for n, c in SUBCOMMANDS.items())]:
        assert f"### `{name}`" in reference
        for action in command.parser._actions:
            if action.option_strings and action.dest != "help":
                assert f"`{action.option_strings[-1]}`" in reference, (name, action.option_strings)
    assert "<!-- deepnb:magic-options -->" in page("guide/magics.md")


@pytest.mark.parametrize("name", ["eval", "view"])
def test_the_command_line_page_lists_every_option_of_each_command(name: str) -> None:
    text = page("guide/command-line.md")
    command = command_line.commands[name]
    options = [p.opts for p in command.params if p.opts and p.opts[0].startswith("-")]
    assert options
    missing = [spellings[-1] for spellings in options if not any(f"`{s}" in text for s in spellings)]
    assert not missing, f"docs/guide/command-line.md does not list {missing} of deepnb {name}"


def test_the_demo_models_page_lists_every_demo_with_its_description() -> None:
    module = hook()
    table = module.demo_models()
    assert demo_names(), "deepnb ships demo models"
    for name in demo_names():
        description = module.demo_description(name)
        assert description, f"deepnb/demos/{name}.yaml opens with a comment saying what it does"
        assert f"| `demo:{name}` |" in table
    assert "<!-- deepnb:demo-models -->" in page("demo-models.md")


def test_a_page_asking_for_an_unknown_generated_part_fails_the_build() -> None:
    page = SimpleNamespace(file=SimpleNamespace(src_uri="x.md"))  # what the hook reads of mkdocs' Page
    with pytest.raises(ValueError, match="no generated part 'nope'"):
        hook().on_page_markdown("<!-- deepnb:nope -->\n", page, {}, None)


def test_every_demo_notebook_has_a_page_and_a_row_in_the_table() -> None:
    table = page("notebooks/index.md")
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert NOTEBOOKS
    for notebook in NOTEBOOKS:
        assert f"[`{notebook.name}`]({notebook.name})" in table, f"the notebook table lacks {notebook.name}"
        assert f"notebooks/{notebook.name}" in nav, f"mkdocs.yml's nav lacks {notebook.name}"


@pytest.mark.parametrize(("where", "code"), blocks("python"), ids=lambda v: v if v.endswith(".md") else "")
def test_every_python_example_parses(where: str, code: str) -> None:
    ast.parse(code, filename=where)


def _magic_lines(code: str) -> list[str]:
    """The ``%deepagent`` lines of a cell and the first line of a ``%%deepagent`` cell."""
    first, *_ = code.splitlines()
    lines = [first] if first.startswith("%%deepagent") else []
    return lines + [line for line in code.splitlines() if line.startswith("%deepagent ")]


def check_magic(line: str) -> None:
    """Parse a magic line as the magics do, without running it."""
    if line.startswith("%%deepagent"):
        rest = line.removeprefix("%%deepagent").strip()
        head = rest.split(None, 1)[0] if rest else ""
        if head in ("map", "eval"):
            name, rest = split_subcommand(rest)
            parse(SUBCOMMANDS[name], rest)
        else:
            parse(cell, rest)
    elif not line.startswith("%deepagent /"):  # an extension's /command takes what it takes
        name, rest = split_subcommand(line.removeprefix("%deepagent").strip())
        parse(SUBCOMMANDS[name], rest)


@pytest.mark.parametrize(("where", "code"), blocks("ipython"), ids=lambda v: v if v.endswith(".md") else "")
def test_every_notebook_cell_example_parses_and_its_magics_take_their_options(where: str, code: str) -> None:
    ast.parse(TransformerManager().transform_cell(code), filename=where)
    for line in _magic_lines(code):
        check_magic(line)


def inline_magics() -> list[tuple[str, str]]:
    """Every ``%deepagent ...`` written inline in the docs that is one command, not a synopsis."""
    found = []
    for path in PAGES:
        for span in re.findall(r"`(%%?deepagent [^`]+)`", path.read_text(encoding="utf-8")):
            alone = len(span.split()) == 2  # the command's name, not a use of it
            if not alone and not re.search(r"[\[\]|…]|\.\.\.", span) and "\n" not in span:
                found.append((str(path.relative_to(ROOT)), span))
    return found


def test_the_inline_magics_are_many() -> None:
    assert len(inline_magics()) > 20


@pytest.mark.parametrize(("where", "line"), inline_magics())
def test_every_magic_written_inline_is_one_the_parser_takes(where: str, line: str) -> None:
    check_magic(line)


@pytest.mark.parametrize(("where", "code"), blocks("toml"))
def test_every_toml_example_parses(where: str, code: str) -> None:
    tomllib.loads(code)


@pytest.mark.parametrize(("where", "code"), blocks("yaml"))
def test_every_yaml_example_parses(where: str, code: str) -> None:
    yaml.safe_load(code)


def test_every_fenced_block_names_its_language() -> None:
    untagged = [
        str(path.relative_to(ROOT))
        for path in [*PAGES, ROOT / "README.md"]
        for match in FENCE.finditer(path.read_text(encoding="utf-8"))
        if not match.group(1)
    ]
    assert not untagged, f"blocks without a language (python, ipython, text, ...) in {untagged}"


def _constants(tree: ast.Module) -> dict[str, str]:
    """A module's top-level ``NAME = "text"`` constants."""
    found = {}
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            found.update({t.id: node.value.value for t in node.targets if isinstance(t, ast.Name)})
    return found


def _rendered(node: ast.JoinedStr, constants: dict[str, str]) -> str:
    """An f-string as it reads: a module constant it names in full, any other field as ``…``."""
    parts = []
    for value in node.values:
        if isinstance(value, ast.Constant):
            parts.append(str(value.value))
        elif isinstance(value, ast.FormattedValue) and isinstance(value.value, ast.Name):
            parts.append(constants.get(value.value.id, "…"))
        else:
            parts.append("…")
    return "".join(parts)


@functools.cache
def _literals() -> tuple[str, ...]:
    """Every string deepnb's Python writes (f-strings as they read), and the front end's sources."""
    found = []
    for path in (ROOT / "deepnb").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        constants = _constants(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found.append(node.value)
            elif isinstance(node, ast.JoinedStr):
                found.append(_rendered(node, constants))
    found += [path.read_text(encoding="utf-8") for path in (ROOT / "widgets" / "src").rglob("*.ts")]
    return tuple(found)


def troubleshooting_messages() -> list[str]:
    text = page("troubleshooting.md")
    return [match.group(2).strip() for match in FENCE.finditer(text) if match.group(1) == "output"]


def test_the_troubleshooting_page_quotes_many_messages() -> None:
    assert len(troubleshooting_messages()) > 25


@pytest.mark.parametrize("message", troubleshooting_messages())
def test_every_message_the_troubleshooting_page_quotes_is_one_deepnb_writes(message: str) -> None:
    literals = _literals()
    fragments = [f.strip(" '\"():.") for f in message.split("…")]
    missing = [f for f in fragments if len(f.split()) >= 2 and not any(f in text for text in literals)]
    assert not missing, f"no string in deepnb/ or widgets/src/ holds {missing}"


def test_the_readme_keeps_the_two_commands_and_they_exist() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for command in ("make lab", "make test"):
        assert command in readme
    lab = r"^lab: .*\n\t\$\(LAB_VENV\)/bin/jupyter lab .*notebooks/quickstart\.ipynb$"
    assert re.search(lab, makefile, re.M)
    recipe = re.search(r"^test:.*\n((?:\t.*\n)+)", makefile, re.M)
    assert recipe and re.search(r"\bdocs-check\b", recipe.group(1)), "make test builds the docs strictly"
    assert (ROOT / "notebooks" / "quickstart.ipynb").is_file()


def test_the_install_path_is_documented() -> None:
    for text in ((ROOT / "README.md").read_text(encoding="utf-8"), page("getting-started.md")):
        assert "pip install ." in text
        assert all(f'pip install ".[{extra}]"' in text for extra in ("interpreter", "openai"))


def _exists(target: Path) -> bool:
    """A file of the site: in docs/, or a demo notebook, which the site shows under notebooks/."""
    if target.parent == DOCS / "notebooks" and target.suffix == ".ipynb":
        return (ROOT / "notebooks" / target.name).is_file()
    return target.exists()


def test_every_doc_link_to_a_page_or_image_points_at_a_file() -> None:
    """mkdocs --strict checks the site's links too; this one runs in the quick check, README included."""
    broken = []
    for path in [*PAGES, ROOT / "README.md"]:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", path.read_text(encoding="utf-8")):
            if "://" not in target and not _exists((path.parent / target).resolve()):
                broken.append(f"{path.relative_to(ROOT)} -> {target}")
    assert not broken, broken


def test_the_reference_keeps_the_name_of_a_sphinx_role_as_code() -> None:
    html = "see the :class:<code>~deepnb.session.run.Run</code> and :mod:<code>deepnb.scorers</code>"
    out = hook().on_page_content(html, None, {}, None)
    assert out == "see the <code>deepnb.session.run.Run</code> and <code>deepnb.scorers</code>"


def test_the_site_leaves_out_a_symlink_that_leads_outside_the_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A cloned project's files are untrusted (docs/security.md): a notebook, a page, or a folder
    of docs/ that is a symlink out of the project is neither read nor published, and the warning
    fails ``make docs-check``; a symlink to a file of the project is kept."""
    pytest.importorskip("mkdocs", reason="the docs extra is not installed")
    from mkdocs.structure.files import File, Files  # the docs extra (see hook)

    generated = hook()
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret.ipynb"
    secret.write_text('{"cells": [], "note": "demo:quickstart SECRET"}', encoding="utf-8")
    project = tmp_path / "project"
    (project / "notebooks").mkdir(parents=True)
    (project / "docs" / "notebooks").mkdir(parents=True)
    (project / "notebooks" / "real.ipynb").write_text('{"cells": []}', encoding="utf-8")
    (project / "notebooks" / "leak.ipynb").symlink_to(secret)
    (project / "notebooks" / "loop.ipynb").symlink_to(project / "notebooks" / "loop.ipynb")
    (project / "docs" / "page.md").write_text("# Page\n", encoding="utf-8")
    (project / "docs" / "alias.md").symlink_to(project / "docs" / "page.md")
    (project / "docs" / "leak.md").symlink_to(secret)
    (project / "docs" / "notebooks" / "leak.ipynb").symlink_to(secret)
    (project / "docs" / "away").symlink_to(outside, target_is_directory=True)
    monkeypatch.setattr(generated, "ROOT", project)
    monkeypatch.setattr(generated, "NOTEBOOKS", project / "notebooks")
    docs = str(project / "docs")
    site = str(tmp_path / "site")
    names = ["page.md", "alias.md", "leak.md", "notebooks/leak.ipynb", "away/secret.ipynb"]
    files = Files([File(name, src_dir=docs, dest_dir=site, use_directory_urls=True) for name in names])

    kept = generated.on_files(files, {"site_dir": site, "use_directory_urls": True})
    assert sorted(f.src_uri for f in kept) == ["alias.md", "notebooks/real.ipynb", "page.md"]
    assert "leak" not in generated.demo_models()  # the table read no notebook outside either
    warned = [
        r.getMessage() for r in caplog.records if r.name.startswith("mkdocs") and r.levelname == "WARNING"
    ]
    # docs/: three; notebooks/: two, once for the site and once for the table
    assert len(warned) == 7 and all("leads outside the project" in w for w in warned), warned


def test_a_snippet_that_is_a_symlink_out_of_the_project_is_not_included(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pymdownx.snippets checks a snippet's path against its base without following symlinks;
    the hook makes it refuse one that leads outside the project, so the build fails on it."""
    pytest.importorskip("mkdocs", reason="the docs extra is not installed")
    import markdown
    from pymdownx.snippets import SnippetMissingError

    generated = hook()
    (tmp_path / "outside.md").write_text("SECRET\n", encoding="utf-8")
    project = tmp_path / "project"
    project.mkdir()
    (project / "inside.md").write_text("kept\n", encoding="utf-8")
    (project / "alias.md").symlink_to(project / "inside.md")
    (project / "leak.md").symlink_to(tmp_path / "outside.md")
    monkeypatch.setattr(generated, "ROOT", project)
    from pymdownx.snippets import SnippetPreprocessor

    monkeypatch.setattr(SnippetPreprocessor, "get_snippet_path", SnippetPreprocessor.get_snippet_path)
    generated.on_config({})
    render = markdown.Markdown(
        extensions=["pymdownx.snippets"],
        extension_configs={"pymdownx.snippets": {"base_path": [str(project)], "check_paths": True}},
    ).convert
    assert "kept" in render('--8<-- "alias.md"')
    with pytest.raises(SnippetMissingError):
        render('--8<-- "leak.md"')
