"""Where an agent's files live: memory and skill sources resolved as deepagents' backends resolve
them, and an attached graph's backend found in the graph itself."""

from __future__ import annotations

from pathlib import Path

import pytest
from deepagents import create_deep_agent
from deepagents.backends import CompositeBackend, FilesystemBackend, StateBackend
from deepagents.backends.utils import validate_path
from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware

import deepnb
from deepnb.core.graphs.reading import middleware_of, subgraphs_of
from deepnb.engine.files.setup import FileSetup, agent_path
from tests.support.agents import scripted
from tests.unit.conftest import unique


def _model() -> object:
    return scripted({"main": [{"text": "ok"}]})


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("./AGENTS.md", "/AGENTS.md"),
        ("AGENTS.md", "/AGENTS.md"),
        ("/AGENTS.md", "/AGENTS.md"),
        ("./notes/./a.md", "/notes/a.md"),
        ("/notes//a.md", "/notes/a.md"),
        ("../AGENTS.md", None),
        ("~/AGENTS.md", None),
    ],
)
def test_a_folder_in_virtual_mode_reads_sources_under_its_root(
    tmp_path: Path, source: str, expected: str | None
) -> None:
    backend = FilesystemBackend(root_dir=tmp_path)
    assert agent_path(backend, source) == expected
    if expected is not None:  # the same file deepagents' own backend resolves
        assert backend._resolve_path(source) == backend._resolve_path(expected)


def test_a_folder_used_as_it_is_reads_relative_sources_under_its_root(tmp_path: Path) -> None:
    backend = FilesystemBackend(root_dir=tmp_path, virtual_mode=False)
    assert agent_path(backend, "./AGENTS.md") == f"{tmp_path.resolve()}/AGENTS.md"
    assert agent_path(backend, "/etc/AGENTS.md") == "/etc/AGENTS.md"
    assert Path(agent_path(backend, "./AGENTS.md") or "") == backend._resolve_path("./AGENTS.md")


def test_state_and_composite_backends_resolve_as_deepagents_routes_them(tmp_path: Path) -> None:
    # The thread's state looks a source up as written: "./AGENTS.md" is a key the file tools
    # (which write validate_path's absolute paths) never write, so it names no file here.
    assert agent_path(StateBackend(), "./AGENTS.md") is None
    assert validate_path("./AGENTS.md") == "/AGENTS.md" != "./AGENTS.md"
    assert agent_path(StateBackend(), "/AGENTS.md") == "/AGENTS.md"
    disk = FilesystemBackend(root_dir=tmp_path)
    composite = CompositeBackend(default=StateBackend(), routes={"/site/": disk})
    assert agent_path(composite, "/site/./AGENTS.md") == "/site/AGENTS.md"
    assert agent_path(composite, "/site/skills/", directory=True) == "/site/skills/"
    assert agent_path(composite, "./AGENTS.md") is None


def test_skill_sources_may_carry_a_label(tmp_path: Path) -> None:
    setup = FileSetup(
        backend=FilesystemBackend(root_dir=tmp_path),
        memory=("./AGENTS.md", "../out.md"),
        skills=("./skills/", ("/team/", "Team"), "skills"),
    )
    assert setup.memory_paths() == {"./AGENTS.md": "/AGENTS.md"}
    assert setup.skill_folders() == ["/skills/", "/team/"]


def test_an_attached_deep_agent_names_its_backend_memory_and_skills(tmp_path: Path) -> None:
    backend = FilesystemBackend(root_dir=tmp_path)
    graph = create_deep_agent(model=_model(), memory=["./AGENTS.md"], skills=["./skills/"], backend=backend)
    setup = FileSetup.of_graph(graph)
    assert setup.known and setup.backend is backend
    assert setup.memory == ("./AGENTS.md",) and setup.skills == ("./skills/",)
    assert setup.memory_paths() == {"./AGENTS.md": "/AGENTS.md"}


def test_a_subagents_filesystem_is_found_when_the_main_agent_has_none(tmp_path: Path) -> None:
    backend = FilesystemBackend(root_dir=tmp_path)
    from deepagents.middleware import SubAgentMiddleware

    inner = create_deep_agent(model=_model(), backend=backend, skills=["/skills/"])
    outer = create_agent(
        model=_model(),
        middleware=[
            SubAgentMiddleware(
                backend=StateBackend(),
                subagents=[{"name": "writer", "description": "Writes.", "runnable": inner}],
            )
        ],
    )
    assert inner in subgraphs_of(outer)
    setup = FileSetup.of_graph(outer)
    assert setup.backend is backend and setup.skills == ("/skills/",)


def test_a_filesystem_two_compiled_subagents_down_is_found(tmp_path: Path) -> None:
    from deepagents.middleware import SubAgentMiddleware

    def delegating(name: str, runnable: object) -> object:
        spec = {"name": name, "description": "Delegates.", "runnable": runnable}
        return create_agent(
            model=_model(), middleware=[SubAgentMiddleware(backend=StateBackend(), subagents=[spec])]
        )

    backend = FilesystemBackend(root_dir=tmp_path)
    inner = create_deep_agent(model=_model(), backend=backend, memory=["/AGENTS.md"])
    outer = delegating("middle", delegating("writer", inner))
    assert inner not in subgraphs_of(outer)  # only the graphs the main agent runs itself
    setup = FileSetup.of_graph(outer)
    assert setup.backend is backend and setup.memory == ("/AGENTS.md",)


def test_a_graph_without_a_filesystem_is_unknown_unless_told() -> None:
    graph = create_agent(model=_model())
    assert FileSetup.of_graph(graph).known is False
    backend = StateBackend()
    told = FileSetup.of_graph(graph, backend=backend)
    assert told.known and told.backend is backend


def test_middleware_is_found_through_hook_nodes_and_tool_closures(tmp_path: Path) -> None:
    class Marker(AgentMiddleware):
        def before_model(self, state, runtime):  # type: ignore[no-untyped-def]
            return None

    marker = Marker()
    backend = FilesystemBackend(root_dir=tmp_path)
    graph = create_deep_agent(model=_model(), middleware=[marker], backend=backend)
    names = {type(m).__name__ for m in middleware_of(graph)}
    assert marker in middleware_of(graph)
    assert {"FilesystemMiddleware", "SubAgentMiddleware"} <= names


def test_a_relative_source_on_the_threads_state_names_no_file_and_breaks_nothing() -> None:
    name = unique("state-rel")
    bench = deepnb.agent(name, model="demo:quickstart", memory=["./AGENTS.md"], skills=["skills/"])
    run = bench.run("A brief").wait(30)
    assert run.status == "done", run.error
    assert "/notes/stresses.md" in run.files and run.files.busy("/AGENTS.md") == ""
    assert {c.path for c in run.changes()} >= {"/notes/stresses.md"}
