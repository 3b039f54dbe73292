"""Threads in PostgreSQL (``checkpointer="postgres:DSN"``): shared by every workbench on the same
database, so they survive a kernel restart and can be shared by a team."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

import deepnb
from deepnb.core.errors import DeepnbError
from deepnb.core.threads import checkpointers as checkpoint


def test_a_thread_in_postgres_is_seen_by_a_new_workbench(postgres_uri: str) -> None:
    name = f"pg-{uuid.uuid4().hex[:6]}"
    first = deepnb.agent(name, "demo:quickstart", checkpointer=f"postgres:{postgres_uri}")
    run = first.run("Write me a short brief on life in tide pools.")
    assert run.status == "done", run.error

    notes = run.files["/notes/stresses.md"]

    assert checkpoint.close(first.checkpointer)  # as in a new kernel: a connection of its own
    again = deepnb.agent(name, "demo:quickstart", checkpointer=f"postgres:{postgres_uri}")
    assert again.checkpointer is not first.checkpointer
    assert run.thread_id in [info.thread_id for info in again.threads()]
    assert again.files(run.thread_id)["/notes/stresses.md"] == notes
    assert [t["status"] for t in again.todos(run.thread_id)] == ["completed"] * 3


def test_listing_postgres_threads_asks_the_database_for_their_ids(
    postgres_uri: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    workbench = deepnb.agent(
        f"pg-{uuid.uuid4().hex[:6]}", "demo:quickstart", checkpointer=f"postgres:{postgres_uri}"
    )
    run = workbench.start("Write me a short brief on life in tide pools.", new_thread=True).wait(60)
    assert run.status == "done", run.error
    saver = workbench.checkpointer
    listed = saver.alist

    def alist(config: object, **options: object) -> object:
        assert config is not None, "listed every checkpoint of every thread"
        return listed(config, **options)

    monkeypatch.setattr(saver, "alist", alist)
    (info,) = [t for t in workbench.threads() if t.thread_id == run.thread_id]
    assert info.steps == run.state.steps


def test_an_unreachable_database_is_one_clear_line_without_the_dsn() -> None:
    dsn = "postgresql://deepnb:hunter2-password@127.0.0.1:9/nowhere"
    with pytest.raises(DeepnbError) as raised:
        deepnb.agent(f"pg-{uuid.uuid4().hex[:6]}", "demo:quickstart", checkpointer=f"postgres:{dsn}")
    message = str(raised.value)
    assert message.startswith("Cannot reach the Postgres database (") and "hunter2" not in message


def test_deepnb_toml_may_keep_an_agents_threads_in_postgres(
    postgres_uri: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from deepnb.core import trust
    from deepnb.session import agents

    (tmp_path / ".git").mkdir()
    (tmp_path / "deepnb.toml").write_text(
        f"[agents.shared]\nmodel = 'demo:quickstart'\ncheckpointer = 'postgres:{postgres_uri}'\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DEEPNB_HOME", str(tmp_path / "home"))
    trust.trust(tmp_path)  # a Postgres database is outside the project: it waits for trust
    agents.forget_all()
    try:
        shared = deepnb.get("shared")
        run = shared.run("Write me a short brief on life in tide pools.")
        assert run.status == "done", run.error
        assert run.thread_id in [info.thread_id for info in shared.threads()]
    finally:
        agents.forget_all()
