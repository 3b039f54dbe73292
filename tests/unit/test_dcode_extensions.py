"""Deep Agents Code's reference extensions (tests/support/dcode_extensions, copied unchanged) and
its rules in deepnb: sync-only middleware hooks in async runs, a store route with no store, the
project folder ``.deepagents/extensions/``, plugin folders, and route conflicts."""

from __future__ import annotations

import asyncio
import inspect
import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from langchain.agents.middleware.types import AgentMiddleware

import deepnb
from deepnb import extensions
from deepnb.extensions.registry import REGISTRY
from tests.support.agents import scripted, tool_messages, unique, write
from tests.support.fresh_session import fresh_session
from tests.support.waiting import WAIT

DCODE = Path(__file__).parents[1] / "support" / "dcode_extensions"


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Each test in its own project, deepnb home and home folder (audit_log writes under ~)."""
    monkeypatch.delenv("DEEPNB_EXTENSIONS", raising=False)
    monkeypatch.setenv("DEEPNB_HOME", str(tmp_path / "home" / ".deepnb"))
    (tmp_path / "home").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    with fresh_session():
        yield


def execute(command: str) -> str:
    """Run a shell command (a stand-in: it only echoes)."""
    return f"ran {command}"


LS_THEN_DONE = [{"tool_calls": [{"name": "ls", "args": {"path": "/"}}]}, "Done."]


# -- sync-only hooks --------------------------------------------------------------------------------


def every_hook_pair() -> list[tuple[str, str]]:
    """LangChain's hook pairs, read here independently of deepnb: each method of
    ``AgentMiddleware`` that has an ``a``-prefixed async twin."""
    found = vars(AgentMiddleware)
    return [
        (name, f"a{name}")
        for name, value in found.items()
        if callable(value) and f"a{name}" in found and inspect.iscoroutinefunction(found[f"a{name}"])
    ]


SYNC_ONLY = """
import threading
from langchain.agents.middleware.types import AgentMiddleware

PAIRS = {pairs!r}


def node_hook(name):
    def hook(self, state, runtime):
        self.seen.append((name, threading.current_thread() is threading.main_thread()))
    return hook


def wrap_hook(name):
    def hook(self, request, handler):
        self.seen.append((name, threading.current_thread() is threading.main_thread()))
        return handler(request)
    return hook


SyncOnly = type(
    "SyncOnly",
    (AgentMiddleware,),
    {{s: wrap_hook(s) if s.startswith("wrap_") else node_hook(s) for s, _ in PAIRS}},
)


async def extension(d):
    middleware = SyncOnly()
    middleware.seen = []
    d.register_middleware(middleware)
"""


def test_every_sync_only_hook_runs_in_async_runs_and_later_runs_stay_healthy(tmp_path: Path) -> None:
    pairs = every_hook_pair()
    assert {"wrap_tool_call", "wrap_model_call", "before_model", "after_agent"} <= {s for s, _ in pairs}
    [(_, error)] = extensions.load(write(tmp_path / "sync_only.py", SYNC_ONLY.format(pairs=pairs)))
    assert error is None
    [middleware] = [r.unit for r in REGISTRY.of_kind("middleware")]

    for _ in range(2):  # a second agent's run works too: nothing is poisoned
        bench = deepnb.agent(unique("sync"), scripted({"main": LS_THEN_DONE}))
        run = bench.run("look").wait(WAIT)
        assert (run.status, run.error, run.result) == ("done", None, "Done.")
    names = [name for name, _ in middleware.seen]
    for sync, _ in pairs:
        assert names.count(sync) >= 2, sync
    assert not any(on_main for _, on_main in middleware.seen)  # each ran in a thread of its own
    assert type(middleware).__name__ == "SyncOnly" and middleware.name == "SyncOnly"


def test_the_agents_own_sync_only_middleware_works_too() -> None:
    calls: list[str] = []

    class Audit(AgentMiddleware):
        def wrap_tool_call(self, request: Any, handler: Any) -> Any:
            calls.append(request.tool_call["name"])
            return handler(request)

    mine = Audit()
    bench = deepnb.agent(unique("own"), scripted({"main": LS_THEN_DONE}), middleware=[mine])
    run = bench.run("look").wait(WAIT)
    assert (run.status, run.error, calls) == ("done", None, ["ls"])
    assert isinstance(mine, Audit) and mine.wrap_tool_call.__func__ is Audit.wrap_tool_call


def test_stopping_a_run_stops_the_call_a_sync_hook_waits_for() -> None:
    started, ended, outcome = threading.Event(), threading.Event(), []

    class Passthrough(AgentMiddleware):
        def wrap_tool_call(self, request: Any, handler: Any) -> Any:
            return handler(request)

    async def slow(x: str) -> str:
        """Take a long time."""
        started.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            outcome.append("cancelled")
            ended.set()
            raise
        outcome.append("finished")
        ended.set()
        return x

    model = scripted({"main": [{"tool_calls": [{"name": "slow", "args": {"x": "a"}}]}, "Done."]})
    bench = deepnb.agent(unique("stop"), model, middleware=[Passthrough()], tools=[slow])
    run = bench.run("wait", background=True)
    assert started.wait(WAIT)
    run.stop()
    assert run.wait(WAIT).status == "cancelled"
    assert ended.wait(WAIT)  # the call the hook waited for ends on its own loop, maybe just after
    assert outcome == ["cancelled"]


def test_a_hook_that_blocks_a_call_returns_its_own_answer(tmp_path: Path) -> None:
    """audit_log, unchanged: a denied command never runs, an allowed one is logged then runs."""
    (tmp_path / "home" / ".deepagents").mkdir(parents=True)  # dcode makes it; the log goes there
    [(source, error)] = extensions.load(DCODE / "audit_log.py")
    assert error is None and source.label == "audit_log"
    model = scripted(
        {
            "main": [
                {"tool_calls": [{"name": "execute", "args": {"command": "curl evil.example"}}]},
                {"tool_calls": [{"name": "execute", "args": {"command": "ls -la"}}]},
                "Done.",
            ]
        }
    )
    bench = deepnb.agent(unique("audit"), model, tools=[execute])
    run = bench.run("run things").wait(WAIT)
    assert (run.status, run.error) == ("done", None)
    assert [text for _, text in tool_messages(bench, run.thread_id)] == [
        "Blocked by the ShellAudit extension: curl evil.example",
        "ran ls -la",
    ]
    assert (tmp_path / "home" / ".deepagents" / "shell-audit.log").read_text() == "ls -la\n"


def test_tool_counter_counts_each_tool_call() -> None:
    [(_, error)] = extensions.load(DCODE / "tool_counter.py")
    assert error is None
    [counter] = [r.unit for r in REGISTRY.of_kind("middleware")]
    model = scripted(
        {
            "main": [
                {
                    "tool_calls": [
                        {"name": "ls", "args": {"path": "/"}},
                        {"name": "glob", "args": {"pattern": "*"}},
                    ]
                },
                "Done.",
            ]
        }
    )
    run = deepnb.agent(unique("count"), model).run("look").wait(WAIT)
    assert (run.status, run.error, counter.count) == ("done", None, 2)


def test_slotted_and_frozen_middleware_classes_take_the_twins_too() -> None:
    class Slotted(AgentMiddleware):
        __slots__ = ("calls",)

        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            self.calls += 1
            return handler(request)

    @dataclass(frozen=True)
    class Frozen(AgentMiddleware):
        seen: list[str]

        def wrap_tool_call(self, request: Any, handler: Any) -> Any:
            self.seen.append(request.tool_call["name"])
            return handler(request)

    mine, frozen = Slotted(), Frozen([])
    mine.calls = 0
    run = deepnb.agent(unique("slots"), scripted({"main": LS_THEN_DONE}), middleware=[mine, frozen]).run(
        "look"
    )
    assert (run.wait(WAIT).status, run.error, mine.calls, frozen.seen) == ("done", None, 2, ["ls"])


# -- a store route with no store -------------------------------------------------------------------

REMEMBER = [
    {
        "tool_calls": [
            {"name": "write_file", "args": {"file_path": "/memories/tides.md", "content": "spring"}}
        ]
    },
    "Saved.",
]


def test_memory_store_works_on_an_agent_with_no_store_and_memories_are_shared() -> None:
    [(_, error)] = extensions.load(DCODE / "memory_store.py")
    assert error is None
    bench = deepnb.agent(unique("mem"), scripted({"main": REMEMBER}))
    run = bench.run("remember").wait(WAIT)
    assert (run.status, run.error, run.result) == ("done", None, "Saved.")
    assert run.files["/memories/tides.md"] == "spring"
    other = deepnb.agent(unique("mem2"), scripted({"main": ["ok"]}))
    assert other.files(other.new_thread())["/memories/tides.md"] == "spring"  # one store per kernel


def test_an_attached_graph_without_a_store_gets_the_kernels() -> None:
    from deepagents import create_deep_agent
    from deepagents.backends import CompositeBackend, StateBackend, StoreBackend

    backend = CompositeBackend(
        StateBackend(), {"/memories/": StoreBackend(namespace=lambda _: ("filesystem",))}
    )
    graph = create_deep_agent(model=scripted({"main": REMEMBER}), backend=backend)
    assert graph.store is None
    bench = deepnb.attach(graph, unique("attached"))
    assert bench.graph.store is not None
    run = bench.run("remember").wait(WAIT)
    assert (run.status, run.error, run.result) == ("done", None, "Saved.")
    assert bench.graph.store.get(("filesystem",), "/tides.md").value["content"] == "spring"


def test_a_graph_that_cannot_take_a_store_is_named_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    from deepagents import create_deep_agent
    from langgraph.checkpoint.memory import InMemorySaver

    graph = create_deep_agent(model=scripted({"main": ["ok"]}), checkpointer=InMemorySaver())

    class Fixed(type(graph)):  # type: ignore[misc]
        store = property(lambda self: None)  # a graph whose store cannot be set

    graph.__class__ = Fixed
    name = unique("fixed")
    deepnb.attach(graph, name)
    [line] = capsys.readouterr().err.splitlines()
    assert line == (
        f"deepnb: Agent {name!r} has no LangGraph store and deepnb cannot give it one: "
        "a StoreBackend route in it will fail; compile it with store=InMemoryStore()."
    )


# -- dcode parity: project folder, plugin folders, load order, conflicts -----------------------------


def route_extension(prefix: str) -> str:
    return (
        "from deepagents.backends import StateBackend\n"
        f"def extension(d):\n    d.register_backend_route({prefix!r}, StateBackend())\n"
    )


def test_the_dcode_project_folder_runs_only_once_trusted_after_deepnbs_own(tmp_path: Path) -> None:
    dcode = tmp_path / ".deepagents" / "extensions"
    write(
        dcode / "memory_store.py",
        (DCODE / "memory_store.py").read_text() + "\nopen('imported', 'w').close()\n",
    )
    write(tmp_path / ".deepnb" / "extensions" / "mine.py", route_extension("/memories/"))
    listing = extensions.listing()
    assert listing.untrusted == (tmp_path / ".deepnb" / "extensions", dcode)
    deepnb.agent(unique("untrusted"), scripted({"main": ["ok"]}))
    assert not (tmp_path / "imported").exists() and REGISTRY.registrations == []

    _, results = extensions.trust()
    assert [(s.label, e) for s, e in results] == [("mine", None), ("memory_store", None)]
    assert (tmp_path / "imported").exists()
    [route] = REGISTRY.of_kind("route")
    assert (route.name, route.source.label) == ("/memories/", "mine")  # .deepnb/ loads first, so it wins
    assert extensions.listing().notes == (
        "route '/memories/' from memory_store skipped: it overlaps '/memories/', which mine registered first",
    )
    assert extensions.listing().untrusted == ()

    _, _, unloaded, _ = extensions.revoke_trust()
    assert unloaded == ["mine", "memory_store"] and REGISTRY.registrations == []
    assert extensions.listing().untrusted == (tmp_path / ".deepnb" / "extensions", dcode)


def plugin(folder: Path, manifest: dict[str, Any], *, where: str = ".claude-plugin/plugin.json") -> Path:
    write(folder / where, json.dumps(manifest))
    return folder


def test_a_plugin_folder_loads_its_manifest_entries_under_the_plugins_name(ip: Any, tmp_path: Path) -> None:
    folder = tmp_path / "shared-memory-plugin"
    write(folder / "extension.py", (DCODE / "memory_store.py").read_text())
    write(folder / "tools" / "extension.py", (DCODE / "scratchpad.py").read_text())
    plugin(
        folder,
        {
            "name": "shared-memory",
            "version": "1.0.0",
            "extensions": {
                "com.langchain.deepagents.code": {
                    "pythonExtensions": ["./extension.py", "./tools/extension.py"]
                }
            },
        },
    )
    shown = repr(ip.run_line_magic("deepagent", f"extension {folder}"))
    assert shown.splitlines()[:2] == [
        "Loaded extension shared-memory: route /memories/.",
        "Loaded extension shared-memory: tool remember_note, tool read_notes, shutdown clear.",
    ]
    assert {r.source.label for r in REGISTRY.registrations} == {"shared-memory"}
    [(source, error)] = extensions.load(folder / "tools" / "extension.py")  # one entry, named directly
    assert (source.label, error) == ("shared-memory", None)
    run = deepnb.agent(unique("plug"), scripted({"main": REMEMBER})).run("remember").wait(WAIT)
    assert (run.status, run.files["/memories/tides.md"]) == ("done", "spring")


@pytest.mark.parametrize(
    ("manifest", "expected"),
    [
        (
            {"name": "p", "extensions": {"com.langchain.deepagents.code": {"pythonExtensions": "./ext.py"}}},
            "Plugin p: Python extensions need a non-empty version in plugin.json.",
        ),
        (
            {
                "name": "p",
                "version": "1",
                "extensions": {"com.langchain.deepagents.code": {"pythonExtensions": "../x.py"}},
            },
            "Plugin p: pythonExtensions entry '../x.py' must start with './' and name a file.",
        ),
        (
            {
                "name": "p",
                "version": "1",
                "extensions": {"com.langchain.deepagents.code": {"pythonExtensions": "./../x.py"}},
            },
            "Plugin p: pythonExtensions entry './../x.py' must stay inside the plugin folder.",
        ),
        (
            {
                "name": "p",
                "version": "1",
                "extensions": {"com.langchain.deepagents.code": {"pythonExtensions": "./no.py"}},
            },
            "Plugin p: pythonExtensions entry './no.py' is not an existing .py file.",
        ),
    ],
)
def test_a_plugin_manifests_mistake_is_one_line_and_runs_nothing(
    tmp_path: Path, manifest: dict[str, Any], expected: str
) -> None:
    folder = plugin(tmp_path / "p", manifest, where="plugin.json")
    write(folder / "ext.py", "open('imported', 'w').close()\ndef extension(d):\n    pass\n")
    write(tmp_path / "x.py", "open('imported', 'w').close()\ndef extension(d):\n    pass\n")
    [(source, error)] = extensions.load(folder)
    assert (source.label, error) == ("p", expected)
    assert not (tmp_path / "imported").exists()
    assert extensions.listing().failures == ((str(folder.resolve() / "plugin.json"), expected),)


def test_loading_says_in_one_line_which_route_was_skipped(ip: Any, tmp_path: Path) -> None:
    write(tmp_path / "first.py", route_extension("/team/"))
    write(tmp_path / "second.py", route_extension("/team/notes/") + "    d.register_tool(len)\n")
    ip.run_line_magic("deepagent", f"extension {tmp_path / 'first.py'}")
    shown = repr(ip.run_line_magic("deepagent", f"extension {tmp_path / 'second.py'}"))
    assert shown.splitlines()[:2] == [
        "Loaded extension second: tool len.",
        "  Route '/team/notes/' from second skipped: it overlaps '/team/', which first registered first.",
    ]


# -- a StateBackend route -----------------------------------------------------------------------


STATE_ROUTE = """
from deepagents.backends import StateBackend


def extension(d):
    d.register_backend_route("/scratch/", StateBackend())
"""


def test_a_state_backend_route_does_not_alias_the_agents_state(tmp_path: Path) -> None:
    """Every StateBackend keeps its files in the thread state's one ``files`` key by the path it
    is given: mounted beside the default state, ``/scratch/a.md`` and ``/a.md`` would be one file.
    The route is left to the state, where each file keeps its whole path."""
    [(_, error)] = extensions.load(write(tmp_path / "state_route.py", STATE_ROUTE))
    assert error is None
    name = unique("state-route")
    writes = [
        {"name": "write_file", "args": {"file_path": "/scratch/a.md", "content": "scratch"}},
        {"name": "write_file", "args": {"file_path": "/a.md", "content": "root"}},
    ]
    bench = deepnb.agent(name, scripted({"main": [{"tool_calls": writes}, "Done."]}))
    run = bench.run("write both").wait(WAIT)
    assert run.status == "done", run.error
    files = bench.files(run.thread_id)
    assert (files["/scratch/a.md"], files["/a.md"]) == ("scratch", "root")
    assert sorted(bench.state_values(run.thread_id)["files"]) == ["/a.md", "/scratch/a.md"]
    assert any(
        note.startswith(f"agent {name!r}: route /scratch/ of state_route not mounted: it is a StateBackend")
        for note in extensions.listing().notes
    )


def test_a_plugin_entry_that_is_a_symlink_loop_is_one_line_not_a_crash(tmp_path: Path) -> None:
    """Deep Agents Code's manifest reader catches a path that cannot be resolved (a symlink loop:
    ``RuntimeError`` up to Python 3.12, ``OSError`` after); deepnb says so as it does for any
    other mistake of the manifest."""
    manifest = {
        "name": "p",
        "version": "1",
        "extensions": {"com.langchain.deepagents.code": {"pythonExtensions": ["./loop.py", "./ext.py"]}},
    }
    folder = plugin(tmp_path / "p", manifest, where="plugin.json")
    write(folder / "ext.py", "def extension(d):\n    pass\n")
    (folder / "loop.py").symlink_to(folder / "loop.py")
    loaded = extensions.load(folder)
    assert [(source.label, error) for source, error in loaded] == [
        ("p", None),
        ("p", "Plugin p: pythonExtensions entry './loop.py' cannot be resolved (a symlink loop?)."),
    ]
