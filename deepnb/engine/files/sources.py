"""Where an agent's files live, behind one small async interface.

- :class:`StateSource` — the thread's checkpoint (deepagents' ``StateBackend``): files are read
  from the latest checkpoint and written with ``update_state``, which makes a new checkpoint.
- :class:`BackendSource` — any backend object that works outside a graph run
  (``FilesystemBackend``, ``StoreBackend``, sandboxes, …), through its own async methods.
- :class:`Mounts` — a ``CompositeBackend``: a default source plus sources mounted at path
  prefixes (the prefix is stripped before the mounted source sees a path, as deepagents does).
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import wcmatch.glob as wcglob

from deepnb.core.errors import DeepnbError
from deepnb.core.file_paths import UnsafePathError, clean_path, parent
from deepnb.core.threads.reading import read_state
from deepnb.engine.deepagents_internals import store_parts

if TYPE_CHECKING:
    from deepagents.backends.protocol import FileData


def glob_match(path: str, pattern: str) -> bool:
    """Whether ``path`` matches ``pattern`` the way deepagents matches (``**``, ``{a,b}``)."""
    return wcglob.globmatch(path, pattern, flags=wcglob.BRACE | wcglob.GLOBSTAR)


@dataclass(frozen=True)
class Entry:
    """A file or folder. Folders' paths end with ``/``; ``mount`` names the route prefix when the
    folder is where another backend is mounted."""

    path: str
    is_dir: bool = False
    size: int | None = None
    modified_at: str | None = None
    mount: str | None = None

    @property
    def name(self) -> str:
        return self.path.rstrip("/").rsplit("/", 1)[-1] + ("/" if self.is_dir else "")


@dataclass(frozen=True)
class Match:
    """A line of a file that contains what :meth:`Files.grep` looked for."""

    path: str
    line: int
    text: str


class FileMissing(KeyError):
    """No file at this path."""


class FileSource(Protocol):
    """Where a thread's files are read and written: its checkpoint state, an agent backend, or
    several of these mounted at path prefixes. ``label`` names it for people."""

    label: str

    async def entries(self) -> dict[str, Entry]: ...
    async def paths(self) -> list[str]: ...
    async def describe(self, paths: list[str]) -> list[Entry]: ...
    async def listing(self, folder: str) -> list[Entry]: ...
    async def read_bytes(self, path: str) -> bytes: ...
    async def read_many(self, paths: Sequence[str]) -> dict[str, bytes]: ...
    async def write_bytes(self, path: str, data: bytes) -> None: ...
    async def delete(self, path: str) -> None: ...
    async def glob(self, pattern: str, folder: str) -> list[Entry]: ...
    async def grep(self, literal: str, folder: str, glob: str | None) -> list[Match]: ...


def _decode(data: Mapping[str, Any]) -> bytes:
    content = data.get("content", "")
    if isinstance(content, list):  # the older line-list format
        content = "\n".join(content)
    if data.get("encoding") == "base64":
        return base64.b64decode(content)
    return str(content).encode("utf-8")


def _state_entry(path: str, data: Mapping[str, Any]) -> Entry:
    content = data.get("content", "")
    if data.get("encoding") == "base64":
        size = len(content) * 3 // 4 - str(content).count("=")
    elif isinstance(content, str):
        size = len(content.encode("utf-8"))
    else:
        size = len(_decode(data))
    return Entry(path, size=size, modified_at=data.get("modified_at"))


def file_data(data: str | bytes, previous: Mapping[str, Any] | None = None) -> FileData:
    """``data`` as deepagents keeps a file in its state (UTF-8 text, else base64), keeping when
    the file ``previous`` was created."""
    from deepagents.backends.utils import create_file_data  # noqa: PLC0415  # lazy: heavy

    if isinstance(data, str):
        data = data.encode("utf-8")
    try:
        content, encoding = data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        content, encoding = base64.b64encode(data).decode("ascii"), "base64"
    created = previous.get("created_at") if previous else None
    return create_file_data(content, created_at=created, encoding=encoding)


class StateSource:
    """The files in a thread's checkpoint state (``StateBackend``)."""

    label = "state"

    def __init__(self, graph: Any, thread_id: str, checkpoint_id: str | None = None) -> None:
        self.graph = graph
        self.config = {"configurable": {"thread_id": thread_id}}
        if checkpoint_id is not None:  # a past checkpoint: read-only
            self.config["configurable"]["checkpoint_id"] = checkpoint_id

    async def _files(self) -> Mapping[str, Mapping[str, Any]]:
        snapshot = await read_state(self.graph, self.config)
        return (snapshot.values or {}).get("files") or {}

    async def entries(self) -> dict[str, Entry]:
        files = await self._files()
        return {path: _state_entry(path, data) for path, data in files.items() if isinstance(data, Mapping)}

    async def paths(self) -> list[str]:
        return sorted(path for path, data in (await self._files()).items() if isinstance(data, Mapping))

    async def describe(self, paths: list[str]) -> list[Entry]:
        files = await self._files()
        return [_state_entry(p, files[p]) for p in paths if isinstance(files.get(p), Mapping)]

    async def listing(self, folder: str) -> list[Entry]:
        # Only the folder's own files are measured: a listing stays cheap in a large filesystem.
        files = await self._files()
        found: dict[str, Entry] = {}
        for path, data in files.items():
            if not path.startswith(folder) or path == folder or not isinstance(data, Mapping):
                continue
            head, slash, _ = path[len(folder) :].partition("/")
            if not slash:
                found[path] = _state_entry(path, data)
            elif folder + head + "/" not in found:
                found[folder + head + "/"] = Entry(folder + head + "/", is_dir=True)
        return sorted(found.values(), key=lambda e: (not e.is_dir, e.path))

    async def read_bytes(self, path: str) -> bytes:
        data = (await self._files()).get(path)
        if not isinstance(data, Mapping):
            raise FileMissing(path)
        return _decode(data)

    async def read_many(self, paths: Sequence[str]) -> dict[str, bytes]:
        """Each of ``paths`` that is a file → its content, from one read of the state."""
        files = await self._files()
        return {p: _decode(files[p]) for p in paths if isinstance(files.get(p), Mapping)}

    async def write_bytes(self, path: str, data: bytes) -> None:
        previous = (await self._files()).get(path)
        await self.graph.aupdate_state(self.config, {"files": {path: file_data(data, previous)}})

    async def delete(self, path: str) -> None:
        if path not in await self._files():
            raise FileMissing(path)
        await self.graph.aupdate_state(self.config, {"files": {path: None}})

    async def glob(self, pattern: str, folder: str) -> list[Entry]:
        return [
            e
            for p, e in sorted((await self.entries()).items())
            if p.startswith(folder) and glob_match(p, pattern)
        ]

    async def grep(self, literal: str, folder: str, glob: str | None) -> list[Match]:
        found = []
        for path, data in sorted((await self._files()).items()):
            if (
                not path.startswith(folder)
                or not isinstance(data, Mapping)
                or data.get("encoding") == "base64"
            ):
                continue
            if glob and not glob_match(path.rsplit("/", 1)[-1], glob) and not glob_match(path, glob):
                continue
            for number, line in enumerate(_decode(data).decode("utf-8", "replace").splitlines(), 1):
                if literal in line:
                    found.append(Match(path, number, line))
        return found


class BackendSource:
    """A deepagents backend object used directly (it must work outside a graph run)."""

    def __init__(self, backend: Any) -> None:
        self.backend = backend
        self.label = type(backend).__name__

    @staticmethod
    def _check(result: Any, what: str) -> Any:
        error = getattr(result, "error", None)
        if error:
            raise DeepnbError(f"The agent's backend could not {what}: {error}")
        return result

    @staticmethod
    def _entry(info: Mapping[str, Any]) -> Entry:
        is_dir = bool(info.get("is_dir"))
        path = info["path"]
        if is_dir and not path.endswith("/"):
            path += "/"
        return Entry(path, is_dir=is_dir, size=info.get("size"), modified_at=info.get("modified_at"))

    def host_path(self, path: str) -> Path | None:
        """Where ``path`` lives on this machine, for a backend over a folder of it
        (``FilesystemBackend`` and its shell); ``None`` for any other backend."""
        from deepagents.backends import FilesystemBackend  # noqa: PLC0415  # lazy: heavy

        if not isinstance(self.backend, FilesystemBackend):
            return None
        root = Path(self.backend.cwd)
        if self.backend.virtual_mode or not path.startswith("/"):
            return root / path.lstrip("/")
        return Path(path)

    async def listing(self, folder: str) -> list[Entry]:
        result = self._check(await self.backend.als(folder), f"list {folder}")
        entries = [self._entry(info) for info in result.entries or ()]
        return sorted(entries, key=lambda e: (not e.is_dir, e.path))

    async def entries(self) -> dict[str, Entry]:
        """Every file: a backend's ``**`` leaves out dotfiles and what dot-folders hold, so those
        are globbed (``**/.*``) and walked (each dot-folder of a folder that holds files)."""
        found: dict[str, Entry] = {}
        for pattern in ("**", "**/.*"):
            result = self._check(await self.backend.aglob(pattern, "/"), "list its files")
            found.update((e.path, e) for e in (self._entry(i) for i in result.matches or ()) if not e.is_dir)
        folders = {"/"} | {p[: i + 1] for p in found for i, c in enumerate(p) if c == "/"}
        for folder in sorted(folders):
            for entry in await self.listing(folder):
                if entry.is_dir and entry.path.rstrip("/").rpartition("/")[2].startswith("."):
                    await self._walk(entry.path, found)
        return found

    async def _walk(self, folder: str, found: dict[str, Entry]) -> None:
        for entry in await self.listing(folder):
            if entry.is_dir:
                await self._walk(entry.path, found)
            else:
                found[entry.path] = entry

    async def paths(self) -> list[str]:
        return sorted(await self.entries())

    async def describe(self, paths: list[str]) -> list[Entry]:
        entries = await self.entries()
        return [entries[p] for p in paths if p in entries]

    async def read_bytes(self, path: str) -> bytes:
        (response,) = await self.backend.adownload_files([path])
        if response.error in ("file_not_found", "is_directory") or (
            response.error is None and response.content is None
        ):
            raise FileMissing(path)
        return self._content(path, response)

    async def read_many(self, paths: Sequence[str]) -> dict[str, bytes]:
        """Each of ``paths`` that is a file → its content, in one download."""
        if not paths:
            return {}
        responses = await self.backend.adownload_files(list(paths))
        found = {}
        for path, response in zip(paths, responses, strict=True):
            if response.error not in ("file_not_found", "is_directory") and (
                response.error is not None or response.content is not None
            ):
                found[path] = self._content(path, response)
        return found

    @staticmethod
    def _content(path: str, response: Any) -> bytes:
        if response.error == "invalid_path":
            raise UnsafePathError(f"{path} is refused by the agent's backend: it leads outside its root.")
        if response.error:
            raise DeepnbError(f"The agent's backend could not read {path}: {response.error}")
        content: bytes = response.content  # a FileDownloadResponse without an error has its bytes
        return content

    async def write_bytes(self, path: str, data: bytes) -> None:
        (response,) = await self.backend.aupload_files([(path, data)])
        if response.error == "invalid_path":
            raise UnsafePathError(f"{path} is refused by the agent's backend: it leads outside its root.")
        if response.error:
            raise DeepnbError(f"The agent's backend could not write {path}: {response.error}")

    async def delete(self, path: str) -> None:
        result = await self.backend.adelete(path)
        if getattr(result, "error", None):
            if "not" in str(result.error) and "found" in str(result.error):
                raise FileMissing(path)
            raise DeepnbError(f"The agent's backend could not delete {path}: {result.error}")

    async def glob(self, pattern: str, folder: str) -> list[Entry]:
        result = self._check(await self.backend.aglob(pattern, folder), f"search {folder}")
        return [e for e in (self._entry(i) for i in result.matches or ()) if not e.is_dir]

    async def grep(self, literal: str, folder: str, glob: str | None) -> list[Match]:
        result = self._check(await self.backend.agrep(literal, folder, glob), f"search {folder}")
        return [Match(m["path"], int(m["line"]), m["text"]) for m in result.matches or ()]


class Mounts:
    """A default source with others mounted at path prefixes (``CompositeBackend``)."""

    def __init__(self, default: FileSource, routes: Sequence[tuple[str, FileSource]]) -> None:
        self.default = default
        self.routes = sorted(routes, key=lambda route: -len(route[0]))
        self.label = "composite"

    def source_of(self, path: str) -> FileSource:
        """The source that holds ``path``."""
        return self.route(path)[0]

    def route(self, path: str) -> tuple[FileSource, str, str]:
        """The source serving ``path``, the path it sees, and the prefix to add back."""
        for prefix, source in self.routes:
            if path.startswith(prefix) or path + "/" == prefix:
                inner = "/" + path[len(prefix) :]
                return source, inner, prefix.rstrip("/")
        return self.default, path, ""

    @staticmethod
    def _outer(entry: Entry, prefix: str) -> Entry:
        return Entry(prefix + entry.path, entry.is_dir, entry.size, entry.modified_at, entry.mount)

    async def listing(self, folder: str) -> list[Entry]:
        source, inner, prefix = self.route(folder)
        entries = [self._outer(e, prefix) for e in await source.listing(inner)]
        if not prefix:  # mount points inside this folder show as folders
            known = {e.path for e in entries}
            for mount, _ in self.routes:
                if parent(mount) == folder and mount not in known:
                    entries.append(Entry(mount, is_dir=True, mount=mount))
                elif mount in known:
                    entries = [
                        Entry(e.path, True, e.size, e.modified_at, mount) if e.path == mount else e
                        for e in entries
                    ]
        return sorted(entries, key=lambda e: (not e.is_dir, e.path))

    async def entries(self) -> dict[str, Entry]:
        found = dict(await self.default.entries())
        for prefix, source in self.routes:
            found = {p: e for p, e in found.items() if not p.startswith(prefix)}
            found.update(
                (prefix.rstrip("/") + p, self._outer(e, prefix.rstrip("/")))
                for p, e in (await source.entries()).items()
            )
        return dict(sorted(found.items()))

    async def paths(self) -> list[str]:
        found = [p for p in await self.default.paths() if not any(p.startswith(r) for r, _ in self.routes)]
        for prefix, source in self.routes:
            found += [prefix.rstrip("/") + p for p in await source.paths()]
        return sorted(found)

    async def describe(self, paths: list[str]) -> list[Entry]:
        found = []
        for path in paths:
            source, inner, prefix = self.route(path)
            found += [self._outer(e, prefix) for e in await source.describe([inner])]
        return found

    async def read_bytes(self, path: str) -> bytes:
        source, inner, _ = self.route(path)
        return await source.read_bytes(inner)

    async def read_many(self, paths: Sequence[str]) -> dict[str, bytes]:
        by_source: dict[int, tuple[FileSource, dict[str, str]]] = {}
        for path in paths:
            source, inner, _ = self.route(path)
            by_source.setdefault(id(source), (source, {}))[1][inner] = path
        found: dict[str, bytes] = {}
        for source, outer in by_source.values():
            read = await source.read_many(list(outer))
            found.update((outer[inner], data) for inner, data in read.items())
        return {p: found[p] for p in paths if p in found}

    async def write_bytes(self, path: str, data: bytes) -> None:
        source, inner, _ = self.route(path)
        await source.write_bytes(inner, data)

    async def delete(self, path: str) -> None:
        source, inner, _ = self.route(path)
        await source.delete(inner)

    async def glob(self, pattern: str, folder: str) -> list[Entry]:
        return [
            e for p, e in (await self.entries()).items() if p.startswith(folder) and glob_match(p, pattern)
        ]

    async def grep(self, literal: str, folder: str, glob: str | None) -> list[Match]:
        source, inner, prefix = self.route(folder)
        found = [Match(prefix + m.path, m.line, m.text) for m in await source.grep(literal, inner, glob)]
        if not prefix:
            for mount, routed in self.routes:
                if mount.startswith(folder):
                    found += [
                        Match(mount.rstrip("/") + m.path, m.line, m.text)
                        for m in await routed.grep(literal, "/", glob)
                    ]
        return sorted(found, key=lambda m: (m.path, m.line))


def source_for(backend: Any, graph: Any, thread_id: str, checkpoint_id: str | None = None) -> FileSource:
    """The source for an agent's ``backend`` option (``None`` means the thread's state).
    With ``checkpoint_id``, state-held files are read as they were at that checkpoint."""
    from deepagents.backends import CompositeBackend, StateBackend, StoreBackend  # noqa: PLC0415  # lazy

    if backend is None or isinstance(backend, StateBackend):
        return StateSource(graph, thread_id, checkpoint_id)
    if isinstance(backend, CompositeBackend):
        routes = [
            (clean_path(prefix, directory=True), source_for(b, graph, thread_id, checkpoint_id))
            for prefix, b in backend.routes.items()
        ]
        return Mounts(source_for(backend.default, graph, thread_id, checkpoint_id), routes)
    if isinstance(backend, StoreBackend) and store_parts(backend)[0] is None:
        store = getattr(graph, "store", None)
        if store is None:
            raise DeepnbError(
                "The agent's StoreBackend has no store: pass store=... to StoreBackend or to the agent."
            )
        backend = StoreBackend(namespace=store_parts(backend)[1], store=store)
    if callable(backend) and not hasattr(backend, "als"):
        raise DeepnbError(
            "The agent's backend is a factory, which only works inside a run: pass a backend object "
            "(e.g. FilesystemBackend(root_dir=..., virtual_mode=True)) to browse its files here."
        )
    return BackendSource(backend)
