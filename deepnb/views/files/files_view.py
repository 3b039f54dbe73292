"""The file browser: a thread's files as a tree you expand, search, read, edit and download, with
the diffs of the run it follows, refreshed live while a run on that thread writes files.

Only the top folder's first entries are synced as traits (so a saved notebook stays small however
many files the thread holds); everything else travels as custom messages the front-end asks for:

======================================================  =================================================
front-end → kernel                                      kernel → front-end
======================================================  =================================================
``{type: "ls", path, offset?, limit?}``                 ``{type: "listing", path, entries, offset, total}``
``{type: "open", path}``                                ``{type: "file", path, kind, html, text, size,
                                                        modified_at, writable, editable, readonly}``
``{type: "search", mode: "glob"|"grep", query, path}``  ``{type: "results", mode, query, path, results,
                                                        total, capped}``
``{type: "save", path, text}``                          ``{type: "saved", path, file}``
``{type: "download", path}``                            ``{type: "blob", path, name, mime, size, base64}``
``{type: "changes"}``                                   ``{type: "changes", run_id, status, changes:
                                                        [{path, kind, diff, clipped}]}``
(nothing: sent when a run or code writes files)         ``{type: "changed", paths}``
======================================================  =================================================

Every reply echoes the request's ``seq`` and carries ``error``: ``""``, or one sentence saying what
went wrong and what to do (a denied write names the permission rule). An entry is ``{path, name,
is_dir, size, modified_at, mount, writable}``. ``html`` is escaped by
:func:`deepnb.views.files.file_preview.render_file`; every other string is text for the front-end to escape.
"""

from __future__ import annotations

import base64
import logging
import mimetypes
import threading
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, ClassVar

import anywidget
import traitlets as t

from deepnb.core import events as ev
from deepnb.core.errors import DeepnbError
from deepnb.core.failures import contained
from deepnb.core.file_paths import clean_path, is_history, parent
from deepnb.core.loop import call_later, call_soon, detached, engine_loop
from deepnb.core.schema import FileEntry
from deepnb.core.text.markup import code_css
from deepnb.core.text.safe_display import safe_display
from deepnb.core.text.secrets import redact
from deepnb.engine.files import watch
from deepnb.engine.files.sources import Entry
from deepnb.session import agents
from deepnb.session.files.files import REPR_LIMIT, Files
from deepnb.session.protocol import Session
from deepnb.views.files.file_preview import TEXT_LIMIT, FileDisplay, render_file
from deepnb.views.listings import FolderListing, files_html, files_text
from deepnb.views.messages import FILES_MESSAGES, MessageRefused
from deepnb.views.messages import check as check_message
from deepnb.views.output import widget_bundle, with_static
from deepnb.views.shared_code import LOADER, code_refs, code_trait
from deepnb.views.throttle import Throttle

if TYPE_CHECKING:
    from deepnb.session.run import Run

log = logging.getLogger(__name__)
FIRST_PAGE = 100
"""The top folder's entries synced with the view (what a saved notebook keeps of the listing)."""
PAGE = 200
"""Entries per listing; the front-end asks for more on demand."""
MAX_PAGE = 2000
"""The most entries one listing carries (a refresh asks for as many as the view shows)."""
MAX_RESULTS = 500
"""Search results per search; the reply says when there were more."""
MATCH_TEXT = 300
"""Characters of a matching line kept in the results."""
DOWNLOAD_LIMIT = 32 * 1024 * 1024
DIFF_LIMIT = 100_000
CHANGED_LIMIT = 200
"""More changed paths than this in one flush are sent as ``["/"]``: refresh everything."""
WATCH_INTERVAL = 0.3
"""Seconds between looks for a new run on the view's thread."""
FILE_TOOLS = frozenset({"write_file", "edit_file", "delete"})
TEXT_KINDS = frozenset({"markdown", "code", "table"})


def _entry_json(files: Files, entry: Entry) -> FileEntry:
    return FileEntry(
        path=entry.path,
        name=entry.name,
        is_dir=entry.is_dir,
        size=entry.size,
        modified_at=entry.modified_at,
        mount=entry.mount,
        writable=entry.is_dir or (files.writable(entry.path) and not files.busy(entry.path)),
    )


def _explain(exc: Exception, path: str, action: str) -> str:
    """One line for a failed request: a user mistake as its own message, anything else named."""
    if isinstance(exc, DeepnbError | PermissionError):  # UnsafePathError is a DeepnbError
        return redact(str(exc))
    if isinstance(exc, KeyError):
        return f"{path} is not in the thread's files (any more)."
    return redact(f"Could not {action} {path}: {type(exc).__name__}: {exc}")


@contextmanager
def _answering(reply: dict[str, Any], action: str) -> Iterator[None]:
    """Fill ``reply["error"]``: empty, or what went wrong while doing ``action``."""
    reply["error"] = ""
    try:
        yield
    except Exception as exc:  # shown in the view rather than lost in the kernel log
        reply["error"] = _explain(exc, str(reply.get("path", "")), action)


_REPLY_TYPES = {
    "ls": "listing",
    "open": "file",
    "search": "results",
    "save": "saved",
    "download": "blob",
    "changes": "changes",
}
"""The reply each request gets, a refusal included (the front-end matches it by ``seq``)."""


def _text_arg(content: dict[str, Any], name: str, default: str = "") -> str:
    value = content.get(name, default)
    return value if isinstance(value, str) else default


def _int_arg(content: dict[str, Any], name: str, default: int, low: int, high: int) -> int:
    try:
        value = int(content.get(name, default))
    except (TypeError, ValueError):
        value = default
    return max(low, min(high, value))


@safe_display
class FilesView(anywidget.AnyWidget):
    """A thread's files, browsable: ``FilesView(run.files)`` or ``%deepagent files [FOLDER]``.

    The view follows ``run`` (by default the thread's latest run, then each newer one): while it
    writes files, the open folders and the open file refresh, at most 20 times a second.
    """

    _esm = LOADER  # the bundle and styles come once per kernel, see deepnb.views.shared_code
    _code = code_trait()

    agent = t.Unicode("", help="The agent's name.").tag(sync=True)
    thread_id = t.Unicode("", help="The thread whose files these are.").tag(sync=True)
    backend = t.Unicode("", help="Where the files live: state, a folder, a store, or routes.").tag(sync=True)
    path = t.Unicode("/", help="The folder at the top of the tree (ends with '/').").tag(sync=True)
    root_entries: t.List[FileEntry] = t.List(
        help=f"The top folder's first {FIRST_PAGE} entries: {{path, name, is_dir, size, modified_at, mount, "
        "writable}}; the rest come by message."
    ).tag(sync=True)
    root_total = t.Int(0, help="How many entries the top folder holds.").tag(sync=True)
    mounts = t.Dict(help="Route prefix → the backend mounted there (empty for one backend).").tag(sync=True)
    run_id = t.Unicode("", help="The run the view follows ('' for none).").tag(sync=True)
    has_changes = t.Bool(False, help="Whether the 'Changed in this run' tab is shown.").tag(sync=True)
    code_css = t.Unicode("", help="Styles for highlighted code.").tag(sync=True)

    def __init__(self, files: Files, *, path: str = "/", run: Run | None = None, **kwargs: Any) -> None:
        folder = clean_path(path, directory=True)
        entries = files.ls(folder)
        super().__init__(
            agent=files.workbench.name,
            thread_id=files.thread_id,
            backend=files.backend,
            path=folder,
            root_entries=[_entry_json(files, e) for e in entries[:FIRST_PAGE]],
            root_total=len(entries),
            mounts=files.mounts,
            code_css=code_css(".deepnb-files"),
            _code=code_refs("files_view"),
            **kwargs,
        )
        self.files = files
        self.listing = FolderListing(folder, tuple(entries))
        self.flushes = 0
        self._lock = threading.Lock()
        self._pending: set[str] = set()
        self._file_calls: dict[str, str] = {}
        self._run: Run | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._closed = False
        self._throttle = Throttle(self._flush)
        self._seen_latest = self._newest_run()
        self._follow(run or self._seen_latest, announce=False)
        # Writes from code (run.files.write, another view's Save) refresh this view too.
        self._stop_listening = watch.listen(files.workbench.name, files.thread_id, self._changed)
        self.on_msg(self._on_front_end_message)
        self._watch_handle: Any = None
        call_soon(_watch, weakref.ref(self), what="the file browser's watch")

    # -- what a notebook shows without widgets -------------------------------------------------

    @property
    def entries(self) -> tuple[Entry, ...]:
        """The top folder's entries when the view was made."""
        return self.listing.entries

    def __repr__(self) -> str:
        return repr(self.listing)

    def _repr_mimebundle_(self, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """The live view, over a bounded static listing (``text/html`` and ``text/plain``) for
        places where widgets don't run."""
        data, metadata = widget_bundle(self, **kwargs)
        title = f"{self.path} · files of thread {self.thread_id} ({self.backend})"
        listed, total = self.entries[:REPR_LIMIT], len(self.entries)
        static = {
            "text/plain": files_text(listed, total, title=title),
            "text/html": files_html(listed, total, title=title),
        }
        return with_static(data, static), metadata

    # -- the run it follows ----------------------------------------------------------------------

    @property
    def run(self) -> Run | None:
        """The run whose changes the view shows and whose writes refresh it."""
        return self._run

    def _follow(self, run: Run | None, *, announce: bool = True) -> None:
        """Listen to ``run`` instead of the previous one; ``announce`` its changes so far."""
        with self._lock:  # never held while taking a run's lock: no lock-order deadlock
            if run is self._run:
                return
            previous, self._unsubscribe = self._unsubscribe, None
            self._run, self._file_calls = run, {}
        if previous is not None:
            previous()
        if run is None:
            return
        unsubscribe = run.subscribe(self._on_event)
        with self._lock:
            self._unsubscribe = unsubscribe
        with self.hold_sync():
            self.run_id = run.id
            self.has_changes = callable(getattr(run, "changes", None))
        if announce:  # what it wrote before the view noticed it, and that it holds the thread now
            with run.reading() as state:
                written = list(state.files_changed)
            self._changed([*written, "/"])

    def _newest_run(self) -> Run | None:
        """The thread's running run, else its latest one. Asked of the agent registered under
        the view's agent name now (a rebuilt agent keeps the threads, in a new workbench)."""
        bench = self.files.workbench
        current = agents.registered().get(bench.name)
        if current is not None and current.checkpointer is bench.checkpointer:
            bench = current
        if not isinstance(bench, Session):  # a files source outside any session has no runs
            return None
        return bench.active_run(self.files.thread_id) or bench.latest_run(self.files.thread_id)

    def _check_for_new_run(self) -> None:
        """Follow the thread's newest run once one starts after the view was made."""
        latest = self._newest_run()
        if latest is not None and latest is not self._seen_latest:
            self._seen_latest = latest
            self._follow(latest)

    def _on_event(self, event: ev.Event) -> None:
        paths: Sequence[str] = ()
        if isinstance(event, ev.RunStarted | ev.RunFinished | ev.RunFailed | ev.RunCancelled):
            paths = ("/",)  # the run took or left the thread: files held in its state lock or unlock
        elif isinstance(event, ev.FilesChanged):  # the state backend
            paths = event.written + event.deleted
        elif isinstance(event, ev.ToolCallStarted):  # other backends: the file tools' own calls
            path = event.args.get("file_path") if event.name in FILE_TOOLS else None
            if isinstance(path, str):
                with self._lock:
                    self._file_calls[event.call_id] = path
        elif isinstance(event, ev.ToolCallFinished):
            with self._lock:
                path = self._file_calls.pop(event.call_id, None)
            if path is not None and event.executed and not event.is_error:
                paths = (path,)
        if paths:
            self._changed(paths)

    def _changed(self, paths: Sequence[str]) -> None:
        """Tell the front-end (soon, coalesced) that these paths changed."""
        if not paths:
            return
        with self._lock:
            self._pending.update(paths)
        self._throttle.poke()

    def _flush(self) -> None:
        with self._lock:
            paths, self._pending = sorted(self._pending), set()
        if not paths or self._closed:
            return
        self.send({"type": "changed", "paths": paths if len(paths) <= CHANGED_LIMIT else ["/"]})
        self.flushes += 1

    # -- requests from the front-end --------------------------------------------------------------

    def _on_front_end_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if not isinstance(content, dict):
            return
        reply = self.request(content)
        if reply is not None:
            self.send(reply)

    def request(self, content: dict[str, Any]) -> dict[str, Any] | None:
        """The reply to a front-end request (``{"type": "ls", "path": "/"}``, …) without sending
        it: what a click does, for code and tests. A request of a kind the view does not know, or
        with a field it does not take or of the wrong type (a path that is not a string…), is
        refused: nothing is done, and the reply's ``error`` says why."""
        seq = content.get("seq") if isinstance(content, dict) else None
        try:
            kind = check_message(content, FILES_MESSAGES)
        except MessageRefused as exc:  # nothing done: the reply says why
            asked = content.get("type") if isinstance(content, dict) else None
            reply_type = _REPLY_TYPES.get(asked, "refused") if isinstance(asked, str) else "refused"
            return {"type": reply_type, "error": str(exc), "seq": seq if isinstance(seq, str | int) else None}
        reply = self._HANDLERS[kind](self, content)
        reply["seq"] = seq if isinstance(seq, str | int) else None
        return reply

    def _handle_ls(self, content: dict[str, Any]) -> dict[str, Any]:
        """A page of a folder's entries."""
        offset = _int_arg(content, "offset", 0, 0, 1 << 62)
        limit = _int_arg(content, "limit", PAGE, 1, MAX_PAGE)
        reply: dict[str, Any] = {
            "type": "listing",
            "path": _text_arg(content, "path", "/"),
            "entries": [],
            "offset": offset,
            "total": 0,
        }
        with _answering(reply, "list"):
            reply["path"] = folder = clean_path(reply["path"], directory=True)
            entries = self.files.ls(folder)
            reply["total"] = len(entries)
            reply["entries"] = [_entry_json(self.files, e) for e in entries[offset : offset + limit]]
        return reply

    def _handle_open(self, content: dict[str, Any]) -> dict[str, Any]:
        """A file rendered for the viewer, with its text when it can be edited (or read as source)."""
        reply: dict[str, Any] = {
            "type": "file",
            "path": _text_arg(content, "path"),
            "kind": "",
            "html": "",
            "text": "",
            "size": 0,
            "modified_at": None,
            "writable": False,
            "editable": False,
            "readonly": "",
        }
        with _answering(reply, "read"):
            reply["path"] = path = clean_path(reply["path"])
            data = self.files.read_bytes(path)
            rendered = render_file(path, data)
            reply.update(kind=rendered.kind, html=rendered.html, size=rendered.size)
            reply["modified_at"] = next((e.modified_at for e in self._siblings(path) if e.path == path), None)
            reply["writable"] = self.files.writable(path) and not self.files.busy(path)
            if rendered.kind not in TEXT_KINDS:
                reply["readonly"] = f"{path} is not a text file: only text files can be edited here."
            elif len(rendered.text) > TEXT_LIMIT:
                reply["readonly"] = (
                    f"{path} is too large to edit here ({rendered.size:,} bytes): "
                    "use run.files.edit(path, old, new) or run.files.write(path, text)."
                )
            else:
                reply["text"] = rendered.text
                reply["readonly"] = (
                    self._why_not_writable(path) or self.files.busy(path) or self._holds_secret(path, data)
                )
                reply["editable"] = not reply["readonly"]
        return reply

    def _handle_search(self, content: dict[str, Any]) -> dict[str, Any]:
        """Files whose path matches a glob pattern, or lines containing some text."""
        mode = "grep" if content.get("mode") == "grep" else "glob"
        query = _text_arg(content, "query")
        reply: dict[str, Any] = {
            "type": "results",
            "mode": mode,
            "query": query,
            "path": _text_arg(content, "path", self.path),
            "results": [],
            "total": 0,
            "capped": False,
        }
        with _answering(reply, "search"):
            reply["path"] = folder = clean_path(reply["path"], directory=True)
            if not query.strip():
                raise DeepnbError(
                    "Type a pattern (e.g. **/*.md) to find files by name, or some text to find in them."
                )
            inside_history = is_history(folder)  # history files only when searching their folder

            def listed(path: str) -> bool:
                return inside_history or not is_history(path)

            if mode == "glob":
                found: list[Any] = [{"path": p} for p in self.files.glob(query, folder) if listed(p)]
            else:
                found = [
                    {"path": m.path, "line": m.line, "text": redact(m.text)[:MATCH_TEXT]}
                    for m in self.files.grep(query, folder)
                    if listed(m.path)
                ]
            reply.update(results=found[:MAX_RESULTS], total=len(found), capped=len(found) > MAX_RESULTS)
        return reply

    def _handle_save(self, content: dict[str, Any]) -> dict[str, Any]:
        """Write the editor's text to the file; the reply carries the file rendered again."""
        reply: dict[str, Any] = {"type": "saved", "path": _text_arg(content, "path"), "file": None}
        with _answering(reply, "save"):
            reply["path"] = path = clean_path(reply["path"])
            text = content.get("text")
            if not isinstance(text, str):
                raise DeepnbError(f"Nothing to save to {path}: the editor sent no text.")
            try:
                current = self.files.read_bytes(path)
            except KeyError:
                current = None
            except PermissionError:
                current = None  # writing says why, below
            if current is not None:
                if render_file(path, current).kind not in TEXT_KINDS:
                    raise DeepnbError(f"{path} is not a text file: only text files can be edited here.")
                secret = self._holds_secret(path, current)
                if secret:
                    raise DeepnbError(secret)
            self.files.write(path, text)
            reply["file"] = self._handle_open({"path": path})  # written: listeners were told
        return reply

    def _handle_download(self, content: dict[str, Any]) -> dict[str, Any]:
        """The file's bytes, base64-encoded, for the browser to save."""
        reply: dict[str, Any] = {
            "type": "blob",
            "path": _text_arg(content, "path"),
            "name": "",
            "mime": "",
            "size": 0,
            "base64": "",
        }
        with _answering(reply, "download"):
            reply["path"] = path = clean_path(reply["path"])
            data = self.files.read_bytes(path)
            if len(data) > DOWNLOAD_LIMIT:
                raise DeepnbError(
                    f"{path} is {len(data):,} bytes, too large to download through the view: "
                    f"use open(NAME, 'wb').write(run.files.read_bytes({path!r}))."
                )
            name = path.rsplit("/", 1)[-1]
            reply.update(
                name=name,
                mime=mimetypes.guess_type(name)[0] or "application/octet-stream",
                size=len(data),
                base64=base64.b64encode(data).decode("ascii"),
            )
        return reply

    def _handle_changes(self, _content: dict[str, Any]) -> dict[str, Any]:
        """What the followed run changed: one unified diff per file (secrets removed)."""
        run = self._run
        reply: dict[str, Any] = {
            "type": "changes",
            "run_id": run.id if run is not None else "",
            "status": run.status if run is not None else "",
            "changes": [],
        }
        with _answering(reply, "list the changes of"):
            if run is None or not callable(getattr(run, "changes", None)):
                raise DeepnbError(
                    "No run of this thread in this kernel to show the changes of: run a task on the "
                    "thread, or pass run= to FilesView."
                )
            rows = []
            for change in run.changes():
                diff = redact(str(getattr(change, "diff", "") or ""))
                rows.append(
                    {
                        "path": str(change.path),
                        "kind": str(change.kind),
                        "diff": diff[:DIFF_LIMIT],
                        "clipped": len(diff) > DIFF_LIMIT,
                    }
                )
            reply["changes"] = rows
        return reply

    _HANDLERS: ClassVar[dict[str, Callable[[FilesView, dict[str, Any]], dict[str, Any]]]] = {
        "ls": _handle_ls,
        "open": _handle_open,
        "search": _handle_search,
        "save": _handle_save,
        "download": _handle_download,
        "changes": _handle_changes,
    }

    # -- helpers ---------------------------------------------------------------------------------

    def _siblings(self, path: str) -> list[Entry]:
        try:
            return self.files.ls(parent(path))
        except Exception:  # the date is a nicety; the file itself was read
            return []

    def _why_not_writable(self, path: str) -> str:
        """The permission rule that denies writing ``path``, in the words a save would raise."""
        if self.files.writable(path):
            return ""
        try:
            self.files._require("write", path)
        except PermissionError as exc:
            return str(exc)
        except Exception:  # the rule's own words are a nicety; say what matters
            pass
        return f"The agent's permission rules deny changing {path}."

    @staticmethod
    def _holds_secret(path: str, data: bytes) -> str:
        """Why the view will not save over a file whose text it shows with secrets hidden."""
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return ""
        if redact(text) == text:
            return ""
        return (
            f"{path} holds what looks like a secret, which the view hides, so saving here would "
            "lose it: edit it from Python with run.files.edit(path, old, new)."
        )

    def close(self) -> None:
        if not hasattr(self, "_watch_handle"):  # its __init__ failed (ipywidgets closes it on collection)
            super().close()
            return
        self._closed = True
        handle, self._watch_handle = self._watch_handle, None
        if handle is not None:
            engine_loop().call_soon_threadsafe(handle.cancel, context=detached())
        self._follow(None, announce=False)
        self._stop_listening()
        super().close()


def _watch(ref: weakref.ref[FilesView]) -> None:
    """On the engine loop, every WATCH_INTERVAL seconds while the view lives: notice new runs."""
    view = ref()
    if view is None or view._closed:
        return
    # Looking again next time is all a view can do; never flood the log.
    contained(view._check_for_new_run, what="the file browser's look for a new run", quiet=True)
    view._watch_handle = call_later(WATCH_INTERVAL, _watch, ref, what="the file browser's watch")


def show_files(files: Files, path: str = "/", *, run: Run | None = None) -> FilesView | FileDisplay:
    """What ``%deepagent files [PATH]`` shows: a file rendered, or the file browser opened at a
    folder, whichever ``path`` names. The browser follows ``run`` (by default the thread's latest
    run) for its "Changed in this run" tab and its live refreshes."""
    cleaned = clean_path(path)
    if cleaned != "/" and not path.endswith("/") and cleaned in files:
        return FileDisplay(render_file(cleaned, files.read_bytes(cleaned)))
    if cleaned != "/" and not files.ls(cleaned) and cleaned not in files:
        raise DeepnbError(f"Nothing at {cleaned} in this thread's files: %deepagent files / lists them.")
    return FilesView(files, path=cleaned, run=run)
