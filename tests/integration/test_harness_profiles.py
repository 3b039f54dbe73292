"""Python tools as released Deep Agents Code takes them: a package's ``deepagents.harness_profiles``
entry point (a tiny dist-info in a temporary site folder) registers a harness profile for the
scripted model's provider whose middleware carries a tool; an agent deepnb builds gets the tool
and runs it, ``%deepagent inspect`` names the profile, and ``%deepagent extensions`` lists the
entry point, and one that cannot be imported as failed. deepagents loads these entry points once
per process, so the agent runs in a fresh interpreter."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

EXTENSION = '''
from langchain.agents.middleware import AgentMiddleware
from langchain_core.tools import tool
from deepagents import HarnessProfile, register_harness_profile


@tool
def word_count(text: str) -> int:
    """Count the words in a text."""
    return len(text.split())


class WordCountMiddleware(AgentMiddleware):
    tools = [word_count]


def register() -> None:
    profile = HarnessProfile(extra_middleware=lambda: [WordCountMiddleware()])
    register_harness_profile("scriptedchatmodel", profile)
'''

ENTRY_POINTS = """\
[deepagents.harness_profiles]
words = words_profile:register
broken = missing_module_of_words:register
"""

RUN = """
import json
import deepnb
from deepnb import extensions
from deepnb.views.listings import extensions_text
from tests.support.agents import scripted, tool_messages

count = {"tool_calls": [{"name": "word_count", "args": {"text": "one two three"}}]}
model = scripted({"main": [count, "Done."]})
bench = deepnb.agent("words", model)
run = bench.run("Count.")
print(json.dumps({
    "status": run.status,
    "tools": dict(tool_messages(bench, run.thread_id)),
    "inspect": repr(bench.inspect()),
    "listing": extensions_text(extensions.listing()),
}))
"""


def site(folder: Path) -> Path:
    """A site folder holding the module and its distribution's metadata, as pip installs them."""
    info = folder / "words_profile-0.1.dist-info"
    info.mkdir(parents=True)
    (folder / "words_profile.py").write_text(textwrap.dedent(EXTENSION), encoding="utf-8")
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: words-profile\nVersion: 0.1\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(ENTRY_POINTS, encoding="utf-8")
    return folder


def test_a_harness_profile_entry_point_gives_deepnbs_agents_its_tool(tmp_path: Path) -> None:
    folder = site(tmp_path / "site")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(folder)]),
        "HOME": str(tmp_path / "home"),
        "DEEPNB_HOME": str(tmp_path / "deepnb-home"),
    }
    done = subprocess.run(
        [sys.executable, "-c", RUN], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr[-3000:]
    said = json.loads(done.stdout.strip().splitlines()[-1])
    assert said["status"] == "done"
    assert said["tools"]["word_count"] == "3"
    assert "scriptedchatmodel" in said["inspect"]
    listing = said["listing"]
    assert "deepagents.harness_profiles: words = words_profile:register (from words-profile)" in listing
    assert (
        "deepagents.harness_profiles: broken = missing_module_of_words:register (failed: cannot be imported: "
        "ModuleNotFoundError: No module named 'missing_module_of_words')"
    ) in listing
