"""The magics through IPython's own testing shell: real cells, real runs, the mime bundles shown."""

from __future__ import annotations

import ast
import asyncio
import re
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output

import deepnb
from deepnb.magics.magic import transform_cell
from deepnb.session import building
from tests.support.lab_sanitizer import unstyled

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
SENTINEL = "sk-test-SENTINEL-abcdefghijklmnop"


def run_cell(ip, source: str):
    """Run a cell; return (result, captured displays)."""
    with capture_output() as captured:
        result = ip.run_cell(source)
    return result, captured


def usage_error(result) -> str:
    assert isinstance(result.error_in_exec, UsageError), result.error_in_exec
    return str(result.error_in_exec)


def write_script(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "script.yaml"
    path.write_text(textwrap.dedent(text))
    return path


def test_load_ext_does_not_import_agent_libraries():
    code = (
        "import sys\n"
        "from IPython.testing.globalipapp import start_ipython\n"
        "ip = start_ipython()\n"
        "ip.run_line_magic('load_ext', 'deepnb')\n"
        "assert 'deepagent' in ip.magics_manager.magics['cell']\n"
        "import deepnb\n"
        "dir(deepnb), deepnb.extensions, deepnb.DeepnbError, deepnb.Files\n"
        "heavy = ('deepagents', 'langchain', 'langchain_core', 'langgraph', 'anywidget', 'ipywidgets')\n"
        "heavy = [m for m in heavy if m in sys.modules]\n"
        "print(heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"


LIGHT_AT_LOAD = {
    "deepnb.core.errors",
    "deepnb.core.failures",
    "deepnb.core.graphs.langsmith_inline",
    "deepnb.core.loop",
    "deepnb.core.text.bidi",
    "deepnb.core.text.safe_display",
    "deepnb.core.text.safe_regex",
    "deepnb.core.text.secrets",
}
"""What ``%load_ext deepnb`` may load beside the magics' own modules (not counting the packages'
faces): a new module here is a change to its cost, made on purpose."""


def test_load_ext_loads_only_the_magics_own_modules():
    """%load_ext deepnb registers the magics; the engine, the session layer, the views, extensions,
    remote agents and Pygments load with the first %deepagent that needs them."""
    code = (
        "import sys\n"
        "from IPython.testing.globalipapp import start_ipython\n"
        "ip = start_ipython()\n"
        "before = set(sys.modules)\n"
        "ip.run_line_magic('load_ext', 'deepnb')\n"
        "new = [m for m in set(sys.modules) - before if m.startswith(('deepnb', 'pygments'))]\n"
        "print(sorted(m for m in new if not sys.modules[m].__file__.endswith('__init__.py')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = ast.literal_eval(out.stdout.strip().splitlines()[-1])
    assert "deepnb.magics.magic" in loaded
    engine = (
        "deepnb.session.run",
        "deepnb.session.local",
        "deepnb.session.remote",
        "deepnb.extensions",
        "deepnb.views",
        "pygments",
    )
    assert [m for m in loaded if m.startswith(engine)] == []
    # the magics' own modules, their commands' handlers not among them; and these light ones
    assert [m for m in loaded if m.startswith("deepnb.magics.commands")] == []
    assert {m for m in loaded if not m.startswith("deepnb.magics.")} <= LIGHT_AT_LOAD, loaded


@pytest.mark.paced  # the first display must find the run still going
def test_cell_runs_the_demo_and_shows_live_view_and_snapshot(ip):
    result, captured = run_cell(ip, "%%deepagent -m demo:quickstart -o run\nWrite a brief on tide pools")
    assert result.error_in_exec is None
    run = ip.user_ns["run"]
    assert run.status == "done"
    assert run.result.startswith("## Life in a tide pool")
    assert [t["status"] for t in run.todos] == ["completed"] * 3
    assert "/notes/stresses.md" in run.files
    first, *updates = [o.data for o in captured.outputs if WIDGET_MIME in o.data]
    assert "running" in first["text/plain"]
    final = updates[-1]  # the display is updated in place when the run ends
    assert final[WIDGET_MIME]["model_id"] == first[WIDGET_MIME]["model_id"]
    assert "· done ·" in final["text/plain"] and "✓ Write the brief" in final["text/plain"]
    assert 'data-status="done"' in final["text/html"] and "<table>" in unstyled(final["text/html"])


def test_prompt_interpolates_kernel_variables(ip):
    ip.user_ns["topic"] = "kelp forests"
    run_cell(ip, "%%deepagent -m demo:quickstart -o run\nA brief on {topic}, not {{topic}}")
    assert ip.user_ns["run"].prompt == "A brief on kelp forests, not {topic}"
    run_cell(ip, "%%deepagent --no-interpolate -o raw\nKeep {topic} as is")
    assert ip.user_ns["raw"].prompt == "Keep {topic} as is"


@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        ("%%deepagent --nope\nhi", "Valid options: --model"),
        ("%%deepagent -m demo:quickstart\n   ", "The cell body is the task"),
        ("%%deepagent -m gpt4\nhi", "provider:model"),
        ("%%deepagent -m demo:nothing\nhi", "Unknown demo 'nothing': choose one of approvals, extensions,"),
        ("%%deepagent -a nobody\nhi", "%deepagent define nobody"),
        ("%%deepagent -m demo:quickstart\nuse {undefined_name}", "--no-interpolate"),
        ("%%deepagent -m demo:quickstart -t abc --new\nhi", "not both"),
        ("%deepagent frobnicate", "use one of help, define"),
        ("%deepagent", "needs a subcommand"),
        ("%deepagent use nobody", "No agent named 'nobody'"),
        ("%deepagent stop", "No agent named 'default'"),
    ],
)
def test_user_mistakes_give_one_clear_line(ip, cell, expected):
    result, _ = run_cell(ip, cell)
    message = usage_error(result)
    assert expected in message
    assert "\n" not in message


def test_no_model_configured_says_how_to_set_one(ip, monkeypatch):
    monkeypatch.delenv("DEEPNB_MODEL", raising=False)
    result, _ = run_cell(ip, "%%deepagent\nhi")
    message = usage_error(result)
    assert "DEEPNB_MODEL" in message and "demo:quickstart" in message


def test_deepnb_model_environment_variable_is_the_default(ip, monkeypatch):
    monkeypatch.setenv("DEEPNB_MODEL", "demo:quickstart")
    run_cell(ip, "%%deepagent -o run\nhi")
    assert ip.user_ns["run"].status == "done"


def test_background_run_returns_at_once_and_one_run_per_thread(ip, tmp_path):
    script = write_script(
        tmp_path,
        """
        delay: 0.05
        agents:
          main:
            - text: "counting one two three four five six seven eight nine ten eleven twelve"
            - text: "done"
        """,
    )
    result, _ = run_cell(ip, f"%%deepagent -m scripted:{script} --bg -o bg\ncount")
    assert result.error_in_exec is None
    run = ip.user_ns["bg"]
    assert run.status == "running"  # the cell returned while the run streams (≥ 0.65 s of tokens)

    again, _ = run_cell(ip, "%%deepagent -o second\ncount again")
    assert "already running" in usage_error(again)
    assert "--new" in usage_error(again)

    listed, _ = run_cell(ip, "%deepagent threads")
    assert listed.result.rows[0][4] == "running"
    stopped, _ = run_cell(ip, "%deepagent stop")
    assert stopped.result.run is run
    run.wait(10)
    assert run.status == "cancelled"
    assert "thread keeps everything" in run.state.items[-1]["text"]

    run_cell(ip, "%%deepagent -o after\ncount")
    assert ip.user_ns["after"].status == "done"
    assert ip.user_ns["after"].thread_id == run.thread_id


def test_model_failure_shows_error_card_without_secret_and_retry_continues(ip, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SENTINEL)
    script = write_script(
        tmp_path,
        f"""
        agents:
          main:
            - text: "Planning with key {SENTINEL}."
              tool_calls: [{{name: ls, args: {{path: /{SENTINEL}}}}}]
            - error: "upstream refused key {SENTINEL}"
            - text: "Recovered and finished."
        """,
    )
    result, captured = run_cell(ip, f"%%deepagent -m scripted:{script} -o failed\nDo the thing")
    assert result.error_in_exec is None  # a model failure is shown on the run, not raised
    failed = ip.user_ns["failed"]
    assert failed.status == "error"
    assert "RuntimeError: upstream refused key" in failed.error
    shown = repr([o.data for o in captured.outputs]) + repr(failed.state.to_json())
    assert SENTINEL not in shown
    assert "re-run the cell" in failed.error

    # The error turn is scripted once; re-running the same cell continues from the checkpoint.
    script.write_text(re.sub(r"\n *- error: .*", "", script.read_text()))
    run_cell(ip, f"%%deepagent -m scripted:{script} -o retried\nDo the thing")
    retried = ip.user_ns["retried"]
    assert retried.status == "done", retried.error
    assert retried.thread_id == failed.thread_id
    humans = [m for m in building.get().state_values(retried.thread_id)["messages"] if m.type == "human"]
    assert len(humans) == 1


def test_threads_new_agents_use_define_and_todos(ip, tmp_path):
    run_cell(ip, "%%deepagent -m demo:quickstart -o first\nA brief")
    new, _ = run_cell(ip, "%deepagent new")
    assert "New thread" in repr(new.result)
    run_cell(ip, "%%deepagent -o second\nAnother brief")
    second = ip.user_ns["second"]
    assert second.thread_id != ip.user_ns["first"].thread_id

    threads, _ = run_cell(ip, "%deepagent threads")
    table = threads.result
    assert [row[1] for row in table.rows] == [second.thread_id, ip.user_ns["first"].thread_id]
    assert table.rows[0][0] == "*"
    assert "<table" in table._repr_html_()

    db = tmp_path / "threads.db"
    defined, _ = run_cell(ip, f"%deepagent define writer -m demo:quickstart --checkpointer sqlite:{db}")
    assert "%deepagent use writer" in repr(defined.result)
    agents, _ = run_cell(ip, "%deepagent agents")
    assert {row[1] for row in agents.result.rows} == {"default", "writer"}
    run_cell(ip, "%deepagent use writer")
    run_cell(ip, "%%deepagent -o written\nA brief")
    assert ip.user_ns["written"].workbench.name == "writer"
    assert db.exists()

    todos, _ = run_cell(ip, "%deepagent todos")
    assert len(todos.result.items) == 3
    assert "✓ Write the brief" in repr(todos.result)
    tree, _ = run_cell(ip, "%deepagent tree")
    assert repr(tree.result) == "writer: no subagents ran."
    help_, _ = run_cell(ip, "%deepagent help")
    assert "%deepagent define NAME" in repr(help_.result)


def test_tree_shows_the_latest_runs_subagents(ip):
    run_cell(ip, "%%deepagent -m demo:research -o research --new\nA report on reefs")
    tree, _ = run_cell(ip, "%deepagent tree")
    assert tree.result.children == ip.user_ns["research"].tree.children
    text = repr(tree.result)
    assert text.startswith("Subagents (3):") and "general-purpose #3 [done]" in text
    assert "deepnb-tree" in tree.result._repr_html_()
    with pytest.raises(UsageError, match="has no thread 'nope': %deepagent threads lists"):
        ip.run_line_magic("deepagent", "tree -t nope")


def test_files_lists_a_folder_and_shows_a_file(ip):
    run_cell(ip, "%%deepagent -m demo:quickstart -o brief --new\nA brief")
    listing, _ = run_cell(ip, "%deepagent files")
    assert [e.path for e in listing.result.entries] == ["/notes/"]
    assert repr(listing.result).startswith("/ · 1 file\n  Path ")
    shown, _ = run_cell(ip, "%deepagent files /notes/stresses.md")
    assert shown.result.rendered.kind == "markdown"
    assert "<h1>Tide-pool stresses</h1>" in shown.result._repr_html_()
    assert repr(shown.result) == ip.user_ns["brief"].files["/notes/stresses.md"]
    with pytest.raises(
        UsageError, match=r"Nothing at /nope in this thread's files: %deepagent files / lists"
    ):
        ip.run_line_magic("deepagent", "files /nope")
    with pytest.raises(UsageError, match="climbs out"):
        ip.run_line_magic("deepagent", "files /../etc/passwd")


def test_interpreter_options_repl_and_js(ip):
    pytest.importorskip("langchain_quickjs")
    run_cell(ip, "%%deepagent -a js -m demo:interpreter --ptc write_file -o tides\nWidest tidal range?")
    assert ip.user_ns["tides"].status == "done"
    assert deepnb_workbench("js").spec.options["interpreter"] == {"ptc": ["write_file"]}
    repl, _ = run_cell(ip, "%deepagent repl -a js")
    assert set(repl.result.globals()) == {"readings", "widest"}
    value, _ = run_cell(ip, "%deepagent js -a js widest.station")
    assert value.result == "Half Moon Bay"
    with pytest.raises(UsageError, match="--ptc needs tool names"):
        ip.run_cell_magic("deepagent", "-a js --ptc ,", "x")


def deepnb_workbench(name: str):
    return building.get(name)


def test_changing_model_rebuilds_the_agent_and_keeps_its_threads(ip, tmp_path):
    run_cell(ip, "%%deepagent -m demo:quickstart -o first\nA brief")
    script = write_script(tmp_path, "agents:\n  main:\n    - text: 'Scripted answer.'\n")
    run_cell(ip, f"%%deepagent -m scripted:{script} -o second\nAnother")
    second = ip.user_ns["second"]
    assert second.result == "Scripted answer."
    assert second.thread_id == ip.user_ns["first"].thread_id
    assert len(building.get().state_values(second.thread_id)["messages"]) > 10


def test_model_may_be_a_kernel_variable(ip, tmp_path):
    from deepnb.models import ScriptedChatModel, parse_script

    ip.user_ns["my_model"] = ScriptedChatModel(
        script=parse_script({"agents": {"main": ["From a variable."]}})
    )
    run_cell(ip, "%%deepagent -m my_model -o run\nhi")
    assert ip.user_ns["run"].result == "From a variable."


def test_untrusted_text_is_escaped_in_the_snapshot(ip, tmp_path):
    script = write_script(
        tmp_path,
        """
        agents:
          main:
            - text: "<script>alert(1)</script>"
              tool_calls:
                - {name: write_file, args: {file_path: /x.html, content: "<img src=x onerror=alert(2)>"}}
            - text: "Done <img src=x onerror=alert(3)>"
        """,
    )
    _, captured = run_cell(ip, f"%%deepagent -m scripted:{script} -o run\n<b>prompt</b>")
    assert ip.user_ns["run"].status == "done"
    html = [o.data for o in captured.outputs if WIDGET_MIME in o.data][-1]["text/html"]
    assert "<script>alert" not in html and "<img src=x" not in html and "<b>prompt" not in html
    assert "&lt;img src=x onerror=alert(3)&gt;" in html


def test_transform_cell_turns_deepagent_cells_into_awaits():
    lines = ["%%deepagent -m demo:quickstart\n", "a 'quoted' task\n"]
    (code,) = transform_cell(lines)
    assert code.startswith("await get_ipython().find_cell_magic('deepagent').__self__.cell_async(")
    assert "\"a 'quoted' task\\n\"" in code
    assert transform_cell(["%%deepagentx\n"]) == ["%%deepagentx\n"]
    assert transform_cell(["print(1)\n"]) == ["print(1)\n"]


@pytest.mark.parametrize("written", ["-a {who} -o filled", "-a $who -o filled"])
def test_the_awaited_cell_fills_variables_in_its_line_as_ipython_does(ip, written: str) -> None:
    """A kernel runs a ``%%deepagent`` cell awaited (``transform_cell``), not through IPython's
    ``run_cell_magic``, which is what fills ``{expr}`` and ``$name`` in a magic's line."""
    ip.user_ns["who"] = f"vars-{len(written)}"
    magics = ip.find_cell_magic("deepagent").__self__
    with capture_output():
        asyncio.run(magics.cell_async(f"-m demo:quickstart {written}", "A brief on tide pools"))
    assert ip.user_ns["filled"].workbench.name == ip.user_ns["who"]
    assert ip.user_ns["filled"].status == "done"


def test_unload_removes_magics_and_transformer(ip):
    ip.run_line_magic("unload_ext", "deepnb")
    assert "deepagent" not in ip.magics_manager.magics["cell"]
    assert transform_cell not in ip.input_transformers_cleanup
    ip.run_line_magic("load_ext", "deepnb")


def test_interrupt_on_none_clears_the_kept_rule_and_agents_shows_it(ip: Any) -> None:
    name = f"sticky-{uuid.uuid4().hex[:6]}"
    ip.run_cell_magic(
        "deepagent", f"-a {name} -m demo:quickstart --interrupt-on write_file --bg -o first", "hi"
    )
    ip.user_ns["first"].stop()
    bench = deepnb.get(name)
    assert bench.declared_spec.options["interrupt_on"] == {"write_file": True}
    row = next(r for r in ip.run_line_magic("deepagent", "agents").rows if r[1] == name)
    assert row[5] == "--interrupt-on write_file (none clears it)"
    ip.run_cell_magic("deepagent", f"-a {name} --interrupt-on none -o second", "hi")
    assert deepnb.get(name).declared_spec.options["interrupt_on"] == {}
    assert ip.user_ns["second"].status == "done"
    row = next(r for r in ip.run_line_magic("deepagent", "agents").rows if r[1] == name)
    assert row[5] == "—"
