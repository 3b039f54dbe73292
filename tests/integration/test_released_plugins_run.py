"""A run on a plugin as released Deep Agents Code installs it (``tests/data/dcode_plugins``): the
installed ``notes-kit@deepnb-fixtures`` gives an agent its MCP server's tool, which runs and
whose card names its server, and its skill, listed in the prompt and read through the agent's own
file tools, read-only. The same plugin read by ``deepagents_code`` itself, when it is installed,
has the same parts."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

import deepnb
from deepnb import extensions
from deepnb.extensions import bundles
from tests.support.agents import scripted, tool_messages, unique
from tests.unit.test_released_plugins import Dcode
from tests.unit.test_released_plugins import dcode as dcode  # the fixture: dcode's home, copied

pytest.importorskip("langchain_mcp_adapters", reason="the mcp extra: pip install 'deepnb[mcp]'")

SKILL = "/plugins/notes-kit/skills/tidy-notes/SKILL.md"


@pytest.fixture
def python3_with_mcp(monkeypatch: pytest.MonkeyPatch) -> None:
    """The plugin starts its server as ``python3``: this interpreter's, which has ``mcp``."""
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")


def test_an_installed_plugin_gives_an_agent_its_tool_and_skill(dcode: Dcode, python3_with_mcp: None) -> None:
    [(_, error)] = extensions.load("notes-kit@deepnb-fixtures")
    assert error is None
    model = scripted(
        {
            "main": [
                {"tool_calls": [{"name": "shout", "args": {"text": "hello plugin"}}]},
                {"tool_calls": [{"name": "read_file", "args": {"file_path": SKILL}}]},
                {"tool_calls": [{"name": "write_file", "args": {"file_path": SKILL, "content": "gone"}}]},
                "Done.",
            ]
        }
    )
    bench = deepnb.agent(unique("plugin"), model)
    run = bench.run("Shout, then read the skill.")
    assert run.status == "done", run.error
    said = dict(tool_messages(bench, run.thread_id))
    assert "HELLO PLUGIN!" in str(said["shout"])  # the server's text block
    assert "# Tidy notes" in said["read_file"]
    assert "read-only" in said["write_file"]
    assert "Tidy notes" in (dcode.installed / "skills" / "tidy-notes" / "SKILL.md").read_text()
    card = next(i for i in run.state.to_json()["items"] if i["kind"] == "tool" and i["name"] == "shout")
    assert card["server"] == "notes-kit.shout"
    assert [s["name"] for s in run.state.given["skills"]] == ["tidy-notes"]
    (server,) = bench.mcp()
    assert (server.name, set(server.tools)) == ("notes-kit.shout", {"shout"})


def test_deepagents_code_reads_the_same_plugin_the_same_way(dcode: Dcode) -> None:
    """With the released package importable, its own discovery of the installed plugin names the
    root, skills folders and MCP servers deepnb loads."""
    discovery = pytest.importorskip("deepagents_code.plugins", reason="deepagents-code is not installed")
    mcp_adapter = pytest.importorskip("deepagents_code.plugins.adapters.mcp")
    result = discovery.discover_plugins()
    (plugin,) = result.plugins
    assert plugin.data_dir == bundles.dcode_data_dir(plugin.plugin_id)
    ours = bundles.read_bundle(
        bundles.installed_plugin(plugin.plugin_id), plugin_id=plugin.plugin_id, data_dir=plugin.data_dir
    )
    assert plugin.root.resolve() == ours.root
    assert tuple(p.resolve() for p in plugin.inventory.skills) == ours.skills
    names = [label for label, _, _ in mcp_adapter.plugin_mcp_server_entries(plugin)]
    assert names == list(ours.servers)
    [layer] = mcp_adapter.plugin_mcp_configs(result.plugins)  # command, args and env as dcode starts it
    theirs = list(layer["mcpServers"].values())
    assert theirs == [{k: v for k, v in c.items() if k != "transport"} for c in ours.servers.values()]
    assert plugin.inventory.hook_files and plugin.inventory.unsupported == ("commands",)


def test_a_plugin_that_is_one_skill_gives_it_to_the_agent(dcode: Dcode, tmp_path: Path) -> None:
    """dcode reads a ``SKILL.md`` at a plugin's root as its one skill; so does the agent."""
    folder = tmp_path / "one-skill"
    folder.mkdir()
    (folder / "SKILL.md").write_text((dcode.folder / "skills" / "tidy-notes" / "SKILL.md").read_text())
    [(_, error)] = extensions.load(folder)
    assert error is None
    bench = deepnb.agent(unique("one-skill"), scripted({"main": ["Done."]}))
    run = bench.run("Hello.")
    assert run.status == "done", run.error
    assert [s["name"] for s in run.state.given["skills"]] == ["tidy-notes"]
