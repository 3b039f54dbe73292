"""Listings as text and static HTML: a thread's files, a folder, a todo list, a table
(``%deepagent agents``, ``threads``), an agent's MCP servers (``%deepagent mcp``), the
interpreter's globals and the extensions' registrations.

The tables (a table, a folder or a thread's files, async tasks) and the todo list are each
described once, as :mod:`deepnb.views.blocks`, and drawn from that to text and to HTML; every cell
is escaped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from deepnb.core.schema import BROKEN_OFF, TODO_INTERRUPTED_MARK, TODO_STATUS_MARK, shown_as
from deepnb.core.text.markup import escape
from deepnb.core.text.safe_display import safe_display
from deepnb.engine.files.sources import Entry
from deepnb.engine.state import todo_progress
from deepnb.session.files.files import REPR_LIMIT
from deepnb.views import blocks
from deepnb.views.blocks import Em, Grid, Group, Inline, Line, List
from deepnb.views.styles import inline

if TYPE_CHECKING:
    from deepnb.engine.interpreter import Interpreter
    from deepnb.engine.mcp import McpServer
    from deepnb.extensions.report import Listing
    from deepnb.session.files.files import Files

MORE_FILES = ".ls(path), .glob(pattern) or .grep(text)"
"""What a bounded listing of files suggests for the rest."""


def size_label(size: int | None) -> str:
    """``"512 B"``, ``"3.4 kB"``, ``"1.2 MB"`` (``""`` where the size is unknown)."""
    if size is None:
        return ""
    if size < 1024:
        return f"{size} B"
    return f"{size / 1024:.1f} kB" if size < 1024 * 1024 else f"{size / 1024 / 1024:.1f} MB"


def _table_html(columns: Sequence[Any], rows: Sequence[Sequence[Any]]) -> str:
    return blocks.html(grid(columns, rows))


def grid(columns: Sequence[Any], rows: Sequence[Sequence[Any]]) -> Grid:
    """A listing's table, its cells as text; a listing's table is small, so its cells carry their
    alignment (JupyterLab right-aligns cells)."""
    return Grid(tuple(str(c) for c in columns), tuple(tuple(_cell(c) for c in row) for row in rows))


def _cell(value: Any) -> Inline | tuple[Inline, ...]:
    """A cell as it is given when it is pieces of a line already, else its value as text."""
    return value if isinstance(value, str | Em | tuple) else str(value)


# -- files ----------------------------------------------------------------------------------------


def files_block(entries: Sequence[Entry], total: int, *, title: str) -> Group:
    """A bounded file listing, described once: its title and count, a table of the
    first entries (path, where a backend is mounted, size, when modified) and how many more
    there are."""
    rows = [(_path_cell(e), size_label(e.size), e.modified_at or "") for e in entries]
    more = (
        (Line.of(f"… and {total - len(entries):,} more: use {MORE_FILES}", css="dnb-muted"),)
        if total > len(entries)
        else ()
    )
    head = Line.of(Em(title), f" · {total:,} file{'' if total == 1 else 's'}")
    return Group((grid(("Path", "Size", "Modified"), rows), *more), cls="deepnb-snapshot", head=head)


def _path_cell(entry: Entry) -> str | tuple[Inline, ...]:
    if not entry.mount:
        return entry.path
    return (entry.path, " ", Em(f"[{entry.mount} is mounted]", "span", "dnb-muted"))


def files_html(entries: Sequence[Entry], total: int, *, title: str) -> str:
    """A bounded file listing as static HTML (:func:`files_block`)."""
    return inline(blocks.html(files_block(entries, total, title=title)))


def files_text(entries: Sequence[Entry], total: int, *, title: str) -> str:
    """A bounded file listing as text (:func:`files_block`)."""
    return "\n".join(blocks.text(files_block(entries, total, title=title)))


def _thread_files_title(files: Files) -> str:
    return f"Files of thread {files.thread_id} ({files.backend})"


def thread_files_text(files: Files) -> str:
    """``repr(run.files)``: the thread's first files and how many there are."""
    listed, total = files.summary()
    return files_text(listed, total, title=_thread_files_title(files))


def thread_files_html(files: Files) -> str:
    """``run.files`` displayed: the thread's first files as a table."""
    listed, total = files.summary()
    return files_html(listed, total, title=_thread_files_title(files))


@safe_display
@dataclass(frozen=True)
class FolderListing:
    """A folder of a thread's filesystem, the file browser's static fallback; ``entries`` holds
    the data."""

    path: str
    entries: tuple[Entry, ...]

    def __repr__(self) -> str:
        return files_text(self.entries[:REPR_LIMIT], len(self.entries), title=self.path)

    def _repr_html_(self) -> str:
        return files_html(self.entries[:REPR_LIMIT], len(self.entries), title=self.path)


# -- todos ----------------------------------------------------------------------------------------

TODO_MARK = TODO_STATUS_MARK


def _broken_off(todo: Mapping[str, str], run_status: str | None) -> bool:
    """Whether a todo was left in progress by a run that failed or was stopped."""
    return todo["status"] == "in_progress" and run_status in BROKEN_OFF


def _todo_line(todo: Mapping[str, str], run_status: str | None) -> Line:
    if _broken_off(todo, run_status):
        mark = f"{TODO_INTERRUPTED_MARK} "
        return Line.of(
            mark,
            todo["content"],
            " ",
            Em("(interrupted)", "span", "dnb-muted"),
            tag="li",
            data_status="interrupted",
        )
    status = todo["status"]
    mark = f"{shown_as(TODO_MARK, status, '○')} "
    content: Inline = Em(todo["content"], "span", "dnb-done") if status == "completed" else todo["content"]
    return Line.of(mark, content, tag="li", data_status=status)


def todos_block(
    todos: Sequence[Mapping[str, str]], progress: str = "", *, run_status: str | None = None
) -> List | None:
    """The todo list, described once: its head and a line per todo with its mark (✓ ◐ ○; ⊘ and
    "(interrupted)" for one a failed or stopped run left in progress). ``None`` for no todos."""
    if not todos:
        return None
    head = Line.of(Em("Todos"), *((": ", Em(progress, "span", "dnb-muted")) if progress else ()))
    return List(tuple(_todo_line(t, run_status) for t in todos), head=head, cls="dnb-todos")


def todo_lines(todos: Sequence[Mapping[str, str]], *, run_status: str | None = None) -> list[str]:
    """A todo list as indented lines, each with its mark (the lines of :func:`todos_block`)."""
    block = todos_block(todos, run_status=run_status)
    return blocks.text(block)[1:] if block is not None else []


def todos_html(
    todos: Sequence[Mapping[str, str]], progress: str = "", *, run_status: str | None = None
) -> str:
    """The todo list as a static HTML list (``""`` for no todos); a failed or stopped run
    (``run_status``) shows the todos it left in progress as interrupted."""
    block = todos_block(todos, progress, run_status=run_status)
    return blocks.html(block) if block is not None else ""


# -- async tasks ----------------------------------------------------------------------------------


ASYNC_COLUMNS = (
    ("Agent", "agent_name"),
    ("Status", "status"),
    ("Task", "task_id"),
    ("Created", "created_at"),
    ("Updated", "last_updated_at"),
)
"""The columns of the async tasks' table and the key of a task each shows."""


def async_tasks_block(tasks: Sequence[Mapping[str, str]]) -> Group | None:
    """A thread's async subagent tasks as last seen, described once: a table of each task's
    agent, status, id and when it was created and last updated. ``None`` for no tasks."""
    if not tasks:
        return None
    rows = [[t.get(key) or "" for _, key in ASYNC_COLUMNS] for t in tasks]
    table = grid([name for name, _ in ASYNC_COLUMNS], rows)
    return Group((table,), cls="dnb-async", head=Line.of(Em("Async tasks")))


def async_task_lines(tasks: Sequence[Mapping[str, str]]) -> list[str]:
    """The async tasks as text (none for no tasks), the lines of :func:`async_tasks_block`."""
    block = async_tasks_block(tasks)
    return blocks.text(block) if block is not None else []


def async_tasks_html(tasks: Sequence[Mapping[str, str]]) -> str:
    """The async tasks as a static table (``""`` for no tasks), drawn from :func:`async_tasks_block`."""
    block = async_tasks_block(tasks)
    return blocks.html(block) if block is not None else ""


@safe_display
class TodoList:
    """A thread's todo list (``%deepagent todos``), drawn as text or HTML; ``items`` holds the data.
    ``run_status`` is the status of the thread's latest run: a stopped or failed one shows the todo
    it left in progress as interrupted, in the same words as the run's view."""

    def __init__(
        self, items: Sequence[Mapping[str, str]], title: str, *, run_status: str | None = None
    ) -> None:
        self.items: list[Mapping[str, str]] = list(items)
        self.title = title
        self.run_status = run_status

    def __repr__(self) -> str:
        if not self.items:
            return f"{self.title}: no todos."
        return "\n".join([f"{self.title}:", *todo_lines(self.items, run_status=self.run_status)])

    def _repr_html_(self) -> str:
        body = (
            todos_html(self.items, todo_progress(self.items), run_status=self.run_status)
            or "<p>No todos.</p>"
        )
        return inline(f'<div class="deepnb-snapshot"><div>{escape(self.title)}</div>{body}</div>')


# -- tables ----------------------------------------------------------------------------------------


@safe_display
@dataclass(frozen=True)
class Table:
    """A small table that shows as text and as escaped HTML; ``rows`` holds the data."""

    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    empty: str = "Nothing yet."

    def __len__(self) -> int:
        return len(self.rows)

    def block(self) -> Grid | Line:
        """The table, described once for its text and its HTML (a line saying ``empty`` for no rows)."""
        return grid(self.columns, self.rows) if self.rows else Line.of(self.empty, tag="p")

    def __repr__(self) -> str:
        return "\n".join(blocks.text(self.block()))

    def _repr_html_(self) -> str:
        return blocks.html(self.block())


# -- an agent's MCP servers ------------------------------------------------------------------------


def mcp_listing(agent: str, servers: Sequence[McpServer]) -> Table:
    """``%deepagent mcp``: each server of ``agent``, its transport, where it is (keys of its env
    and headers, never their values), the tools the model is offered from it, and the newest
    lines a stdio server wrote to its stderr (kept here, out of the cells)."""
    return Table(
        ("Server", "Transport", "Where", "Tools", "Stderr"),
        tuple((s.name, s.transport, s.where, ", ".join(s.tools) or "(none)", s.said or "–") for s in servers),
        empty=(
            f"Agent {agent!r} has no MCP servers: give it mcp_servers={{name: connection}} "
            f"(deepnb.agent), or an [agents.{agent}.mcp_servers.NAME] table in deepnb.toml."
        ),
    )


# -- the interpreter's globals ---------------------------------------------------------------------


def _short(value: Any, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def interpreter_text(interpreter: Interpreter) -> str:
    """``repr(run.interpreter)``: each global of the thread's REPL, shortened."""
    values = interpreter.globals()
    if not values:
        return f"Interpreter of thread {interpreter.thread_id!r}: no globals."
    lines = [f"Interpreter of thread {interpreter.thread_id!r}:"]
    lines += [f"  {name} = {_short(value)}" for name, value in values.items()]
    return "\n".join(lines)


def interpreter_html(interpreter: Interpreter) -> str:
    """``run.interpreter`` displayed: a table of the REPL's globals (name, type, value)."""
    values = interpreter.globals()
    rows = "".join(
        f"<tr><td><code>{escape(name)}</code></td><td>{escape(type(value).__name__)}</td>"
        f"<td><code>{escape(_short(value))}</code></td></tr>"
        for name, value in values.items()
    )
    title = f"Interpreter globals of thread {interpreter.thread_id}"
    if not rows:
        return f'<div class="deepnb-snapshot">{escape(title)}: none.</div>'
    return (
        f'<div class="deepnb-snapshot"><div><b>{escape(title)}</b></div><table class="deepnb-table">'
        f"<thead><tr><th>Name</th><th>Type</th><th>Value</th></tr></thead><tbody>{rows}</tbody></table></div>"
    )


# -- extensions ------------------------------------------------------------------------------------


def _extension_notes(listing: Listing) -> list[str]:
    lines = []
    for folder in listing.untrusted:
        lines.append(f"Not trusted: {folder} — not run. Run %deepagent trust to allow it.")
    if listing.reload_needed:
        lines.append(
            f"Reload needed for {', '.join(listing.reload_needed)}: run %deepagent reload to "
            "give them the new middleware and routes (tools take effect on the next model call)."
        )
    return lines


def extensions_text(listing: Listing) -> str:
    """``%deepagent extensions`` as text: registrations, failures, notes, what to do next."""
    lines = []
    if listing.registrations:
        widths = [max(len(row[i]) for row in listing.registrations) for i in range(3)]
        lines.append(f"Extension registrations ({len(listing.registrations)}):")
        lines += [
            "  " + "  ".join(c.ljust(w) for c, w in zip(row[:3], widths, strict=True)) + f"  ({row[3]})"
            for row in listing.registrations
        ]
    else:
        lines.append("No extension registrations.")
    if listing.failures:
        lines.append(f"Failed ({len(listing.failures)}, nothing of them registered):")
        lines += [f"  {where}: {error}" for where, error in listing.failures]
    lines += [f"  note: {note}" for note in listing.notes]
    if listing.profiles:
        lines.append(PROFILES_TITLE)
        lines += [f"  {_profile_line(p)}" for p in listing.profiles]
    return "\n".join(lines + _extension_notes(listing))


PROFILES_TITLE = (
    "deepagents profile entry points (deepagents applies each to the agents whose model it names; "
    "%deepagent inspect shows the one an agent got):"
)


def _profile_line(profile: Any) -> str:
    said = f"failed: {profile.error}" if profile.error else f"from {profile.distribution}"
    return f"{profile.group}: {profile.name} = {profile.value} ({said})"


def extensions_html(listing: Listing) -> str:
    """``%deepagent extensions`` as HTML: a table of registrations, then failures and notes."""
    parts = ['<div class="deepnb-extensions">']
    if listing.registrations:
        parts.append(_table_html(("kind", "name", "extension", "source"), listing.registrations))
    else:
        parts.append("<p>No extension registrations.</p>")
    if listing.failures:
        items = "".join(
            f"<li><code>{escape(where)}</code>: {escape(error)}</li>" for where, error in listing.failures
        )
        parts.append(f"<p>Failed (nothing of them registered):</p><ul>{items}</ul>")
    parts += [f"<p>Note: {escape(note)}</p>" for note in listing.notes]
    if listing.profiles:
        items = "".join(f"<li><code>{escape(_profile_line(p))}</code></li>" for p in listing.profiles)
        parts.append(f"<p>{escape(PROFILES_TITLE)}</p><ul>{items}</ul>")
    parts += [f"<p>{escape(line)}</p>" for line in _extension_notes(listing)]
    return "".join(parts) + "</div>"
