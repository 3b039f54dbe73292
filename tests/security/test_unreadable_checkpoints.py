"""One thread whose checkpoint cannot be loaded breaks that thread only, and input that would write
such a checkpoint is refused before anything runs.

A checkpoint is written and later fails to load when the writes saved with it do not fit the
graph (``{"messages": 5}``: the messages reducer raises on every read), or when its bytes do not
decode. Such a checkpoint is written here directly through the saver, bypassing deepnb's input
checks, and every reader of a thread is tried on it — each says one line about that thread, and
the listing and the readers of the other thread go on as before, after the agent is built again
on the same database (as after a kernel restart).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output

import deepnb
from deepnb.core.errors import DeepnbError
from deepnb.core.loop import run_sync
from deepnb.session import agents, building
from deepnb.views.run.thread_preview import thread_message, threads_message
from tests.support.agents import scripted, unique

NULL_TASK = "00000000-0000-0000-0000-000000000000"
"""LangGraph's task id for writes that belong to no task (applied as the state is read)."""
UNREADABLE = "cannot be read"
AGENT_SCRIPT = {"main": [{"text": "ok"}]}


def _reducer_refuses(bench: Any, thread: str, db: Path) -> None:
    """A write the messages reducer cannot take, saved with the thread's latest checkpoint."""
    saved = run_sync(bench.checkpointer.aget_tuple({"configurable": {"thread_id": thread}}))
    run_sync(bench.checkpointer.aput_writes(saved.config, [("messages", 5)], NULL_TASK))


def _bytes_do_not_load(bench: Any, thread: str, db: Path) -> None:
    """The thread's checkpoints hold bytes that do not decode (msgpack's never-used 0xc1)."""
    with sqlite3.connect(db) as connection:
        connection.execute(
            "UPDATE checkpoints SET type = 'msgpack', checkpoint = ? WHERE thread_id = ?", (b"\xc1", thread)
        )


CORRUPTIONS: dict[str, Callable[[Any, str, Path], None]] = {
    "a write the reducer refuses": _reducer_refuses,
    "bytes that do not load": _bytes_do_not_load,
}


@dataclass
class Threads:
    name: str
    good: str
    bad: str
    db: Path


@pytest.fixture(params=sorted(CORRUPTIONS))
def threads(request: pytest.FixtureRequest, ip: Any, tmp_path: Path) -> Iterator[Threads]:
    db = tmp_path / "threads.db"
    name = unique("unreadable")
    bench = deepnb.agent(name, scripted(AGENT_SCRIPT), checkpointer=f"sqlite:{db}")
    good = bench.run("the good one", new_thread=True)
    bad = bench.run("the bad one", new_thread=True)
    assert good.status == bad.status == "done", (good.error, bad.error)
    CORRUPTIONS[request.param](bench, bad.thread_id, db)
    threads = Threads(name, good.thread_id, bad.thread_id, db)
    _restart(threads)
    yield threads


def _restart(threads: Threads) -> None:
    """The agent built again on the same database, as after a kernel restart (no run in memory)."""
    agents.forget_all()
    deepnb.agent(threads.name, scripted(AGENT_SCRIPT), checkpointer=f"sqlite:{threads.db}")


def _line(ip: Any, source: str) -> Any:
    with capture_output():
        result = ip.run_cell(source)
    return result


def _refused(ip: Any, source: str) -> str:
    result = _line(ip, source)
    error = result.error_in_exec
    assert isinstance(error, UsageError | DeepnbError), (source, error)
    message = str(error)
    assert "\n" not in message and UNREADABLE in message, (source, message)
    return message


def _fine(ip: Any, source: str) -> Any:
    result = _line(ip, source)
    assert result.error_in_exec is None, (source, result.error_in_exec)
    return result.result


READERS: dict[str, str] = {
    "history": "%deepagent history -a {a} -t {t}",
    "export": "%deepagent export {out} -a {a} -t {t}",
    "fork": "%deepagent fork -a {a} -t {t} --at 1",
    "files -t": "%deepagent files -a {a} -t {t}",
    "todos": "%deepagent todos -a {a} -t {t}",
    "tree": "%deepagent tree -a {a} -t {t}",
    "approvals": "%deepagent approvals -a {a} -t {t}",
    "resume": "%deepagent resume -a {a} -t {t}",
    "a run on the thread": "%%deepagent -a {a} -t {t}\nonce more",
}
"""Every reader of one thread's checkpoints a user reaches, as the line that reaches it."""


@pytest.mark.parametrize("reader", sorted(READERS))
def test_every_reader_of_an_unreadable_thread_says_one_line_and_the_other_thread_reads(
    ip: Any, threads: Threads, tmp_path: Path, reader: str
) -> None:
    line = READERS[reader]
    message = _refused(ip, line.format(a=threads.name, t=threads.bad, out=tmp_path / "bad.ipynb"))
    assert threads.bad in message and "--new" in message
    assert not (tmp_path / "bad.ipynb").exists()
    if reader not in ("approvals", "resume"):  # the good thread has nothing waiting or to go on with
        _fine(ip, line.format(a=threads.name, t=threads.good, out=tmp_path / "good.ipynb"))


def test_the_listing_and_the_switcher_name_the_unreadable_thread_and_list_the_others(
    ip: Any, threads: Threads
) -> None:
    for attempt in ("after a restart", "after another one"):
        table = _fine(ip, f"%deepagent threads -a {threads.name}")
        rows = {row[1]: row for row in table.rows}
        assert set(rows) == {threads.good, threads.bad}, attempt
        assert rows[threads.good][3] == 1, attempt
        assert rows[threads.bad][3] == "?" and rows[threads.bad][4].startswith(UNREADABLE), attempt
        bench = building.get(threads.name, build=False)
        listed = threads_message(bench)
        assert listed["error"] == "" and {t["thread_id"] for t in listed["threads"]} == set(rows)
        shown = thread_message(bench, threads.bad)
        assert UNREADABLE in shown["error"] and "\n" not in shown["error"] and not shown["html"]
        assert thread_message(bench, threads.good)["error"] == ""
        _restart(threads)


STATE_READS = re.compile(r"\.a?get_state(_history)?\(")
"""A call that loads a thread's state from its checkpoints (``aget_state``, ``aget_state_history``)."""


def test_every_read_of_a_thread_goes_through_the_one_reader() -> None:
    package = Path(deepnb.__file__).parent
    # the one reader, and the server's API
    readers = {package / "core" / "threads" / "reading.py", package / "session" / "remote" / "graph.py"}
    elsewhere = [
        f"{path.relative_to(package)}:{number}"
        for path in sorted(package.rglob("*.py"))
        if path not in readers
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if STATE_READS.search(line)
    ]
    assert elsewhere == [], "read a thread through deepnb.core.threads.reading"


BAD_INPUTS: list[Any] = [
    {"messages": 5},
    {"messages": [{"role": "nobody", "content": "x"}]},
    {"messages": [object()]},
    {"files": 3},
]


def _named(given: Any) -> str:
    """A test id that is the same in every process (an object's repr says where it lives)."""
    return re.sub(r" at 0x[0-9a-f]+", "", repr(given))


@pytest.mark.parametrize("given", BAD_INPUTS, ids=_named)
def test_input_a_graph_cannot_take_is_refused_before_anything_is_written(tmp_path: Path, given: Any) -> None:
    bench = deepnb.agent(unique("inputs"), scripted(AGENT_SCRIPT), checkpointer=f"sqlite:{tmp_path / 't.db'}")
    for start in (
        lambda: bench.map(["fine", given]),
        lambda: bench.run(given, new_thread=True),
        lambda: bench.start(given, new_thread=True),
    ):
        with pytest.raises(DeepnbError) as refused:
            start()
        message = str(refused.value)
        assert "\n" not in message and "cannot take this input" in message and "Nothing was run" in message
        assert bench.threads() == []
    with pytest.raises(DeepnbError, match=r"^Input 1: "):
        bench.map(["fine", given])
    fine = bench.map(["fine", {"messages": [{"role": "user", "content": "also fine"}]}]).wait(60)
    assert [r.status for r in fine.runs] == ["done", "done"]
    assert len(bench.threads()) == 2
