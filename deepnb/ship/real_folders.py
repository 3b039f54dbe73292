"""Writing under a folder without ever going through a link: what serve and deploy write with.

A :class:`Folder` is a real folder held open by its descriptor. Everything below it is created,
replaced, renamed and removed relative to that descriptor (``dir_fd``), each name opened with
``O_NOFOLLOW``, new files created with ``O_EXCL``: a name that is a link is never followed, so a
link committed in a project (or put there while deepnb writes) cannot send a write or a delete
outside it. A link found where a folder is needed is refused; a link found where a file or a
folder is to be replaced is removed itself, never what it points to.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from deepnb.core.errors import DeepnbError

__all__ = ["Folder", "LinkRefused"]

_DIRECTORY = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC


class LinkRefused(DeepnbError):
    """A path serve or deploy would write through is a link (or not a folder)."""


def _refusal(path: Path, error: OSError, *, link: bool = False) -> DeepnbError:
    if link or error.errno in (errno.ELOOP, errno.EMLINK):
        return LinkRefused(
            f"{path} is a link: deepnb writes only into real folders, never through a link — "
            "remove the link (or name another folder)."
        )
    if error.errno == errno.ENOTDIR:
        return LinkRefused(f"{path} is not a folder: remove it or name another folder.")
    return DeepnbError(f"Cannot open {path}: {error.strerror or error}.")


class Folder:
    """A real folder, open: ``path`` names it in messages; every operation goes through ``fd``."""

    def __init__(self, fd: int, path: Path) -> None:
        self.fd = fd
        self.path = path

    @classmethod
    def open(cls, path: Path) -> Folder:
        """Open ``path`` itself (its own links followed: it is the caller's choice, e.g. the
        project's folder); what is below it is then reached only through :meth:`child`."""
        if os.open not in os.supports_dir_fd or not _NOFOLLOW:
            raise DeepnbError(
                "Serving and deploying write through folder descriptors, which this system lacks: "
                "use Linux or macOS (or WSL) to serve or deploy."
            )
        try:
            return cls(os.open(path, _DIRECTORY | _CLOEXEC), path)
        except OSError as error:
            raise _refusal(path, error) from None

    @classmethod
    def walk_to(cls, base: Path, path: Path, *, create: bool) -> Folder:
        """Open ``path`` below the folder ``base``, each part after ``base`` a real folder (made
        when ``create``), never a link."""
        folder = cls.open(base)
        for part in path.relative_to(base).parts:
            try:
                inner = folder.child(part, create=create)
            finally:
                folder.close()
            folder = inner
        return folder

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> Folder:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def kind(self, name: str) -> str | None:
        """``"folder"``, ``"file"``, ``"link"`` or ``"other"`` for the entry ``name`` (links not
        followed), or ``None`` when there is none."""
        try:
            mode = os.stat(name, dir_fd=self.fd, follow_symlinks=False).st_mode
        except FileNotFoundError:
            return None
        if stat.S_ISLNK(mode):
            return "link"
        if stat.S_ISDIR(mode):
            return "folder"
        return "file" if stat.S_ISREG(mode) else "other"

    def child(self, name: str, *, create: bool = False) -> Folder:
        """The real folder ``name`` in this one (made first when ``create``); a link or a file
        there is refused."""
        if create:
            try:
                os.mkdir(name, 0o777, dir_fd=self.fd)
            except FileExistsError:
                pass
            except OSError as error:
                raise _refusal(self.path / name, error) from None
        try:
            fd = os.open(name, _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=self.fd)
        except OSError as error:  # Linux says ENOTDIR for a link with O_DIRECTORY | O_NOFOLLOW
            raise _refusal(self.path / name, error, link=self.kind(name) == "link") from None
        return Folder(fd, self.path / name)

    def create(self, name: str, mode: int = 0o666) -> BinaryIO:
        """A new file ``name`` open for writing: one there before (or a link there) is removed
        first, never written through."""
        self.remove(name)
        try:
            fd = os.open(name, _NEW_FILE, mode, dir_fd=self.fd)
        except OSError as error:
            raise _refusal(self.path / name, error, link=self.kind(name) == "link") from None
        return os.fdopen(fd, "wb")

    def write(self, name: str, data: bytes) -> None:
        """Replace the file ``name`` with ``data`` (see :meth:`create`)."""
        with self.create(name) as out:
            out.write(data)

    def read(self, name: str) -> bytes | None:
        """The bytes of the real file ``name``, or ``None`` when it is missing or a link."""
        try:
            fd = os.open(name, os.O_RDONLY | _NOFOLLOW | _CLOEXEC, dir_fd=self.fd)
        except OSError:
            return None
        with os.fdopen(fd, "rb") as source:
            if not stat.S_ISREG(os.fstat(source.fileno()).st_mode):
                return None
            return source.read()

    def symlink(self, target: str, name: str) -> None:
        """A link ``name`` to ``target`` (a path relative to the link)."""
        os.symlink(target, name, dir_fd=self.fd)

    def remove(self, name: str) -> None:
        """Remove the entry ``name``: a file or a link itself, a folder with everything in it
        (nothing below is followed either); nothing there is fine."""
        kind = self.kind(name)
        if kind is None:
            return
        if kind == "folder":
            shutil.rmtree(name, dir_fd=self.fd)
        else:
            os.unlink(name, dir_fd=self.fd)

    def remove_entry(self, name: str) -> None:
        """Remove ``name`` if it is a file, a link or an empty folder (a folder with something
        in it stays, and is an error)."""
        if self.kind(name) == "folder":
            os.rmdir(name, dir_fd=self.fd)
        else:
            os.unlink(name, dir_fd=self.fd)

    def rename(self, name: str, new: str) -> None:
        """Rename the entry ``name`` to ``new`` in this folder (what is at ``new`` is removed
        first, see :meth:`remove`)."""
        self.remove(new)
        os.rename(name, new, src_dir_fd=self.fd, dst_dir_fd=self.fd)

    def move_to(self, name: str, other: Folder) -> None:
        """Move the entry ``name`` into the folder ``other`` under the same name (what is there
        is removed first, see :meth:`remove`); a link moves as itself, never what it points to."""
        other.remove(name)
        os.rename(name, name, src_dir_fd=self.fd, dst_dir_fd=other.fd)

    def entries(self, prefix: str = "") -> Iterator[tuple[str, str]]:
        """Every entry below this folder as ``(relative posix path, kind)``, folders before what
        they hold; links are listed, never followed."""
        with os.scandir(self.fd) as found:
            names = sorted(entry.name for entry in found)
        for name in names:
            kind = self.kind(name)
            if kind is None:
                continue
            yield prefix + name, kind
            if kind == "folder":
                with self.child(name) as inner:
                    yield from inner.entries(f"{prefix}{name}/")

    def remove_path(self, relative: str) -> None:
        """:meth:`remove_entry` on a path below this folder (each folder on the way real)."""
        *folders, name = relative.split("/")
        if not folders:
            self.remove_entry(name)
            return
        inner = self.child(folders[0])
        with inner:
            inner.remove_path("/".join([*folders[1:], name]))
