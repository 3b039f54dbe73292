"""``Files`` over every kind of backend: the thread's state, a folder on disk, a LangGraph store, and
composite routes; permissions, unsafe paths, memory and skills reloading, pull and listings."""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any

import pytest

import deepnb
from deepnb.core.errors import DeepnbError
from deepnb.core.loop import run_sync
from deepnb.models.scripted import ScriptedChatModel, parse_script
from deepnb.session.files import Files, UnsafePathError

NOTE = "# Tides\nHigh tide at 06:12.\nLow tide at 12:30.\n"


def name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


class Spy(ScriptedChatModel):
    """A scripted model that keeps the system prompt of every call."""

    prompts: list[str] = []  # noqa: RUF012 - a pydantic field, copied per instance

    def _reply(self, messages: list, run_manager: Any) -> Any:
        self.prompts.append(str(messages[0].content) if messages else "")
        return super()._reply(messages, run_manager)


def writer(**options: Any):
    """An agent whose first run writes /notes/tides.md; answers 'ok' after that."""
    script = {
        "main": [
            {
                "match": "write",
                "turns": [
                    {
                        "tool_calls": [
                            {"name": "write_file", "args": {"file_path": "/notes/tides.md", "content": NOTE}}
                        ]
                    },
                    "Written.",
                ],
            },
            {
                "match": "fix",
                "turns": [
                    {
                        "tool_calls": [
                            {
                                "name": "edit_file",
                                "args": {
                                    "file_path": "/notes/tides.md",
                                    "old_string": "06:12",
                                    "new_string": "06:20",
                                },
                            },
                            {"name": "delete", "args": {"file_path": "/notes/old.md"}},
                        ]
                    },
                    "Fixed.",
                ],
            },
            {"turns": ["ok"]},
        ]
    }
    model = Spy(script=parse_script({"agents": script}), prompts=[])
    return deepnb.agent(name("files"), model, **options), model


def test_state_backend_reads_writes_and_makes_checkpoints() -> None:
    wb, _ = writer()
    run = wb.run("write the notes")
    files = run.files
    assert isinstance(files, Files) and list(files) == ["/notes/tides.md"]
    assert files["/notes/tides.md"] == NOTE and "/notes/tides.md" in files
    assert files.read("/notes/tides.md", offset=1, limit=1) == "High tide at 06:12.\n"
    assert [e.path for e in files.ls("/")] == ["/notes/"] and files.ls("/notes")[0].size == len(NOTE)
    assert files.glob("**/*.md") == ["/notes/tides.md"]
    assert [(m.path, m.line) for m in files.grep("Low tide")] == [("/notes/tides.md", 3)]

    before = len(list(wb.graph.get_state_history({"configurable": {"thread_id": run.thread_id}})))
    files.write("/notes/moon.md", "Full moon on Friday.\n")
    assert files.edit("/notes/tides.md", "06:12", "06:15") == 1
    files.delete("/notes/moon.md")
    after = len(list(wb.graph.get_state_history({"configurable": {"thread_id": run.thread_id}})))
    assert after == before + 3  # each change is a checkpoint of its own
    assert wb.files(run.thread_id).to_dict() == {"/notes/tides.md": NOTE.replace("06:12", "06:15")}
    with pytest.raises(KeyError):
        files["/notes/moon.md"]
    with pytest.raises(DeepnbError, match="contains that text 2 times"):
        files.edit("/notes/tides.md", "tide", "TIDE")
    assert files.edit("/notes/tides.md", "tide", "TIDE", replace_all=True) == 2

    # The agent sees the notebook's change on its next turn.
    follow = wb.run("read it", thread=run.thread_id)
    assert follow.status == "done" and "06:15" in follow.files["/notes/tides.md"]


def test_binary_files_round_trip_and_are_named_not_decoded() -> None:
    wb, _ = writer()
    files = wb.run("write").files
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256))
    files.write("/img/dot.png", png)
    assert files.read_bytes("/img/dot.png") == png
    with pytest.raises(DeepnbError, match=r"binary file \(264 bytes\): use \.read_bytes"):
        files["/img/dot.png"]
    assert "/img/dot.png" not in files.to_dict()


def test_filesystem_backend_is_a_real_folder_and_refuses_escapes(tmp_path: Path) -> None:
    from deepagents.backends import FilesystemBackend

    root = tmp_path / "root"
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "a.md").write_text("alpha\n")
    (tmp_path / "secret.txt").write_text("do not read")
    os.symlink(tmp_path / "secret.txt", root / "notes" / "link.txt")
    wb, _ = writer(backend=FilesystemBackend(root_dir=str(root), virtual_mode=True))
    files = wb.files()
    assert list(files) == ["/notes/a.md"]  # the symlink out of the root is not listed…
    with pytest.raises(UnsafePathError, match="leads outside its root"):
        files.read_bytes("/notes/link.txt")  # …nor readable
    files.write("/drafts/b.md", "beta\n")
    assert (root / "drafts" / "b.md").read_text() == "beta\n"
    assert [m.text for m in files.grep("beta")] == ["beta"]
    for bad in (
        "/../secret.txt",
        "notes/a.md",
        "/notes/../../secret.txt",
        "~/x",
        "/C:/x",
        "/a\\b",
        "/a\x00b",
        "/a\nb",
        "/a\x1fb",
    ):
        with pytest.raises(UnsafePathError):
            files.read_bytes(bad)
        with pytest.raises(UnsafePathError):
            files.write(bad, "x")
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("kind", ["memory", "sqlite", "postgres"])
def test_store_backend_in_memory_sqlite_and_postgres(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    from deepagents.backends import StoreBackend

    if kind == "memory":
        from langgraph.store.memory import InMemoryStore

        store = InMemoryStore()
    elif kind == "sqlite":  # runs are async, so an async store, opened on the engine's loop
        store = run_sync(_sqlite_store(tmp_path / "store.db"))
    else:
        store = run_sync(_postgres_store(request.getfixturevalue("postgres_uri")))
    backend = StoreBackend(namespace=lambda _rt: ("notes",), store=store)
    try:
        wb, _ = writer(backend=backend)
        run = wb.run("write the notes")
        assert run.files["/notes/tides.md"] == NOTE
        run.files.write("/notes/extra.md", "more\n")
        assert run_sync(store.aget(("notes",), "/notes/extra.md")) is not None  # in the store itself
        assert sorted(run.files) == ["/notes/extra.md", "/notes/tides.md"]
    finally:  # closed here, on its own loop, not by the garbage collector in a later test
        connection = getattr(store, "conn", None)
        if connection is not None:
            run_sync(_close(connection))


async def _postgres_store(uri: str) -> Any:
    from langgraph.store.postgres.aio import AsyncPostgresStore
    from psycopg import AsyncConnection
    from psycopg.rows import dict_row

    connection = await AsyncConnection.connect(
        uri, autocommit=True, prepare_threshold=0, row_factory=dict_row
    )
    store = AsyncPostgresStore(connection)
    await store.setup()
    return store


async def _close(connection: Any) -> None:
    await connection.close()


async def _sqlite_store(path: Path) -> Any:
    import aiosqlite
    from langgraph.store.sqlite.aio import AsyncSqliteStore

    store = AsyncSqliteStore(await aiosqlite.connect(path, isolation_level=None))
    await store.setup()
    return store


def test_composite_routes_are_mount_points() -> None:
    from deepagents.backends import CompositeBackend, StateBackend, StoreBackend
    from langgraph.store.memory import InMemoryStore

    store = InMemoryStore()
    backend = CompositeBackend(
        default=StateBackend(), routes={"/memories/": StoreBackend(namespace=lambda _rt: ("m",), store=store)}
    )
    wb, _ = writer(backend=backend)
    files = wb.run("write the notes").files
    root = {e.path: e.mount for e in files.ls("/")}
    assert root == {"/memories/": "/memories/", "/notes/": None}
    assert files.mounts == {"/memories/": "StoreBackend"}
    files.write("/memories/prefs.md", "Likes tables.\n")
    assert store.get(("m",), "/prefs.md").value  # the route sees the path without its prefix
    assert [e.path for e in files.ls("/memories/")] == ["/memories/prefs.md"]
    assert sorted(files) == ["/memories/prefs.md", "/notes/tides.md"]
    assert [m.path for m in files.grep("Likes")] == ["/memories/prefs.md"]
    assert files.glob("/memories/*.md") == ["/memories/prefs.md"]


def test_permission_rules_apply_to_the_notebook_too() -> None:
    from deepagents import FilesystemPermission

    rules = [
        FilesystemPermission(operations=["write"], paths=["/notes/**"], mode="deny"),
        FilesystemPermission(operations=["read"], paths=["/private/**"], mode="deny"),
    ]
    wb, _ = writer(permissions=rules)
    files = wb.files()
    files.write("/private/key.md", "hidden")  # writing there is allowed, reading is not
    with pytest.raises(PermissionError, match=r"Changing /notes/a.md is denied .*paths=\['/notes/\*\*'\]"):
        files.write("/notes/a.md", "x")
    with pytest.raises(PermissionError, match=r"Reading /private/key\.md is denied"):
        files["/private/key.md"]
    assert "/private/key.md" not in list(files) and not files.grep("hidden")
    assert files.writable("/drafts/a.md") and not files.writable("/notes/a.md")


def test_editing_memory_and_adding_a_skill_take_effect_on_the_next_turn() -> None:
    wb, model = writer(memory=["/AGENTS.md"], skills=["/skills/"])
    files = wb.files()
    files.write("/AGENTS.md", "Always answer in French.")
    thread = wb.current_thread
    wb.run("hello", thread=thread)
    assert "Always answer in French." in model.prompts[-1]

    files.edit("/AGENTS.md", "French", "Spanish")
    files.write(
        "/skills/tides/SKILL.md", "---\nname: tides\ndescription: Reads tide tables.\n---\nUse the table.\n"
    )
    wb.run("hello again", thread=thread)
    assert "Always answer in Spanish." in model.prompts[-1]
    assert "Reads tide tables." in model.prompts[-1]


def test_pull_and_the_bounded_listing(tmp_path: Path) -> None:
    wb, _ = writer()
    files = wb.files()
    for n in range(60):
        files.write(f"/data/f{n:02}.txt", f"row {n}\n")
    written = files.pull(tmp_path / "out")
    assert len(written) == 60 and (tmp_path / "out" / "data" / "f07.txt").read_text() == "row 7\n"
    text, html = repr(files), files._repr_html_()
    assert "60 files" in text and "… and 20 more" in text
    assert html.count("<tr>") == 41 and "… and 20 more" in html  # a header row and 40 entries


def test_file_text_is_escaped_in_html_listings() -> None:
    wb, _ = writer()
    files = wb.files()
    files.write('/x/<img src=x onerror="alert(1)">.md', "x")
    html = files._repr_html_()
    assert "<img" not in html and "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;.md" in html


def test_the_viewer_renders_each_kind_safely() -> None:
    from deepnb.views.files.file_preview import render_file

    md = render_file("/a.md", b"# Title\n<script>alert(1)</script>")
    assert md.kind == "markdown" and "<h1>Title</h1>" in md.html and "<script>" not in md.html
    code = render_file("/a.py", b"x = '<img src=x onerror=1>'")
    assert code.kind == "code" and "<img" not in code.html and "dnb-code" in code.html
    table = render_file("/a.csv", b"name,value\n<b>tide</b>,3\n")
    assert table.kind == "table" and "<th>name</th>" in table.html and "&lt;b&gt;tide&lt;/b&gt;" in table.html
    image = render_file("/dot.png", b"\x89PNG\r\n")
    assert image.kind == "image" and image.html.startswith('<img class="dnb-file-image"') and not image.text
    svg = render_file("/x.svg", b'<svg onload="alert(1)"></svg>')
    assert svg.kind == "code" and "<svg" not in svg.html  # shown as text, never as an image
    blob = render_file("/a.bin", bytes([0xFF, 0xFE, 0x00]))
    assert (blob.kind, blob.text) == ("binary", "") and "3 bytes" in blob.html


def test_secrets_in_a_file_are_redacted_in_the_viewer(monkeypatch: pytest.MonkeyPatch) -> None:
    from deepnb.views.files.file_preview import render_file

    monkeypatch.setenv("OPENAI_API_KEY", "sk-sentinel-value-1234567890")
    shown = render_file("/.env", b"OPENAI_API_KEY=sk-sentinel-value-1234567890\n")
    assert "sk-sentinel-value-1234567890" not in shown.html + shown.text


def test_changes_in_a_run_are_diffs_against_the_checkpoint_before_it() -> None:
    wb, _ = writer()
    first = wb.run("write the notes")
    (added,) = first.changes()
    assert (added.path, added.kind) == ("/notes/tides.md", "added")
    assert (
        added.diff.startswith("--- /dev/null\n+++ b/notes/tides.md") and "+High tide at 06:12." in added.diff
    )

    first.files.write("/notes/old.md", "stale\n")  # a notebook edit between runs is not the run's
    second = wb.run("fix the time", thread=first.thread_id)
    changes = {c.path: c for c in second.changes()}
    assert set(changes) == {"/notes/tides.md", "/notes/old.md"}
    assert changes["/notes/tides.md"].kind == "modified"
    assert "-High tide at 06:12.\n+High tide at 06:20." in changes["/notes/tides.md"].diff
    assert changes["/notes/old.md"].kind == "deleted" and "-stale" in changes["/notes/old.md"].diff


def test_changes_on_a_backend_without_history_are_named(tmp_path: Path) -> None:
    from deepagents.backends import FilesystemBackend

    wb, _ = writer(backend=FilesystemBackend(root_dir=str(tmp_path), virtual_mode=True))
    (change,) = wb.run("write the notes").changes()
    assert (change.path, change.kind, change.diff) == ("/notes/tides.md", "written", "")
    with pytest.raises(DeepnbError, match="past checkpoint"):
        Files(wb, wb.current_thread, checkpoint_id="x").write("/a.md", "x")


def test_dotfiles_and_what_dot_folders_hold_are_listed(tmp_path: Path) -> None:
    """A backend's ``**`` glob leaves out dotfiles and dot-folders: iterating a thread's files does
    not, on disk or in state."""
    from deepagents.backends import FilesystemBackend

    for path, text in {
        ".env": "A=1",
        "sub/.hidden": "h",
        ".config/a.txt": "q",
        ".config/deep/.b": "r",
    }.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    (tmp_path / "x.md").write_text("x")
    disk = deepnb.agent(
        f"dots-{uuid.uuid4().hex[:6]}",
        "demo:quickstart",
        backend=FilesystemBackend(root_dir=tmp_path, virtual_mode=True),
    )
    expected = ["/.config/a.txt", "/.config/deep/.b", "/.env", "/sub/.hidden", "/x.md"]
    files = disk.files()
    assert sorted(files) == expected and len(files) == 5 and "/.config/deep/.b" in files
    state = deepnb.agent(f"dots-{uuid.uuid4().hex[:6]}", "demo:quickstart").files()
    for path in expected:
        state.write(path, "text")
    assert sorted(state) == expected
