"""Plugins as released Deep Agents Code (0.1.57) has them: a plugin folder in Claude's format, a
marketplace folder, and a plugin dcode installed (``tests/data/dcode_plugins``, made by the real
``dcode plugin install``: see its README) load their skills and MCP servers unchanged, with their
hooks and ``commands/`` said in one line each; what deepnb cannot load is refused, saying what it
found and what is supported. A run on the plugin: ``tests/integration/test_released_plugins_run.py``."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from deepnb import extensions
from deepnb.core.errors import DeepnbError
from deepnb.extensions.registry import REGISTRY
from deepnb.views.listings import extensions_text
from tests.support.agents import write
from tests.support.fresh_session import fresh_session

FIXTURE = Path(__file__).parents[1] / "data" / "dcode_plugins"
RECORDED_HOME, RECORDED_MARKET = "/tmp/fx/home", "/tmp/fx/market"
"""Where the fixture was made: its state files name these folders (its README says so)."""
DATA_FOLDER = "notes-kit-deepnb-fixtures-f5edc337ede8cd90bae66d5eeffcd46e"
"""The data folder dcode 0.1.57 made for notes-kit@deepnb-fixtures (seen on disk when it installed it)."""


class Dcode:
    """A home with dcode's install of notes-kit, and the marketplace it came from."""

    def __init__(self, home: Path, market: Path) -> None:
        self.home, self.market = home, market

    @property
    def folder(self) -> Path:
        return self.market / "plugins" / "notes-kit"

    @property
    def installed(self) -> Path:
        records = json.loads((self.home / ".deepagents/.state/installed_plugins.json").read_text())
        return Path(records["plugins"]["notes-kit@deepnb-fixtures"][0]["installPath"])


@pytest.fixture
def dcode(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    home, market = tmp_path / "home", tmp_path / "market"
    shutil.copytree(FIXTURE / "home", home)
    shutil.copytree(FIXTURE / "market", market)
    for state in (home / ".deepagents" / ".state").iterdir():
        text = state.read_text().replace(RECORDED_HOME, str(home)).replace(RECORDED_MARKET, str(market))
        state.write_text(text)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("DEEPAGENTS_CODE_PLUGIN_CACHE_DIR", raising=False)
    monkeypatch.delenv("DEEPNB_EXTENSIONS", raising=False)
    monkeypatch.setenv("DEEPNB_HOME", str(tmp_path / "deepnb-home"))
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    monkeypatch.chdir(project)
    with fresh_session():
        yield Dcode(home, market)


def registered() -> dict[tuple[str, str], Any]:
    return {(r.kind, r.name): r.unit for r in REGISTRY.registrations}


def notes() -> list[str]:
    return [note for _, note in REGISTRY.ignored]


def test_a_plugin_folder_loads_its_skills_and_mcp_servers_and_says_what_it_leaves(dcode: Dcode) -> None:
    [(source, error)] = extensions.load(dcode.folder)
    assert error is None and source.label == "notes-kit"
    found = registered()
    assert set(found) == {
        ("route", "/plugins/notes-kit/skills/"),
        ("skills", "/plugins/notes-kit/skills/"),
        ("mcp_server", "notes-kit.shout"),
    }
    root = str(dcode.folder.resolve())
    assert found[("mcp_server", "notes-kit.shout")] == {
        "transport": "stdio",
        "command": "python3",
        "args": [f"{root}/server.py"],
        "env": {
            "CLAUDE_PLUGIN_ROOT": root,
            "PLUGIN_ROOT": root,
            "CLAUDE_PLUGIN_DATA": str(Path.cwd().parent / "deepnb-home" / "plugins" / "data" / "notes-kit"),
            "PLUGIN_DATA": str(Path.cwd().parent / "deepnb-home" / "plugins" / "data" / "notes-kit"),
            "CLAUDE_PROJECT_DIR": str(Path.cwd()),
        },
    }
    route = found[("route", "/plugins/notes-kit/skills/")]
    assert "# Tidy notes" in route.read("/tidy-notes/SKILL.md").file_data["content"]
    assert "read-only" in str(route.write("/tidy-notes/new.md", "x").error)
    assert not (dcode.folder / "skills" / "tidy-notes" / "new.md").exists()
    assert notes() == [
        "plugin notes-kit: hooks (hooks/hooks.json) not loaded: deepnb does not run Deep Agents Code's hooks",
        "plugin notes-kit: commands/ not loaded (Deep Agents Code does not load a plugin's commands/ either)",
    ]
    text = extensions_text(extensions.listing())
    assert "MCP server  notes-kit.shout" in text and "note: plugin notes-kit: hooks" in text


def test_a_plugin_dcode_installed_loads_by_its_id_from_its_install_records(dcode: Dcode) -> None:
    [(source, error)] = extensions.load("notes-kit@deepnb-fixtures")
    assert error is None
    assert source.path == dcode.installed.resolve()
    assert source.path.is_relative_to(dcode.home / ".deepagents" / "plugins" / "cache")
    connection = registered()[("mcp_server", "notes-kit.shout")]
    assert connection["args"] == [f"{source.path}/server.py"]  # the installed copy, not the marketplace
    data = dcode.home / ".deepagents" / "plugins" / "data" / DATA_FOLDER
    assert connection["env"]["CLAUDE_PLUGIN_DATA"] == str(data)  # the folder dcode itself gives it
    assert data.is_dir()


def test_a_marketplace_folder_loads_each_plugin_it_lists(dcode: Dcode) -> None:
    [(source, error)] = extensions.load(dcode.market)
    assert error is None
    assert (source.bundle, source.path) == ("notes-kit@deepnb-fixtures", dcode.folder.resolve())
    assert ("mcp_server", "notes-kit.shout") in registered()


def test_a_plugin_and_a_marketplace_in_codexs_format_load_too(dcode: Dcode) -> None:
    """Codex's places for the same files: ``.codex-plugin/plugin.json`` for the manifest (its name
    names the plugin), ``.agents/plugins/marketplace.json`` for the marketplace."""
    manifest = json.loads((dcode.folder / ".claude-plugin" / "plugin.json").read_text())
    shutil.rmtree(dcode.folder / ".claude-plugin")
    (dcode.folder / ".codex-plugin").mkdir()
    (dcode.folder / ".codex-plugin" / "plugin.json").write_text(json.dumps({**manifest, "name": "codex-kit"}))
    [(source, error)] = extensions.load(dcode.folder)
    assert error is None and source.label == "codex-kit"
    assert {("skills", "/plugins/codex-kit/skills/"), ("mcp_server", "codex-kit.shout")} <= set(registered())

    (dcode.market / ".agents" / "plugins").mkdir(parents=True)
    (dcode.market / ".claude-plugin" / "marketplace.json").rename(
        dcode.market / ".agents" / "plugins" / "marketplace.json"
    )
    (dcode.market / ".claude-plugin").rmdir()
    [(source, error)] = extensions.load(dcode.market)
    assert error is None  # the marketplace's entry names the plugin
    assert (source.bundle, source.path) == ("notes-kit@deepnb-fixtures", dcode.folder.resolve())


def test_a_marketplace_entry_with_a_remote_source_is_refused_naming_it(dcode: Dcode) -> None:
    listed = json.loads((dcode.market / ".claude-plugin" / "marketplace.json").read_text())
    listed["plugins"].append({"name": "far", "source": {"source": "github", "repo": "someone/far"}})
    (dcode.market / ".claude-plugin" / "marketplace.json").write_text(json.dumps(listed))
    results = {source.label: error for source, error in extensions.load(dcode.market)}
    assert results["notes-kit"] is None
    assert results["far"] == (
        "Plugin far@deepnb-fixtures not loaded: its source is remote: install it with dcode plugin "
        "install; deepnb loads plugins from a local folder."
    )


def test_an_unknown_installed_plugin_names_the_installed_ones(dcode: Dcode) -> None:
    with pytest.raises(
        DeepnbError,
        match=r"no installed plugin 'nope@deepnb-fixtures' .*\(installed: notes-kit@deepnb-fixtures\)",
    ):
        extensions.load("nope@deepnb-fixtures")


def test_a_plugin_with_nothing_deepnb_loads_is_refused_saying_what_it_holds(
    dcode: Dcode, tmp_path: Path
) -> None:
    folder = tmp_path / "hooks-only"
    shutil.copytree(dcode.folder / ".claude-plugin", folder / ".claude-plugin")
    shutil.copytree(dcode.folder / "hooks", folder / "hooks")
    shutil.copytree(dcode.folder / "commands", folder / "commands")
    [(_, error)] = extensions.load(folder)
    assert error == (
        "Plugin notes-kit has nothing deepnb can load: it holds hooks (hooks/hooks.json) not loaded: deepnb "
        "does not run Deep Agents Code's hooks, commands/ not loaded (Deep Agents Code does not load a "
        "plugin's commands/ either); deepnb loads a plugin's skills (skills/ or SKILL.md) and MCP servers "
        "(.mcp.json or mcpServers in its plugin.json), and Python extensions (a .py file, or a package "
        "folder, exposing extension(d))."
    )
    assert not REGISTRY.registrations
    text = extensions_text(extensions.listing())
    assert "No extension registrations." in text and "Failed (1, nothing of them registered):" in text
    assert "Plugin notes-kit has nothing deepnb can load" in text


def test_a_folder_of_nothing_deepnb_knows_is_refused_naming_what_is_there(
    tmp_path: Path, dcode: Dcode
) -> None:
    folder = tmp_path / "stuff"
    write(folder / "README.md", "hello")
    write(folder / "agents" / "reviewer.md", "a Claude agent")
    with pytest.raises(DeepnbError) as raised:
        extensions.load(folder)
    said = str(raised.value)
    assert said.startswith(f"Nothing deepnb can load in {folder}: it holds README.md, agents/ (no .py file")
    assert said.endswith("exposing extension(d)).") and "\n" not in said


def test_a_plugin_without_a_manifest_loads_too(dcode: Dcode, tmp_path: Path) -> None:
    """dcode reads a plugin folder with no manifest by its default paths, named by its folder."""
    folder = tmp_path / "bare"
    shutil.copytree(dcode.folder / "skills", folder / "skills")
    shutil.copy(dcode.folder / ".mcp.json", folder / ".mcp.json")
    [(source, error)] = extensions.load(folder)
    assert error is None and source.label == "bare"
    assert {("skills", "/plugins/bare/skills/"), ("mcp_server", "bare.shout")} <= set(registered())


def test_a_root_skill_md_is_one_skill(dcode: Dcode, tmp_path: Path) -> None:
    folder = tmp_path / "one-skill"
    folder.mkdir()
    shutil.copy(dcode.folder / "skills" / "tidy-notes" / "SKILL.md", folder / "SKILL.md")
    [(_, error)] = extensions.load(folder)
    assert error is None
    route = registered()[("route", "/plugins/one-skill/skills/")]
    assert "/tidy-notes/" in [e["path"] for e in route.ls("/").entries]  # a folder named as the skill
    assert "# Tidy notes" in route.read("/tidy-notes/SKILL.md").file_data["content"]
    assert "read-only" in str(route.write("/tidy-notes/SKILL.md", "x").error)
    assert ("skills", "/plugins/one-skill/skills/") in registered()


def test_a_server_of_a_kind_deepnb_does_not_run_is_said(dcode: Dcode, tmp_path: Path) -> None:
    folder = tmp_path / "odd"
    write(
        folder / ".mcp.json",
        json.dumps(
            {
                "mcpServers": {
                    "ws": {"type": "ws", "url": "ws://x"},
                    "auth": {"url": "https://x/mcp", "oauth": {}},
                }
            }
        ),
    )
    write(folder / "plugin.json", json.dumps({"name": "odd", "mcpServers": "./tools.mcpb"}))
    write(folder / "tools.mcpb", "a zip dcode does not run either")
    shutil.copytree(dcode.folder / "skills", folder / "skills")
    [(_, error)] = extensions.load(folder)
    assert error is None
    assert notes() == [
        "plugin odd: MCP bundle tools.mcpb not loaded: deepnb (like dcode) runs no .mcpb/.dxt bundles",
        "plugin odd: MCP server ws not loaded: type 'ws' (deepnb loads stdio, http and sse servers)",
        "plugin odd: MCP server auth not loaded: deepnb does not support its oauth",
    ]
    assert not [r for r in REGISTRY.registrations if r.kind == "mcp_server"]


def test_a_manifest_path_outside_the_plugin_is_ignored_and_said(dcode: Dcode, tmp_path: Path) -> None:
    folder = tmp_path / "escape"
    write(
        folder / "plugin.json",
        json.dumps({"name": "escape", "skills": "../elsewhere", "mcpServers": "./.mcp.json"}),
    )
    shutil.copy(dcode.folder / ".mcp.json", folder / ".mcp.json")
    [(_, error)] = extensions.load(folder)
    assert error is None
    assert (
        "plugin escape: skills entry '../elsewhere' ignored: it must be a './' path inside the plugin"
        in notes()
    )
    assert not [r for r in REGISTRY.registrations if r.kind == "skills"]


def test_an_agent_is_given_the_plugins_servers_and_skills(dcode: Dcode) -> None:
    """What an agent is built with (the servers start only when it is built: the run test)."""
    from deepnb.engine.spec import AgentSpec
    from deepnb.extensions.hosting import apply

    extensions.load(dcode.folder)
    spec = AgentSpec(
        model=None, model_label="x", options={"mcp_servers": {"mine": {"transport": "stdio", "command": "x"}}}
    )
    effective, applied = apply(spec)
    assert set(effective.options["mcp_servers"]) == {"mine", "notes-kit.shout"}
    assert effective.options["skills"] == ["/plugins/notes-kit/skills/"]
    assert "/plugins/notes-kit/skills/" in effective.options["backend"].routes
    assert len(applied.ids) == 3
    mine = {"transport": "stdio", "command": "mine"}  # the agent's own server of that name wins
    effective, _ = apply(
        AgentSpec(model=None, model_label="x", options={"mcp_servers": {"notes-kit.shout": mine}})
    )
    assert effective.options["mcp_servers"] == {"notes-kit.shout": mine}


def test_a_deployment_carries_the_plugin_folder_and_its_server_loads_it(dcode: Dcode, tmp_path: Path) -> None:
    """``deepnb.deploy`` copies a loaded plugin folder whole into the app; the app's server loads
    it from there (its MCP server's path now inside the app)."""
    import deepnb
    from deepnb.ship.deploy import _deployed_source

    write(Path.cwd() / "deepnb.toml", '[agents.helper]\nmodel = "demo:quickstart"\n')
    extensions.load(dcode.folder)
    app = deepnb.deploy(tmp_path / "app").folder
    [entry] = json.loads((app / "deepnb_agents.json").read_text())["extensions"]
    assert entry == {"path": "extensions/0-notes-kit", "plugin": "notes-kit", "bundle": "notes-kit"}
    assert (app / "extensions" / "0-notes-kit" / "skills" / "tidy-notes" / "SKILL.md").is_file()
    extensions.shutdown()
    extensions.load_deployed([_deployed_source(entry, app)])
    server = registered()[("mcp_server", "notes-kit.shout")]
    assert server["args"] == [str((app / "extensions" / "0-notes-kit" / "server.py").resolve())]


def documented(start: str) -> str:
    """The ``text`` block of the extensions page that starts with ``start``."""
    page = (Path(__file__).parents[2] / "docs" / "guide" / "interpreter-extensions.md").read_text()
    blocks = re.findall(r"^```text\n(.*?)^```$", page, re.MULTILINE | re.DOTALL)
    return next(b for b in blocks if b.startswith(start)).rstrip("\n")


def test_the_extensions_page_shows_what_loading_the_released_plugin_says(
    dcode: Dcode, tmp_path: Path
) -> None:
    from argparse import Namespace

    from deepnb.magics.commands import project

    said = repr(project.extension(Namespace(path="notes-kit@deepnb-fixtures"), {}))
    assert said == documented("Loaded extension notes-kit")
    folder = tmp_path / "hooks-only" / "notes-kit"
    for part in (".claude-plugin", "hooks", "commands"):
        shutil.copytree(dcode.folder / part, folder / part)
    said = repr(project.extension(Namespace(path=str(folder)), {}))
    assert said == documented("Extension notes-kit failed")
