"""A real run written as a replay script (``scripted:PATH``, the format of :mod:`deepnb.models.scripted`).

The script is built from the run's events, the only place where every model turn of the main agent
and of every subagent is seen (a subagent's messages are not in the thread's state): each
:class:`~deepnb.core.events.ModelTurn` becomes a turn (its text, its tool calls with their ids and
arguments, its token usage), filed under the agent that made it. The main agent has one
conversation per prompt of the thread, a subagent one per task it was given; each conversation's
``match`` is its prompt or task description, escaped and anchored, so parallel subagents of one
type replay the same whatever order they run in. Context summarization is recorded as the model's
profile and each agent's summary. Events are redacted when a run emits them, and the script is
redacted again before it is written.

What a script cannot replay is refused in one line, and nothing is written: a run still going, a
failed or stopped run, a run whose thread began before this kernel saw it (or in a fork), a graph
input that is not a prompt, two different replies to the same prompt or task, two different
summaries from one agent.
"""

from __future__ import annotations

import errno
import functools
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from deepnb.core import events as ev
from deepnb.core.call_args import call_args, call_name
from deepnb.core.errors import DeepnbError
from deepnb.core.graphs.reading import model_of
from deepnb.core.text.safe_display import safe_display
from deepnb.core.text.secrets import redact, redact_data

RECORDED = (ev.RunStarted, ev.ModelTurn, ev.SubagentStarted, ev.Summarized)
"""The events a recording is made of (a run keeps these, redacted, in ``run.log``)."""


class Recordable(Protocol):
    """What a recording needs of a run (:class:`deepnb.session.run.Run`)."""

    @property
    def id(self) -> str: ...

    @property
    def thread_id(self) -> str: ...

    @property
    def checkpoint_before(self) -> str | None: ...

    @property
    def previous(self) -> RunLog | None:
        """What this kernel kept of the run before it on the same thread, if any."""
        ...

    @property
    def status(self) -> str: ...

    @property
    def log(self) -> Sequence[ev.Event]: ...


@dataclass(frozen=True)
class RunLog:
    """What a thread keeps of a run that ended, for recordings of the runs after it: its events,
    not the run (whose state can be large)."""

    id: str
    thread_id: str
    checkpoint_before: str | None
    status: str
    log: tuple[ev.Event, ...]
    previous: RunLog | None


def kept(run: Recordable | None) -> RunLog | None:
    """``run`` as the next run on its thread keeps it (``None`` for none)."""
    if run is None:
        return None
    return RunLog(run.id, run.thread_id, run.checkpoint_before, run.status, tuple(run.log), run.previous)


@safe_display
@dataclass(frozen=True)
class Recorded:
    """What :func:`record` wrote: where, from which run, how many prompts, turns and subagents."""

    path: Path
    run: str
    prompts: int
    turns: int
    subagents: int
    waiting: bool = False
    """The run was waiting for approval: the script ends at its cards."""
    replays: tuple[str, ...] = ()
    """The prompts the script answers, in the order to send them (redacted, as it matches them)."""

    def __repr__(self) -> str:
        tail = " It ends where the run waits for approval." if self.waiting else ""
        return (
            f"Recorded {self.run} to {self.path}: {self.prompts} prompt(s), {self.turns} model turn(s), "
            f"{self.subagents} subagent task(s). Replay it offline with -m scripted:{self.path}.{tail}"
        )


def _anchored(text: str, *, padded: bool = False) -> str:
    """A regex matching exactly ``text`` redacted (spaces left readable: the script's regexes are
    not verbose); ``padded``: with any white space around it (a cell's prompt is stripped). The
    text is redacted before it is escaped, as the replay will send it: a secret known only since
    the run is then neither left in the regex (escaped, where redacting the script would not find
    it) nor replaced in it by a ``[redacted]`` that would read as a character class."""
    pad = r"\s*" if padded else ""
    return rf"\A{pad}{re.escape(redact(text)).replace(chr(92) + ' ', ' ')}{pad}\Z"


def _turn(event: ev.ModelTurn) -> dict[str, Any]:
    turn: dict[str, Any] = {}
    if event.thinking:
        turn["thinking"] = event.thinking
    if event.text:
        turn["text"] = event.text
    calls = []
    for call in event.tool_calls:
        if not isinstance(call, Mapping):
            continue
        recorded: dict[str, Any] = {"name": call_name(call), "args": call_args(call.get("args"))}
        if call.get("id"):
            recorded["id"] = str(call["id"])
        calls.append(recorded)
    if calls:
        turn["tool_calls"] = calls
    turn["usage"] = {"input_tokens": event.input_tokens, "output_tokens": event.output_tokens}
    return turn


def _runs_of_thread(run: Recordable) -> list[Recordable]:
    """The runs of ``run``'s thread, the first prompt first, as this kernel ran them."""
    runs: list[Recordable] = [run]
    earlier = run.previous
    while earlier is not None:
        runs.append(earlier)
        earlier = earlier.previous
    runs.reverse()
    if runs[0].checkpoint_before is not None:
        raise DeepnbError(
            f"{run.id} continues thread {run.thread_id!r}, which had prompts this kernel did not run "
            "(or was forked): a recording replays a thread from its first prompt. Record a run on a "
            "new thread (--new)."
        )
    for older in runs[:-1]:
        if older.status != "done":
            raise DeepnbError(
                f"{older.id}, an earlier run on thread {run.thread_id!r}, is {older.status}: a "
                "recording replays finished runs only. Record a run on a new thread (--new)."
            )
    if run.status == "running":
        raise DeepnbError(f"{run.id} is still running: record it once it ends (run.wait()).")
    if run.status not in ("done", "interrupted"):
        ended = "failed" if run.status == "error" else "was stopped"
        raise DeepnbError(
            f"{run.id} {ended}: a recording replays a finished run (or one waiting for approval), "
            "not a failed or stopped one."
        )
    return runs


class _Script:
    """The script being built: conversations per agent, summaries."""

    def __init__(self) -> None:
        self.agents: dict[str, list[dict[str, Any]]] = {}
        self.summaries: dict[str, str] = {}
        self.turns = 0
        self.tasks = 0
        self.prompts: list[str] = []

    def add(self, agent: str, match: str, turns: list[dict[str, Any]], what: str) -> None:
        conversations = self.agents.setdefault(agent, [])
        for conversation in conversations:
            if conversation["match"] == match:
                if conversation["turns"] != turns:
                    raise DeepnbError(
                        f"Agent {agent!r} answered the same {what} twice, differently: a script plays "
                        "one reply per prompt and task, so this run cannot be recorded."
                    )
                return
        conversations.append({"match": match, "turns": turns})

    def summary(self, agent: str, text: str) -> None:
        if self.summaries.setdefault(agent, text) != text:
            raise DeepnbError(
                f"Agent {agent!r} summarized its context twice with different summaries: a script "
                "holds one summary per agent, so this run cannot be recorded."
            )


def _conversations(run: Recordable, script: _Script) -> bool:
    """Add one run's conversations to ``script``; whether the run had a summarization."""
    prompt: str | None = None
    started = False
    turns: dict[str, list[dict[str, Any]]] = {}
    tasks: dict[str, ev.SubagentStarted] = {}
    summarized = False
    for event in run.log:
        if isinstance(event, ev.RunStarted) and not started:
            started, prompt = True, event.prompt
        elif isinstance(event, ev.ModelTurn):
            turns.setdefault(event.agent, []).append(_turn(event))
        elif isinstance(event, ev.SubagentStarted):
            tasks.setdefault(event.path, event)
        elif isinstance(event, ev.Summarized):
            summarized = True
            started_by = tasks.get(event.agent)
            script.summary(ev.MAIN if started_by is None else started_by.subagent_type, event.summary)
    if not isinstance(prompt, str):
        raise DeepnbError(f"{run.id} was given a graph input, not a prompt: only prompts can be replayed.")
    script.prompts.append(redact(prompt))
    for path, agent_turns in turns.items():
        if path == ev.MAIN:
            script.add(ev.MAIN, _anchored(prompt.strip(), padded=True), agent_turns, "prompt")
        elif path in tasks:
            task = tasks[path]
            if task.subagent_type == ev.MAIN:
                raise DeepnbError(
                    "A subagent is named 'main', the name a script gives the main agent: rename it to record."
                )
            script.add(task.subagent_type, _anchored(task.description), agent_turns, "task")
            script.tasks += 1
        else:
            raise DeepnbError(f"{run.id}: model turns of {path!r} came from no task deepnb saw start.")
        script.turns += len(agent_turns)
    return summarized


def script_of(
    runs: Sequence[Recordable], *, profile: Mapping[str, Any] | None = None
) -> tuple[dict[str, Any], _Script]:
    """The replay script (as a mapping) of ``runs``, the runs of one thread in order; and its counts.
    ``profile`` is the recorded model's LangChain profile (its ``max_input_tokens`` is kept)."""
    script = _Script()
    summarized = False
    for run in runs:
        summarized = _conversations(run, script) or summarized
    data: dict[str, Any] = {}
    limit = (profile or {}).get("max_input_tokens")
    if isinstance(limit, int) and not isinstance(limit, bool):
        data["profile"] = {"max_input_tokens": limit}
    elif summarized:
        raise DeepnbError(
            "The run summarized its context, and its model's profile (max_input_tokens) cannot be "
            "read: a replay would summarize at other points, so it cannot be recorded."
        )
    if script.summaries:
        data["summaries"] = dict(script.summaries)
    data["agents"] = script.agents
    return redact_data(json.loads(json.dumps(data, default=str))), script


def _string(dumper: Any, value: str) -> Any:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


@functools.cache
def _dumper() -> Any:
    """PyYAML's safe dumper writing multi-line text as ``|`` blocks (it falls back to quotes
    where a block can't hold it). Made on first use: a run view imports this module, and YAML
    is for recordings only."""
    import yaml  # noqa: PLC0415

    dumper: Any = type("_Dumper", (yaml.SafeDumper,), {})
    dumper.add_representer(str, _string)
    return dumper


def to_yaml(data: Mapping[str, Any], *, header: str = "") -> str:
    """``data`` as YAML; checked to read back to the same data and to parse as a script."""
    import yaml  # noqa: PLC0415  # lazy: see _dumper()

    from deepnb.models.scripted import parse_script  # noqa: PLC0415  # lazy: it imports langchain_core

    text = str(yaml.dump(dict(data), Dumper=_dumper(), sort_keys=False, allow_unicode=True, width=100))
    if yaml.safe_load(text) != data:  # never write a script that replays something else
        raise DeepnbError("The recording does not read back as it was written: nothing was written.")
    parse_script(data, source="the recording")
    comments = "".join(f"# {line}\n" if line else "#\n" for line in header.splitlines())
    return comments + text


def check_target(path: str | os.PathLike[str], *, force: bool = False) -> Path:
    """Where a recording goes: a ``.yaml``/``.yml`` path in a folder that exists, not a file that
    exists unless ``force``."""
    target = Path(path).expanduser()
    if target.suffix not in (".yaml", ".yml"):
        raise DeepnbError(f"Record to a path ending in .yaml or .yml, not {str(target)!r}.")
    if target.is_dir():
        raise DeepnbError(f"{target} is a folder: record to a .yaml file.")
    if target.exists() and not force:
        raise DeepnbError(f"{target} exists: choose another path, or replace it with --force (force=True).")
    if not target.parent.is_dir():
        raise DeepnbError(f"The folder {target.parent} does not exist: create it first.")
    return target


def write_text(target: Path, text: str, *, force: bool = False) -> None:
    """Write ``text`` to ``target`` through a temporary file beside it, renamed into place: never
    half-written, and made like any file the user writes (its mode follows the umask). A write
    that fails (a full disk, a folder that refuses it) is one line, and leaves nothing behind."""
    temporary = target.with_name(f".{target.name}.{os.urandom(4).hex()}.tmp")
    created = False
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
        created = True
        try:
            data = memoryview(text.encode("utf-8"))
            while data:
                data = data[os.write(fd, data) :]
        finally:
            os.close(fd)
        if target.exists() and not force:  # appeared meanwhile
            raise DeepnbError(
                f"{target} exists: choose another path, or replace it with --force (force=True)."
            )
        os.replace(temporary, target)
    except BaseException as exc:
        if created:
            temporary.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise _unwritten(target, exc) from None
        raise


def _unwritten(target: Path, exc: OSError) -> DeepnbError:
    """Why ``target`` could not be written, in one line (the file was left as it was)."""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        why = "the disk is full: free some space, or write to another folder"
    else:
        why = f"{exc.strerror or exc}: choose a folder you can write to"
    return DeepnbError(f"Could not write {target}, {why}. Nothing was written.")


def model_profile(workbench: Any) -> Mapping[str, Any] | None:
    """The LangChain profile of the model in ``workbench``'s graph, where it can be read."""
    try:
        profile = getattr(model_of(workbench.graph), "profile", None)
    except Exception:  # reading the graph is best effort: without it, a summarized run is refused
        return None
    return profile if isinstance(profile, Mapping) else None


def record(
    run: Recordable,
    path: str | os.PathLike[str],
    *,
    force: bool = False,
    agent: str = "",
    profile: Mapping[str, Any] | None = None,
    delay: float = 0.0,
) -> Recorded:
    """Write ``run`` (with the runs before it on its thread) to ``path`` as a replay script;
    ``delay``: seconds between the replay's streamed tokens (``0``: at once)."""
    if isinstance(delay, bool) or not isinstance(delay, int | float) or not 0 <= delay <= 10:
        raise DeepnbError(f"delay is the seconds between streamed tokens, 0 to 10, not {delay!r}.")
    target = check_target(path, force=force)
    runs = _runs_of_thread(run)
    data, script = script_of(runs, profile=profile)
    if delay:
        data = {"delay": float(delay), **data}
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    header = (
        f"Recorded by deepnb on {when} from {run.id} of agent {redact(agent)!r}, thread "
        f"{redact(run.thread_id)!r}: {len(runs)} prompt(s).\n"
        f"Replay it offline: %%deepagent -m scripted:{target.name} --new (then each prompt in order)."
    )
    write_text(target, to_yaml(data, header=header), force=force)
    waiting = run.status == "interrupted"
    return Recorded(
        target, run.id, len(runs), script.turns, script.tasks, waiting=waiting, replays=tuple(script.prompts)
    )
