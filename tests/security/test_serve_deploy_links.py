"""A hostile project's links against serve and deploy: every path they write or delete is a link
to somewhere outside, and nothing outside changes (a link where a folder is needed is refused in
one line, a link where a file or folder is replaced is removed itself); ``--force`` deletes only
what deepnb wrote there; and every copy deploy makes keeps the backend's rule for links (one that
leaves its folder is not copied, and the deploy line says so), ends on loops and is bounded."""

from __future__ import annotations

import json
import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import deepnb
from deepnb import extensions
from deepnb.core import trust
from deepnb.core.errors import DeepnbError
from deepnb.ship import app_copy
from deepnb.ship import deploy as deployment
from deepnb.ship import serve as serving
from tests.support.agents import write

SECRET = "the-outside-secret-4f1c"
SCRIPT = """
agents:
  main:
    - text: "Done."
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    write(root / "scripts" / "writer.yaml", SCRIPT)
    write(root / "data" / "notes" / "a.txt", "inside")
    write(
        root / "deepnb.toml",
        """
        [agents.writer]
        model = "scripted:scripts/writer.yaml"
        backend = { type = "disk", root_dir = "data" }
        """,
    )
    (root / ".git").mkdir()
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder outside the project, with a file and a folder a link may point at."""
    folder = tmp_path / "outside"
    write(folder / "secret.txt", SECRET)
    write(folder / "keep" / "precious.txt", SECRET)
    return folder


def snapshot(folder: Path) -> dict[str, str]:
    """Every entry under ``folder`` (links not followed) with its content or link target."""
    found: dict[str, str] = {}
    for path in sorted(folder.rglob("*")):
        key = path.relative_to(folder).as_posix()
        if path.is_symlink():
            found[key] = "-> " + os.readlink(path)
        elif path.is_file():
            found[key] = path.read_text()
        else:
            found[key] = "/"
    return found


class FakeProcess:
    """What ``subprocess.Popen`` gives serve here: the files serve writes are what is tested."""

    pid = 0
    stdin = None

    def poll(self) -> int | None:
        return None

    def wait(self, timeout: float | None = None) -> int:
        return 0


@pytest.fixture
def no_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[dict[str, Any]]]:
    started: list[dict[str, Any]] = []

    def popen(command: list[str], **kwargs: Any) -> FakeProcess:
        started.append(kwargs)
        return FakeProcess()

    monkeypatch.setattr(serving, "_check_installed", lambda: None)
    monkeypatch.setattr(serving, "_wait", lambda server, timeout: None)
    monkeypatch.setattr(serving.subprocess, "Popen", popen)
    monkeypatch.setattr(serving.Server, "_signal", lambda self, force: None)
    yield started
    serving._current = None


# -- item: writes and deletes never go through a link ---------------------------------------------

SERVED = serving.SERVED.as_posix()
LINKED_FOLDERS = [".deepnb", SERVED]
"""Folders serve writes into: a link there is refused."""
REPLACED = [f"{SERVED}/{name}" for name in serving.WRITES]
"""Entries serve replaces or deletes: a link there is removed itself, never followed."""


def test_serve_writes_exactly_the_entries_it_lists(project: Path, no_server: list[dict[str, Any]]) -> None:
    deepnb.serve(connect=False)
    deepnb.serve(connect=False)  # serving again replaces app, its log and .gitignore
    served = {p.name for p in (project / serving.SERVED).iterdir()}
    assert served == set(serving.WRITES) - {"app.next"}  # app.next is staged, then renamed to app
    assert no_server[-1]["cwd"] == project / serving.SERVED / "app"


@pytest.mark.parametrize("linked", LINKED_FOLDERS + REPLACED)
def test_no_path_serve_writes_or_deletes_is_followed_through_a_link(
    project: Path, outside: Path, no_server: list[dict[str, Any]], linked: str
) -> None:
    before = snapshot(outside)
    path = project / linked
    path.parent.mkdir(parents=True, exist_ok=True)
    is_folder = linked in LINKED_FOLDERS or linked.endswith(("/app", "/app.next"))
    if is_folder:  # a folder that looks like deepnb's own, so that nothing else stops a delete
        target = outside / "keep"
        write(target / "langgraph.json", "{}")
        write(target / "deepnb_app.py", "")
        before = snapshot(outside)
    else:
        target = outside / "secret.txt"
    path.symlink_to(target)
    if linked in LINKED_FOLDERS:
        with pytest.raises(DeepnbError) as refused:
            deepnb.serve(connect=False)
        message = str(refused.value)
        assert "\n" not in message and message.startswith(f"{path} is a link: deepnb writes only")
    else:
        server = deepnb.serve(connect=False)
        assert snapshot(outside) == before  # nothing written or deleted through the link
        assert server.folder == project / SERVED / "app"
        assert not path.is_symlink()  # the link itself was replaced
    assert snapshot(outside) == before


def test_the_server_data_a_new_serve_keeps_moves_as_a_folder_and_a_link_there_is_not_followed(
    project: Path, outside: Path, no_server: list[dict[str, Any]]
) -> None:
    """What serving again keeps of the app it replaces (the server's threads and store) is a real
    folder moved whole; a link there goes with the old app, never followed; and the disk
    backend is the project's folder itself, not a copy in the app."""
    app = deepnb.serve(connect=False).folder
    assert json.loads((app / deployment.AGENTS_FILE).read_text())["agents"]["writer"]["backend"] == {
        "type": "disk",
        "root_dir": str((project / "data").resolve()),
    }
    assert not (app / "project" / "data").exists()
    write(app / serving.SERVER_DATA / ".langgraph_ops.pckl", "threads")
    deepnb.serve(connect=False)
    assert (app / serving.SERVER_DATA / ".langgraph_ops.pckl").read_text() == "threads"
    before = snapshot(outside)
    shutil.rmtree(app / serving.SERVER_DATA)
    (app / serving.SERVER_DATA).symlink_to(outside / "keep")
    deepnb.serve(connect=False)
    assert not (app / serving.SERVER_DATA).exists() and not (app / serving.SERVER_DATA).is_symlink()
    assert snapshot(outside) == before


def test_deploy_into_a_link_or_through_one_inside_the_project_is_refused(
    project: Path, outside: Path, tmp_path: Path
) -> None:
    before = snapshot(outside)
    (project / "build").symlink_to(outside)
    with pytest.raises(DeepnbError) as refused:
        deepnb.deploy("build/app")
    assert str(refused.value).startswith(f"{project / 'build'} is a link: deepnb writes only")
    (project / "served").symlink_to(outside / "keep")
    for force in (False, True):
        with pytest.raises(DeepnbError) as refused:
            deepnb.deploy("served", force=force)
        assert str(refused.value).startswith(f"{project / 'served'} is a link: deepnb deploys only")
    (tmp_path / "link").symlink_to(outside / "keep")
    with pytest.raises(DeepnbError):
        deepnb.deploy(tmp_path / "link", force=True)  # a target outside the project too
    assert snapshot(outside) == before


def test_force_deletes_exactly_what_deepnb_wrote_and_refuses_anything_else(
    project: Path, outside: Path, tmp_path: Path
) -> None:
    app = deepnb.deploy(tmp_path / "app").folder
    listed = deployment._manifest(deployment.Folder.open(app))
    assert listed == {p.relative_to(app).as_posix() for p in app.rglob("*")} - {deployment.MANIFEST}
    write(app / "notes.txt", "mine")  # e.g. what the user or langgraph dev put there
    with pytest.raises(DeepnbError) as refused:
        deepnb.deploy(app, force=True)
    assert str(refused.value) == (
        f"{app} holds notes.txt, which deepnb did not write there: --force deletes only what "
        "deepnb wrote; move it away or name a new folder."
    )
    assert (app / "notes.txt").read_text() == "mine" and (app / "langgraph.json").is_file()
    (app / "notes.txt").unlink()
    deepnb.deploy(app, force=True)  # exactly deepnb's entries: replaced

    before = snapshot(outside)  # entries deepnb wrote, since made links: removed, not followed
    (app / "langgraph.json").unlink()
    (app / "langgraph.json").symlink_to(outside / "secret.txt")
    shutil.rmtree(app / "project")
    (app / "project").symlink_to(outside / "keep")
    deepnb.deploy(app, force=True)
    assert snapshot(outside) == before and not (app / "project").is_symlink()
    assert json.loads((app / "langgraph.json").read_text())["graphs"] == {"writer": "./deepnb_app.py:writer"}

    (app / deployment.MANIFEST).unlink()  # no manifest: not a deployment deepnb wrote
    with pytest.raises(DeepnbError) as refused:
        deepnb.deploy(app, force=True)
    assert "is not a deployment deepnb wrote" in str(refused.value)
    assert (app / "langgraph.json").is_file()


# -- item: copies keep the backend's rule for links ------------------------------------------------


def hostile_links(folder: Path, outside: Path) -> None:
    """Links out of ``folder`` (to a file, to a folder), a loop, and a link that stays inside."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "leak.txt").symlink_to(outside / "secret.txt")
    (folder / "leaked").symlink_to(outside / "keep")
    (folder / "loop-a").symlink_to(folder / "loop-b")
    (folder / "loop-b").symlink_to(folder / "loop-a")
    (folder / "again").symlink_to(folder)  # resolves inside: a link in the copy, not a copy


def read_everything(folder: Path) -> str:
    """The content of every file under ``folder``, links followed only while they stay inside."""
    texts = []
    for base, _, files in os.walk(folder):  # os.walk does not go down linked folders
        for name in files:
            path = Path(base, name)
            if path.resolve().is_relative_to(folder.resolve()) and path.resolve().is_file():
                texts.append(path.read_text(errors="replace"))
    return "\n".join(texts)


def test_every_copy_deploy_makes_leaves_out_links_that_leave_their_folder(
    project: Path, outside: Path, tmp_path: Path
) -> None:
    """Backend folders (with memory and skills in them), project modules and extension folders."""
    module = f"deploy_links_{uuid.uuid4().hex[:8]}"
    write(
        project / module / "__init__.py",
        """
        from langchain_core.tools import tool

        @tool
        def look(q: str) -> str:
            '''Look.'''
            return q
        """,
    )
    write(project / "data" / "skills" / "brief" / "SKILL.md", "---\nname: brief\ndescription: B.\n---\n")
    write(project / "ext" / "stamping" / "__init__.py", "async def extension(d):\n    pass\n")
    copied = {
        "data": "project/data",
        "data/skills/brief": "project/data/skills/brief",
        module: module,
        "ext/stamping": "extensions/0-stamping",
    }
    for folder in copied:
        hostile_links(project / folder, outside)
    (project / "data" / "AGENTS.md").symlink_to(outside / "secret.txt")  # a memory file
    with (project / "deepnb.toml").open("a") as toml:
        toml.write(f'memory = ["/AGENTS.md"]\nskills = ["/skills/"]\ntools = ["{module}:look"]\n')
    trust.trust(project)
    extensions.shutdown()
    try:
        assert [error for _, error in extensions.load(project / "ext" / "stamping")] == [None]
        deployed = deepnb.deploy(tmp_path / "app")
    finally:
        extensions.shutdown()
    app = deployed.folder
    assert SECRET not in read_everything(app)
    for folder, place in copied.items():
        assert not (app / place / "leak.txt").exists() and not (app / place / "leak.txt").is_symlink()
        assert not (app / place / "leaked").is_symlink() and not (app / place / "leaked").exists()
        assert not (app / place / "loop-a").is_symlink()
        again = app / place / "again"
        assert again.is_symlink() and again.resolve() == (app / place).resolve()  # into the copy
        assert f"{folder}/leak.txt (a link that leaves its folder)" in deployed.skipped
        assert f"{folder}/loop-a (a link that dangles or loops)" in deployed.skipped
    assert not (app / "project" / "data" / "AGENTS.md").exists()
    assert "data/AGENTS.md (a link that leaves its folder)" in deployed.skipped
    line = repr(deployed)
    assert "\n" not in line and " Not copied, as the agent's tools refuse them too: " in line
    assert (app / "project" / "data" / "notes" / "a.txt").read_text() == "inside"


def test_a_copy_past_its_bounds_stops_with_one_line_and_leaves_nothing(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for number in range(30):
        write(project / "data" / "bulk" / f"{number}.txt", "x" * 100)
    monkeypatch.setattr(app_copy, "MAX_ENTRIES", 20)
    with pytest.raises(app_copy.CopyTooLarge) as refused:
        deepnb.deploy(tmp_path / "app")
    message = str(refused.value)
    assert "\n" not in message and message.startswith("Deploying would copy more than 20 files and folders")
    assert not (tmp_path / "app").exists()
    monkeypatch.setattr(app_copy, "MAX_ENTRIES", 10_000)
    monkeypatch.setattr(app_copy, "MAX_BYTES", 1000)
    with pytest.raises(app_copy.CopyTooLarge):
        deepnb.deploy(tmp_path / "app")
    assert not (tmp_path / "app").exists()
    deep = project / "data"
    monkeypatch.setattr(app_copy, "MAX_BYTES", 2**30)
    for _ in range(app_copy.MAX_DEPTH + 1):
        deep = deep / "d"
    deep.mkdir(parents=True)
    with pytest.raises(app_copy.CopyTooLarge) as refused:
        deepnb.deploy(tmp_path / "app")
    assert f"nested more than {app_copy.MAX_DEPTH} folders deep" in str(refused.value)
    assert not (tmp_path / "app").exists()


def test_a_fifo_in_a_backend_folder_is_skipped_not_read(project: Path, tmp_path: Path) -> None:
    os.mkfifo(project / "data" / "pipe")
    deployed = deepnb.deploy(tmp_path / "app")  # reading it would wait forever
    assert "data/pipe (not a file or folder)" in deployed.skipped
