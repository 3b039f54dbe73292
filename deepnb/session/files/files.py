"""``Files``: an agent thread's filesystem as notebook state you can browse, search, edit and pull."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from deepnb.core.displayable import WidgetDisplayable
from deepnb.core.errors import DeepnbError
from deepnb.core.file_paths import clean_path, is_under
from deepnb.core.handles import AgentHandle
from deepnb.core.loop import run_sync
from deepnb.engine.files import watch
from deepnb.engine.files.rules import Rules
from deepnb.engine.files.sources import Entry, FileMissing, Match, Mounts, StateSource, source_for
from deepnb.session.files import hold

REPR_LIMIT = 40
"""How many entries a file listing shows before it summarizes the rest."""


class Files(WidgetDisplayable, Mapping[str, str]):
    """A thread's files: a mapping of path → text, read when accessed, over whatever backend the
    agent uses (its state, a folder on disk, a LangGraph store, or routes of a composite).

    Writes (``write``, ``edit``, ``delete``) follow the agent's ``permissions`` rules, and a change
    to a memory file or a skill takes effect on the thread's next turn. While a run holds the
    thread, a change that would reach the thread's state (a file held there, a memory file or a
    skill) is refused with a ``DeepnbError``: the run's next step would overwrite it.
    """

    def __init__(self, workbench: AgentHandle, thread_id: str, *, checkpoint_id: str | None = None) -> None:
        self.workbench = workbench
        self.thread_id = thread_id
        self.checkpoint_id = checkpoint_id
        """Set for the files as they were at a past checkpoint (read-only; state-held files only)."""
        setup = workbench.file_setup
        self.known = setup.known
        """Whether deepnb knows where the agent keeps its files (not so for an attached graph
        whose backend it could not find: ``deepnb.attach(graph, backend=...)`` names it)."""
        self._source = source_for(setup.backend, workbench.graph, thread_id, checkpoint_id)
        self._rules = Rules(setup.permissions, setup.backend)
        self._memory = setup.memory_paths()
        """Each memory source as the agent names it → its path here."""
        self._skills = setup.skill_folders()

    # -- reading ----------------------------------------------------------------------------

    def __getitem__(self, path: str) -> str:
        data = self.read_bytes(path)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise DeepnbError(
                f"{path} is a binary file ({len(data):,} bytes): use .read_bytes(path)."
            ) from None

    def read_bytes(self, path: str) -> bytes:
        """The file's raw content."""
        path = clean_path(path)
        self._require("read", path)
        try:
            return run_sync(self._source.read_bytes(path))
        except FileMissing:
            raise KeyError(path) from None

    def read(self, path: str, offset: int = 0, limit: int | None = None) -> str:
        """Lines ``offset`` to ``offset + limit`` of a text file (all of them without ``limit``)."""
        lines = self[path].splitlines(keepends=True)
        return "".join(lines[offset : None if limit is None else offset + limit])

    def _paths(self) -> list[str]:
        paths = run_sync(self._source.paths())
        allowed = self._rules.filter("read")
        return [p for p in paths if allowed(p)] if self._rules else paths

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths())

    def __len__(self) -> int:
        return len(self._paths())

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and path in set(self._paths())

    def ls(self, path: str = "/") -> list[Entry]:
        """What a folder holds: its files and folders (mount points of other backends included)."""
        folder = clean_path(path, directory=True)
        allowed = self._rules.filter("read")
        return [e for e in run_sync(self._source.listing(folder)) if allowed(e.path)]

    def glob(self, pattern: str, path: str = "/") -> list[str]:
        """Paths of files matching ``pattern`` (``**`` crosses folders, ``{a,b}`` alternates)."""
        folder = clean_path(path, directory=True)
        if not pattern.startswith("/"):
            pattern = folder + pattern
        found = run_sync(self._source.glob(pattern, folder))
        allowed = self._rules.filter("read")
        return sorted(e.path for e in found if allowed(e.path))

    def grep(self, text: str, path: str = "/", glob: str | None = None) -> list[Match]:
        """Lines containing ``text`` (a literal string), in files under ``path`` (matching ``glob``)."""
        if not text:
            raise DeepnbError("grep needs some text to look for.")
        folder = clean_path(path, directory=True)
        found = run_sync(self._source.grep(text, folder, glob))
        allowed = self._rules.filter("read")
        return [m for m in found if allowed(m.path)]

    def read_many(self, paths: Iterable[str] | None = None) -> dict[str, bytes]:
        """The raw content of each of ``paths`` (default: every file) that is a file, read in one
        pass over the backend (one read of the thread's state, one download), not one a file."""
        wanted = self._paths() if paths is None else [clean_path(p) for p in paths]
        for path in wanted:
            self._require("read", path)
        return run_sync(self._source.read_many(wanted))

    def to_dict(self) -> dict[str, str]:
        """Every text file as ``{path: text}`` (binary files are left out; see ``read_bytes``)."""
        try:
            contents = self.read_many()
        except DeepnbError:  # a file the backend cannot read: read the others one by one
            contents = {}
            for path in self:
                with contextlib.suppress(DeepnbError, KeyError):
                    contents[path] = self.read_bytes(path)
        result = {}
        for path, data in contents.items():
            with contextlib.suppress(UnicodeDecodeError):
                result[path] = data.decode("utf-8")
        return result

    def pull(self, local_dir: str | Path) -> list[Path]:
        """Copy every file into ``local_dir`` (created if needed); returns the files written."""
        root = Path(local_dir).expanduser().resolve()
        written = []
        for path in self:
            target = (root / path.lstrip("/")).resolve()
            if not target.is_relative_to(root):  # clean_path already refuses this; belt and braces
                raise DeepnbError(f"{path} would land outside {root}.")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(self.read_bytes(path))
            written.append(target)
        return written

    # -- writing ----------------------------------------------------------------------------

    def write(self, path: str, content: str | bytes) -> None:
        """Create or overwrite a file."""
        path = clean_path(path)
        if path.endswith("/"):
            raise DeepnbError(f"{path} is a folder: name a file to write.")
        self._require("write", path)
        data = content.encode("utf-8") if isinstance(content, str) else bytes(content)
        with self._changing(path):
            run_sync(self._source.write_bytes(path, data))
            self._changed(path)

    def edit(self, path: str, old: str, new: str, *, replace_all: bool = False) -> int:
        """Replace ``old`` with ``new`` in a text file; returns how many places changed. ``old``
        must appear exactly once unless ``replace_all``."""
        path = clean_path(path)
        self._require("write", path)
        text = self[path]
        count = text.count(old) if old else 0
        if count == 0:
            raise DeepnbError(f"{path} does not contain the text to replace.")
        if count > 1 and not replace_all:
            raise DeepnbError(
                f"{path} contains that text {count} times: pass replace_all=True or more context."
            )
        self.write(path, text.replace(old, new) if replace_all else text.replace(old, new, 1))
        return count if replace_all else 1

    def delete(self, path: str) -> None:
        """Delete a file."""
        path = clean_path(path)
        self._require("write", path)
        with self._changing(path):
            try:
                run_sync(self._source.delete(path))
            except FileMissing:
                raise KeyError(path) from None
            self._changed(path)

    # -- rules ------------------------------------------------------------------------------

    def _allowed(self, operation: str, path: str) -> bool:
        return self._rules.allowed(operation, path)

    def writable(self, path: str) -> bool:
        """Whether the agent's permission rules let the notebook change ``path``."""
        return self._allowed("write", clean_path(path))

    def has_history(self, path: str) -> bool:
        """Whether ``path`` lives in the thread's checkpoints (so its past versions can be read)."""
        source = self._source.source_of(path) if isinstance(self._source, Mounts) else self._source
        return isinstance(source, StateSource)

    def _require(self, operation: str, path: str) -> None:
        """Refuse ``operation`` on ``path`` when the agent's rules deny it (for the path or for the
        path it resolves to), or when it leads outside the agent's folder."""
        if operation == "write" and self.checkpoint_id is not None:
            raise DeepnbError(f"These are the files of a past checkpoint: change {path} through run.files.")
        self._rules.require(operation, path)

    def _reaches_state(self, path: str) -> bool:
        """Whether changing ``path`` changes the thread's checkpoint state: a file held there, or
        a memory file or skill (the thread reloads those through its state)."""
        return (
            self.has_history(path)
            or path in self._memory.values()
            or any(is_under(path, folder) for folder in self._skills)
        )

    def busy(self, path: str) -> str:
        """Why changing ``path`` is refused right now — a run holds the thread and the change
        would reach its state — or ``""``."""
        return hold.busy(self.workbench, self.thread_id, path) if self._reaches_state(path) else ""

    @contextmanager
    def _changing(self, path: str) -> Iterator[None]:
        """Around a write or delete: refused while a run holds the thread, if it reaches state."""
        if not self._reaches_state(path):
            yield
            return
        with hold.state_change(self.workbench, self.thread_id, path):
            yield

    def _changed(self, path: str) -> None:
        """``path`` was written or deleted: tell the open file views, and if it is a memory file or
        a skill, have the thread load it again on its next turn. (A thread that has not loaded
        them yet will read them fresh anyway.)"""
        watch.announce(self.workbench.name, self.thread_id, [path])
        is_memory = path in self._memory.values()
        is_skill = any(is_under(path, folder) for folder in self._skills)
        if not (is_memory or is_skill):
            return
        loaded = self.workbench.state_values(self.thread_id)
        update: dict[str, Any] = {}
        if is_memory and "memory_contents" in loaded:
            contents = {}
            for source, resolved in self._memory.items():  # keyed as the agent names them
                try:
                    contents[source] = self[resolved]
                except KeyError:
                    continue
            update["memory_contents"] = contents
        if is_skill and loaded.get("skills_metadata") is not None:
            update["skills_metadata"] = None
        if update:
            config = {"configurable": {"thread_id": self.thread_id}}
            run_sync(self.workbench.graph.aupdate_state(config, update))

    # -- display ----------------------------------------------------------------------------

    @property
    def mounts(self) -> dict[str, str]:
        """Route prefix → the backend mounted there (empty for a single backend)."""
        routes = getattr(self._source, "routes", ())
        return {prefix: source.label for prefix, source in routes}

    @property
    def backend(self) -> str:
        """Where the files live: ``"state"``, a folder, a store, or routes of a composite."""
        return str(self._source.label)

    def summary(self, limit: int = REPR_LIMIT) -> tuple[list[Entry], int]:
        """The first ``limit`` files, described (size, modification time), and how many there are:
        what the thread's files show as when displayed."""
        paths = self._paths()
        return run_sync(self._source.describe(paths[:limit])), len(paths)
