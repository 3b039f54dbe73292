"""Runtime context (user ids, roles, credentials) reaches the agent's tools at each run, is
checked against the graph's ``context_schema`` with one message before anything starts, and is
shown only by its keys: never its values, never in a recording."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, TypedDict

import pytest
from IPython.core.error import UsageError
from langchain.tools import ToolRuntime
from langchain_core.tools import tool
from pydantic import BaseModel

import deepnb
from deepnb.core.errors import DeepnbError
from deepnb.session import agents
from deepnb.views.run.snapshot import snapshot_html, snapshot_text
from tests.support.agents import scripted, tool_messages, unique
from tests.support.waiting import WAIT

SECRET = "sk-ctx-0123456789abcdefghijklmnopqrstuv"


@dataclass
class Caller:
    user_id: str
    role: str = "reader"
    token: str = ""


@tool
def whoami(runtime: ToolRuntime[Caller]) -> str:
    """Who is calling, as the runtime context says."""
    context = runtime.context
    return f"{context.user_id} ({context.role}, token {'set' if context.token else 'unset'})"


CALLS_WHOAMI = {"main": [{"tool_calls": [{"name": "whoami", "args": {}}]}, "Done."]}


@pytest.fixture(autouse=True)
def forget() -> Any:
    yield
    agents.forget_all()


def caller_agent(**options: Any) -> Any:
    return deepnb.agent(
        unique("ctx"), scripted(CALLS_WHOAMI), tools=[whoami], context_schema=Caller, **options
    )


def test_the_context_reaches_the_tools_and_only_its_keys_are_shown() -> None:
    bench = caller_agent()
    run = bench.start("who am I?", context={"user_id": "ada", "role": "admin", "token": SECRET}).wait(WAIT)
    assert run.status == "done", run.error
    assert tool_messages(bench, run.thread_id) == [("whoami", "ada (admin, token set)")]
    notices = [i["text"] for i in run.state.items if i["kind"] == "notice"]
    assert notices == ["Runtime context given: user_id, role, token (values not shown)."]
    state = run.state.to_json()
    shown = json.dumps(state) + snapshot_html(state) + snapshot_text(state)
    assert SECRET not in shown  # (the tool said "admin" itself: what a tool returns is its own)
    assert all("Context" not in type(event).__name__ for event in run.log)  # never recorded
    assert SECRET not in repr(run)


def test_a_context_the_schema_refuses_is_one_message_and_nothing_runs() -> None:
    bench = caller_agent()
    with pytest.raises(DeepnbError) as lacking:
        bench.start("who?", context={"role": "admin"})
    assert str(lacking.value) == (
        f"Agent {bench.name!r}'s runtime context lacks user_id: its context_schema Caller takes "
        "user_id, role (optional), token (optional). Pass context={...} (%%deepagent --context VAR, "
        "or a context table in deepnb.toml)."
    )
    with pytest.raises(DeepnbError, match=r"has keys it does not take \(colour\)"):
        bench.start("who?", context={"user_id": "ada", "colour": "red"})
    with pytest.raises(DeepnbError, match="lacks user_id"):
        bench.start("who?")  # the schema's defaults do not make one: it is required
    with pytest.raises(DeepnbError, match="Runtime context is a dict of keys, not a list"):
        bench.start("who?", context=["ada"])  # type: ignore[arg-type]
    assert bench.threads() == []  # nothing started, no thread written


class CallerModel(BaseModel):
    user_id: str
    role: str = "reader"


class CallerDict(TypedDict):
    user_id: str
    role: str


@pytest.mark.parametrize("schema", [CallerModel, CallerDict], ids=["pydantic", "typeddict"])
def test_a_pydantic_or_typeddict_schema_checks_the_context_too(schema: type) -> None:
    bench = deepnb.agent(unique("ctx"), scripted({"main": ["Done."]}), context_schema=schema)
    with pytest.raises(
        DeepnbError, match=f"lacks user_id: its context_schema {schema.__name__} takes user_id"
    ):
        bench.start("who?", context={"role": "admin"})
    with pytest.raises(DeepnbError, match=r"has keys it does not take \(colour\)"):
        bench.start("who?", context={"user_id": "ada", "role": "admin", "colour": "red"})
    run = bench.start("who?", context={"user_id": "ada", "role": "admin"}).wait(WAIT)
    assert run.status == "done", run.error


def test_the_agents_own_context_is_under_the_runs() -> None:
    bench = caller_agent(context={"user_id": "ada", "role": "writer"})
    first = bench.start("who?").wait(WAIT)
    second = bench.start("who?", new_thread=True, context={"role": "admin"}).wait(WAIT)
    assert tool_messages(bench, first.thread_id) == [("whoami", "ada (writer, token unset)")]
    assert tool_messages(bench, second.thread_id) == [("whoami", "ada (admin, token unset)")]


def test_a_schema_whose_defaults_make_a_context_needs_none() -> None:
    @dataclass
    class Defaults:
        user_id: str = "anonymous"
        role: str = "reader"
        token: str = ""

    bench = deepnb.agent(unique("ctx"), scripted(CALLS_WHOAMI), tools=[whoami], context_schema=Defaults)
    run = bench.start("who?").wait(WAIT)
    assert tool_messages(bench, run.thread_id) == [("whoami", "anonymous (reader, token unset)")]
    assert [i for i in run.state.items if i["kind"] == "notice"] == []  # none was given


def test_every_run_of_a_batch_gets_the_context() -> None:
    bench = caller_agent()
    batch = bench.map(["one", "two"], context={"user_id": "grace"}).wait(WAIT)
    assert [tool_messages(bench, r.thread_id) for r in batch.runs] == [
        [("whoami", "grace (reader, token unset)")]
    ] * 2


def test_the_cell_takes_context_from_a_variable(ip: Any) -> None:
    bench = caller_agent()
    ip.user_ns["caller"] = {"user_id": "lin", "token": SECRET}
    with pytest.raises(UsageError, match="lacks user_id"):  # refused before anything ran
        ip.run_cell_magic("deepagent", f"-a {bench.name} -o r", "who am I?")
    ip.run_cell_magic("deepagent", f"-a {bench.name} --context caller -o r2", "who am I?")
    run = ip.user_ns["r2"].wait(WAIT)
    assert tool_messages(bench, run.thread_id) == [("whoami", "lin (reader, token set)")]
    with pytest.raises(UsageError, match="--context takes a variable that holds a dict"):
        ip.run_cell_magic("deepagent", f"-a {bench.name} --context nothing_here", "who?")


def test_a_deepnb_toml_context_table(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from deepnb.session.config import Key, parse_agent

    definition = parse_agent(
        {"model": "demo:quickstart", "context": {"user_id": "ada"}},
        Key("deepnb.toml", "agents.a"),
        base_dir=tmp_path,
    )
    assert definition.options["context"] == {"user_id": "ada"}
    with pytest.raises(DeepnbError, match="expected a table of runtime context keys"):
        parse_agent(
            {"model": "demo:quickstart", "context": "ada"}, Key("deepnb.toml", "agents.a"), base_dir=tmp_path
        )


def test_experiment_variants_can_differ_by_context(tmp_path: Any) -> None:
    bench = caller_agent()
    experiment = deepnb.experiment(
        ["who?"],
        agent=bench.name,
        variants={
            "ada": {"context": {"user_id": "ada"}},
            "lin": {"context": {"user_id": "lin", "role": "admin"}},
        },
        log=tmp_path / "log.jsonl",
    ).wait(WAIT)
    answers = {}
    for (_, variant, _), run in experiment.runs.items():
        answers[variant] = tool_messages(run.workbench, run.thread_id)
    assert answers == {
        "ada": [("whoami", "ada (reader, token unset)")],
        "lin": [("whoami", "lin (admin, token unset)")],
    }
