"""A thread as a standalone notebook (nbformat 4) that opens without a kernel.

A title cell; for each prompt of the thread, the prompt as a Markdown cell, then the run's static
snapshot where this kernel has the run (its HTML as a Markdown cell, so Run All and re-executing
leave it as it is: there is no code cell to clear), else the conversation's replies as Markdown;
then each file the agent wrote as a Markdown cell holding the file in a fenced code block; last,
code cells that replay the thread's recording offline, or for a thread that was not recorded,
code cells that ask the agent its prompts again, in order, to build the conversation anew.
Everything the agent or the model wrote is escaped (no HTML of theirs is rendered). One function,
:func:`deepnb.core.text.safe_display.shown`, cleans every text an export writes — redacting
secrets as they are and in every form the writer gives them (Markdown, fenced code, JSON, YAML,
the ``re.escape`` of a replay's ``match``) and showing bidi controls as escapes: each text as it
is formatted, then the whole notebook and the whole recording once more, so a secret set after
the run was recorded is gone too. It is built from the :class:`~deepnb.session.protocol.Session`
protocol only, so local and remote agents export alike; the run's view comes from the renderer
the display package registers for a run's state (this module, in the session layer, imports no
view).
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from deepnb.core.call_args import call_args, json_text
from deepnb.core.displayable import renderer_for
from deepnb.core.errors import DeepnbError
from deepnb.core.graphs.messages import field, text_of
from deepnb.core.text.documents import DocumentError, load_document
from deepnb.core.text.safe_display import safe_display, shown, shown_pattern, shown_text
from deepnb.core.text.safe_regex import compile_bounded
from deepnb.core.text.secrets import MARKDOWN_PUNCTUATION
from deepnb.engine.recording import Recorded, to_yaml, write_text
from deepnb.engine.spec import parse_interrupt_on
from deepnb.session.protocol import Session
from deepnb.ship.export_limits import (
    CONVERSATION_CHARS,
    FILE_CELLS,
    FILE_CHARS,
    FILES_CHARS,
    head,
    head_and_tail,
)

TOOL_ARGS_CHARS = 300
"""Characters of a tool call's arguments a conversation cell shows."""


@safe_display
@dataclass(frozen=True)
class Exported:
    """What :func:`export_thread` wrote: where, from which thread, how many prompts and files."""

    path: Path
    agent: str
    thread_id: str
    prompts: int
    files: int
    snapshots: int
    replay: Path | None = None
    """The recording written next to the notebook, which its last cells replay offline."""

    def __repr__(self) -> str:
        replay = f" Its last cells replay the run offline from {self.replay.name}." if self.replay else ""
        return (
            f"Wrote {self.path}: thread {self.thread_id} of agent {self.agent!r}, "
            f"{self.prompts} prompt(s), {self.snapshots} run view(s), {self.files} file(s).{replay}"
        )


def markdown_text(text: str) -> str:
    """``text`` as Markdown that shows it literally: Markdown punctuation backslash-escaped, ``&``,
    ``<`` and ``>`` as entities (no HTML passes), leading spaces kept, line breaks kept."""
    lines = []
    for line in shown_text(text).splitlines() or [""]:
        escaped = MARKDOWN_PUNCTUATION.sub(r"\\\1", line)
        escaped = escaped.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        stripped = escaped.lstrip(" \t")
        lines.append("&nbsp;" * (len(escaped) - len(stripped)) + stripped)
    return "  \n".join(lines)


_BACKTICKS = compile_bounded("`+")


def fenced(text: str, language: str = "") -> str:
    """``text`` in a fenced code block longer than any backtick run inside it (so it cannot close
    early); the Markdown renderer escapes a code block's content."""
    text = shown_text(text)
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    info = language if language.isalnum() else ""
    return f"{fence}{info}\n{text}\n{fence}"


def _kind(message: Any) -> str:
    if isinstance(message, Mapping):
        return str(message.get("type") or message.get("role") or "")
    return str(getattr(message, "type", ""))


def _turns(messages: Sequence[Any]) -> list[tuple[str, list[Any]]]:
    """The thread's messages as (prompt, the messages that answered it), one per human message."""
    turns: list[tuple[str, list[Any]]] = []
    for message in messages:
        if _kind(message) in ("human", "user"):
            turns.append((text_of(field(message, "content")), []))
        elif turns:
            turns[-1][1].append(message)
    return turns


def _conversation(replies: Sequence[Any], where: str) -> str:
    """The replies to one prompt as Markdown: the agent's text, the tools it called (escaped).
    A long one keeps its start and its end (:mod:`deepnb.ship.export_limits`) and says, at the
    place it leaves out, how many replies and tool calls are missing and where they are."""
    parts = []
    for message in replies:
        kind = _kind(message)
        if kind in ("ai", "assistant"):
            text = shown_text(text_of(field(message, "content")))
            if text.strip():
                cut = head(text, CONVERSATION_CHARS // 2)
                note = f" *(the first {len(cut):,} of {len(text):,} characters)*" if cut != text else ""
                parts.append(markdown_text(cut) + note)
            for call in field(message, "tool_calls") or []:
                args = json_text(call_args(call.get("args")), TOOL_ARGS_CHARS + 1)
                name = markdown_text(str(call.get("name", "?")))
                parts.append(f"*Tool call* {name}: {markdown_text(args)}")
    first, last, left_out = head_and_tail(parts, CONVERSATION_CHARS)
    if left_out:
        first.append(f"*… {left_out:,} of {len(parts):,} replies and tool calls left out here: {where}.*")
    return "\n\n".join(first + last) or "*(no reply)*"


def _snapshot_html(state: Any) -> str:
    """A run's static view as HTML, by the renderer the display package registers for a run's
    state."""
    bundle = renderer_for(type(state)).bundle
    assert bundle is not None, "deepnb.views.renderers registers a run state's snapshot"
    return str(bundle(state)["text/html"])


_PRE = re.compile(r"(<pre[\s>][\s\S]*?</pre>)", re.IGNORECASE)
_BLANK_LINE = re.compile(r"\n[ \t]*(?=\n)")


def html_block(html: str) -> str:
    """``html`` as Markdown passes it through: one raw HTML block, which a blank line would end
    (what follows it would be read as Markdown, an indented line as code). Blank lines go, except
    in ``<pre>``, where each keeps its place as a line holding a zero-width space."""
    parts = _PRE.split(html)
    for n, part in enumerate(parts):
        if n % 2:  # a <pre> element: its lines are its content
            while _BLANK_LINE.search(part):
                part = _BLANK_LINE.sub("\n&#8203;", part)
            parts[n] = part
        else:
            parts[n] = _BLANK_LINE.sub("", part)
    return "".join(parts).strip()


def _title(session: Session, thread_id: str, prompts: int) -> str:
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return (
        f"# Agent {markdown_text(session.name)}, thread {markdown_text(thread_id)}\n\n"
        f"Exported by deepnb on {when}: {prompts} prompt(s) with what the agent did, then the files "
        f"it wrote. Model: {markdown_text(session.label)}. The run's view is a Markdown cell: it needs no "
        "kernel, and running the notebook leaves it as it is."
    )


def _file_cells(session: Session, thread_id: str) -> list[str]:
    """A cell a file, all read in one pass: each long file's start, whole files until
    :data:`FILES_CHARS` or :data:`FILE_CELLS` is spent, then one cell listing the paths of the rest."""
    files = session.files(thread_id)
    paths = sorted(files)
    read_many = getattr(files, "read_many", None)  # Files has it; a plain mapping is read by key
    contents: Mapping[str, str | bytes] = read_many(paths) if read_many else {p: files[p] for p in paths}
    where = f"%deepagent files PATH -a {shlex.quote(session.name)} -t {shlex.quote(thread_id)} shows it whole"
    cells: list[str] = []
    unshown: list[str] = []
    budget = FILES_CHARS
    for path, data in contents.items():
        if budget <= 0 or len(cells) >= FILE_CELLS:
            unshown.append(path)
            continue
        try:
            text = shown_text(data.decode("utf-8") if isinstance(data, bytes) else data)
            cut = head(text, min(FILE_CHARS, budget))
            body = fenced(cut, Path(path).suffix.lstrip("."))
        except (DeepnbError, UnicodeDecodeError, ValueError):
            cut, body = "", "*(not text: left out)*"
        else:
            if cut != text:
                body += f"\n\n*The first {len(cut):,} of {len(text):,} characters: {markdown_text(where)}.*"
        budget -= len(cut)
        cells.append(f"### File {markdown_text(path)}\n\n{body}")
    if unshown:
        listed = "\n".join(f"- {markdown_text(path)}" for path in unshown)
        cells.append(
            f"### {len(unshown):,} more file(s), left out\n\nThe export holds {FILE_CELLS} files and "
            f"{FILES_CHARS:,} characters of them at most; {markdown_text(where)}.\n\n{listed}"
        )
    return cells


def _exists(target: Path) -> DeepnbError:
    return DeepnbError(f"{target} exists: choose another path, or replace it with --force (force=True).")


def _checked(
    session: Session, path: str | os.PathLike[str], thread: str | None, force: bool
) -> tuple[Path, str]:
    target = Path(path)
    if target.suffix != ".ipynb":
        raise DeepnbError(f"Export to a path ending in .ipynb, not {str(target)!r}.")
    if target.exists() and not force:
        raise _exists(target)
    if not target.parent.is_dir():
        raise DeepnbError(f"The folder {target.parent} does not exist: create it first.")
    thread_id = thread or session.selected_thread
    if thread_id is None:
        raise DeepnbError(f"Agent {session.name!r} has no thread yet: run a task first, or name one with -t.")
    if thread_id not in {t.thread_id for t in session.threads()}:
        raise DeepnbError(
            f"Agent {session.name!r} has no thread {thread_id!r}: %deepagent threads lists them."
        )
    return target, thread_id


def replay_path(target: Path) -> Path:
    """Where an export of ``target`` puts the recording its replay cells read."""
    return target.with_name(f"{target.stem}.replay.yaml")


def _recording(session: Session, thread_id: str) -> Recorded | None:
    """The recording of the thread's latest run, if it was recorded and the file is still there."""
    run = session.latest_run(thread_id)
    recorded = run.recording if run is not None else None
    return recorded if recorded is not None and recorded.path.is_file() else None


def _replay_cells(session: Session, recorded: Recorded, script: str) -> list[Any]:
    """A Markdown cell saying what the replay is, then code cells that replay it offline: the
    extension, then one ``%%deepagent -m scripted:SCRIPT`` cell per prompt (the first on a new
    thread, the next ones going on with it)."""
    from nbformat import v4  # noqa: PLC0415  # lazy: see build_notebook

    spec = getattr(session, "declared_spec", None)
    gated = parse_interrupt_on((spec.options if spec is not None else {}).get("interrupt_on"))
    options = f" --interrupt-on {shlex.quote(','.join(gated))}" if gated else ""
    head = f"%%deepagent -m {shlex.quote('scripted:' + script)} -a {shlex.quote(session.name)}"
    cells = [
        v4.new_markdown_cell(
            "## Replay offline\n\n"
            f"The run was recorded to {markdown_text(script)}, next to this notebook. Run the cells "
            "below (deepnb installed) to replay it without a model key: the same replies, tool calls "
            "and files, on a new thread." + (" Decide on the approval cards as the run did." if gated else "")
        ),
        v4.new_code_cell("%load_ext deepnb"),
    ]
    for n, prompt in enumerate(recorded.replays):
        flags = " --new" if n == 0 else ""
        cells.append(v4.new_code_cell(f"{head}{flags}{options} --no-interpolate\n{prompt}"))
    return cells


def _rerun_cells(session: Session, prompts: Sequence[str]) -> list[Any]:
    """For a thread that was not recorded: a Markdown cell saying so, then code cells that build
    the conversation again by asking the agent the thread's prompts, in order (the first on a new
    thread, each next one going on with it, as the cells that made it did). A model named by a
    string is named again; a model object cannot be, and the cell says to define the agent first."""
    from nbformat import v4  # noqa: PLC0415  # lazy: see build_notebook

    spec = getattr(session, "declared_spec", None)
    gated = parse_interrupt_on((spec.options if spec is not None else {}).get("interrupt_on"))
    options = f" --interrupt-on {shlex.quote(','.join(gated))}" if gated else ""
    label = str(session.label)
    named = ":" in label and not any(c.isspace() or c in "()<>" for c in label)  # provider:model, demo:…
    model = f" -m {shlex.quote(label)}" if named else ""
    which = (
        f"on the model {markdown_text(label)}"
        if named
        else f"on agent {markdown_text(session.name)}, which you define first (its model was the "
        f"object {markdown_text(label)}, which a cell cannot name)"
    )
    cells = [
        v4.new_markdown_cell(
            "## Run the conversation again\n\n"
            "This thread was not recorded, so it cannot be replayed as it was (record a run with "
            "`--record PATH`, or `run.record(PATH)`, and export again for cells that replay it "
            f"offline). The cells below ask the agent the thread's {len(prompts)} prompt(s) again, "
            f"in order, on a new thread, {which}: each next cell goes on with the same thread, as "
            "re-running a cell does. A model answers anew, so the replies may differ; tools, "
            "subagents and other options come from the agent's definition."
            + (" Decide on the approval cards as the run did." if gated else "")
        ),
        v4.new_code_cell("%load_ext deepnb"),
    ]
    head = f"%%deepagent -a {shlex.quote(session.name)}"
    for n, prompt in enumerate(prompts):
        flags = f"{model} --new{options}" if n == 0 else ""
        cells.append(v4.new_code_cell(f"{head}{flags} --no-interpolate\n{prompt}"))
    return cells


def _cleaned_script(value: Any, key: Any = None) -> Any:
    """A replay script as an export writes it: every text as :func:`shown` makes it, and each
    ``match`` (a regular expression) as :func:`shown_pattern` does, so it still matches its
    prompt as the replay cells show it."""
    if isinstance(value, str):
        return shown_pattern(value) if key == "match" else shown_text(value)
    if isinstance(value, Mapping):
        return {shown_text(k) if isinstance(k, str) else k: _cleaned_script(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_cleaned_script(item) for item in value]
    return shown(value)


def _replay_text(recorded: Recorded) -> str:
    """The recording as the export writes it: read back, cleaned once more (:func:`_cleaned_script`)."""
    text = recorded.path.read_text(encoding="utf-8")
    try:
        data = load_document(text)
    except DocumentError as exc:
        raise DeepnbError(f"{recorded.path}: {exc}; record the run again.") from None
    clean = _cleaned_script(data)
    if clean == data and shown_text(text) == text:
        return text
    return to_yaml(clean, header="Recorded by deepnb; secrets and bidi controls cleaned as it was exported.")


def build_notebook(
    session: Session, thread_id: str, *, replay: str | None = None
) -> tuple[Any, int, int, int]:
    """The notebook of a thread and its counts (prompts, run views, files); nothing written.
    ``replay``: the file name of the thread's recording next to the notebook, for replay cells."""
    # lazy: nbformat loads jsonschema, which only an export needs
    import nbformat  # noqa: PLC0415
    from nbformat import v4  # noqa: PLC0415

    turns = _turns(session.state_values(thread_id).get("messages") or [])
    if not turns:
        raise DeepnbError(
            f"Thread {thread_id!r} of agent {session.name!r} has no prompt yet: nothing to export."
        )
    run = session.latest_run(thread_id)
    snapshot_at = -1
    if run is not None:
        matches = [n for n, (prompt, _) in enumerate(turns) if prompt == run.prompt]
        snapshot_at = matches[-1] if matches else len(turns) - 1
    cells = [v4.new_markdown_cell(_title(session, thread_id, len(turns)))]
    where = markdown_text(
        f"%deepagent history -a {shlex.quote(session.name)} -t {shlex.quote(thread_id)} shows every step"
    )
    for n, (prompt, replies) in enumerate(turns):
        cells.append(v4.new_markdown_cell(f"**Prompt {n + 1}**\n\n{markdown_text(prompt)}"))
        if n == snapshot_at and run is not None:
            view = html_block(_snapshot_html(run.state))
            cells.append(v4.new_markdown_cell(view, metadata={"deepnb": {"view": "run", "prompt": n + 1}}))
        else:
            cells.append(v4.new_markdown_cell(_conversation(replies, where)))
    files = _file_cells(session, thread_id)
    if files:
        cells.append(v4.new_markdown_cell("## Files the agent wrote"))
        cells += [v4.new_markdown_cell(text) for text in files]
    recorded = _recording(session, thread_id) if replay is not None else None
    if recorded is not None and replay is not None:
        cells += _replay_cells(session, recorded, replay)
    else:  # not recorded: the prompts again, as cells, rebuild the conversation
        cells += _rerun_cells(session, [prompt for prompt, _ in turns])
    notebook = v4.new_notebook(
        cells=cells,
        metadata={
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
            "language_info": {"name": "python"},
            "deepnb": {"agent": session.name, "thread_id": thread_id},
        },
    )
    return nbformat.from_dict(shown(notebook)), len(turns), int(snapshot_at >= 0), len(files)


def export_thread(
    session: Session, path: str | os.PathLike[str], *, thread: str | None = None, force: bool = False
) -> Exported:
    """Write ``thread`` (default: the agent's current thread) of ``session`` to ``path`` (``.ipynb``)
    as a standalone notebook. Refuses a path that exists unless ``force``; writes a temporary file
    next to it and renames it, so nothing is ever half-written (see
    :func:`~deepnb.engine.recording.write_text`)."""
    import nbformat  # noqa: PLC0415  # lazy: see build_notebook

    target, thread_id = _checked(session, path, thread, force)
    recorded = _recording(session, thread_id)
    replay = replay_path(target) if recorded is not None else None
    if replay is not None and replay.exists() and not force:
        raise _exists(replay)
    notebook, prompts, snapshots, files = build_notebook(
        session, thread_id, replay=replay.name if replay is not None else None
    )
    nbformat.validate(notebook)
    if recorded is not None and replay is not None:  # the recording first: the notebook reads it
        write_text(replay, _replay_text(recorded), force=force)
    try:
        write_text(target, nbformat.writes(notebook), force=force)
    except BaseException:
        if replay is not None and not force:
            replay.unlink(missing_ok=True)
        raise
    return Exported(target, session.name, thread_id, prompts, files, snapshots, replay)
