"""Copying the project's files into an app folder with the backend's rule for links, bounded.

A disk backend's tools resolve a path through its links and refuse one that leads outside the
backend's folder; a copy keeps that rule. :class:`Copier` walks a source folder by descriptor and
never follows a link: a link that resolves inside the folder being copied is copied as a link (it
then resolves to the copy, as it does in the kernel), one that leaves the folder, dangles or loops
is not copied, and is named in :attr:`Copier.skipped`. Files are read with ``O_NOFOLLOW`` and written
through :class:`~deepnb.ship.real_folders.Folder`; a copy stops with a clear message past
:data:`MAX_ENTRIES` entries, :data:`MAX_BYTES` bytes or :data:`MAX_DEPTH` nested folders.
"""

from __future__ import annotations

import fnmatch
import os
import stat
from collections.abc import Iterable
from pathlib import Path

from deepnb.core.errors import DeepnbError
from deepnb.ship.real_folders import Folder

__all__ = ["MAX_BYTES", "MAX_DEPTH", "MAX_ENTRIES", "Copier", "CopyTooLarge"]

MAX_ENTRIES = 20_000
"""Most files, folders and links one deployment copies."""
MAX_BYTES = 1024 * 1024 * 1024
"""Most bytes one deployment copies (1 GiB)."""
MAX_DEPTH = 64
"""Most folders nested in one another that a copy goes down."""

_READ = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_CHUNK = 1024 * 1024


class CopyTooLarge(DeepnbError):
    """A deployment would copy more than its bounds allow."""


class Copier:
    """Copies into the app folder ``app``; ``written`` lists every entry it made there (app-relative
    posix paths, folders before what they hold), ``skipped`` the links it did not follow."""

    def __init__(self, app: Folder, *, project: Path, skip: Iterable[str] = ()) -> None:
        self.app = app
        self.project = project
        self.patterns = tuple(skip)
        self.written: dict[str, None] = {}
        self.skipped: list[str] = []
        self.entries = 0
        self.bytes = 0
        app_stat = os.fstat(app.fd)
        self._avoid = (app_stat.st_dev, app_stat.st_ino)

    def copy(self, source: Path, relative: str) -> None:
        """Copy the real file or folder ``source`` (resolved by the caller: the kernel follows
        the path a table names) to ``relative`` in the app, making the folders on the way."""
        *parents, name = relative.split("/")
        folder = self._folders(parents)
        fd = -1
        try:
            fd = os.open(source, _READ)
        except FileNotFoundError:
            return  # nothing there to copy, as before: building the agent says what is missing
        except OSError as error:
            raise DeepnbError(f"Cannot copy {self._relative(source)}: {error.strerror or error}.") from None
        try:
            mode = os.fstat(fd).st_mode
            if stat.S_ISDIR(mode):
                self._count(source)
                with folder.child(name, create=True) as inner:
                    self._made(relative)
                    self._folder(fd, source, source, inner, relative, depth=1)
            elif stat.S_ISREG(mode):
                self._file(fd, source, folder, name, relative)
        finally:
            if fd >= 0:
                os.close(fd)
            if folder is not self.app:
                folder.close()

    def _folders(self, parts: list[str]) -> Folder:
        folder, relative = self.app, ""
        for part in parts:
            relative = f"{relative}{part}"
            inner = folder.child(part, create=True)
            self._made(relative)
            if folder is not self.app:
                folder.close()
            folder, relative = inner, relative + "/"
        return folder

    def _made(self, relative: str) -> None:
        self.written.setdefault(relative, None)

    def _relative(self, path: Path) -> str:
        return path.relative_to(self.project).as_posix() if path.is_relative_to(self.project) else str(path)

    def _count(self, path: Path, *, entries: int = 1, size: int = 0) -> None:
        self.entries += entries
        self.bytes += size
        if self.entries > MAX_ENTRIES or self.bytes > MAX_BYTES:
            raise CopyTooLarge(
                f"Deploying would copy more than {MAX_ENTRIES:,} files and folders or "
                f"{MAX_BYTES // 2**20:,} MB (past {self._relative(path)}): give the disk backend a "
                "smaller root_dir, since deepnb copies its whole folder."
            )

    def _skipped(self, path: Path, why: str) -> None:
        self.skipped.append(f"{self._relative(path)} ({why})")

    def _folder(self, fd: int, path: Path, root: Path, into: Folder, relative: str, *, depth: int) -> None:
        if depth > MAX_DEPTH:
            raise CopyTooLarge(
                f"{self._relative(path)} is nested more than {MAX_DEPTH} folders deep: deepnb does not "
                "copy it; give the disk backend a shallower root_dir."
            )
        with os.scandir(fd) as found:
            names = sorted(entry.name for entry in found)
        for name in names:
            if any(fnmatch.fnmatch(name, pattern) for pattern in self.patterns):
                continue
            source, target = path / name, f"{relative}/{name}"
            try:
                info = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                continue
            if stat.S_ISLNK(info.st_mode):
                self._link(source, root, into, name, target)
            elif stat.S_ISDIR(info.st_mode):
                if (info.st_dev, info.st_ino) == self._avoid:
                    continue  # the app folder itself, inside the folder being copied
                try:
                    inner_fd = os.open(name, _READ | getattr(os, "O_DIRECTORY", 0), dir_fd=fd)
                except OSError:
                    self._skipped(source, "not a folder to read")
                    continue
                try:
                    self._count(source)
                    with into.child(name, create=True) as inner:
                        self._made(target)
                        self._folder(inner_fd, source, root, inner, target, depth=depth + 1)
                finally:
                    os.close(inner_fd)
            elif stat.S_ISREG(info.st_mode):
                try:
                    file_fd = os.open(name, _READ, dir_fd=fd)
                except OSError:
                    self._skipped(source, "not a file to read")
                    continue
                try:
                    self._file(file_fd, source, into, name, target)
                finally:
                    os.close(file_fd)
            else:
                self._skipped(source, "not a file or folder")

    def _link(self, source: Path, root: Path, into: Folder, name: str, relative: str) -> None:
        """A link in the folder ``root``: copied as a link when it resolves inside ``root``."""
        try:
            resolved = Path(os.path.realpath(source, strict=True))
        except (OSError, RuntimeError):
            self._skipped(source, "a link that dangles or loops")
            return
        if not resolved.is_relative_to(root):
            self._skipped(source, "a link that leaves its folder")
            return
        self._count(source)
        into.symlink(os.path.relpath(resolved, source.parent), name)
        self._made(relative)

    def _file(self, fd: int, source: Path, into: Folder, name: str, relative: str) -> None:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            self._skipped(source, "not a file or folder")
            return
        self._count(source)
        with into.create(name) as out:
            self._made(relative)
            while chunk := os.read(fd, _CHUNK):
                self._count(source, entries=0, size=len(chunk))
                out.write(chunk)
            os.fchmod(out.fileno(), stat.S_IMODE(info.st_mode))
            out.flush()
            os.utime(out.fileno(), ns=(info.st_atime_ns, info.st_mtime_ns))
