"""Declarative agents: deepnb.toml, [tool.deepnb] in pyproject.toml, and define --from VAR; every
mistake names the file (or variable) and the key."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError

import deepnb
from deepnb.core import trust
from deepnb.core.errors import DeepnbError
from deepnb.models.resolve import online_environment
from deepnb.session import agents, building, config
from tests.support.fresh_session import fresh_session
from tests.support.waiting import WAIT

SCRIPT = """
agents:
  main:
    - tool_calls: [{name: search, args: {query: kelp}}]
    - tool_calls: [{name: task, args: {subagent_type: critic, description: Check the kelp notes}}]
    - text: "Kelp grows fast."
  critic:
    - tool_calls: [{name: search, args: {query: claims}}]
    - text: "Looks right."
"""

TOOLS = '''
from langchain_core.tools import tool

@tool
def search(query: str) -> str:
    """Search the notes."""
    return f"found {query}"

def lookup(word: str) -> str:
    """Look a word up."""
    return word

BUNDLE = [search, lookup]
'''

RESEARCHER = """
[agents.researcher]
model = "scripted:script.yaml"
system_prompt = "You research carefully."
tools = ["cfg_tools:search"]
memory = ["/AGENTS.md"]
skills = ["/skills/"]
interrupt_on = { edit_file = { allowed_decisions = ["approve", "reject"] } }
permissions = [{ operations = ["write"], paths = ["/secrets/**"], mode = "deny" }]
backend.type = "composite"
backend.default = "state"
backend.routes = { "/memories/" = "store", "/disk/" = { type = "disk", root_dir = "data" } }
checkpointer = "sqlite:threads.db"

[[agents.researcher.subagents]]
name = "critic"
description = "Reviews a draft."
prompt = "Point out weak claims."
tools = ["cfg_tools:search"]
interrupt_on = ["write_file"]
permissions = [{ operations = ["read"], paths = ["/private/**"], mode = "deny" }]
skills = ["/skills/critic/"]

[agents.helper]
model = "demo:quickstart"
tools = ["cfg_tools:BUNDLE"]
todos = false
"""


@pytest.fixture(autouse=True)
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in online_environment():
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DEEPNB_HOME", str(tmp_path / "home"))
    (tmp_path / ".git").mkdir()
    (tmp_path / "data").mkdir()
    (tmp_path / "script.yaml").write_text(SCRIPT)
    (tmp_path / "cfg_tools.py").write_text(TOOLS)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    trust.trust(tmp_path)  # the files here import cfg_tools: trusted, as its author's own project
    with fresh_session():
        yield tmp_path


def write(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_agents_from_deepnb_toml_are_built_on_first_use(project: Path) -> None:
    write(project / "deepnb.toml", RESEARCHER)
    assert config.agent_names() == ["helper", "researcher"]
    assert agents.registered() == {}
    bench = deepnb.get("researcher")
    assert bench.origin == "deepnb.toml" and agents.registered() == {"researcher": bench}
    options = bench.declared_spec.options
    assert options["system_prompt"] == "You research carefully."
    assert [t.name for t in options["tools"]] == ["search"]
    assert options["memory"] == ["/AGENTS.md"] and options["skills"] == ["/skills/"]
    assert options["interrupt_on"] == {"edit_file": {"allowed_decisions": ["approve", "reject"]}}
    assert options["permissions"][0].mode == "deny"
    assert set(options["backend"].routes) == {"/memories/", "/disk/"}
    assert "store" in options  # a store backend gets an in-memory store
    (critic,) = options["subagents"]
    assert critic["system_prompt"] == "Point out weak claims."
    assert critic["interrupt_on"] == {"write_file": True}
    assert critic["skills"] == ["/skills/critic/"] and critic["permissions"][0].operations == ["read"]

    run = bench.run("Research kelp").wait(WAIT)
    assert run.status == "done", run.error
    assert run.result == "Kelp grows fast."
    assert run.tree.children[0].name == "critic" and run.tree.children[0].result == "Looks right."
    assert (project / "threads.db").exists()
    run.files.write("/disk/notes.md", "kelp")
    assert (project / "data" / "notes.md").read_text() == "kelp"

    helper = deepnb.get("helper")
    search, lookup = helper.declared_spec.options["tools"]
    assert (search.name, lookup.__name__) == ("search", "lookup")
    assert helper.declared_spec.todos is False


def test_pyproject_tool_deepnb_and_deepnb_toml_wins(project: Path) -> None:
    write(
        project / "pyproject.toml",
        '[project]\nname = "x"\n\n[tool.deepnb.agents.py]\nmodel = "demo:quickstart"\n',
    )
    assert config.agent_names() == ["py"]
    assert deepnb.get("py").origin == "pyproject.toml"
    write(project / "deepnb.toml", '[agents.toml]\nmodel = "demo:quickstart"\n')
    assert config.agent_names() == ["toml"]


def test_the_project_is_found_from_a_subfolder(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(project / "deepnb.toml", '[agents.up]\nmodel = "scripted:script.yaml"\n')
    (project / "notebooks").mkdir()
    monkeypatch.chdir(project / "notebooks")
    assert config.project_root() == project.resolve()
    assert deepnb.get("up").origin == str((project / "deepnb.toml").resolve())


def test_reload_reads_the_file_again_and_keeps_threads(project: Path) -> None:
    path = write(project / "deepnb.toml", '[agents.r]\nmodel = "demo:quickstart"\nsystem_prompt = "one"\n')
    first = deepnb.get("r").run("A brief").wait(WAIT)
    path.write_text(path.read_text().replace('"one"', '"two"'))
    [bench] = building.reload("r")
    assert bench.declared_spec.options["system_prompt"] == "two"
    assert bench.threads()[0].thread_id == first.thread_id
    path.write_text('[agents.other]\nmodel = "demo:quickstart"\n')
    with pytest.raises(DeepnbError, match=r"deepnb\.toml no longer defines agent 'r'"):
        building.reload("r")


def test_a_trace_table_beside_the_agents_is_read_by_each_reader(project: Path) -> None:
    """The config's tables are its agents and ``trace``: each reader takes its own and lets the
    other be (a ``[trace]`` beside agents made every agent fail to load)."""
    from deepnb.engine.tracing.settings import configured

    write(
        project / "deepnb.toml",
        '[trace]\nendpoint = "http://127.0.0.1:9"\nproject = "kelp"\n'
        '\n[agents.r]\nmodel = "demo:quickstart"\n',
    )
    assert config.agent_names() == ["r"]
    assert deepnb.get("r").origin == "deepnb.toml"
    found = configured(project)
    assert found.settings is not None and found.settings.project == "kelp"


BAD = [
    ("[agents.r\n", "deepnb.toml: not valid TOML ("),
    ("agent = 1\n", "deepnb.toml: agent: unknown key: use one of agents, trace"),
    ("agents = 3\n", "deepnb.toml: agents: expected a table, got a number"),
    (
        "[agents.r]\nmodle = 'x'\n",
        "deepnb.toml: agents.r.modle: unknown key: use one of backend, checkpointer",
    ),
    ("[agents.r]\nsystem_prompt = 'x'\n", "deepnb.toml: agents.r.model: missing: set model ="),
    ("[agents.r]\nmodel = 'gpt4'\n", "deepnb.toml: agents.r.model: Malformed model 'gpt4'"),
    (
        "[agents.r]\nmodel = 'demo:quickstart'\ntools = ['cfg_tools:search', 'cfg_tools:missing']\n",
        "deepnb.toml: agents.r.tools[1]: 'cfg_tools:missing' — module cfg_tools has no attribute 'missing'",
    ),
    (
        "[agents.r]\nmodel = 'demo:quickstart'\ntools = ['nomod_xyz:search']\n",
        "deepnb.toml: agents.r.tools[0]: 'nomod_xyz:search' — no module named 'nomod_xyz'",
    ),
    (
        "[agents.r]\nmodel = 'demo:quickstart'\ntools = ['search']\n",
        "deepnb.toml: agents.r.tools[0]: 'search' — write module:attribute",
    ),
    (
        "[agents.r]\nmodel = 'demo:quickstart'\ntools = 'x:y'\n",
        "deepnb.toml: agents.r.tools: expected a list, got a string",
    ),
    (
        "[agents.r]\nmodel = 'demo:quickstart'\n[[agents.r.subagents]]\ndescription = 'd'\n",
        "deepnb.toml: agents.r.subagents[0].name: missing: a subagent needs a name and a description",
    ),
    (
        "[agents.r]\nmodel = 'demo:quickstart'\n[[agents.r.subagents]]\nname = 'a'\ndescription = 'd'\n"
        "prompt = 'p'\nsystem_prompt = 'q'\n",
        "deepnb.toml: agents.r.subagents[0].prompt: give either prompt or system_prompt, not both",
    ),
    (
        "[agents.r]\nmodel = 'demo:quickstart'\n[[agents.r.subagents]]\nname = 'a'\ndescription = 'd'\n"
        "tools = ['cfg_tools:search', 'cfg_tools:nothing']\n",
        "deepnb.toml: agents.r.subagents[0].tools[1]: 'cfg_tools:nothing' — module cfg_tools has no",
    ),
    (
        "[agents.r]\nmodel = 'demo:quickstart'\nbackend = 'cloud'\n",
        "deepnb.toml: agents.r.backend.type: 'cloud' — use one of state, disk, store, composite",
    ),
    (
        "[agents.r]\nmodel = 'demo:quickstart'\nbackend = { type = 'disk', root_dir = 'nowhere' }\n",
        "deepnb.toml: agents.r.backend.root_dir:",
    ),
    (
        "[agents.r]\nmodel = 'demo:quickstart'\n"
        "backend = { type = 'composite', routes = { 'memories' = 'store' } }\n",
        "deepnb.toml: agents.r.backend.routes['memories']: a route is an absolute path",
    ),
    (
        "[agents.r]\nmodel = 'demo:quickstart'\nbackend = { type = 'state', root = 1 }\n",
        "deepnb.toml: agents.r.backend.root: unknown key: use one of type",
    ),
    (
        "[agents.r]\nmodel = 'demo:quickstart'\nmemory = ['~/AGENTS.md']\n",
        "deepnb.toml: agents.r.memory[0]: '~/AGENTS.md' — '~' is not in the agent's filesystem",
    ),
    (
        "[agents.r]\nmodel = 'demo:quickstart'\nskills = [['./skills/']]\n",
        "deepnb.toml: agents.r.skills[0]: a labelled source is [path, label]",
    ),
    (
        "[agents.r]\nmodel = 'demo:quickstart'\n"
        "permissions = [{ operations = ['read'], paths = ['/x'], mode = 'maybe' }]\n",
        "deepnb.toml: agents.r.permissions[0].mode: 'maybe' — use allow, deny or interrupt",
    ),
    (
        "[agents.r]\nmodel = 'demo:quickstart'\n"
        "permissions = [{ operations = ['read'], paths = ['x/**'] }]\n",
        "deepnb.toml: agents.r.permissions[0].paths: Permission path must start with '/'",
    ),
    (
        "[agents.r]\nmodel = 'demo:quickstart'\n"
        "interrupt_on = { write_file = { allowed_decisions = ['yes'] } }\n",
        "deepnb.toml: agents.r.interrupt_on.write_file.allowed_decisions: 'yes' — use approve, edit",
    ),
    (
        "[agents.r]\nmodel = 'demo:quickstart'\ncheckpointer = 'redis:x'\n",
        "deepnb.toml: agents.r.checkpointer: 'redis:x' — use 'memory'",
    ),
    (
        "[agents.r]\nmodel = 'demo:quickstart'\ncheckpointer = 'sqlite:no/such/dir/t.db'\n",
        "deepnb.toml: agents.r.checkpointer: Cannot keep threads in",
    ),
    (
        "[agents.r]\nmodel = 'demo:quickstart'\ntodos = 'yes'\n",
        "deepnb.toml: agents.r.todos: expected true or false",
    ),
]


@pytest.mark.parametrize(("text", "expected"), BAD, ids=[b[1].split(":")[1].strip()[:40] for b in BAD])
def test_a_mistake_names_the_file_and_the_key(project: Path, text: str, expected: str) -> None:
    write(project / "deepnb.toml", text)
    with pytest.raises(DeepnbError) as info:
        deepnb.get("r")
    assert str(info.value).startswith(expected), str(info.value)
    assert "\n" not in str(info.value)
    assert agents.registered() == {}


def test_a_mistake_in_pyproject_names_its_key(project: Path) -> None:
    write(
        project / "pyproject.toml",
        "[tool.deepnb.agents.r]\nmodel = 'demo:quickstart'\ntools = ['cfg_tools:nope']\n",
    )
    with pytest.raises(
        DeepnbError, match=r"^pyproject.toml: tool.deepnb.agents.r.tools\[0\]: 'cfg_tools:nope' — module"
    ):
        deepnb.get("r")


def test_interpreter_options_are_checked_with_their_key(project: Path) -> None:
    pytest.importorskip("langchain_quickjs")
    write(
        project / "deepnb.toml",
        "[agents.r]\nmodel = 'demo:quickstart'\ninterpreter = { ptc = ['read_file'], speed = 3 }\n",
    )
    with pytest.raises(
        DeepnbError, match=r"^deepnb.toml: agents.r.interpreter: Unknown interpreter option\(s\) speed"
    ):
        deepnb.get("r")


def test_an_unknown_agent_mentions_deepnb_toml(project: Path) -> None:
    write(project / "deepnb.toml", '[agents.known]\nmodel = "demo:quickstart"\n')
    with pytest.raises(
        DeepnbError, match=r"No agent named 'nope' \(defined: known\).*\[agents.nope\] to deepnb.toml"
    ):
        deepnb.get("nope")


# -- magics ------------------------------------------------------------------------------------------


def test_cells_run_config_agents_and_agents_lists_them(ip: Any, project: Path) -> None:
    write(project / "deepnb.toml", RESEARCHER)
    listed = ip.run_line_magic("deepagent", "agents")
    assert [row[1:5] for row in listed.rows] == [
        ("helper", "demo:quickstart", "(not built)", "deepnb.toml"),
        ("researcher", "scripted:script.yaml", "(not built)", "deepnb.toml"),
    ]
    ip.run_cell_magic("deepagent", "-a researcher -o run", "Research kelp")
    assert ip.user_ns["run"].status == "done" and ip.user_ns["run"].result == "Kelp grows fast."
    listed = ip.run_line_magic("deepagent", "agents")
    assert listed.rows[1][1] == "researcher" and listed.rows[1][3] != "(not built)"
    with pytest.raises(UsageError, match=r"deepnb.toml: agents.r.tools\[0\]"):
        write(project / "deepnb.toml", "[agents.r]\nmodel = 'demo:quickstart'\ntools = ['x']\n")
        ip.run_cell_magic("deepagent", "-a r", "hi")


def test_define_from_a_variable(ip: Any, project: Path) -> None:
    from langchain_core.tools import tool

    @tool
    def echo(text: str) -> str:
        """Echo the text."""
        return text

    ip.user_ns["spec"] = {
        "model": "demo:quickstart",
        "tools": [echo, "cfg_tools:search"],
        "subagents": [{"name": "critic", "description": "Reviews.", "prompt": "Be brief."}],
        "system_prompt": "from a dict",
    }
    defined = ip.run_line_magic("deepagent", "define writer --from spec --system-prompt overridden")
    assert "Defined agent 'writer' (model demo:quickstart)" in repr(defined)
    bench = building.get("writer")
    options = bench.declared_spec.options
    assert [t.name for t in options["tools"]] == ["echo", "search"]
    assert options["system_prompt"] == "overridden"
    assert options["subagents"][0]["system_prompt"] == "Be brief."
    ip.run_cell_magic("deepagent", "-a writer -o run", "A brief")
    assert ip.user_ns["run"].status == "done"

    ip.user_ns["bad"] = {"model": "demo:quickstart", "tools": ["cfg_tools:nope"]}
    with pytest.raises(
        UsageError, match=r"^bad: tools\[0\]: 'cfg_tools:nope' — module cfg_tools has no attribute 'nope'$"
    ):
        ip.run_line_magic("deepagent", "define w2 --from bad")
    ip.user_ns["worse"] = {
        "model": "demo:quickstart",
        "subagents": [{"name": "a", "description": "d", "tool": []}],
    }
    with pytest.raises(UsageError, match=r"^worse: subagents\[0\]\.tool: unknown key"):
        ip.run_line_magic("deepagent", "define w3 --from worse")
    ip.user_ns["not_a_dict"] = ["model"]
    with pytest.raises(UsageError, match="not_a_dict holds a list: --from needs a dict"):
        ip.run_line_magic("deepagent", "define w4 --from not_a_dict")
    with pytest.raises(UsageError, match="No variable 'missing_var'"):
        ip.run_line_magic("deepagent", "define w5 --from missing_var")


def test_an_async_subagent_passes_through(project: Path) -> None:
    remote = {"name": "remote", "description": "Runs remotely.", "graph_id": "researcher", "url": "http://x"}
    definition = config.parse_agent(
        {"model": "demo:quickstart", "subagents": [remote]}, config.Key("spec"), base_dir=project
    )
    assert definition.options["subagents"] == [remote]
    with pytest.raises(
        DeepnbError, match=r"^spec: subagents\[0\]\.tools: unknown key: use one of description"
    ):
        config.parse_agent(
            {"model": "demo:quickstart", "subagents": [{**remote, "tools": []}]},
            config.Key("spec"),
            base_dir=project,
        )


RELATIVE = """
[agents.writer]
model = "demo:quickstart"
memory = ["./AGENTS.md", "notes/STYLE.md", "/ABS.md"]
skills = ["./skills/", ["extra/", "Extra"]]
backend = { type = "disk", root_dir = "site" }
"""


def test_memory_and_skills_take_every_path_form_deepagents_takes(project: Path) -> None:
    # As the deepagents examples write them: relative to the backend's folder, or absolute in it,
    # and a skill source with a label. They need no trust: they stay inside the backend.
    (project / "site" / "skills" / "tidy").mkdir(parents=True)
    (project / "site" / "AGENTS.md").write_text("Be tidy.", encoding="utf-8")
    (project / "site" / "skills" / "tidy" / "SKILL.md").write_text(
        "---\nname: tidy\ndescription: Tidy up.\n---\nTidy.", encoding="utf-8"
    )
    write(project / "deepnb.toml", RELATIVE)
    trust.revoke(project)
    bench = deepnb.get("writer")
    options = bench.declared_spec.options
    assert options["memory"] == ["./AGENTS.md", "notes/STYLE.md", "/ABS.md"]
    assert options["skills"] == ["./skills/", ("extra/", "Extra")]
    setup = bench.file_setup
    assert setup.memory_paths() == {
        "./AGENTS.md": "/AGENTS.md",
        "notes/STYLE.md": "/notes/STYLE.md",
        "/ABS.md": "/ABS.md",
    }
    assert setup.skill_folders() == ["/skills/", "/extra/"]
    files = bench.files()
    assert files["/AGENTS.md"] == "Be tidy." and "/skills/tidy/SKILL.md" in files
