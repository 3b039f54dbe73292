"""No write is lost. A notebook write to the thread's state while a run holds the thread either
lands or is refused in one line — never reported done and dropped at the run's next checkpoint —
and the file browser shows such files read-only until the run lets go. "Files changed" lists only
what persisted: not a write the backend failed (an error result, or disk full raised), not one
an approval rejected or answered in the tool's place."""

from __future__ import annotations

import errno
import threading
from pathlib import Path
from typing import Any

import pytest
from deepagents.backends import CompositeBackend, FilesystemBackend, StateBackend
from deepagents.backends.protocol import WriteResult

import deepnb
from deepnb.core.errors import DeepnbError
from deepnb.models.scripted import ScriptedChatModel, parse_script
from deepnb.session.local import Workbench
from deepnb.session.run import Run
from deepnb.views.files.files_view import FilesView
from tests.support.waiting import WAIT, wait_until

WRITERS = 12
WORDS = " ".join(f"w{i}" for i in range(25))


def _model(turns: list[dict[str, Any]], *, delay: float = 0.0) -> ScriptedChatModel:
    return ScriptedChatModel(script=parse_script({"delay": delay, "agents": {"main": turns}}))


def _write(path: str, content: str = "from the agent") -> dict[str, Any]:
    return {"name": "write_file", "args": {"file_path": path, "content": content}}


def _slow_writer(steps: int = 4) -> ScriptedChatModel:
    """A run that writes a file at each of several slow steps."""
    turns = [{"text": WORDS, "tool_calls": [_write(f"/agent/{n}.md")]} for n in range(steps)]
    return _model([*turns, {"text": "All written."}], delay=0.02)


def _until(predicate: Any) -> None:
    wait_until(predicate, "the run to get there")


def _streaming(workbench: Workbench) -> Run:
    run = workbench.start("write your files", new_thread=True)
    _until(lambda: run.done or (run.state.items and run.status == "running"))  # streaming
    assert not run.done
    return run


def _write_concurrently(run: Run, write: Any) -> tuple[dict[str, str], dict[str, str]]:
    """WRITERS notebook writes at once while ``run`` streams: (landed path → content, refused
    path → message)."""
    landed: dict[str, str] = {}
    refused: dict[str, str] = {}
    start = threading.Barrier(WRITERS)

    def writer(n: int) -> None:
        path, text = f"/notes/{n}.md", f"note {n}"
        start.wait()
        try:
            error = write(path, text)
        except DeepnbError as exc:
            error = str(exc)
        (refused.__setitem__(path, error) if error else landed.__setitem__(path, text))

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(WRITERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT)
    assert not run.done, "the run ended before the writes: make it slower"
    return landed, refused


def _no_write_lost(run: Run, landed: dict[str, str], refused: dict[str, str]) -> None:
    run.wait(WAIT)
    assert run.status == "done", run.error
    assert len(landed) + len(refused) == WRITERS
    files = run.files
    for path, text in landed.items():  # what said it landed is there
        assert files.get(path) == text, f"{path} was written, then lost"
    for path, message in refused.items():  # what was refused says why, in one line
        assert message.count("\n") == 0
        assert run.id in message and repr(run.thread_id) in message and path in message
        assert "run.wait()" in message and "run.stop()" in message
    assert sorted(p for p in files if p.startswith("/agent/")) == [f"/agent/{n}.md" for n in range(4)]


@pytest.fixture
def writer_bench() -> Workbench:
    return deepnb.agent(name="writes-during-run", model=_slow_writer())


def test_notebook_writes_during_a_run_land_or_are_refused(writer_bench: Workbench) -> None:
    run = _streaming(writer_bench)
    landed, refused = _write_concurrently(run, lambda path, text: run.files.write(path, text))
    _no_write_lost(run, landed, refused)
    assert refused  # the run held the thread all along
    run.files.write("/notes/after.md", "after")  # once it is done, writing works again
    assert run.files["/notes/after.md"] == "after"


def test_deletes_during_a_run_are_refused_too(writer_bench: Workbench) -> None:
    thread = writer_bench.new_thread()
    writer_bench.files(thread).write("/keep.md", "kept")
    run = writer_bench.start("write your files", thread=thread)
    _until(lambda: run.done or run.state.items)
    with pytest.raises(DeepnbError, match="is using thread"):
        run.files.delete("/keep.md")
    with pytest.raises(DeepnbError, match="is using thread"):
        run.files.edit("/keep.md", "kept", "changed")
    run.wait(WAIT)
    assert run.files["/keep.md"] == "kept"


def test_file_browser_save_during_a_run(writer_bench: Workbench) -> None:
    run = _streaming(writer_bench)
    view = FilesView(run.files)
    sent: list[dict[str, Any]] = []
    view.send = lambda content, buffers=None: sent.append(content)  # type: ignore[method-assign]
    try:

        def save(path: str, text: str) -> str:
            return view.request({"type": "save", "path": path, "text": text})["error"]

        landed, refused = _write_concurrently(run, save)
        _until(lambda: run.done or "/agent/0.md" in run.state.files_changed)
        opened = view.request({"type": "open", "path": "/agent/0.md"})
        listing = view.request({"type": "ls", "path": "/agent/"})
        assert not run.done
        _no_write_lost(run, landed, refused)
        assert refused
        # While the run held the thread, its files showed read-only, saying why.
        assert opened["error"] == "" and not opened["editable"] and not opened["writable"]
        assert "is using thread" in opened["readonly"]
        assert listing["entries"] and not any(e["writable"] for e in listing["entries"])
        # Once it ended, the view told the front-end to look again, and they are editable again.
        _until(lambda: any(m.get("type") == "changed" and "/" in m["paths"] for m in list(sent)))
        reopened = view.request({"type": "open", "path": "/agent/0.md"})
        assert reopened["editable"] and reopened["readonly"] == ""
        assert all(e["writable"] for e in view.request({"type": "ls", "path": "/agent/"})["entries"])
    finally:
        view.close()


def test_a_write_during_an_approval_pause_is_refused_and_the_approval_stands() -> None:
    model = _model([{"tool_calls": [_write("/a.md", "A")]}, {"tool_calls": [_write("/b.md", "B")]}, "done"])
    bench = deepnb.agent(name="writes-paused", model=model, interrupt_on={"write_file": True})
    run = bench.start("write", new_thread=True).wait(WAIT)
    assert run.status == "interrupted"
    with pytest.raises(DeepnbError, match="waiting for approval"):
        run.files.write("/mine.md", "mine")
    run.pending[0].approve()
    run.wait(WAIT)
    assert [p.args["file_path"] for p in run.pending] == ["/b.md"]  # it did not ask for /a.md again
    assert run.files["/a.md"] == "A"
    run.stop()
    run.files.write("/mine.md", "mine")  # the thread is free again
    assert sorted(run.files) == ["/a.md", "/mine.md"]


def test_writes_to_disk_routes_are_not_refused(tmp_path: Path) -> None:
    backend = CompositeBackend(
        default=StateBackend(), routes={"/disk/": FilesystemBackend(root_dir=tmp_path, virtual_mode=True)}
    )
    bench = deepnb.agent(name="writes-disk", model=_slow_writer(), backend=backend)
    run = _streaming(bench)
    run.files.write("/disk/note.md", "on disk")  # not in the checkpoint: nothing to overwrite it
    assert not run.done
    run.wait(WAIT)
    assert (tmp_path / "note.md").read_text() == "on disk"


# -- "Files changed" lists what persisted ----------------------------------------------------------


class FullDisk(FilesystemBackend):
    """A folder whose disk is full: writes fail with an error result, or raise ENOSPC."""

    def __init__(self, *args: Any, raises: bool, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.raises = raises

    def write(self, file_path: str, content: str) -> WriteResult:
        if self.raises:
            raise OSError(errno.ENOSPC, "No space left on device")
        return WriteResult(error=f"Error writing file '{file_path}': [Errno 28] No space left on device")

    async def awrite(self, file_path: str, content: str) -> WriteResult:
        return self.write(file_path, content)


@pytest.mark.parametrize("raises", [False, True], ids=["error result", "raises ENOSPC"])
@pytest.mark.parametrize("routed", [False, True], ids=["backend", "composite route"])
def test_a_failed_write_is_not_listed_and_its_card_shows_the_failure(
    tmp_path: Path, raises: bool, routed: bool
) -> None:
    disk = FullDisk(root_dir=tmp_path, virtual_mode=True, raises=raises)
    backend = CompositeBackend(default=StateBackend(), routes={"/disk/": disk}) if routed else disk
    path = "/disk/report.md" if routed else "/report.md"
    calls = [_write(path), _write("/kept.md")] if routed else [_write(path)]
    bench = deepnb.agent(name="writes-full", model=_model([{"tool_calls": calls}, "done"]), backend=backend)
    run = bench.start("write", new_thread=True).wait(WAIT)

    assert path not in run.state.files_changed
    assert path not in run.files
    assert [c.path for c in run.changes()] == run.state.files_changed
    card = next(i for i in run.state.items if i["kind"] == "tool" and path in i["args"])
    assert card["status"] == "error"
    assert "No space left on device" in card["result"]
    if not raises and routed:  # the write that did persist is listed
        assert run.state.files_changed == ["/kept.md"]
    view = FilesView(run.files)
    try:
        changes = view.request({"type": "changes"})["changes"]
        assert path not in [c["path"] for c in changes]
    finally:
        view.close()


@pytest.mark.parametrize("decision", ["reject", "respond"])
@pytest.mark.parametrize("routed", [False, True], ids=["state", "disk route"])
def test_a_write_answered_at_an_approval_is_not_listed(tmp_path: Path, decision: str, routed: bool) -> None:
    backend = (
        CompositeBackend(
            default=StateBackend(), routes={"/disk/": FilesystemBackend(root_dir=tmp_path, virtual_mode=True)}
        )
        if routed
        else None
    )
    path = "/disk/a.md" if routed else "/a.md"
    model = _model([{"tool_calls": [_write(path, "A")]}, "done"])
    gated = {"write_file": True}
    bench = deepnb.agent(name="writes-decided", model=model, interrupt_on=gated, backend=backend)
    run = bench.start("write", new_thread=True).wait(WAIT)
    getattr(run.pending[0], decision)("Not now: I wrote it myself.")
    run.wait(WAIT)
    assert run.status == "done", run.error
    assert path not in run.files
    assert run.state.files_changed == []
    assert run.changes() == []


@pytest.mark.parametrize("subagent_ends", ["answers", "fails"])
def test_a_subagents_write_is_listed_once_it_reaches_the_thread(subagent_ends: str) -> None:
    last = {"text": "written"} if subagent_ends == "answers" else {"error": "the subagent's model broke"}
    model = ScriptedChatModel(
        script=parse_script(
            {
                "agents": {
                    "main": [
                        {
                            "tool_calls": [
                                {
                                    "name": "task",
                                    "args": {"description": "write", "subagent_type": "general-purpose"},
                                }
                            ]
                        },
                        "done",
                    ],
                    "general-purpose": [{"tool_calls": [_write("/sub.md", "S")]}, last],
                }
            }
        )
    )
    run = deepnb.agent(name="writes-subagent", model=model).start("go", new_thread=True).wait(WAIT)
    persisted = "/sub.md" in run.files
    assert persisted is (subagent_ends == "answers")
    assert run.state.files_changed == (["/sub.md"] if persisted else [])


def test_a_run_that_starts_while_a_write_is_on_its_way_keeps_it(writer_bench: Workbench) -> None:
    """The write was let in before the run claimed the thread: the run waits for it to land."""
    from deepnb.core.loop import run_sync
    from deepnb.session.files import hold

    thread = writer_bench.new_thread()
    files = writer_bench.files(thread)
    with hold.state_change(writer_bench, thread, "/early.md"):  # what Files.write holds
        run = writer_bench.start("write your files", thread=thread)
        threading.Event().wait(0.3)  # a run that did not wait would have read the thread by now
        run_sync(files._source.write_bytes("/early.md", b"early"))
        written = run_sync(writer_bench.graph.aget_state({"configurable": {"thread_id": thread}}))
    run.wait(WAIT)
    assert run.status == "done", run.error
    assert run.checkpoint_before == written.config["configurable"]["checkpoint_id"]  # it started after
    assert run.files["/early.md"] == "early"
