"""A project's database is data, never code: a committed ``threads.db`` whose checkpoint names a
module and a function in LangGraph's msgpack extension values (each kind of value that imports
and calls what it names) runs nothing when deepnb opens it — from the project's ``deepnb.toml``
before and after ``%deepagent trust``, and for every saver deepnb creates or opens (memory,
SQLite, Postgres). The control shows each payload is live: LangGraph's default serializer runs it."""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import ormsgpack
import pytest
from IPython.core.interactiveshell import InteractiveShell

import deepnb
from deepnb.core import trust
from deepnb.core.threads import checkpointers as checkpoint
from deepnb.session import agents
from tests.support.agents import unique

# LangGraph's msgpack extension codes whose value is (module, name, argument(s)) and which import
# ``module`` and call ``name`` (langgraph.checkpoint.serde.jsonplus): single argument, positional
# arguments, keyword arguments, a pydantic v1 model, a pydantic v2 model.
CALLING_CODES = {"single argument": 0, "positional": 1, "keywords": 2, "pydantic v1": 4, "pydantic v2": 5}
THREAD = "shipped-thread"


def payloads(folder: Path) -> dict[str, tuple[Any, Path]]:
    """One extension value per calling code, each making its own marker folder when called."""
    made: dict[str, tuple[Any, Path]] = {}
    for label, code in CALLING_CODES.items():
        marker = folder / f"ran-{code}"
        if code == 0:
            value: Any = ("os", "mkdir", str(marker))
        elif code == 1:
            value = ("os", "mkdir", (str(marker),))
        else:
            value = ("os", "makedirs", {"name": str(marker)})
        made[label] = (ormsgpack.Ext(code, ormsgpack.packb(value)), marker)
    return made


def write_thread(saver: Any, values: list[Any]) -> None:
    """Put a checkpoint holding ``values`` (and a pending write of them) on ``THREAD``."""
    from langchain_core.messages import HumanMessage
    from langgraph.checkpoint.base import empty_checkpoint

    config = {"configurable": {"thread_id": THREAD, "checkpoint_ns": ""}}
    version = saver.get_next_version(None, None)
    versions = {"messages": version, "notes": version}
    cp: dict[str, Any] = dict(empty_checkpoint())
    cp["channel_values"] = {"messages": [HumanMessage("Earlier.", id="h1")], "notes": values}
    cp["channel_versions"] = versions
    stored = saver.put(config, cp, {"source": "loop", "step": 1}, versions)
    saver.put_writes(stored, [("notes", values)], task_id="t1")


def ship_database(path: Path, values: list[Any]) -> None:
    """A ``threads.db`` written by LangGraph's own SQLite saver, as a project would commit it."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    connection = sqlite3.connect(str(path), check_same_thread=False)
    try:
        saver = SqliteSaver(connection)
        saver.setup()
        write_thread(saver, values)
    finally:
        connection.close()


@pytest.fixture
def markers(tmp_path: Path) -> Iterator[dict[str, tuple[Any, Path]]]:
    folder = tmp_path / "markers"
    folder.mkdir()
    yield payloads(folder)


def test_each_payload_is_live_under_langgraphs_default_serializer(
    markers: dict[str, tuple[Any, Path]],
) -> None:
    """The control: what the other tests refuse would run under LangGraph's default."""
    from langgraph.checkpoint.memory import InMemorySaver

    saver = InMemorySaver()
    write_thread(saver, [value for value, _ in markers.values()])
    saver.get_tuple({"configurable": {"thread_id": THREAD}})
    assert all(marker.exists() for _, marker in markers.values())


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "cloned"
    root.mkdir()
    (root / ".git").mkdir()
    (root / "deepnb.toml").write_text(
        '[agents.shipped]\nmodel = "demo:quickstart"\ncheckpointer = "sqlite:threads.db"\n', encoding="utf-8"
    )
    monkeypatch.chdir(root)
    return root


@pytest.mark.parametrize("trusted", [False, True], ids=["before trust", "after trust"])
def test_a_shipped_database_runs_nothing_from_a_cell(
    ip: InteractiveShell,
    project: Path,
    markers: dict[str, tuple[Any, Path]],
    trusted: bool,
    capsys: pytest.CaptureFixture[str],
) -> None:
    ship_database(project / "threads.db", [value for value, _ in markers.values()])
    if trusted:
        trust.trust(project)
    try:
        ip.run_cell_magic("deepagent", "-a shipped", "Write me a short brief on life in tide pools.")
        ip.run_line_magic("deepagent", "threads -a shipped")
        ip.run_line_magic("deepagent", f"history -a shipped -t {THREAD}")
        bench = deepnb.get("shipped")
        assert THREAD in [info.thread_id for info in bench.threads()]
        bench.state_values(THREAD)
    finally:
        for bench in agents.registered().values():
            checkpoint.close(bench.checkpointer)
        agents.forget_all()
    ran = [label for label, (_, marker) in markers.items() if marker.exists()]
    assert ran == [], f"a checkpoint's {ran} payloads ran"
    assert "Traceback" not in capsys.readouterr().err


def _sqlite(tmp_path: Path) -> tuple[str, Any]:
    path = tmp_path / f"{uuid.uuid4().hex[:6]}.db"

    def write(values: list[Any]) -> None:
        ship_database(path, values)

    return f"sqlite:{path}", write


def _postgres(uri: str) -> tuple[str, Any]:
    from langgraph.checkpoint.postgres import PostgresSaver

    def write(values: list[Any]) -> None:
        with PostgresSaver.from_conn_string(uri) as saver:
            saver.setup()
            write_thread(saver, values)

    return f"postgres:{uri}", write


@pytest.mark.parametrize("kind", ["memory", "sqlite", "postgres"])
def test_no_saver_deepnb_makes_runs_a_checkpoints_payload(
    kind: str, tmp_path: Path, markers: dict[str, tuple[Any, Path]], request: pytest.FixtureRequest
) -> None:
    values = [value for value, _ in markers.values()]
    if kind == "memory":
        from langgraph.checkpoint.memory import InMemorySaver

        saver = checkpoint.make_checkpointer("memory")
        writer = InMemorySaver()  # LangGraph's own, then its storage handed to deepnb's saver
        write_thread(writer, values)
        saver.storage, saver.writes, saver.blobs = writer.storage, writer.writes, writer.blobs
        spec: Any = saver
    else:
        if kind == "sqlite":
            spec, write = _sqlite(tmp_path)
        else:
            spec, write = _postgres(request.getfixturevalue("postgres_uri"))
        write(values)
    bench = deepnb.agent(unique(f"strict-{kind}"), "demo:quickstart", checkpointer=spec)
    try:
        assert THREAD in [info.thread_id for info in bench.threads()]
        bench.state_values(THREAD)
        run = bench.run("Go on.", thread=THREAD)
        assert run.status in ("done", "failed")
    finally:
        checkpoint.close(bench.checkpointer)
        agents.forget_all()
    ran = [label for label, (_, marker) in markers.items() if marker.exists()]
    assert ran == [], f"{kind}: a checkpoint's {ran} payloads ran"
