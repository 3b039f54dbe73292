"""The QuickJS interpreter: eval cards, tool calls from code (PTC), JS task() subagents as tree
nodes, and the REPL inspector reading a thread's globals without changing the thread."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

import deepnb
from deepnb.core.errors import DeepnbError
from deepnb.engine.interpreter import parse_eval
from deepnb.models.scripted import ScriptedChatModel, parse_script
from deepnb.views.run.snapshot import snapshot_bundle

pytest.importorskip("langchain_quickjs", reason="the interpreter extra: pip install 'deepnb[interpreter]'")

QUESTION = "Which station has the widest tidal range?"


def name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


@pytest.fixture(scope="module")
def demo_run() -> Any:
    wb = deepnb.agent(name("interp"), "demo:interpreter", interpreter={"ptc": ["write_file"]})
    run = wb.run(QUESTION).wait()
    assert run.status == "done", run.error
    return run


def test_each_eval_is_a_card_with_code_console_and_result(demo_run: Any) -> None:
    cards = [i for i in demo_run.state.items if i["kind"] == "tool"]
    assert [c["name"] for c in cards] == ["eval", "eval", "eval"]
    first, failed, fixed = (c["eval"] for c in cards)
    assert (
        first["code"].startswith("const readings = [")
        and '<span class="kd">const</span>' in first["code_html"]
    )
    assert (first["stdout"], first["result"], first["error"]) == (
        "3 stations loaded",
        "Monterey, Santa Cruz, Half Moon Bay",
        "",
    )
    assert cards[1]["status"] == "error" and failed["error_type"] == "TypeError"
    assert failed["error"].startswith("cannot read property 'toFixed' of undefined")
    assert (fixed["stdout"], fixed["result"]) == ("saved /tides/ranges.json", "Half Moon Bay: 2.05 m")

    text = snapshot_bundle(demo_run.state)["text/plain"]
    assert "    ! TypeError: cannot read property 'toFixed' of undefined" in text
    assert "    = Half Moon Bay: 2.05 m" in text
    html = snapshot_bundle(demo_run.state)["text/html"]
    assert 'class="dnb-tool dnb-eval"' in html and "TypeError: cannot read property" in html


def test_code_called_a_tool_through_ptc(demo_run: Any) -> None:
    assert '"station": "Half Moon Bay"' in demo_run.files["/tides/ranges.json"]
    assert demo_run.state.files_changed == ["/tides/ranges.json"]


def test_code_given_no_ptc_tools_has_no_filesystem_or_network() -> None:
    """SECURITY.md: interpreter code with no ``ptc`` tools and no ``task()`` runs inside QuickJS,
    with nothing that reaches a file or the network."""
    names = ["require", "process", "fetch", "XMLHttpRequest", "WebSocket", "std", "os", "Deno", "Bun"]
    code = f"{names!r}.map((n) => `${{n}}:${{typeof globalThis[n]}}`).join(' ')"
    script = [{"tool_calls": [{"name": "eval", "args": {"code": code}}]}, {"text": "Done."}]
    model = ScriptedChatModel(script=parse_script({"agents": {"main": script}}))
    run = deepnb.agent(name("sandbox"), model, interpreter=True).run("What can code reach?").wait()
    assert run.status == "done", run.error
    [card] = [i["eval"] for i in run.state.items if i["kind"] == "tool"]
    assert card["error"] == "" and card["result"] == " ".join(f"{n}:undefined" for n in names)


def test_the_inspector_reads_globals_and_evaluates_on_a_copy(demo_run: Any) -> None:
    repl = demo_run.interpreter
    values = repl.globals()
    assert set(values) == {"readings", "widest"}  # the interpreter's own globals are left out
    assert values["widest"] == {"station": "Half Moon Bay", "high": 1.8, "low": -0.25, "range": 2.05}
    assert [r["range"] for r in values["readings"]] == [1.83, 1.89, 2.05]
    assert repl.eval("readings.map((r) => r.station).length") == 3
    repl.eval("globalThis.scratch = 42; readings.length = 0")
    assert set(repl.globals()) == {"readings", "widest"}  # a copy: the thread is unchanged
    assert len(repl.globals()["readings"]) == 3
    with pytest.raises(DeepnbError, match="ReferenceError"):
        repl.eval("notDefined + 1")
    assert "widest = {'station': 'Half Moon Bay'" in repr(repl)
    assert "<code>readings</code>" in repl._repr_html_()


def test_a_thread_without_interpreter_state_says_so() -> None:
    wb = deepnb.agent(name("plain"), "demo:quickstart")
    run = wb.run("A brief")
    with pytest.raises(DeepnbError, match="has no interpreter state yet"):
        run.interpreter.globals()


def test_bad_interpreter_options_name_the_valid_ones() -> None:
    with pytest.raises(
        DeepnbError, match=r"Unknown interpreter option\(s\) colour: use memory_limit, timeout"
    ):
        deepnb.agent(name("bad"), "demo:interpreter", interpreter={"colour": "blue"})


def test_js_task_calls_become_subagent_nodes() -> None:
    def task(place: str) -> str:
        fields = f'description: "Find the {place} tide table", subagentType: "general-purpose"'
        return f'task({{ {fields}, label: "{place}" }})'

    code = f"const [a, b] = await Promise.all([{task('Monterey')}, {task('Santa Cruz')}]);\n`${{a}} | ${{b}}`"
    script = {
        "main": [
            {"text": "Two lookups from code.", "tool_calls": [{"name": "eval", "args": {"code": code}}]},
            "Both found.",
        ],
        "general-purpose": [
            {"match": "Monterey", "turns": ["High tide 06:12."]},
            {"match": "Santa Cruz", "turns": ["High tide 06:20."]},
        ],
    }
    model = ScriptedChatModel(script=parse_script({"agents": script}))
    run = deepnb.agent(name("jstask"), model, interpreter=True).run("tides").wait()
    assert run.status == "done", run.error
    nodes = {node.label: node for node in run.tree.children}
    assert set(nodes) == {"Monterey", "Santa Cruz"}
    assert {n.source for n in nodes.values()} == {"js"} and {n.status for n in nodes.values()} == {"done"}
    assert nodes["Monterey"].description == "Find the Monterey tide table"
    (card,) = [i for i in run.state.items if i["kind"] == "tool" and i["agent"] == "main"]
    assert card["eval"]["result"] == "High tide 06:12. | High tide 06:20."


def test_parse_eval_splits_and_unescapes() -> None:
    outcome = parse_eval('<stdout>\na &lt; b\n</stdout>\n<error type="RangeError">bad &amp; worse</error>')
    assert (outcome.stdout, outcome.error, outcome.error_type, outcome.result) == (
        "a < b",
        "bad & worse",
        "RangeError",
        "",
    )
    assert parse_eval("plain text").result == "plain text"
