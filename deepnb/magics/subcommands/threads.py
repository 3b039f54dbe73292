"""``%deepagent`` subcommands on an agent's threads: list them, show their todos, files,
interpreter, tree, steps and state; stop, steer, fork, resume and export them."""

from __future__ import annotations

from deepnb.magics.declaring import agent_option, argument, subcommand, thread_options


@subcommand("threads", handler="threads:threads")
@agent_option
def threads() -> None:
    """List an agent's threads."""


@subcommand("new", handler="threads:new")
@agent_option
def new() -> None:
    """Start a new thread."""


@subcommand("todos", handler="threads:todos")
@thread_options
def todos() -> None:
    """Show a thread's todo list."""


@subcommand("tree", handler="threads:tree")
@thread_options
def tree() -> None:
    """Show the subagent tree of a thread's latest run."""


@subcommand("files", handler="threads:files")
@thread_options
@argument("path", nargs="?", default="/", help="A folder to list or a file to show (default: /).")
def files() -> None:
    """List a thread's files, or show one: %deepagent files [PATH]."""


@subcommand("repl", handler="threads:repl")
@thread_options
def repl() -> None:
    """Show the interpreter's globals for a thread."""


@subcommand("js", handler="threads:js", rest="code")
@thread_options
@argument("code", nargs="+", help="JavaScript to evaluate against a copy of the thread's REPL state.")
def js() -> None:
    """Evaluate JavaScript against a copy of a thread's interpreter state."""


@subcommand("stop", handler="threads:stop")
@thread_options
def stop() -> None:
    """Stop the run on a thread."""


@subcommand("steer", handler="threads:steer", rest="message")
@argument("message", nargs="+", help="What to tell the agent (the rest of the line).")
@thread_options
def steer() -> None:
    """Give the running agent a message for its next model call: %deepagent steer TEXT."""


@subcommand("history", handler="threads:history")
@argument(
    "--all",
    action="store_true",
    help="Every checkpoint, with the node that wrote it (TodoListMiddleware.after_model, …), "
    "LangGraph's own step and the checkpoint id; --at takes a checkpoint id too.",
)
@thread_options
def history() -> None:
    """Show a thread's steps (the numbers --at takes) and what each did; --all: every checkpoint."""


@subcommand("fork", handler="threads:fork")
@argument(
    "thread_word", nargs="?", metavar="THREAD", help="The thread to fork (or -t THREAD; default: current)."
)
@argument("step_word", nargs="?", metavar="STEP", help="The step to fork at (or --at STEP).")
@argument(
    "--at",
    metavar="STEP",
    help="The step to fork at (as history and the run view number them), or a checkpoint id.",
)
@argument(
    "--update",
    metavar="VAR",
    help="A variable holding a dict of state keys written into the fork as the step's node would have "
    "(files as text: {'files': {'/notes.md': 'text'}}).",
)
@thread_options
def fork() -> None:
    """Make a new thread from a thread's step: %deepagent fork THREAD STEP [--update VAR]."""


@subcommand("state", handler="threads:state")
@argument("thread_word", nargs="?", metavar="THREAD", help="The thread (or -t THREAD; default: current).")
@argument("step_word", nargs="?", metavar="STEP", help="The step or checkpoint id (default: now).")
@thread_options
def state() -> None:
    """Show a thread's state at a step (messages, todos, files, other keys)."""


@subcommand("diff", handler="threads:diff")
@argument("thread_word", nargs="?", metavar="THREAD", help="The thread (or -t THREAD; default: current).")
@argument("a", nargs="?", metavar="A", help="The step (or checkpoint id) to compare from; 0: the start.")
@argument(
    "b",
    nargs="?",
    metavar="B",
    help="The step to compare to (default: what step A did, from the step before).",
)
@thread_options
def diff() -> None:
    """Show what changed between two steps: %deepagent diff THREAD A [B] (no B: what A did)."""


@subcommand("approvals", handler="threads:approvals")
@thread_options
def approvals() -> None:
    """Show the approvals a thread waits for (also after a restart)."""


@subcommand("resume", handler="threads:resume")
@thread_options
def resume() -> None:
    """Resume a thread: pending approvals, or a failed or stopped run."""


@subcommand("export", handler="threads:export")
@thread_options
@argument("path", help="The notebook to write (PATH.ipynb; it must not exist, unless --force).")
@argument("--force", action="store_true", help="Replace the notebook at PATH.")
def export() -> None:
    """Write a thread as a standalone notebook (prompts, run views, files, a replay if recorded)."""
