"""``deepnb.deploy``: the project's deepnb.toml agents as a LangGraph Agent Server app folder that
langgraph-cli validates and turns into a Dockerfile, built by deepnb without a checkpointer of its
own; bad input is refused in one line. (Serving it for real: tests/served/test_serving.py.)"""

from __future__ import annotations

import asyncio
import json
import sys
import uuid
from pathlib import Path

import pytest
from langgraph.checkpoint.memory import InMemorySaver

import deepnb
from deepnb.core import trust
from deepnb.core.errors import DeepnbError
from deepnb.session.config import UntrustedConfig
from deepnb.ship import deploy as deployment
from tests.support.agents import write

ANSWER = "Kelp grows up to half a metre a day."
SCRIPT = """
agents:
  main:
    - tool_calls: [{name: write_file, args: {file_path: /notes.md, content: kelp}}]
    - text: "Kelp grows up to half a metre a day."
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project with a scripted agent, a demo agent, a disk route and an sqlite checkpointer."""
    monkeypatch.setenv("DEEPNB_HOME", str(tmp_path / "home"))
    root = tmp_path / "project"
    write(root / "scripts" / "writer.yaml", SCRIPT)
    write(root / "data" / "seed.txt", "seed")
    write(
        root / "deepnb.toml",
        """
        [agents.writer]
        model = "scripted:scripts/writer.yaml"
        system_prompt = "You write notes."
        checkpointer = "sqlite:threads.db"
        backend.type = "composite"
        backend.default = "state"
        backend.routes = { "/disk/" = { type = "disk", root_dir = "data" } }

        [agents.helper-bot]
        model = "demo:quickstart"
        """,
    )
    monkeypatch.chdir(root)
    return root


def test_the_app_folder_has_langgraph_json_its_module_and_copies_of_what_the_tables_name(
    project: Path, tmp_path: Path
) -> None:
    app = tmp_path / "app"
    deployed = deepnb.deploy(app)
    assert deployed.folder == app and deployed.graphs == ("helper-bot", "writer")
    config = json.loads((app / "langgraph.json").read_text())
    assert config["graphs"] == {
        "helper-bot": "./deepnb_app.py:helper_bot",
        "writer": "./deepnb_app.py:writer",
    }
    dependencies = config["dependencies"]
    assert dependencies[0] == "."
    # deepnb comes from its checkout here (this repository), as a path langgraph dev puts on sys.path
    assert (app / dependencies[1]).resolve() == Path(deepnb.__file__).resolve().parents[1]
    tables = json.loads((app / "deepnb_agents.json").read_text())["agents"]
    assert tables["writer"]["model"] == "scripted:project/scripts/writer.yaml"
    assert tables["writer"]["backend"]["routes"]["/disk/"]["root_dir"] == "project/data"
    assert "checkpointer" not in tables["writer"]  # the server keeps the threads
    script = (project / "scripts" / "writer.yaml").read_text()
    assert (app / "project" / "scripts" / "writer.yaml").read_text() == script
    assert (app / "project" / "data" / "seed.txt").read_text() == "seed"
    assert not (app / "threads.db").exists() and not (project / "threads.db").exists()


def test_a_disk_backend_on_the_project_itself_is_copied_without_the_app_or_the_junk(
    project: Path,
) -> None:
    write(
        project / "deepnb.toml",
        """
        [agents.files]
        model = "demo:quickstart"
        backend = "disk"
        memory = ["/AGENTS.md"]
        skills = ["/skills/"]
        """,
    )
    write(project / "AGENTS.md", "Keep notes short.")
    write(project / "skills" / "brief" / "SKILL.md", "---\nname: brief\ndescription: Write a brief.\n---\n")
    (project / ".git").mkdir()
    write(project / ".venv" / "pyvenv.cfg", "home = /usr")
    app = deepnb.deploy(project / "served").folder
    tables = json.loads((app / "deepnb_agents.json").read_text())["agents"]
    assert tables["files"]["backend"] == {"type": "disk", "root_dir": "project"}
    copied = {p.relative_to(app / "project").as_posix() for p in (app / "project").rglob("*")}
    assert copied == {
        "deepnb.toml",
        "AGENTS.md",  # memory and skills are paths in the backend: here, the project's folder
        "skills",
        "skills/brief",
        "skills/brief/SKILL.md",
        "data",
        "data/seed.txt",
        "scripts",
        "scripts/writer.yaml",
    }
    assert tables["files"]["memory"] == ["/AGENTS.md"] and tables["files"]["skills"] == ["/skills/"]
    graph = deployment.served_graph(str(app / "deepnb_app.py"), "files")
    graph = graph.copy(update={"checkpointer": InMemorySaver()})  # what the server gives it
    config = {"configurable": {"thread_id": "t"}}
    asyncio.run(graph.ainvoke({"messages": [{"role": "user", "content": "Tide pools?"}]}, config))
    state = graph.get_state(config).values
    assert (app / "project" / "notes" / "stresses.md").is_file()  # written in the app's copy
    assert not (project / "notes").exists() and state["messages"][-1].content.startswith("## Life")
    assert state["memory_contents"] == {"/AGENTS.md": "Keep notes short."}  # read from the app's copy


def test_langgraph_cli_validates_the_config_and_writes_a_dockerfile_for_it(
    project: Path, tmp_path: Path
) -> None:
    cli_config = pytest.importorskip("langgraph_cli.config", reason="the test extra installs langgraph-cli")
    app = deepnb.deploy(tmp_path / "app").folder
    validated = cli_config.validate_config_file(app / "langgraph.json")
    assert set(validated["graphs"]) == {"helper-bot", "writer"}
    assert cli_config.get_unknown_keys(json.loads((app / "langgraph.json").read_text())) == []
    # what `langgraph build` does before docker: every graph's module is covered by a dependency
    dockerfile, contexts = cli_config.config_to_docker(app / "langgraph.json", validated)
    assert '"writer": "/deps/outer-app/src/deepnb_app.py:writer"' in dockerfile
    assert list(contexts.values()) == [str(Path(deepnb.__file__).resolve().parents[1])]


def test_a_served_graph_is_built_by_deepnb_without_a_checkpointer_and_runs_its_script(
    project: Path, tmp_path: Path
) -> None:
    app = deepnb.deploy(tmp_path / "app", agents=["writer"]).folder
    graph = deployment.served_graph(str(app / "deepnb_app.py"), "writer")
    assert graph.checkpointer is None and graph.store is None
    state = asyncio.run(graph.ainvoke({"messages": [{"role": "user", "content": "Write notes."}]}))
    assert state["messages"][-1].content == ANSWER
    assert "/notes.md" in state["files"]


def test_the_module_langgraph_json_names_defines_one_graph_per_agent(project: Path, tmp_path: Path) -> None:
    app = deepnb.deploy(tmp_path / "app").folder
    source = (app / "deepnb_app.py").read_text()
    name = f"deepnb_app_{uuid.uuid4().hex[:8]}"
    namespace: dict[str, object] = {"__file__": str(app / "deepnb_app.py"), "__name__": name}
    exec(compile(source, str(app / "deepnb_app.py"), "exec"), namespace)
    assert {"writer", "helper_bot"} <= set(namespace)
    assert namespace["writer"].name == "writer" and namespace["helper_bot"].name == "helper-bot"


def test_the_projects_own_modules_are_copied_and_an_untrusted_project_is_refused(
    project: Path, tmp_path: Path
) -> None:
    module = f"deploy_tools_{uuid.uuid4().hex[:8]}"
    write(
        project / f"{module}.py",
        '''
        from langchain_core.tools import tool

        @tool
        def search(query: str) -> str:
            """Search the notes."""
            return query
        ''',
    )
    with (project / "deepnb.toml").open("a") as toml:
        toml.write(f'\n[agents.searcher]\nmodel = "demo:quickstart"\ntools = ["{module}:search"]\n')
    with pytest.raises(UntrustedConfig) as refused:
        deepnb.deploy(tmp_path / "app", agents=["searcher"])
    assert str(refused.value) == (
        f"deepnb.toml: agent 'searcher' needs trust to import {module}:search — "
        f"run %deepagent trust {project} if you trust this project."
    )
    assert module not in sys.modules and not (tmp_path / "app").exists()

    trust.trust(project)
    app = deepnb.deploy(tmp_path / "app", agents=["searcher"]).folder
    assert (app / f"{module}.py").read_text() == (project / f"{module}.py").read_text()
    tables = json.loads((app / "deepnb_agents.json").read_text())["agents"]
    assert tables["searcher"]["tools"] == [f"{module}:search"]


def test_bad_input_is_one_line_each(project: Path, tmp_path: Path) -> None:
    def refusal(*args: object, **kwargs: object) -> str:
        with pytest.raises(DeepnbError) as raised:
            deepnb.deploy(*args, **kwargs)  # type: ignore[arg-type]
        message = str(raised.value)
        assert "\n" not in message
        return message

    assert refusal(tmp_path / "app", agents=["nobody"]) == (
        "deepnb.toml defines no agent 'nobody': use one of helper-bot, writer."
    )
    taken = tmp_path / "taken"
    write(taken / "notes.txt", "mine")
    assert refusal(taken) == (
        f"{taken} already exists: pass --force (force=True) to replace it, or name a new folder."
    )
    assert "is not a deployment deepnb wrote" in refusal(taken, force=True)
    assert (taken / "notes.txt").read_text() == "mine"  # --force never deletes a folder deepnb didn't write
    assert "holds the project itself" in refusal(project.parent, force=True)

    app = deepnb.deploy(tmp_path / "app").folder
    assert "already exists" in refusal(app)
    (project / "scripts" / "writer.yaml").write_text(SCRIPT.replace("half a metre", "a metre"))
    deepnb.deploy(app, force=True)  # a deployment deepnb wrote is replaced
    assert "a metre a day" in (app / "project" / "scripts" / "writer.yaml").read_text()

    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / ".git").mkdir()
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(empty)
        assert refusal(tmp_path / "other").startswith(f"No deepnb.toml in {empty}: add [agents.NAME] tables")
