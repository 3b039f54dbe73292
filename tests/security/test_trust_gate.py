"""Trust: a project's declarative config that imports code or reaches outside the project's
folder takes effect only after ``%deepagent trust``; the project search stops at your home and at
folders you don't own; read-only magics never build an agent from config."""

from __future__ import annotations

import json
import shutil
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError

import deepnb
from deepnb import extensions
from deepnb.core import project, trust
from deepnb.core.errors import DeepnbError
from deepnb.engine.tracing import switch as tracing
from deepnb.extensions.registry import REGISTRY
from deepnb.magics.subcommands import SUBCOMMANDS
from deepnb.session import agents, building, config
from tests.support.fresh_session import fresh_session

SCRIPT = "agents:\n  main:\n    - text: 'Done.'\n"

MODULE = '''
import pathlib

pathlib.Path(__file__).with_name("imported.flag").write_text("imported")

from deepagents.backends import StateBackend
from langchain.agents.middleware.types import AgentMiddleware
from langchain_core.tools import tool


@tool
def search(query: str) -> str:
    """Search the notes."""
    return query


def plain(query: str) -> str:
    """Look something up."""
    return query


class Counter:
    """A callable object of a class defined in Python."""

    __name__ = "counter"

    def __call__(self, query: str) -> str:
        return query


counter = Counter()


class Noting(AgentMiddleware):
    pass


backend = StateBackend()
subagent = {"name": "helper", "description": "Helps.", "system_prompt": "Help."}
'''


class Project:
    """A project folder (``.git``, a module whose import leaves ``imported.flag``, a script,
    a data folder, a symlink out) beside a folder outside it."""

    def __init__(self, root: Path, outside: Path, module: str) -> None:
        self.root, self.outside, self.module = root, outside, module

    def write(self, text: str, name: str = "deepnb.toml") -> None:
        text = text.replace("{mod}", self.module).replace("{outside}", str(self.outside))
        (self.root / name).write_text(text, encoding="utf-8")

    @property
    def imported(self) -> bool:
        return (self.root / "imported.flag").exists() or self.module in sys.modules


@pytest.fixture
def proj(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    root, outside, home = tmp_path / "proj", tmp_path / "outside", tmp_path / "home"
    for folder in (root / ".git", root / "data", outside, home):
        folder.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))  # "~" in a config lands here, not in the real home
    module = f"gate_{uuid.uuid4().hex[:8]}"
    (root / f"{module}.py").write_text(MODULE, encoding="utf-8")
    (root / "script.yaml").write_text(SCRIPT, encoding="utf-8")
    (outside / "script.yaml").write_text(SCRIPT, encoding="utf-8")
    (root / "link").symlink_to(outside, target_is_directory=True)
    monkeypatch.chdir(root)
    monkeypatch.setattr(sys, "path", list(sys.path))  # whatever a trusted config adds goes away
    with fresh_session():
        yield Project(root.resolve(), outside.resolve(), module)
    sys.modules.pop(module, None)


# -- the project search ---------------------------------------------------------------------------


def test_the_walk_up_stops_at_the_first_marker(tmp_path: Path) -> None:
    outer = tmp_path / "outer"
    inner = outer / "inner"
    (inner / "notebooks").mkdir(parents=True)
    (outer / "deepnb.toml").write_text("")
    (inner / "pyproject.toml").write_text("")
    assert project.project_root(inner / "notebooks") == inner.resolve()
    assert config.project_root(inner / "notebooks") == inner.resolve()  # the old name still works


def test_the_walk_up_never_goes_past_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    (home / "work").mkdir(parents=True)
    (tmp_path / "deepnb.toml").write_text("[agents.above]\nmodel = 'demo:quickstart'\n")
    (home / ".git").mkdir()  # home itself is not the project of a folder below it
    monkeypatch.setenv("HOME", str(home))
    assert project.project_root(home / "work") == (home / "work").resolve()


def test_a_shared_folder_you_dont_own_governs_nobody_below_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = (tmp_path / "shared").resolve()  # say /tmp: anyone may write its deepnb.toml
    work = shared / "me" / "work"
    work.mkdir(parents=True)
    (shared / "deepnb.toml").write_text("[agents.default]\nmodel = 'demo:quickstart'\n")
    monkeypatch.setattr(project, "owned", lambda folder: folder.resolve() != shared)
    monkeypatch.chdir(work)
    assert project.project_root() == work
    assert config.find_config() is None and config.agent_names() == []
    agents.forget_all()
    with pytest.raises(DeepnbError, match="No agent named 'default'"):
        deepnb.get()
    monkeypatch.setattr(project, "owned", lambda folder: True)  # the same tree, all yours
    assert project.project_root() == shared


def test_ownership_is_the_folder_owner(tmp_path: Path) -> None:
    assert project.owned(tmp_path) is True  # made by the user running the tests
    assert project.owned(tmp_path / "no" / "such" / "folder") is False


# -- the gate ---------------------------------------------------------------------------------------

# Every kind of entry that imports code or reaches outside the project, one row each:
# (what it covers, the agent table's line, what the one-line message names).
GATED = [
    ("tools", "tools = ['{mod}:search']", "import {mod}:search"),
    ("middleware", "middleware = ['{mod}:Noting']", "import {mod}:Noting"),
    ("backend", "backend = '{mod}:backend'", "import {mod}:backend"),
    ("backend.routes", "backend = { type = 'composite', routes = { '/x/' = '{mod}:backend' } }", "import"),
    (
        "backend.default",
        "backend = { type = 'composite', default = '{mod}:backend' }",
        "import {mod}:backend",
    ),
    ("subagents", "subagents = ['{mod}:subagent']", "import {mod}:subagent"),
    (
        "subagents.tools",
        "subagents = [{ name = 'a', description = 'd', tools = ['{mod}:search'] }]",
        "import",
    ),
    (
        "subagents.middleware",
        "subagents = [{ name = 'a', description = 'd', middleware = ['{mod}:Noting'] }]",
        "import {mod}:Noting",
    ),
    (
        "subagents.model",
        "subagents = [{ name = 'a', description = 'd', model = 'scripted:{outside}/script.yaml' }]",
        "read the script {outside}/script.yaml",
    ),
    (
        "subagents.url",
        "subagents = [{ name = 'r', description = 'd', graph_id = 'g', url = 'http://example.invalid' }]",
        "send tasks to http://example.invalid",
    ),
    ("model", "model = 'scripted:{outside}/script.yaml'", "read the script {outside}/script.yaml"),
    ("model", "model = 'scripted:../outside/script.yaml'", "read the script"),
    ("model", "model = 'scripted:~/script.yaml'", "read the script"),
    (
        "backend.root_dir",
        "backend = { type = 'disk', root_dir = '{outside}' }",
        "use {outside} as its folder",
    ),
    ("backend.root_dir", "backend = { type = 'disk', root_dir = '~' }", "as its folder"),
    ("backend.root_dir", "backend = { type = 'disk', root_dir = '../outside' }", "as its folder"),
    ("backend.root_dir", "backend = { type = 'disk', root_dir = 'link' }", "as its folder"),  # a symlink out
    (
        "backend.virtual_mode",
        "backend = { type = 'disk', root_dir = 'data', virtual_mode = false }",
        "reach any path on this machine",
    ),
    (
        "backend.routes",
        "backend = { type = 'composite', routes = { '/d/' = { type = 'disk', root_dir = '{outside}' } } }",
        "use {outside} as its folder",
    ),
    ("checkpointer", "checkpointer = 'sqlite:{outside}/t.db'", "keep threads in {outside}/t.db"),
    ("checkpointer", "checkpointer = 'sqlite:../outside/t.db'", "keep threads in"),
    ("checkpointer", "checkpointer = 'sqlite:~/t.db'", "keep threads in"),
    (
        "checkpointer",
        "checkpointer = 'postgres:postgresql://u@127.0.0.1:9/db'",
        "keep threads in a Postgres database",
    ),
    (
        "mcp_servers",
        "mcp_servers = { files = { transport = 'stdio', command = 'npx', args = ['server'] } }",
        "start the MCP servers files",
    ),
]

# What cannot import code or reach outside (checked by the config parser, or inside the agent's
# own filesystem): a key added to deepnb.toml must land here or in GATED.
DECLARATIVE = {
    "agent": {
        "system_prompt",
        "memory",
        "skills",
        "permissions",
        "interrupt_on",
        "interpreter",
        "todos",
        "context",
    },
    "subagents": {"name", "description", "system_prompt", "prompt", "interrupt_on", "permissions", "skills"},
    "async subagents": {"name", "description", "graph_id", "headers"},
    "backend": {"type", "namespace", "artifacts_root"},
}


def test_every_key_is_either_gated_or_declarative() -> None:
    covered = {row[0] for row in GATED}
    top = {c.partition(".")[0] for c in covered}
    sub = {c.partition(".")[2] for c in covered if c.startswith("subagents.")}
    backend = {c.partition(".")[2] for c in covered if c.startswith("backend.")}
    assert top | DECLARATIVE["agent"] == set(config.AGENT_KEYS)
    assert sub | DECLARATIVE["subagents"] >= set(config.SUBAGENT_KEYS)
    assert sub | DECLARATIVE["async subagents"] >= set(config.ASYNC_SUBAGENT_KEYS)
    assert backend | DECLARATIVE["backend"] >= set().union(*config.BACKEND_KEYS.values())


def _agent(line: str) -> str:
    model = "" if line.startswith("model") else "model = 'demo:quickstart'\n"
    return f"[agents.r]\n{model}{line}\n"


@pytest.mark.parametrize(("covers", "line", "named"), GATED, ids=[f"{r[0]}: {r[1][:48]}" for r in GATED])
def test_untrusted_code_or_reach_outside_waits_for_trust(
    proj: Project, covers: str, line: str, named: str
) -> None:
    proj.write(_agent(line))
    with pytest.raises(config.UntrustedConfig) as raised:
        deepnb.get("r")
    message = str(raised.value)
    expected = named.replace("{mod}", proj.module).replace("{outside}", str(proj.outside))
    assert message.startswith("deepnb.toml: agent 'r' needs trust to "), message
    assert expected in message
    assert message.endswith(f"— run %deepagent trust {proj.root} if you trust this project.")
    assert "\n" not in message
    assert not proj.imported, "an untrusted config imported code"
    assert str(proj.root) not in sys.path
    assert agents.registered() == {}

    trust.trust(proj.root)  # trusted, the same table passes the gate (and may fail for other reasons)
    try:
        deepnb.get("r")
    except DeepnbError as exc:
        assert not isinstance(exc, config.UntrustedConfig), str(exc)


def test_one_line_names_everything_waiting(proj: Project) -> None:
    proj.write(
        _agent("tools = ['{mod}:search', '{mod}:plain']\nbackend = { type = 'disk', root_dir = '{outside}' }")
    )
    with pytest.raises(config.UntrustedConfig) as raised:
        deepnb.get("r")
    assert (
        f"needs trust to import {proj.module}:search, {proj.module}:plain "
        f"and use {proj.outside} as its folder" in str(raised.value)
    )


def test_pyproject_tool_deepnb_is_gated_too(proj: Project) -> None:
    proj.write(
        "[tool.deepnb.agents.r]\nmodel = 'demo:quickstart'\ntools = ['{mod}:search']\n", "pyproject.toml"
    )
    with pytest.raises(config.UntrustedConfig, match=r"^pyproject.toml: agent 'r' needs trust to import"):
        deepnb.get("r")
    assert not proj.imported


def test_a_config_that_stays_inside_needs_no_trust(proj: Project) -> None:
    proj.write(
        "[agents.r]\nmodel = 'scripted:script.yaml'\nsystem_prompt = 'Be brief.'\nmemory = ['/AGENTS.md']\n"
        "interrupt_on = { write_file = true }\ncheckpointer = 'sqlite:data/threads.db'\n"
        "backend = { type = 'composite', default = { type = 'disk', root_dir = 'data' }, "
        "routes = { '/memories/' = 'store' } }\n"
        "[[agents.r.subagents]]\nname = 'critic'\ndescription = 'Reviews.'\n"
        "model = 'scripted:./script.yaml'\n"
    )
    run = deepnb.get("r").run("Go").wait(30)
    assert run.status == "done", run.error
    assert (proj.root / "data" / "threads.db").exists()


def test_trust_is_per_project(proj: Project, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    trust.trust(other)
    proj.write(_agent("tools = ['{mod}:search']"))
    with pytest.raises(config.UntrustedConfig):
        deepnb.get("r")
    trust.trust(proj.root)
    assert [t.name for t in deepnb.get("r").declared_spec.options["tools"]] == ["search"]
    assert proj.imported


# -- what a tool reference may be ------------------------------------------------------------------

NOT_TOOLS = [
    ("os:system", "a built-in function"),
    ("builtins:eval", "a built-in function"),
    ("subprocess:call", "a standard-library function"),
    ("os:popen", "a standard-library function"),
    ("shutil:rmtree", "a standard-library function"),
    ("subprocess:Popen", "a class"),
    ("pathlib:Path", "a class"),
    ("{mod}:Noting", "a class"),
    ("operator:attrgetter", "a class"),
    ("{mod}:counter", "a Counter object"),
    ("functools:partial", "a class"),
    ("sys:path", "a string"),  # a list is a bundle of tools: its first item, a string, is not one
]


@pytest.mark.parametrize(("reference", "kind"), NOT_TOOLS, ids=[r[0] for r in NOT_TOOLS])
def test_a_tool_reference_must_be_a_tool(proj: Project, reference: str, kind: str) -> None:
    trust.trust(proj.root)
    proj.write(_agent("tools = ['{mod}:search', '" + reference + "']"))
    reference = reference.replace("{mod}", proj.module)
    with pytest.raises(DeepnbError) as raised:
        deepnb.get("r")
    message = str(raised.value)
    assert message.startswith(f"deepnb.toml: agents.r.tools[1]: {reference!r} is {kind}, not a tool"), message
    assert "\n" not in message and agents.registered() == {}


def test_python_functions_and_base_tools_are_tools(proj: Project) -> None:
    trust.trust(proj.root)
    proj.write(_agent("tools = ['{mod}:search', '{mod}:plain']"))
    tools = deepnb.get("r").declared_spec.options["tools"]
    assert [getattr(t, "name", None) or t.__name__ for t in tools] == ["search", "plain"]


def test_the_same_rule_holds_for_a_dict_of_your_own(proj: Project) -> None:
    import os

    with pytest.raises(DeepnbError, match=r"^spec: tools\[0\]: 'system' is a built-in function, not a tool"):
        building.define_from(
            "x", {"model": "demo:quickstart", "tools": [os.system]}, variable="spec", namespace={}
        )


# -- magics -----------------------------------------------------------------------------------------


@pytest.fixture
def ip(proj: Project, ip: Any) -> Any:
    """The shared shell (tests/conftest.py), loaded once the project is in place."""
    return ip


# Every subcommand: what it is given in the test, or None where it may build or change trust.
READ_ONLY = {
    "help": "",
    "agents": "",
    "threads": "",
    "new": "",
    "todos": "",
    "tree": "",
    "inspect": "",
    "files": "",
    "repl": "",
    "js": "1 + 1",
    "stop": "",
    "history": "",
    "state": "",
    "diff": "1",
    "graph": "",
    "approvals": "",
    "use": "default",
    "extensions": "",
    "mcp": "",
}
ACTS = {
    "define",
    "resume",
    "reload",
    "extension",
    "trust",
    "deploy",
    "serve",
    "connect",
    "export",
    "fork",
    "map",
    "eval",
    "steer",
    "trace",
}


def test_every_subcommand_is_classified() -> None:
    assert set(READ_ONLY) | ACTS == set(SUBCOMMANDS)


@pytest.mark.parametrize("name", sorted(READ_ONLY))
def test_read_only_magics_build_nothing_from_config(ip: Any, proj: Project, name: str) -> None:
    trust.trust(proj.root)  # even trusted: looking builds nothing
    proj.write("[agents.default]\nmodel = 'demo:quickstart'\ntools = ['{mod}:search']\n")
    try:
        shown = ip.run_line_magic("deepagent", f"{name} {READ_ONLY[name]}".strip())
    except UsageError as exc:
        assert str(exc) == (
            "Agent 'default' is defined in deepnb.toml but not built yet: run a %%deepagent cell with "
            "-a default (or %deepagent resume -a default) to build it."
        )
    else:
        repr(shown)
    assert not proj.imported and agents.registered() == {}


def test_agents_lists_an_unbuilt_agent_and_a_cell_builds_it(ip: Any, proj: Project) -> None:
    trust.trust(proj.root)
    proj.write("[agents.default]\nmodel = 'demo:quickstart'\ntools = ['{mod}:search']\n")
    listed = ip.run_line_magic("deepagent", "agents")
    assert [row[1:5] for row in listed.rows] == [("default", "demo:quickstart", "(not built)", "deepnb.toml")]
    ip.run_cell_magic("deepagent", "-o run", "Write me a short brief on life in tide pools.")
    assert ip.user_ns["run"].status == "done" and proj.imported


def test_a_cell_with_its_own_model_runs_in_an_untrusted_project(
    ip: Any, proj: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    proj.write("[agents.default]\nmodel = 'demo:quickstart'\ntools = ['{mod}:search']\n")
    ip.run_cell_magic(
        "deepagent", "-m demo:quickstart -o run", "Write me a short brief on life in tide pools."
    )
    assert ip.user_ns["run"].status == "done", ip.user_ns["run"].error
    assert not proj.imported
    err = capsys.readouterr().err
    assert f"deepnb.toml: agent 'default' needs trust to import {proj.module}:search" in err
    with pytest.raises(UsageError, match=r"^deepnb.toml: agent 'r' needs trust to import"):
        proj.write("[agents.r]\nmodel = 'demo:quickstart'\ntools = ['{mod}:search']\n")
        ip.run_cell_magic("deepagent", "-a r", "hi")  # no model of its own: the config is the agent


def test_an_untrusted_trace_table_sends_nothing(ip: Any, proj: Project) -> None:
    """A ``[trace]`` table would send every prompt and answer to its endpoint: it waits for trust."""
    proj.write("[trace]\nendpoint = 'http://127.0.0.1:9'\n")
    tracing.turn_off()
    tracing._checked = False  # the first run reads the table, as in a fresh kernel
    try:
        run = deepnb.agent("gate-trace", model="demo:quickstart").run("Write me a short brief on tide pools.")
        assert run.status == "done", run.error
        assert tracing.active() is None
        trust_it = f"run %deepagent trust {proj.root} if you trust this project."
        waits = f"deepnb.toml [trace] waits for trust — {trust_it}"
        assert repr(ip.run_line_magic("deepagent", "trace status")) == waits
        with pytest.raises(UsageError) as raised:
            ip.run_line_magic("deepagent", "trace on")
        assert str(raised.value) == waits
    finally:
        tracing.turn_off()


def test_define_from_your_own_dict_needs_no_trust(ip: Any, proj: Project) -> None:
    ip.user_ns["spec"] = {"model": "demo:quickstart", "tools": [f"{proj.module}:search"]}
    ip.run_line_magic("deepagent", "define mine --from spec")
    assert [t.name for t in building.get("mine").declared_spec.options["tools"]] == ["search"]


def test_trusting_a_folder_that_does_not_exist_is_refused(ip: Any, proj: Project, tmp_path: Path) -> None:
    for missing in ("/nonexistent", str(tmp_path / "nowhere"), str(proj.root / "script.yaml")):
        with pytest.raises(UsageError, match=r"^No folder '.+' to trust: name a project folder that exists"):
            ip.run_line_magic("deepagent", f"trust {missing}")
    assert not trust.trust_file().exists()
    trusted = ip.run_line_magic("deepagent", "trust")
    assert repr(trusted).startswith(f"Trusted {proj.root}: its .deepnb/extensions/ run from now on.")
    assert trust.is_trusted(proj.root)


# -- a project's extension folders -------------------------------------------------------------------

PROJECT_EXTENSION = "open('imported.flag', 'w').close()\ndef extension(d):\n    pass\n"
DCODE_PLUGIN = (
    '{"name": "p", "version": "1", '
    '"extensions": {"com.langchain.deepagents.code": {"pythonExtensions": "./ext.py"}}}'
)


@pytest.mark.parametrize("shape", ["file", "plugin folder"])
@pytest.mark.parametrize("folder", [".deepnb/extensions", ".deepagents/extensions"])
def test_a_projects_extension_folders_run_nothing_until_trusted(
    proj: Project, folder: str, shape: str
) -> None:
    where = proj.root / folder
    entry = where / "ext.py" if shape == "file" else where / "plug" / "ext.py"
    entry.parent.mkdir(parents=True)
    entry.write_text(PROJECT_EXTENSION, encoding="utf-8")
    if shape == "plugin folder":
        (entry.parent / "plugin.json").write_text(DCODE_PLUGIN, encoding="utf-8")
    deepnb.agent("gate-extension", model="demo:quickstart")
    assert extensions.listing().untrusted == (where,)
    assert not proj.imported
    extensions.trust()
    assert proj.imported


RELEASED_PLUGIN = Path(__file__).parents[1] / "data" / "dcode_plugins" / "market" / "plugins" / "notes-kit"


@pytest.mark.parametrize("folder", [".deepnb/extensions", ".deepagents/extensions"])
def test_a_released_format_plugin_in_a_project_starts_and_mounts_nothing_until_trusted(
    proj: Project, folder: str
) -> None:
    """A plugin folder of released Deep Agents Code's format runs code through its MCP servers:
    in a project, its servers are given to no agent (so none starts) and its skills are not
    mounted before ``%deepagent trust``."""
    where = proj.root / folder
    plugin = where / "notes-kit"
    shutil.copytree(RELEASED_PLUGIN, plugin)
    flag = "open('started.flag', 'w').close()"
    servers = {"mcpServers": {"flag": {"command": sys.executable, "args": ["-c", flag], "cwd": "."}}}
    (plugin / ".mcp.json").write_text(json.dumps(servers), encoding="utf-8")
    bench = deepnb.agent("gate-plugin", model="demo:quickstart")
    assert extensions.listing().untrusted == (where,)
    assert "mcp_servers" not in bench.spec.options and "skills" not in bench.spec.options
    assert not REGISTRY.registrations and not (plugin / "started.flag").exists()
    extensions.trust()
    kinds = {(r.kind, r.name) for r in REGISTRY.registrations}
    assert {("mcp_server", "notes-kit.flag"), ("skills", "/plugins/notes-kit/skills/")} <= kinds
    assert not (plugin / "started.flag").exists()  # given to agents built from now on, started by them
