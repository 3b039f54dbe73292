"""``%deepagent`` subcommands on an agent's threads: list them, show their todos, files,
interpreter, tree, steps and state; stop, steer, fork, resume and export them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from deepnb.core.errors import DeepnbError
from deepnb.core.text.safe_display import safe_display
from deepnb.engine.interpreter import Interpreter
from deepnb.magics.commands.common import Message
from deepnb.session import building
from deepnb.session.protocol import History, Session
from deepnb.views.listings import Table, TodoList


def _run_label(run: Any) -> str:
    """The status of a thread's run: the one holding it now, else this kernel's latest."""
    if run is None:
        return "—"
    return "waiting for approval" if run.status == "interrupted" else RUN_LABEL.get(run.status, run.status)


RUN_LABEL = {"cancelled": "stopped", "error": "failed"}
"""A finished run's status as the threads table says it."""


def threads(args: Any, namespace: dict[str, Any]) -> Table:
    workbench: Session = building.get(args.agent, build=False)
    current = workbench.selected_thread
    rows = tuple(
        (
            "*" if t.thread_id == current else "",
            t.thread_id,
            t.updated_at[:19].replace("T", " "),
            "?" if t.unreadable else t.steps,
            f"cannot be read: {t.unreadable}"
            if t.unreadable
            else _run_label(workbench.active_run(t.thread_id) or workbench.latest_run(t.thread_id)),
        )
        for t in workbench.threads()
    )
    return Table(
        ("", "thread", "updated (UTC)", "steps", "last run here"),
        rows,
        empty=f"Agent {workbench.name!r} has no threads yet.",
    )


def _known_thread(workbench: Session, thread: str) -> None:
    if thread not in {t.thread_id for t in workbench.threads()}:
        raise DeepnbError(
            f"Agent {workbench.name!r} has no thread {thread!r}: %deepagent threads lists its threads."
        )


def history(args: Any, namespace: dict[str, Any]) -> History:
    """A thread's history: one row per step, or with ``--all`` every checkpoint and its node."""
    workbench: Session = building.get(args.agent, build=False)
    thread = args.thread or workbench.current_thread
    _known_thread(workbench, thread)
    found = workbench.history(thread)
    return found.with_nodes() if args.all else found


@safe_display
class ForkedThread(str):
    """The id of a thread made by ``%deepagent fork``: a plain ``str``, drawn as one line."""

    line = ""

    def __repr__(self) -> str:
        return self.line


def step_or_checkpoint(at: str) -> int | str:
    """``--at``'s value: a step number (its digits), else a checkpoint id."""
    at = str(at).strip()
    return int(at) if at.lstrip("-").isdigit() else at


def _where(at: str) -> str:
    found = step_or_checkpoint(at)
    return f"step {found}" if isinstance(found, int) else f"checkpoint {found}"


def waiting_at(workbench: Session, thread: str, at: str) -> tuple[str, ...]:
    """The tool calls the checkpoint ``--at`` names holds before their results (a step's own
    checkpoint holds none unless the step's tools never ran: a run stopped or waiting there)."""
    found = workbench.history(thread)
    wanted = step_or_checkpoint(at)
    checkpoint_id = found.fork_at.get(wanted) if isinstance(wanted, int) else wanted
    return next((c.waiting for c in found if c.checkpoint_id == checkpoint_id), ())


def forked_line(new: str, origin: str, at: str, waiting: tuple[str, ...] = (), *, prompt: bool = True) -> str:
    """The one line that says a thread was forked (by ``%deepagent fork``, or ``--at`` with the
    cell's prompt), and what a fork holding tool calls before their results means."""
    line = f"New thread {new} from thread {origin} at {_where(at)}."
    if not waiting:
        return line
    calls = ", ".join(dict.fromkeys(waiting))
    if prompt:
        return (
            f"{line} It held {calls} before its result: the prompt came first, so the agent sees it "
            "cancelled (to run it, %deepagent fork there and %deepagent resume the new thread)."
        )
    return (
        f"{line} It holds {calls} before its result: %deepagent resume -t {new} runs it and goes on; "
        "a prompt sent there instead cancels it."
    )


def thread_and_steps(
    workbench: Session, option: str | None, words: list[str | None], most: int, *, command: str
) -> tuple[str, list[str]]:
    """The thread and the steps a subcommand's words name (``THREAD STEP``, ``STEP`` with
    ``-t THREAD`` or on the current thread): the steps are the last words, a word before them
    (or a lone word that is one of the agent's threads) names the thread."""
    given = [word for word in words if word is not None]
    if option:
        if len(given) > most:
            raise DeepnbError(
                f"%deepagent {command}: -t {option} names the thread, so give at most {most} step(s)."
            )
        return option, given
    if len(given) > most or (given and _is_thread(workbench, given[0])):
        return given[0], given[1:]
    return workbench.current_thread, given


def _is_thread(workbench: Session, word: str) -> bool:
    if word.strip().lstrip("-").isdigit():
        return False
    return word in {t.thread_id for t in workbench.threads()}


def update_variable(name: str | None, namespace: dict[str, Any]) -> dict[str, Any] | None:
    """``--update VAR``: the dict of state keys in ``VAR`` (``None`` without the option)."""
    if name is None:
        return None
    if name not in namespace:
        raise DeepnbError(
            f"No variable named {name!r}: --update takes a variable that holds a dict of state keys, "
            "e.g. edit = {'files': {'/notes.md': 'text'}}."
        )
    value = namespace[name]
    if not isinstance(value, dict):
        raise DeepnbError(
            f"{name} holds a {type(value).__name__}: --update takes a dict of state keys, "
            "e.g. {'files': {'/notes.md': 'text'}}."
        )
    return value


def fork(args: Any, namespace: dict[str, Any]) -> ForkedThread:
    workbench: Session = building.get(args.agent, build=False)
    thread, steps = thread_and_steps(
        workbench, args.thread, [args.thread_word, args.step_word], 1, command="fork"
    )
    if steps and args.at:
        raise DeepnbError(f"%deepagent fork: give the step once, as STEP or --at {args.at}, not both.")
    at = steps[0] if steps else args.at
    if at is None:
        raise DeepnbError(
            "%deepagent fork needs a step: %deepagent fork THREAD STEP (or -t THREAD --at STEP)."
        )
    update = update_variable(args.update, namespace)
    _known_thread(workbench, thread)
    forked = ForkedThread(workbench.fork(thread, step_or_checkpoint(at), update))
    forked.line = forked_line(forked, thread, at, waiting_at(workbench, thread, at), prompt=False)
    if update:
        forked.line += f" Its state was updated with {', '.join(update)} from {args.update}."
    return forked


def state(args: Any, namespace: dict[str, Any]) -> Any:
    """A thread's state at a step (now, without one)."""
    workbench: Session = building.get(args.agent, build=False)
    thread, steps = thread_and_steps(
        workbench, args.thread, [args.thread_word, args.step_word], 1, command="state"
    )
    _known_thread(workbench, thread)
    return workbench.state(thread, step_or_checkpoint(steps[0]) if steps else None)


def diff(args: Any, namespace: dict[str, Any]) -> Any:
    """What changed in a thread's state between two steps (or what one step did)."""
    workbench: Session = building.get(args.agent, build=False)
    thread, steps = thread_and_steps(
        workbench, args.thread, [args.thread_word, args.a, args.b], 2, command="diff"
    )
    if not steps:
        raise DeepnbError(
            "%deepagent diff needs a step: %deepagent diff THREAD A [B] (no B: what step A did)."
        )
    _known_thread(workbench, thread)
    at = [step_or_checkpoint(step) for step in steps]
    return workbench.diff(thread, at[0], at[1] if len(at) > 1 else None)


def new(args: Any, namespace: dict[str, Any]) -> Message:
    workbench: Session = building.get(args.agent, build=False)
    return Message(f"New thread {workbench.new_thread()} on agent {workbench.name!r}.")


def todos(args: Any, namespace: dict[str, Any]) -> TodoList:
    workbench: Session = building.get(args.agent, build=False)
    thread = args.thread or workbench.current_thread
    run = workbench.active_run(thread) or workbench.latest_run(thread)
    return TodoList(
        workbench.todos(thread),
        f"Todos of agent {workbench.name!r}, thread {thread}",
        run_status=run.status if run is not None else None,
    )


def files(args: Any, namespace: dict[str, Any]) -> Any:
    """A folder's listing or a file rendered; ``files = %deepagent files`` also gives the data."""
    # lazy: the file browser loads anywidget, which %load_ext deepnb does not need
    from deepnb.views.files.files_view import show_files  # noqa: PLC0415

    return show_files(building.get(args.agent, build=False).files(args.thread), args.path)


def repl(args: Any, namespace: dict[str, Any]) -> Any:
    """The thread's interpreter globals (``run.interpreter``); displayed, a table."""
    workbench = building.get(args.agent, build=False)
    return Interpreter(workbench, args.thread or workbench.current_thread)


def js(args: Any, namespace: dict[str, Any]) -> Any:
    """The value of some JavaScript evaluated against a copy of the thread's interpreter state."""
    workbench = building.get(args.agent, build=False)
    return Interpreter(workbench, args.thread or workbench.current_thread).eval(" ".join(args.code))


def tree(args: Any, namespace: dict[str, Any]) -> Any:
    """The subagent tree of the thread's latest run (``run.tree``); displayed, a static view."""
    return building.get(args.agent, build=False).tree(args.thread)


@safe_display
@dataclass(frozen=True, repr=False)
class Stopped(Message):
    """``%deepagent stop``'s answer: one line, not a second copy of the run's view (the view
    already on the page shows where it stopped); ``run`` is the run it stopped."""

    run: Any = None


def stop(args: Any, namespace: dict[str, Any]) -> Any:
    """Stop the run holding the thread; say so in one line."""
    workbench = building.get(args.agent, build=False)
    run = workbench.stop(args.thread)
    return Stopped(
        f"Stopped the run on thread {run.thread_id} of agent {workbench.name}; "
        "the thread keeps everything up to the last step.",
        run,
    )


def steer(args: Any, namespace: dict[str, Any]) -> Any:
    """Give the run holding the thread a message for its next model call; say so in one line."""
    workbench = building.get(args.agent, build=False)
    thread = args.thread or workbench.current_thread
    run = workbench.active_run(thread)
    if run is None:
        raise DeepnbError(
            f"Nothing is running on thread {thread!r} of agent {workbench.name!r}: "
            "send the message as a cell (%%deepagent) to go on with the thread."
        )
    run.steer(" ".join(args.message))
    return Message(
        f"Given to the run on thread {thread} of agent {workbench.name}: its next model call takes it."
    )


def approvals(args: Any, namespace: dict[str, Any]) -> Any:
    """The run waiting for approval on a thread; displayed, it shows its approval cards."""
    return building.get(args.agent, build=False).pending_run(args.thread)


def resume(args: Any, namespace: dict[str, Any]) -> Any:
    """Pending approvals come back as their run; a failed or stopped run continues."""
    return building.get(args.agent).resume(args.thread)


def export(args: Any, namespace: dict[str, Any]) -> Message:
    """Write a thread as a standalone notebook (``deepnb.export``); say where, in one line."""
    from deepnb.ship.exporting import export_thread  # noqa: PLC0415  # lazy: it loads nbformat

    session: Session = building.get(args.agent, build=False)
    return Message(repr(export_thread(session, args.path, thread=args.thread, force=args.force)))
