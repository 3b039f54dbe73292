"""Extensions: each registration method in real runs, all-or-nothing loading, route rules,
trust, entry points, the user folder, shutdown callbacks, and the magics."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError

import deepnb
from deepnb import extensions
from deepnb.extensions.registry import REGISTRY
from deepnb.models.resolve import online_environment
from deepnb.models.scripted import ScriptedChatModel, parse_script
from deepnb.session import building
from tests.support.agents import tool_messages, unique, write
from tests.support.fresh_session import fresh_session
from tests.support.lab_sanitizer import unstyled
from tests.support.waiting import WAIT

SUPPORT = Path(__file__).parents[1] / "support" / "extensions"


class RecordingModel(ScriptedChatModel):
    """A scripted model that notes the tool names bound for each model call."""

    bound: list[list[str]]

    def bind_tools(self, tools: Any, **kwargs: Any) -> RecordingModel:
        self.bound.append(sorted(getattr(t, "name", "") for t in tools))
        return self


def recording(main: list[Any]) -> RecordingModel:
    return RecordingModel(script=parse_script({"agents": {"main": main}}), bound=[])


SHOUTS = [
    {"tool_calls": [{"name": "shout", "args": {"text": "tide"}}]},
    {"tool_calls": [{"name": "write_file", "args": {"file_path": "/scratch/note.md", "content": "kelp"}}]},
    "Done.",
]


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Each test in its own project (the temporary folder) and deepnb home, no extensions."""
    for name in (*online_environment(), "DEEPNB_EXTENSIONS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DEEPNB_HOME", str(tmp_path / "home"))
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    with fresh_session():
        yield


def echo_extension(tool: str) -> str:
    """An extension that registers one echo tool named ``tool``."""
    return (
        f"async def extension(d):\n    def {tool}(x: str) -> str:\n        'Echo.'\n        return x\n"
        f"    d.register_tool({tool})\n"
    )


def kinds() -> list[tuple[str, str]]:
    return [(r.kind, r.name) for r in REGISTRY.registrations]


# -- each method, in a run -----------------------------------------------------------------------


def test_tool_middleware_route_and_shutdown_from_one_file(tmp_path: Path) -> None:
    [(source, error)] = extensions.load(SUPPORT / "notebook_tools.py")
    assert error is None and source.origin == "notebook"
    assert kinds() == [
        ("tool", "shout"),
        ("middleware", "call_log"),
        ("route", "/scratch/"),
        ("shutdown", "<lambda>"),
        ("shutdown", "goodbye"),
    ]
    model = recording(SHOUTS)
    bench = deepnb.agent(unique("ext"), model)
    run = bench.run("Shout tide, then write a note.").wait(WAIT)
    assert run.status == "done", run.error
    assert tool_messages(bench, run.thread_id)[0] == ("shout", "TIDE!")
    assert all("shout" in names for names in model.bound)  # offered on every model call
    assert (tmp_path / "calls.log").read_text().count("model call") == 3  # the middleware ran
    assert (tmp_path / "scratch" / "note.md").read_text() == "kelp"  # written through the route
    assert "/scratch/" in [e.path for e in run.files.ls("/")]
    assert run.files["/scratch/note.md"] == "kelp"

    assert extensions.shutdown() == []
    assert (tmp_path / "shutdown.log").read_text().splitlines() == ["async goodbye", "sync goodbye"]
    assert extensions.shutdown() == []  # once only
    assert (tmp_path / "shutdown.log").read_text().count("goodbye") == 2


def test_a_tool_loaded_after_the_agent_was_built_reaches_its_next_model_call(tmp_path: Path) -> None:
    model = recording(
        [
            {"match": "hello", "turns": ["Nothing to shout yet."]},
            {"match": "Shout", "turns": [*SHOUTS[:1], "Shouted."]},
        ]
    )
    name = unique("late")
    bench = deepnb.agent(name, model)
    assert bench.run("hello").wait(WAIT).result == "Nothing to shout yet."
    assert "shout" not in model.bound[-1]

    extensions.load(SUPPORT / "notebook_tools.py")
    assert name in extensions.listing().reload_needed  # the middleware and route are not in it yet
    run = bench.run("Shout tide.").wait(WAIT)
    assert run.status == "done", run.error
    assert "shout" in model.bound[-1]
    assert tool_messages(bench, run.thread_id)[-1] == ("shout", "TIDE!")
    assert not (tmp_path / "calls.log").exists()
    assert "/scratch/" not in [e.path for e in run.files.ls("/")]

    [rebuilt] = building.reload(name)
    assert name not in extensions.listing().reload_needed
    assert "/scratch/" in [e.path for e in rebuilt.files(run.thread_id).ls("/")]
    assert len(rebuilt.state_values(run.thread_id)["messages"]) > 4  # threads kept


def test_a_tool_registered_after_setup_is_installed_at_once() -> None:
    extensions.load(SUPPORT / "pkg_ext")
    api = next(iter(REGISTRY.loaded.values()))

    def whisper(text: str) -> str:
        """Return the text in lower case."""
        return text.lower()

    api.register_tool(whisper)
    assert ("tool", "whisper") in kinds()
    assert extensions.listing().reload_needed == ()  # tools need no rebuild


def test_a_package_folder_imports_its_own_modules() -> None:
    [(source, error)] = extensions.load(SUPPORT / "pkg_ext")
    assert error is None and source.package and source.label == "pkg_ext"
    bench = deepnb.agent(
        unique("pkg"), recording([{"tool_calls": [{"name": "greet", "args": {"name": "Ada"}}]}, "ok"])
    )
    run = bench.run("greet Ada").wait(WAIT)
    assert tool_messages(bench, run.thread_id) == [("greet", "Hello, Ada.")]


def test_an_extension_written_for_deep_agents_code_loads_unchanged() -> None:
    assert "deepagents_code" not in sys.modules
    [(_, error)] = extensions.load(SUPPORT / "dcode_memory.py")
    assert error is None
    assert kinds() == [("route", "/memories/")]
    assert "deepagents_code" not in sys.modules  # its names were there only while it loaded
    api = next(iter(REGISTRY.loaded.values()))
    assert (api.mode, api.has_ui, api.path) == ("notebook", False, SUPPORT / "dcode_memory.py")
    assert api.cwd == Path.cwd()


# -- all or nothing ------------------------------------------------------------------------------


def test_a_failing_extension_leaves_nothing_registered_and_is_listed(tmp_path: Path) -> None:
    [(_, error)] = extensions.load(SUPPORT / "broken.py")
    assert "boom after registering" in error
    assert kinds() == []
    listing = extensions.listing()
    assert listing.failures == ((str(SUPPORT / "broken.py"), error),)
    assert "broken.py" in repr(listing) and "nothing of them registered" in repr(listing)
    bench = deepnb.agent(unique("clean"), recording(["ok"]))
    assert "half_done" not in bench.graph.nodes["tools"].bound.tools_by_name
    assert "/half/" not in [e.path for e in bench.files().ls("/")]
    extensions.shutdown()
    assert not (tmp_path / "broken-shutdown.log").exists()  # its callback was never registered


def test_a_folder_loads_each_extension_and_isolates_the_failure() -> None:
    results = {source.label: error for source, error in extensions.load(SUPPORT)}
    assert set(results) == {"broken", "dcode_memory", "notebook_tools", "pkg_ext"}
    assert [n for n, e in results.items() if e] == ["broken"]
    assert ("tool", "shout") in kinds() and ("tool", "greet") in kinds()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("def extension(d:\n", "Failed to import"),
        ("x = 1\n", "does not define an 'extension(d)' function"),
        ("import no_such_module_xyz\n", "No module named 'no_such_module_xyz'"),
        ("async def extension(d):\n    d.register_tool(42)\n", "Could not turn 42 into a tool"),
        ("async def extension(d):\n    d.register_middleware(object)\n", "must be an AgentMiddleware"),
        ("async def extension(d):\n    d.on_shutdown('later')\n", "not callable"),
        ("async def extension(d):\n    raise SystemExit(3)\n", "attempted to exit (SystemExit: 3)"),
    ],
)
def test_import_and_setup_mistakes_are_listed(tmp_path: Path, text: str, expected: str) -> None:
    path = write(tmp_path / "mistake.py", text)
    [(_, error)] = extensions.load(path)
    assert expected in error
    assert kinds() == []


def test_loading_a_path_again_replaces_its_registrations_and_runs_its_old_callbacks(tmp_path: Path) -> None:
    extensions.load(SUPPORT / "notebook_tools.py")
    extensions.load(SUPPORT / "notebook_tools.py")
    assert [k for k in kinds() if k[0] == "tool"] == [("tool", "shout")]
    assert (tmp_path / "shutdown.log").read_text().count("goodbye") == 2


def test_a_name_taken_first_wins_and_the_second_is_noted(tmp_path: Path) -> None:
    extensions.load(SUPPORT / "notebook_tools.py")
    write(
        tmp_path / "again.py",
        echo_extension("shout"),
    )
    [(_, error)] = extensions.load(tmp_path / "again.py")
    assert error is None
    assert [k for k in kinds() if k[0] == "tool"] == [("tool", "shout")]
    assert "tool 'shout' from again ignored: notebook_tools registered it first" in extensions.listing().notes


# -- routes --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("prefix", "expected"),
    [
        ("scratch/", "Invalid backend route prefix 'scratch/': use a lowercase absolute path with slashes"),
        ("/scratch", "such as '/scratch/'"),
        ("/Scratch/", "Invalid backend route prefix '/Scratch/'"),
        ("/", "Invalid backend route prefix '/'"),
        ("/a//b/", "Invalid backend route prefix"),
        ("/../etc/", "Invalid backend route prefix"),
        ("/conversation_history/x/", "overlaps '/conversation_history/', where summarization keeps"),
        ("/conversation_history/", "overlaps '/conversation_history/'"),
        ("/large_tool_results/", "large tool results (artifacts)"),
        ("/blobs/raw/", "binary content (artifacts)"),
    ],
)
def test_bad_route_prefixes_are_refused(tmp_path: Path, prefix: str, expected: str) -> None:
    path = write(
        tmp_path / "route.py",
        f"""
        from deepagents.backends import StateBackend
        async def extension(d):
            d.register_backend_route({prefix!r}, StateBackend())
        """,
    )
    [(_, error)] = extensions.load(path)
    assert expected in error
    assert kinds() == []


def test_an_overlapping_route_is_skipped_first_wins_and_non_backends_are_refused(tmp_path: Path) -> None:
    route = (
        "from deepagents.backends import StateBackend\n"
        "async def extension(d):\n    d.register_backend_route({!r}, StateBackend())\n"
    )
    write(tmp_path / "first.py", route.format("/data/"))
    write(tmp_path / "second.py", route.format("/data/raw/"))
    write(tmp_path / "third.py", "async def extension(d):\n    d.register_backend_route('/x/', {})\n")
    results = {s.label: e for s, e in extensions.load(tmp_path / "first.py")}
    results |= {s.label: e for s, e in extensions.load(tmp_path / "second.py")}
    results |= {s.label: e for s, e in extensions.load(tmp_path / "third.py")}
    assert results["first"] is None
    assert results["second"] is None  # the first registration wins, as in Deep Agents Code
    assert extensions.listing().notes == (
        "route '/data/raw/' from second skipped: it overlaps '/data/', which first registered first",
    )
    assert "got dict, which is not a deepagents BackendProtocol" in results["third"]
    assert kinds() == [("route", "/data/")]


def test_an_agents_own_routes_and_artifacts_root_win_over_extension_routes(tmp_path: Path) -> None:
    from deepagents.backends import CompositeBackend, FilesystemBackend, StateBackend

    extensions.load(SUPPORT / "notebook_tools.py")
    own = CompositeBackend(
        StateBackend(), {"/scratch/": FilesystemBackend(root_dir=tmp_path, virtual_mode=True)}
    )
    name = unique("own")
    bench = deepnb.agent(name, recording(["ok"]), backend=own)
    assert bench.spec.options["backend"].routes["/scratch/"] is own.routes["/scratch/"]
    notes = extensions.listing().notes
    assert (
        f"agent {name!r}: route /scratch/ of notebook_tools not mounted: it overlaps /scratch/, "
        "a route of the agent's own backend" in notes
    )

    other = deepnb.agent(
        unique("root"),
        recording(["ok"]),
        backend=CompositeBackend(StateBackend(), {}, artifacts_root="/scratch"),
    )
    assert "/scratch/" not in other.spec.options["backend"].routes
    assert bench.declared_spec.options["backend"] is own  # rebuilds start from what was declared


# -- sources -------------------------------------------------------------------------------------


def test_untrusted_project_extensions_do_not_run_until_trusted(tmp_path: Path) -> None:
    write(
        tmp_path / ".deepnb" / "extensions" / "side_effect.py",
        """
        from pathlib import Path
        Path("side-effect.txt").write_text("imported")
        async def extension(d):
            def project_tool(x: str) -> str:
                "Echo."
                return x
            d.register_tool(project_tool)
        """,
    )
    listing = extensions.listing()
    assert listing.untrusted == (tmp_path / ".deepnb" / "extensions",)
    assert "Not trusted" in repr(listing) and "%deepagent trust" in repr(listing)
    deepnb.agent(unique("untrusted"), recording(["ok"]))
    assert not (tmp_path / "side-effect.txt").exists()
    assert kinds() == []

    root, results = extensions.trust()
    assert root == tmp_path.resolve() and [e for _, e in results] == [None]
    assert (tmp_path / "side-effect.txt").exists()
    assert kinds() == [("tool", "project_tool")]
    assert extensions.listing().untrusted == ()
    assert str(tmp_path.resolve()) in (tmp_path / "home" / "trusted.json").read_text()

    extensions.shutdown()  # a new session: the trust is remembered
    (tmp_path / "side-effect.txt").unlink()
    extensions.ensure_loaded()
    assert (tmp_path / "side-effect.txt").exists() and kinds() == [("tool", "project_tool")]
    assert REGISTRY.registrations[0].source.origin == "project"

    # Taking the trust back unloads them now and keeps them from loading in later sessions.
    root, was_trusted, unloaded, errors = extensions.revoke_trust()
    assert (root, was_trusted, unloaded, errors) == (tmp_path.resolve(), True, ["side_effect"], [])
    assert kinds() == []
    assert extensions.listing().untrusted == (tmp_path / ".deepnb" / "extensions",)
    assert str(tmp_path.resolve()) not in (tmp_path / "home" / "trusted.json").read_text()
    extensions.shutdown()
    (tmp_path / "side-effect.txt").unlink()
    extensions.ensure_loaded()
    assert not (tmp_path / "side-effect.txt").exists() and kinds() == []
    assert extensions.revoke_trust()[1] is False  # not trusted any more: nothing to take back


def test_the_given_line_follows_project_extensions_loaded_after_the_agent_was_built(tmp_path: Path) -> None:
    """Trusting the project loads its extensions into an agent already built (their tools reach
    its next model call): the run's "Given" lists them then, and not once they are unloaded."""
    write(tmp_path / ".deepnb" / "extensions" / "late.py", echo_extension("project_tool"))
    model = recording(["one", "two", "three"])
    bench = deepnb.agent(unique("given-late"), model)
    assert "project_tool" not in bench.run("first").wait(WAIT).state.given["tools"]["main"]

    extensions.trust()
    run = bench.run("second").wait(WAIT)
    assert "project_tool" in model.bound[-1]  # what the model was offered ...
    assert "project_tool" in run.state.given["tools"]["main"]  # ... is what the view says it was given

    extensions.revoke_trust()
    run = bench.run("third").wait(WAIT)
    assert "project_tool" not in model.bound[-1]
    assert "project_tool" not in run.state.given["tools"]["main"]


def test_the_user_folder_loads_when_the_first_agent_is_built(tmp_path: Path) -> None:
    write(
        tmp_path / "home" / "extensions" / "mine.py",
        echo_extension("mine"),
    )
    assert kinds() == []
    bench = deepnb.agent(unique("user"), recording(["ok"]))
    assert kinds() == [("tool", "mine")] and REGISTRY.registrations[0].source.origin == "user"
    assert "mine" in bench.graph.nodes["tools"].bound.tools_by_name


def test_extensions_can_be_turned_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "home" / "extensions" / "mine.py", "raise RuntimeError('must not run')\n")
    monkeypatch.setenv("DEEPNB_EXTENSIONS", "0")
    assert extensions.listing().failures == ()
    assert kinds() == []


def test_entry_points_load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    write(
        site / "deepnb_ep_demo" / "__init__.py",
        echo_extension("from_ep"),
    )
    write(
        site / "deepnb_ep_demo-1.0.dist-info" / "METADATA",
        "Metadata-Version: 2.1\nName: deepnb-ep-demo\nVersion: 1.0\n",
    )
    write(
        site / "deepnb_ep_demo-1.0.dist-info" / "entry_points.txt",
        "[deepnb.extensions]\ndemo = deepnb_ep_demo\n",
    )
    monkeypatch.syspath_prepend(str(site))
    listing = extensions.listing()
    assert kinds() == [("tool", "from_ep")]
    assert listing.registrations[0][2:] == ("demo", "entry point: entry point demo = deepnb_ep_demo")


# -- shutdown ------------------------------------------------------------------------------------


def test_shutdown_errors_are_reported_not_raised(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(
        tmp_path / "hooks.py",
        """
        async def extension(d):
            log = d.cwd / "hooks.log"
            d.on_shutdown(lambda: log.open("a").write("first\\n"))
            def fails():
                raise ValueError("cannot close")
            d.on_shutdown(fails)
        """,
    )
    extensions.load(path)
    errors = extensions.shutdown()
    assert errors == ["shutdown callback of hooks failed: ValueError: cannot close"]
    assert "deepnb: shutdown callback of hooks failed" in capsys.readouterr().err
    assert (tmp_path / "hooks.log").read_text() == "first\n"  # the others still ran


def test_shutdown_callbacks_run_once_at_kernel_exit(tmp_path: Path) -> None:
    code = textwrap.dedent(
        f"""
        from deepnb import extensions
        extensions.load({str(SUPPORT / "notebook_tools.py")!r})
        """
    )
    env = {**__import__("os").environ, "DEEPNB_HOME": str(tmp_path / "home")}
    subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, check=True, timeout=120)
    assert (tmp_path / "shutdown.log").read_text().splitlines() == ["async goodbye", "sync goodbye"]


# -- magics --------------------------------------------------------------------------------------


def test_magics_load_list_trust_and_reload(ip: Any, tmp_path: Path) -> None:
    ip.user_ns["script"] = str(tmp_path)
    name = unique("magic")
    deepnb.agent(name, recording(["ok"]))
    loaded = ip.run_line_magic("deepagent", f"extension {SUPPORT / 'notebook_tools.py'}")
    text = repr(loaded)
    assert text.startswith(
        "Loaded extension notebook_tools: tool shout, middleware call_log, route /scratch/"
    )
    assert f"Run %deepagent reload to give {name}" in text

    listing = ip.run_line_magic("deepagent", "extensions")
    assert listing.registrations[0][:3] == ("tool", "shout", "notebook_tools")
    assert f"Reload needed for {name}" in repr(listing)
    assert "<td>shout</td>" in unstyled(listing._repr_html_())

    failed = ip.run_line_magic("deepagent", f"extension {SUPPORT / 'broken.py'}")
    assert "Extension broken failed, nothing of it is registered" in repr(failed)
    with pytest.raises(UsageError, match=r"No extension at 'nope\.py'"):
        ip.run_line_magic("deepagent", "extension nope.py")

    rebuilt = ip.run_line_magic("deepagent", f"reload -a {name}")
    assert repr(rebuilt) == f"Rebuilt {name} with the current extensions (threads kept)."
    assert name not in ip.run_line_magic("deepagent", "extensions").reload_needed

    write(
        tmp_path / ".deepnb" / "extensions" / "proj.py", "async def extension(d):\n    d.on_shutdown(print)\n"
    )
    trusted = ip.run_line_magic("deepagent", "trust")
    assert repr(trusted).startswith(f"Trusted {tmp_path.resolve()}: its .deepnb/extensions/ run from now on.")
    assert "Loaded extension proj: shutdown print." in repr(trusted)
    revoked = ip.run_line_magic("deepagent", "trust --revoke")
    assert repr(revoked).splitlines()[:2] == [
        f"{tmp_path.resolve()} is no longer trusted: its .deepnb/extensions/ will not run.",
        "Unloaded proj; their tools leave the next model call.",
    ]
    again = ip.run_line_magic("deepagent", "trust --revoke")
    assert repr(again) == f"{tmp_path.resolve()} was not trusted: nothing changed."
    assert "%deepagent extension PATH" in repr(ip.run_line_magic("deepagent", "help"))


def test_unload_ext_runs_shutdown_callbacks_once(ip: Any, tmp_path: Path) -> None:
    ip.run_line_magic("deepagent", f"extension {SUPPORT / 'notebook_tools.py'}")
    try:
        ip.run_line_magic("unload_ext", "deepnb")
        ip.run_line_magic("unload_ext", "deepnb")  # (IPython says it is not loaded)
    finally:
        ip.run_line_magic("load_ext", "deepnb")
    assert (tmp_path / "shutdown.log").read_text().splitlines() == ["async goodbye", "sync goodbye"]
    assert kinds() == []


# -- a tool named like a built-in ----------------------------------------------------------------

READ_FILE_EXTENSION = """
def extension(d):
    def read_file(file_path: str, pages: int = 1) -> str:
        '''Read a page of a file from the extension's store.'''
        return f"extension read {file_path}"

    d.register_tool(read_file)
"""


class SchemaRecordingModel(ScriptedChatModel):
    """A scripted model that notes each bound tool's name and description."""

    bound: list[list[tuple[str, str]]]

    def bind_tools(self, tools: Any, **kwargs: Any) -> SchemaRecordingModel:
        self.bound.append(sorted((getattr(t, "name", ""), getattr(t, "description", "")) for t in tools))
        return self


def test_the_built_in_tool_names_are_the_tools_deepagents_gives_an_agent() -> None:
    from deepnb.extensions.hosting import BUILT_IN_TOOLS

    bench = deepnb.agent(unique("plain"), recording(["ok"]))
    assert set(bench.graph.nodes["tools"].bound.tools_by_name) == BUILT_IN_TOOLS


@pytest.mark.parametrize("when", ["before the agent is built", "after"])
def test_an_extension_tool_named_like_a_built_in_replaces_it(tmp_path: Path, when: str) -> None:
    path = write(tmp_path / "reader.py", READ_FILE_EXTENSION)
    script = [{"tool_calls": [{"name": "read_file", "args": {"file_path": "/x.md"}}]}, "Done."]
    model = SchemaRecordingModel(script=parse_script({"agents": {"main": script}}), bound=[])
    name = unique("reader")
    if when == "after":
        bench = deepnb.agent(name, model)
        extensions.load(path)
    else:
        extensions.load(path)
        bench = deepnb.agent(name, model)
    run = bench.run("read").wait(WAIT)
    assert run.status == "done", run.error
    assert tool_messages(bench, run.thread_id) == [("read_file", "extension read /x.md")]
    for call in model.bound:  # every model call: one read_file, the extension's
        readers = [description for tool, description in call if tool == "read_file"]
        assert readers == ["Read a page of a file from the extension's store."]
    anatomy = bench.inspect()
    main, *subagents = anatomy.agents
    assert [s for n, s in main.tools if n == "read_file"] == [
        "Read a page of a file from the extension's store."
    ]
    assert "read_file is an extension's tool, in place of the built-in one." in main.notes
    for subagent in subagents:  # subagents keep the built-in, once
        assert len([n for n, _ in subagent.tools if n == "read_file"]) == 1
    if when != "after":
        assert (
            f"agent {name!r}: tool read_file of reader replaces the built-in read_file on the main agent "
            "(its subagents keep the built-in)" in extensions.listing().notes
        )


# -- commands ------------------------------------------------------------------------------------

COMMANDS_EXTENSION = """
import asyncio
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from deepagents_code.extensions import CommandContext, ExtensionAPI


def words(ctx: CommandContext) -> str:
    return f"{len(ctx.args.split())} words in {ctx.cwd.name} ({ctx.mode})"


async def later(ctx: CommandContext) -> str:
    await asyncio.sleep(0)
    return f"later: {ctx.args or 'nothing'}"


def quiet(ctx: CommandContext) -> None:
    return None


def broken(ctx: CommandContext) -> str:
    raise ValueError("no such date")


def extension(d: ExtensionAPI) -> None:
    d.register_command("words", words, description="Count the words after it")
    d.register_command("/Later", later)
    d.register_command("quiet", quiet)
    d.register_command("broken", broken)
    d.register_command("words", words)  # taken: registered as words-2, as Deep Agents Code does
"""


def test_an_extension_command_runs_from_the_line_magic(ip: Any, tmp_path: Path) -> None:
    loaded = ip.run_line_magic("deepagent", f"extension {write(tmp_path / 'cmds.py', COMMANDS_EXTENSION)}")
    assert "command words, command later, command quiet, command broken, command words-2" in repr(loaded)
    assert extensions.commands() == {
        "words": "Count the words after it",
        "later": "",
        "quiet": "",
        "broken": "",
        "words-2": "",
    }
    said = ip.run_line_magic("deepagent", "/words the tide is out")
    assert repr(said) == f"4 words in {tmp_path.name} (notebook)"
    assert repr(ip.run_line_magic("deepagent", "/later")) == "later: nothing"
    assert repr(ip.run_line_magic("deepagent", "/quiet")) == "/quiet ran (it said nothing)."
    with pytest.raises(UsageError, match=r"^/broken of cmds failed: ValueError: no such date$"):
        ip.run_line_magic("deepagent", "/broken today")
    with pytest.raises(UsageError, match=r"No extension command /nope \(/words, /later, .*\): %deepagent"):
        ip.run_line_magic("deepagent", "/nope")
    assert "%deepagent /NAME [ARGS]" in repr(ip.run_line_magic("deepagent", "help"))


@pytest.mark.parametrize("name", ["", "Two words", "../x", "-dash"])
def test_a_command_name_that_is_not_a_slug_is_refused(tmp_path: Path, name: str) -> None:
    path = write(tmp_path / "bad.py", f"def extension(d):\n    d.register_command({name!r}, print)\n")
    [(_, error)] = extensions.load(path)
    assert error is not None and "Invalid command name" in error and kinds() == []
