"""Extensions written as Deep Agents Code publishes them now load unchanged on 3.11–3.13: the
``ExtensionAPI`` annotation's import under ``TYPE_CHECKING``, no ``from __future__ import
annotations`` (they target 3.14's lazy annotations), as a file, as a package whose modules are
written the same way, and as a ``dcode.extensions`` entry point; a stale ``.pyc`` compiled without
the future is never used."""

from __future__ import annotations

import py_compile
import sys
from pathlib import Path
from typing import Any

import pytest

import deepnb
from deepnb import extensions
from deepnb.extensions.registry import REGISTRY
from tests.support.agents import scripted, tool_messages, unique, write
from tests.support.fresh_session import fresh_session
from tests.support.waiting import WAIT

# The shape of dcode's current extension files: the annotation names a type imported only for
# type checkers, so evaluating it when ``def`` runs raises NameError before Python 3.14.
CURRENT_DCODE_STYLE = '''
"""Count the words of a text."""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from deepagents_code.extensions import ExtensionAPI
    from collections.abc import Sequence


def count_words(text: str) -> int:
    """Count the words of a text."""
    return len(text.split())


def extension(d: ExtensionAPI) -> None:
    d.register_tool(count_words)


def unused(items: Sequence[str]) -> None:
    """A name only a type checker knows, in a function nothing calls."""
'''

PACKAGE_INIT = """
from typing import TYPE_CHECKING

from .helpers import shout

if TYPE_CHECKING:
    from deepagents_code.extensions import ExtensionAPI


def extension(d: ExtensionAPI) -> None:
    d.register_tool(shout)
"""

PACKAGE_HELPERS = '''
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping


def shout(text: str) -> str:
    """Say it louder."""
    return text.upper() + "!"


def table(rows: Mapping[str, str]) -> None:
    """Annotated with a name only a type checker imports."""
'''


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.delenv("DEEPNB_EXTENSIONS", raising=False)
    monkeypatch.setenv("DEEPNB_HOME", str(tmp_path / "home" / ".deepnb"))
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    with fresh_session():
        yield


def kinds() -> list[tuple[str, str]]:
    return [(r.kind, r.name) for r in REGISTRY.registrations]


def test_the_shape_fails_without_lazy_annotations(tmp_path: Path) -> None:
    """What the loader is for: Python itself refuses these files before 3.14."""
    if sys.version_info >= (3, 14):
        pytest.skip("3.14 evaluates annotations lazily on its own")
    path = write(tmp_path / "plain.py", CURRENT_DCODE_STYLE)
    with pytest.raises(NameError, match="ExtensionAPI"):
        exec(compile(path.read_text(), str(path), "exec", dont_inherit=True), {})


def test_a_file_in_the_current_dcode_style_loads_and_its_tool_runs(tmp_path: Path) -> None:
    path = write(tmp_path / "words.py", CURRENT_DCODE_STYLE)
    [(_, error)] = extensions.load(path)
    assert error is None and kinds() == [("tool", "count_words")]
    model = scripted(
        {"main": [{"tool_calls": [{"name": "count_words", "args": {"text": "one two three"}}]}, "3."]}
    )
    bench = deepnb.agent(unique("words"), model)
    run = bench.run("count").wait(WAIT)
    assert run.status == "done", run.error
    assert tool_messages(bench, run.thread_id) == [("count_words", "3")]


def test_a_package_whose_modules_use_the_style_loads(tmp_path: Path) -> None:
    write(tmp_path / "loud" / "__init__.py", PACKAGE_INIT)
    write(tmp_path / "loud" / "helpers.py", PACKAGE_HELPERS)
    [(source, error)] = extensions.load(tmp_path / "loud")
    assert error is None and source.package and kinds() == [("tool", "shout")]


def test_a_stale_bytecode_file_is_not_used(tmp_path: Path) -> None:
    path = write(tmp_path / "stale.py", CURRENT_DCODE_STYLE)
    if sys.version_info < (3, 14):  # compiled as plain Python would: it would raise NameError
        py_compile.compile(str(path), doraise=False)
    [(_, error)] = extensions.load(path)
    assert error is None and kinds() == [("tool", "count_words")]


@pytest.mark.parametrize("group", ["dcode.extensions", "deepnb.extensions"])
def test_an_entry_point_of_either_group_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, group: str
) -> None:
    site = tmp_path / "site"
    package = f"lazy_ep_{group.partition('.')[0]}"
    write(site / package / "__init__.py", PACKAGE_INIT)
    write(site / package / "helpers.py", PACKAGE_HELPERS)
    info = site / f"{package}-1.0.dist-info"
    write(info / "METADATA", f"Metadata-Version: 2.1\nName: {package.replace('_', '-')}\nVersion: 1.0\n")
    write(info / "entry_points.txt", f"[{group}]\nloud = {package}\n")
    monkeypatch.syspath_prepend(str(site))
    listing = extensions.listing()
    assert listing.failures == ()
    assert kinds() == [("tool", "shout")]
    origin = "entry point" if group == "deepnb.extensions" else "entry point (dcode.extensions)"
    assert REGISTRY.registrations[0].source.origin == origin
