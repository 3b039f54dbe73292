"""Symlinks inside a ``FilesystemBackend`` root don't get round the agent's permission rules from the
notebook side: every entry point (``run.files`` and the file browser's messages) resolves a path the
way the agent's own tools do before checking it, and refuses a link that leads outside the root.

The same table runs over a ``FilesystemBackend`` and over a ``CompositeBackend`` with a disk route.
"""

from __future__ import annotations

import base64
import json
import os
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import deepnb
from deepnb.models.scripted import ScriptedChatModel, parse_script
from deepnb.session.files import Files, UnsafePathError

SECRET = "SENTINEL-7f3a-secret"
OUTSIDE = "SENTINEL-9b2c-outside"
DENIED = "is denied by the agent's permission rule"
LEAVES = "leads outside its root"


@dataclass
class Setup:
    files: Files
    prefix: str  # where the folder on disk is mounted in the agent's filesystem ('' or '/disk')
    root: Path

    def secret_file(self) -> Path:
        return self.root / "secrets" / "key.txt"


def _folder(tmp_path: Path) -> Path:
    """secrets/key.txt, pub/ok.md, and links: pub/key.txt → ../secrets/key.txt, pub/sdir →
    ../secrets, pub/out.txt → a file outside the root."""
    root = tmp_path / "root"
    (root / "secrets").mkdir(parents=True)
    (root / "pub").mkdir()
    (root / "secrets" / "key.txt").write_text(SECRET + "\n")
    (root / "pub" / "ok.md").write_text("fine\n")
    (tmp_path / "outside.txt").write_text(OUTSIDE + "\n")
    os.symlink("../secrets/key.txt", root / "pub" / "key.txt")
    os.symlink("../secrets", root / "pub" / "sdir")
    os.symlink(tmp_path / "outside.txt", root / "pub" / "out.txt")
    return root


@pytest.fixture(params=["disk", "composite"])
def setup(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Setup]:
    from deepagents import FilesystemPermission
    from deepagents.backends import CompositeBackend, FilesystemBackend, StateBackend

    root = _folder(tmp_path)
    disk = FilesystemBackend(root_dir=str(root), virtual_mode=True)
    prefix = "" if request.param == "disk" else "/disk"
    backend = disk if not prefix else CompositeBackend(default=StateBackend(), routes={"/disk/": disk})
    rules = [FilesystemPermission(operations=["read", "write"], paths=[f"{prefix}/secrets/**"], mode="deny")]
    model = ScriptedChatModel(script=parse_script({"agents": {"main": [{"turns": ["ok"]}]}}))
    wb = deepnb.agent(f"links-{uuid.uuid4().hex[:6]}", model, backend=backend, permissions=rules)
    yield Setup(wb.files(), prefix, root)


def _view_request(kind: str, **extra: Any) -> Callable[[Files, str], Any]:
    def ask(files: Files, path: str) -> Any:
        from deepnb.views.files.files_view import FilesView

        view = FilesView(files)
        try:
            reply = view.request({"type": kind, "path": path, **extra})
        finally:
            view.close()
        assert SECRET not in json.dumps(reply) and OUTSIDE not in json.dumps(reply)
        for encoded in (SECRET, OUTSIDE):
            assert base64.b64encode(f"{encoded}\n".encode()).decode() not in json.dumps(reply)
        if reply["error"]:
            raise (
                PermissionError(reply["error"])
                if DENIED in reply["error"]
                else UnsafePathError(reply["error"])
            )
        return reply

    return ask


ENTRY_POINTS: dict[str, Callable[[Files, str], Any]] = {
    "files[path]": lambda files, path: files[path],
    "read": lambda files, path: files.read(path),
    "read_bytes": lambda files, path: files.read_bytes(path),
    "write": lambda files, path: files.write(path, "overwritten"),
    "edit": lambda files, path: files.edit(path, "SENTINEL", "changed"),
    "delete": lambda files, path: files.delete(path),
    "view open": _view_request("open"),
    "view save": _view_request("save", text="overwritten"),
    "view download": _view_request("download"),
}

LINKS = {
    "/pub/key.txt": (PermissionError, f"(it leads to {{prefix}}/secrets/key.txt) {DENIED}"),
    "/pub/sdir/key.txt": (PermissionError, f"(it leads to {{prefix}}/secrets/key.txt) {DENIED}"),
    "/pub/out.txt": (UnsafePathError, LEAVES),
}


@pytest.mark.parametrize("link", sorted(LINKS))
@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_every_entry_point_refuses_a_link_to_a_denied_or_outside_file(
    setup: Setup, entry: str, link: str
) -> None:
    error, message = LINKS[link]
    path = setup.prefix + link
    with pytest.raises(error) as raised:
        ENTRY_POINTS[entry](setup.files, path)
    assert message.format(prefix=setup.prefix) in str(raised.value)
    assert "\n" not in str(raised.value)
    assert setup.secret_file().read_text() == SECRET + "\n"  # nothing written through the link
    assert (setup.root / "pub" / "key.txt").is_symlink() and (setup.root / "pub" / "sdir").is_symlink()
    assert not setup.files.writable(path)


def _listed(files: Files, prefix: str, tmp_path: Path) -> dict[str, Any]:
    """What each listing, search and copy entry point shows of the whole folder."""
    from deepnb.views.files.files_view import FilesView

    pulled = tmp_path / "pulled"
    view = FilesView(files, path=prefix + "/pub/")
    try:
        replies = {
            f"view {kind}": view.request({"type": "search", "mode": kind, "query": query, "path": "/"})
            for kind, query in (("glob", "**"), ("grep", "SENTINEL"))
        }
        replies["view ls"] = view.request({"type": "ls", "path": prefix + "/pub/"})
        replies["view root"] = [e.path for e in view.entries]
    finally:
        view.close()
    return {
        "iter": list(files),
        "to_dict": files.to_dict(),
        "ls pub": [e.path for e in files.ls(prefix + "/pub/")],
        "ls sdir": [e.path for e in files.ls(prefix + "/pub/sdir/")],
        "glob": files.glob("**"),
        "grep": [(m.path, m.text) for m in files.grep("SENTINEL")],
        "repr": repr(files),
        "pull": sorted(p.read_text() for p in files.pull(pulled)),
        **replies,
    }


def test_listings_searches_and_pull_show_nothing_behind_the_links(setup: Setup, tmp_path: Path) -> None:
    shown = _listed(setup.files, setup.prefix, tmp_path)
    for entry, value in shown.items():
        text = json.dumps(value, default=str)
        assert SECRET not in text and OUTSIDE not in text, entry
        assert "/secrets/" not in text and "/pub/key.txt" not in text and "/pub/out.txt" not in text, entry
    assert shown["iter"] == [setup.prefix + "/pub/ok.md"]
    assert shown["pull"] == ["fine\n"]
    assert not any(p.is_symlink() for p in (tmp_path / "pulled").rglob("*"))


def test_without_rules_a_link_out_of_the_root_is_still_refused(tmp_path: Path) -> None:
    from deepagents.backends import FilesystemBackend

    root = _folder(tmp_path)
    model = ScriptedChatModel(script=parse_script({"agents": {"main": [{"turns": ["ok"]}]}}))
    wb = deepnb.agent(
        f"links-{uuid.uuid4().hex[:6]}",
        model,
        backend=FilesystemBackend(root_dir=str(root), virtual_mode=True),
    )
    files = wb.files()
    for entry in ("read_bytes", "write", "delete", "view open", "view save", "view download"):
        with pytest.raises(UnsafePathError, match=LEAVES):
            ENTRY_POINTS[entry](files, "/pub/out.txt")
    assert (tmp_path / "outside.txt").read_text() == OUTSIDE + "\n"
    assert (root / "pub" / "out.txt").is_symlink()
