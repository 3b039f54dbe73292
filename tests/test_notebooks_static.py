"""The demo notebooks as saved: executed again with secret-looking keys set, no output holds a key;
converted with ``jupyter nbconvert --to html``, each shows its run without JavaScript."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
SENTINEL = "sk-deepnb-sentinel-0123456789abcdef"
KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY", "LANGSMITH_API_KEY", "HF_TOKEN")
EXPECTED = {
    # what the static snapshot must show, per notebook
    "quickstart": ["Todos", "Write the brief", "write_file", "Life in a tide pool"],
    "research": ["Subagents</b> (3)", "general-purpose #3 [done]", "Context summarized: 12 messages"],
    "approvals": ["Decisions", "write_file: edit", "edit_file", "We track risks in the team tracker."],
    "files": ["/notes/stresses.md", "Tide-pool stresses", "/notes/draft.md is denied by the agent"],
    "interpreter": ['class="dnb-tool dnb-eval"', "TypeError: cannot read property", "Half Moon Bay: 2.05 m"],
    "extensions": ["Monterey: high tide 1.62 m", "Half Moon Bay: high tide 1.80 m", "tide_tools: closed"],
    "models": [
        "A model object from the notebook answered.",
        "The key is [redacted], keep it.",
        "Connection error.",
    ],
}
# With the sentinel keys set, real providers are tried: point them at a closed local port, so the
# runs fail at once (as error cards, which must not hold the key either).
UNREACHABLE = {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}

pytestmark = pytest.mark.kernel


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every demo notebook executed with each key set to a sentinel, saved to a temp folder."""
    import os

    folder = tmp_path_factory.mktemp("executed")
    saved = {name: os.environ.get(name) for name in (*KEYS, *UNREACHABLE)}
    os.environ.update(dict.fromkeys(KEYS, SENTINEL))
    os.environ.update(UNREACHABLE)
    try:
        paths = {}
        for name in EXPECTED:
            notebook = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
            NotebookClient(
                notebook, timeout=120, resources={"metadata": {"path": str(folder)}}, store_widget_state=False
            ).execute()
            paths[name] = folder / f"{name}.ipynb"
            nbformat.write(notebook, paths[name])
        return paths
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@pytest.mark.parametrize("name", list(EXPECTED))
def test_no_output_holds_a_key(executed: dict[str, Path], name: str) -> None:
    text = executed[name].read_text(encoding="utf-8")
    assert SENTINEL not in text
    assert SENTINEL[:12] not in text  # not even a prefix of it


@pytest.mark.parametrize("name", list(EXPECTED))
def test_nbconvert_html_shows_the_run_without_javascript(
    executed: dict[str, Path], name: str, tmp_path: Path
) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "jupyter",
            "nbconvert",
            "--to",
            "html",
            "--output-dir",
            str(tmp_path),
            str(executed[name]),
        ],
        check=True,
        capture_output=True,
    )
    html = (tmp_path / f"{name}.html").read_text(encoding="utf-8")
    for expected in EXPECTED[name]:
        assert expected in html, f"{name}: {expected!r} missing from the static HTML"
    assert 'class="deepnb-snapshot"' in html
    assert "<img src=x" not in html
