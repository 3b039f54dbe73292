"""The demo notebooks executed in the Binder environment with secret-looking keys set: no output
holds a key; converted with ``jupyter nbconvert --to html``, each shows its run without
JavaScript."""

from __future__ import annotations

import base64
import re
import subprocess
import sys

import pytest

from deepnb.views.graph_view import SVG_START
from tests.support.binder_env import NOTEBOOKS, SENTINEL, BinderRun

GRAPH_IMAGE = base64.b64encode(SVG_START[:60].encode()).decode()
"""The start of an agent's graph drawing as nbconvert embeds it (an image's base64 data URI)."""

EXPECTED = {
    # what the static snapshot must show, per notebook
    "quickstart": ["Todos", "Write the brief", "write_file", "Life in a tide pool"],
    "research": ["Subagents</b> (3)", "general-purpose #3 [done]", "Context summarized: 12 messages"],
    "approvals": [
        "Decisions",
        "write_file: ✎ edited by you",
        "edit_file",
        "We track risks in the team tracker.",
    ],
    "files": ["/notes/stresses.md", "Tide-pool stresses", "/notes/draft.md is denied by the agent"],
    "interpreter": ['class="dnb-tool dnb-eval"', "TypeError: cannot read property", "Half Moon Bay: 2.05 m"],
    "extensions": ["Monterey: high tide 1.62 m", "Half Moon Bay: high tide 1.80 m", "tide_tools: closed"],
    "models": [
        "A model object from the notebook answered.",
        "The key is [redacted], keep it.",
        "Connection error.",
    ],
    "bring-your-own": [
        "interrupt: ↩ answered by you: Lisbon",
        "Why do agents never get lost? They always keep a todo list.",
        'class="dnb-tool dnb-update"',
        "<b>blog-post</b> — How to write a blog post",
        "Files changed",
        "SkillsMiddleware",
        "MCP tides",
        "high_tide",
        "The tide table is on the tides server",
        "Runtime context given: user_id, role",
    ],
    "remote": [
        "Subagents</b> (3)",
        "write_file: ✓ approved by you",
        "# Launch plan",
        "Stopped the server at",
    ],
    "debug-a-step": ["Date: March 3", "Date: May 12", "from step 1 to step 2", GRAPH_IMAGE],
    "experiments": ["24/24 done", "Austria.", "checked against quick", "pass@2"],
    "many-runs": [
        "10 of 10 ended (10 done)",
        "Battery dies before lunch.",
        "demo:terse",
        "New thread",
        "tide-pools.replay.yaml",
    ],
}
# The first test here builds the Binder environment (a fresh virtualenv installed from the package
# index, about 150 s) and executes every demo notebook in it: on a busy machine, past the suite's
# 300 s per test.
pytestmark = [pytest.mark.binder, pytest.mark.timeout(900)]


@pytest.fixture(scope="module")
def html(binder_run: BinderRun, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Every executed demo converted with ``jupyter nbconvert --to html`` (one call for all)."""
    folder = tmp_path_factory.mktemp("html")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "jupyter",
            "nbconvert",
            "--to",
            "html",
            "--output-dir",
            str(folder),
            *map(str, binder_run.executed.values()),
        ],
        check=True,
        capture_output=True,
    )
    return {name: (folder / f"{name}.html").read_text(encoding="utf-8") for name in binder_run.executed}


def test_every_demo_is_checked() -> None:
    assert set(EXPECTED) == {path.stem for path in NOTEBOOKS}


@pytest.mark.parametrize("name", list(EXPECTED))
def test_no_output_holds_a_key(binder_run: BinderRun, name: str) -> None:
    text = binder_run.executed[name].read_text(encoding="utf-8")
    assert SENTINEL not in text
    assert SENTINEL[:12] not in text  # not even a prefix of it


@pytest.mark.parametrize("name", list(EXPECTED))
def test_nbconvert_html_shows_the_run_without_javascript(html: dict[str, str], name: str) -> None:
    for expected in EXPECTED[name]:
        assert expected in html[name], f"{name}: {expected!r} missing from the static HTML"
    assert re.search(r'class="deepnb-snapshot[ "]', html[name]), f"{name}: no deepnb snapshot"
    assert "<img src=x" not in html[name]
