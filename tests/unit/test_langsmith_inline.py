"""LangSmith's untraced bookkeeping runs in place on the engine loop: a run's middleware hooks no
longer make two thread-pool round trips each (``deepnb.core.graphs.langsmith_inline``), traced calls and
calls from other threads still go to LangSmith's default, and another host's override is kept."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextvars import copy_context
from typing import Any

import langsmith
import pytest
from langsmith._internal import _aiter
from langsmith._runtime_overrides import get_runtime_overrides
from langsmith.utils import get_env_var

import deepnb
from deepnb.core.graphs import langsmith_inline
from deepnb.core.loop import run_sync
from tests.support.agents import scripted, unique

AGENTS = {
    "main": [
        {
            "text": "Delegating.",
            "tool_calls": [
                {"name": "task", "args": {"subagent_type": "general-purpose", "description": "look up A"}},
                {"name": "write_todos", "args": {"todos": [{"content": "A", "status": "in_progress"}]}},
            ],
        },
        "All done.",
    ],
    "general-purpose": [
        {"text": "Checking.", "tool_calls": [{"name": "ls", "args": {"path": "/"}}]},
        "Found it.",
    ],
}


@pytest.fixture
def overrides() -> Iterator[None]:
    """Each test sees and leaves LangSmith's override as it was."""
    before = get_runtime_overrides().aio_to_thread
    yield
    langsmith.set_runtime_overrides(aio_to_thread=before)


@pytest.fixture
def hand_offs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the functions LangSmith hands to a worker thread, as they go."""
    calls: list[str] = []
    default = _aiter._default_aio_to_thread

    async def counted(ctx: Any, func: Any, /, *args: Any, **kwargs: Any) -> Any:
        calls.append(getattr(func, "__name__", type(func).__name__))
        return await default(ctx, func, *args, **kwargs)

    monkeypatch.setattr(_aiter, "_default_aio_to_thread", counted)
    return calls


def test_an_untraced_run_hands_nothing_to_langsmiths_threads(
    monkeypatch: pytest.MonkeyPatch, overrides: None, hand_offs: list[str]
) -> None:
    for name in ("LANGSMITH_TRACING", "LANGSMITH_TRACING_V2", "LANGCHAIN_TRACING_V2", "LANGCHAIN_TRACING"):
        monkeypatch.delenv(name, raising=False)
    langsmith.set_runtime_overrides()  # as in a fresh kernel
    run = deepnb.agent(name=unique("inline"), model=scripted(AGENTS)).run("go")
    assert run.status == "done", run.error
    assert run.result == "All done."
    assert [t["content"] for t in run.todos] == ["A"]
    assert {node.name for node in run.tree.walk()} >= {"general-purpose"}
    assert hand_offs == []  # main and subagent, model and tool hooks: every one in place


async def _through_override(ctx_enabled: bool | None) -> tuple[str, str]:
    """Where the override runs a function (the thread's name), and by which path."""
    ran: list[str] = []

    async def default(ctx: Any, func: Any, /, *args: Any) -> Any:
        ran.append("default")
        return ctx.run(func, *args)

    def func() -> str:
        return threading.current_thread().name

    with langsmith.tracing_context(enabled=ctx_enabled):
        where = await langsmith_inline._in_place_when_untraced(default, copy_context(), func)
    return where, ran[0] if ran else "in place"


def test_only_untraced_calls_on_the_engine_thread_run_in_place(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LANGSMITH_TRACING", raising=False)
    assert run_sync(_through_override(None)) == ("deepnb-engine", "in place")
    assert run_sync(_through_override(False)) == ("deepnb-engine", "in place")
    assert run_sync(_through_override(True))[1] == "default"  # traced: LangSmith's own path
    monkeypatch.setenv("LANGSMITH_TRACING", "true")
    get_env_var.cache_clear()  # LangSmith reads the environment once
    try:
        assert run_sync(_through_override(None))[1] == "default"
    finally:
        monkeypatch.delenv("LANGSMITH_TRACING")
        get_env_var.cache_clear()
    assert asyncio.run(_through_override(None))[1] == "default"  # not deepnb's engine


def test_another_hosts_override_is_kept_and_unload_removes_only_ours(overrides: None) -> None:
    async def theirs(default: Any, ctx: Any, func: Any, /, *args: Any, **kwargs: Any) -> Any:
        return await default(ctx, func, *args, **kwargs)

    langsmith.set_runtime_overrides(aio_to_thread=theirs)
    assert langsmith_inline.install() is False
    langsmith_inline.uninstall()
    assert get_runtime_overrides().aio_to_thread is theirs

    langsmith.set_runtime_overrides()
    assert langsmith_inline.install() is True
    assert langsmith_inline.install() is True  # once
    assert get_runtime_overrides().aio_to_thread is langsmith_inline._in_place_when_untraced
    langsmith_inline.uninstall()
    assert get_runtime_overrides().aio_to_thread is None


def test_unloading_the_extension_removes_the_override(ip: Any, overrides: None) -> None:
    langsmith.set_runtime_overrides()
    langsmith_inline.install()
    try:
        ip.run_line_magic("unload_ext", "deepnb")
        assert get_runtime_overrides().aio_to_thread is None
    finally:
        ip.run_line_magic("load_ext", "deepnb")
