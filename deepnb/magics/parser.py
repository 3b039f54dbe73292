"""Arguments of ``%%deepagent`` and of each ``%deepagent`` subcommand, declared once.

A line is split the way a shell splits it (``shlex``): ``-t 'my thread'`` gives the thread id
``my thread``, and ``%deepagent files '/a b.md'`` the path ``/a b.md``. Parsing errors raise
IPython's ``UsageError``: one line, no traceback.
"""

from __future__ import annotations

import argparse
import io
import keyword
import os
import shlex
import textwrap
from collections.abc import Callable
from functools import partial
from typing import Any, Protocol, TypeVar

from IPython import get_ipython
from IPython.core import magic_arguments as ipython_arguments
from IPython.core.error import UsageError

from deepnb.core.errors import DeepnbError

_Declared = TypeVar("_Declared", bound=Callable[..., Any])


class Command(Protocol):
    """A command whose arguments are declared: ``@magic_arguments`` gives it its ``parser`` and
    its ``argcmd_name``."""

    parser: argparse.ArgumentParser
    argcmd_name: str

    def __call__(self, line: str) -> None: ...


def argument(*args: Any, **kwargs: Any) -> Callable[[_Declared], _Declared]:
    """IPython's ``@argument`` (``add_argument``'s options), typed: it returns what it decorates."""
    declare: Callable[[_Declared], _Declared] = ipython_arguments.argument(*args, **kwargs)
    return declare


def magic_arguments(name: str) -> Callable[[Callable[[str], None]], Command]:
    """IPython's ``@magic_arguments``, typed: it gives the function the parser of the arguments
    declared below it."""
    build: Callable[[Callable[[str], None]], Command] = ipython_arguments.magic_arguments(name=name)
    return build


def _common(func: _Declared) -> _Declared:
    func = argument("-t", "--thread", help="Thread id (default: the agent's current thread).")(func)
    return argument("-a", "--agent", help="Agent name (default: the current agent).")(func)


@magic_arguments(name="%%deepagent")
@argument(
    "-m",
    "--model",
    help="provider:model, scripted:PATH, demo:NAME, or a variable holding a chat model.",
)
@argument("-a", "--agent", help="Agent name (default: the current agent, 'default').")
@argument("-t", "--thread", help="Thread id to run on (default: the agent's current thread).")
@argument("--new", action="store_true", help="Start a new thread.")
@argument(
    "--at",
    metavar="STEP",
    help="Fork the thread at this step (as history and the run view number them, or a checkpoint id) "
    "and run there.",
)
@argument("--interrupt-on", dest="interrupt_on", metavar="TOOL,...", help="Ask before these tools run.")
@argument("--auto-approve", dest="auto_approve", action="store_true", help="Approve every gated call.")
@argument("--context", metavar="VAR", help="Runtime context: a variable holding a dict (its keys are shown).")
@argument("--interpreter", action="store_true", help="Give the agent the QuickJS interpreter (eval).")
@argument("--ptc", metavar="TOOL,...", help="Tools the interpreter's code may call (implies --interpreter).")
@argument("--bg", action="store_true", help="Return at once; the view keeps updating.")
@argument(
    "--wait", action="store_true", help="Keep the cell busy at approvals until every action is decided."
)
@argument("-o", "--output", metavar="VAR", help="Store the run object in this variable.")
@argument(
    "--compare",
    metavar="MODEL,MODEL,...",
    help="Run the task on each of these models at once, side by side, each on a new thread.",
)
@argument(
    "--schema",
    metavar="VAR",
    help="Answer in this structure: a variable holding a Pydantic model, dataclass, TypedDict or JSON "
    "schema (run.output is the parsed object).",
)
@argument(
    "--input",
    dest="input",
    metavar="VAR",
    help="Send the dict in this variable as the graph's input (for graphs that do not take a prompt).",
)
@argument(
    "--no-interpolate",
    dest="no_interpolate",
    action="store_true",
    help="Send {braces} in the prompt as they are.",
)
@argument(
    "--record",
    metavar="PATH",
    help="When the run ends, write it to PATH (.yaml) as a script -m scripted:PATH replays offline.",
)
@argument("--force", action="store_true", help="With --record: replace the file at PATH.")
def cell(line: str) -> None:
    """%%deepagent [options]: run the cell body as a task for a deep agent."""


@magic_arguments(name="deepagent help")
def help_(line: str) -> None:
    """Show what %deepagent can do."""


@magic_arguments(name="deepagent define")
@argument("name", help="The agent's name.")
@argument(
    "-m",
    "--model",
    help="provider:model, scripted:PATH, demo:NAME, or a variable holding a chat model.",
)
@argument("--interrupt-on", dest="interrupt_on", metavar="TOOL,...", help="Ask before these tools run.")
@argument(
    "--checkpointer",
    help="memory (default) or sqlite:PATH to keep threads across restarts.",
)
@argument("--system-prompt", dest="system_prompt", help="Extra instructions for the agent.")
@argument("--interpreter", action="store_true", help="Give the agent the QuickJS interpreter (eval).")
@argument("--ptc", metavar="TOOL,...", help="Tools the interpreter's code may call (implies --interpreter).")
@argument(
    "--from",
    dest="from_var",
    metavar="VAR",
    help="A variable holding a dict of agent options (the keys of a deepnb.toml agent).",
)
def define(line: str) -> None:
    """Define (or redefine) a named agent."""


@magic_arguments(name="deepagent connect")
@argument("url", help="The Agent Protocol server's URL (langgraph dev, a deployment).")
@argument("--assistant", metavar="ID", help="The assistant id, or the graph id, to run (required).")
@argument("-a", "--agent", metavar="NAME", help="Register it under this name (default: the assistant).")
@argument(
    "-t",
    "--thread",
    metavar="THREAD",
    help="Continue this thread of the server (default: a new thread; %%deepagent threads lists them).",
)
@argument(
    "--api-key-env",
    dest="api_key_env",
    metavar="VAR",
    help="The environment variable holding the server's API key (sent as x-api-key).",
)
def connect(line: str) -> None:
    """Connect to an agent served over the Agent Protocol and register it as an agent."""


@magic_arguments(name="deepagent use")
@argument("name", help="The agent to make current.")
def use(line: str) -> None:
    """Make an agent the current one."""


@magic_arguments(name="deepagent agents")
def agents(line: str) -> None:
    """List the defined agents."""


@magic_arguments(name="deepagent threads")
@argument("-a", "--agent", help="Agent name (default: the current agent).")
def threads(line: str) -> None:
    """List an agent's threads."""


@magic_arguments(name="deepagent new")
@argument("-a", "--agent", help="Agent name (default: the current agent).")
def new(line: str) -> None:
    """Start a new thread on an agent."""


@magic_arguments(name="deepagent todos")
@_common
def todos(line: str) -> None:
    """Show a thread's todo list."""


@magic_arguments(name="deepagent files")
@_common
@argument("path", nargs="?", default="/", help="A folder to list or a file to show (default: /).")
def files(line: str) -> None:
    """Show a thread's files: a folder's listing, or a file rendered."""


@magic_arguments(name="deepagent repl")
@_common
def repl(line: str) -> None:
    """Show the interpreter's globals for a thread, as Python values."""


@magic_arguments(name="deepagent js")
@_common
@argument("code", nargs="+", help="JavaScript to evaluate against a copy of the thread's REPL state.")
def js(line: str) -> None:
    """Evaluate JavaScript against a copy of a thread's interpreter state (the thread is unchanged)."""


@magic_arguments(name="deepagent tree")
@_common
def tree(line: str) -> None:
    """Show the subagent tree of a thread's latest run."""


@magic_arguments(name="deepagent inspect")
@argument("-a", "--agent", help="Agent name (default: the current agent).")
def inspect(line: str) -> None:
    """Show an agent's anatomy: middleware per agent, tools, interrupt rules, backend, model."""


@magic_arguments(name="deepagent graph")
@argument("-a", "--agent", help="Agent name (default: the current agent).")
@argument(
    "--no-xray",
    action="store_true",
    help="Draw subgraphs as single nodes (default: their nodes drawn inside them, as get_graph(xray=True)).",
)
def graph(line: str) -> None:
    """Draw an agent's graph: middleware hooks, model, tools, each subagent as a nested cluster."""


@magic_arguments(name="deepagent mcp")
@argument("-a", "--agent", help="Agent name (default: the current agent).")
def mcp(line: str) -> None:
    """List an agent's MCP servers and the tools each gives it (keys of env and headers, never values)."""


@magic_arguments(name="deepagent stop")
@_common
def stop(line: str) -> None:
    """Stop the run on a thread."""


@magic_arguments(name="deepagent steer")
@argument("message", nargs="+", help="What to tell the agent (the rest of the line).")
@_common
def steer(line: str) -> None:
    """Give the running agent a message: it reaches its next model call."""


@magic_arguments(name="deepagent history")
@argument(
    "--all",
    action="store_true",
    help="Every checkpoint, with the node that wrote it (TodoListMiddleware.after_model, …), "
    "LangGraph's own step and the checkpoint id; --at takes a checkpoint id too.",
)
@_common
def history(line: str) -> None:
    """Show a thread's steps: one row per step (the number --at takes), what it did, when."""


@magic_arguments(name="deepagent fork")
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
@_common
def fork(line: str) -> None:
    """Make a new thread from a thread's checkpoint, edited with --update; prints (and returns) the
    new thread id."""


@magic_arguments(name="deepagent state")
@argument("thread_word", nargs="?", metavar="THREAD", help="The thread (or -t THREAD; default: current).")
@argument("step_word", nargs="?", metavar="STEP", help="The step or checkpoint id (default: now).")
@_common
def state(line: str) -> None:
    """Show a thread's state at a step: messages, todos, files, other keys."""


@magic_arguments(name="deepagent diff")
@argument("thread_word", nargs="?", metavar="THREAD", help="The thread (or -t THREAD; default: current).")
@argument("a", nargs="?", metavar="A", help="The step (or checkpoint id) to compare from; 0: the start.")
@argument(
    "b",
    nargs="?",
    metavar="B",
    help="The step to compare to (default: what step A did, from the step before).",
)
@_common
def diff(line: str) -> None:
    """Show what changed in a thread's state between two steps."""


@magic_arguments(name="deepagent approvals")
@_common
def approvals(line: str) -> None:
    """Show the approvals a thread waits for."""


@magic_arguments(name="deepagent resume")
@_common
def resume(line: str) -> None:
    """Resume a thread: its pending approvals, or a failed or stopped run."""


@magic_arguments(name="deepagent extension")
@argument(
    "path",
    help="An extension file, a package, plugin or marketplace folder, a folder of extensions, or "
    "NAME@MARKETPLACE of a plugin Deep Agents Code installed.",
)
def extension(line: str) -> None:
    """Load (or load again) the extension(s) at PATH."""


@magic_arguments(name="deepagent extensions")
def extensions(line: str) -> None:
    """List extension registrations, their sources, failures, and agents needing a reload."""


@magic_arguments(name="deepagent trust")
@argument("path", nargs="?", help="The project folder (default: the current project).")
@argument("--revoke", action="store_true", help="Stop trusting it; its loaded extensions are unloaded.")
def trust(line: str) -> None:
    """Trust a project: its deepnb.toml code, .deepnb/extensions/ and .deepagents/extensions/ may run
    (--revoke takes that back)."""


@magic_arguments(name="deepagent trace")
@argument(
    "action",
    nargs="?",
    metavar="on|off|status",
    help="on: send every run as OpenTelemetry spans; off: stop; status (the default): where they go, "
    "how many were sent and dropped.",
)
@argument(
    "--endpoint",
    metavar="URL",
    help="With on: the collector's OTLP/HTTP URL (default: deepnb.toml's [trace], else "
    "OTEL_EXPORTER_OTLP_ENDPOINT, else Phoenix on 127.0.0.1:6006).",
)
@argument("--project", metavar="NAME", help="With on: the project the spans are filed under.")
def trace(line: str) -> None:
    """Send every run as OpenTelemetry spans (on), stop (off), or say where they go and what was
    sent or dropped (status)."""


@magic_arguments(name="deepagent reload")
@argument("-a", "--agent", help="Only this agent (default: every agent built from a spec).")
def reload(line: str) -> None:
    """Rebuild agents with the extensions registered now (and deepnb.toml read again)."""


@magic_arguments(name="deepagent deploy")
@argument("path", help="The folder to write the Agent Server app into (it must not exist, unless --force).")
@argument(
    "-a", "--agent", action="append", help="Only this agent from deepnb.toml (repeat for more; default: all)."
)
@argument("--force", action="store_true", help="Replace a deployment deepnb wrote there before.")
def deploy(line: str) -> None:
    """Write deepnb.toml's agents as a LangGraph Agent Server app (langgraph.json and its module)."""


@magic_arguments(name="deepagent serve")
@argument(
    "-a", "--agent", action="append", help="Only this agent from deepnb.toml (repeat for more; default: all)."
)
@argument("--port", metavar="P", help="The port on 127.0.0.1 (default: 2024 if free, else any free one).")
@argument("--stop", action="store_true", help="Stop the server this kernel started.")
def serve(line: str) -> None:
    """Serve deepnb.toml's agents with langgraph dev in the background (--stop ends it)."""


@magic_arguments(name="deepagent export")
@_common
@argument("path", help="The notebook to write (PATH.ipynb; it must not exist, unless --force).")
@argument("--force", action="store_true", help="Replace the notebook at PATH.")
def export(line: str) -> None:
    """Write a thread as a standalone notebook: its prompts, run views and files."""


@magic_arguments(name="deepagent map")
@argument("inputs", metavar="VAR", help="A variable holding the list of inputs (strings or dicts).")
@argument("-c", "--concurrency", metavar="N", help="How many runs go at once (default: 4).")
@argument("-a", "--agent", help="Agent name (default: the current agent).")
@argument("-o", "--output", metavar="OUT", help="Store the batch in this variable.")
@argument("--auto-approve", dest="auto_approve", action="store_true", help="Approve every gated call.")
@argument("--bg", action="store_true", help="Return at once (a cell form waits for the batch).")
def map_(line: str) -> None:
    """One run per input of VAR, each on a new thread; as a cell, the body is the template."""


@magic_arguments(name="deepagent eval")
@argument(
    "dataset",
    metavar="DATASET",
    help="A variable holding the rows (or a deepnb.dataset), or a dataset file (.csv, .jsonl, .eval, ...).",
)
@argument("-a", "--agent", help="The agent the variants change (default: the current agent).")
@argument(
    "--variants", metavar="VAR", help="A variable holding the variants: a dict of label -> what changes."
)
@argument(
    "--scorer",
    action="append",
    metavar="NAME",
    help="A built-in scorer (exact, contains) or a variable holding one or a list (repeat for more).",
)
@argument("-e", "--epochs", metavar="EPOCHS", help="Runs per row and variant (default: 1).")
@argument(
    "-c",
    "--concurrency",
    metavar="N",
    help="How many runs go at once (default: 8 in this kernel; a served agent's server decides).",
)
@argument("-o", "--output", metavar="OUT", help="Store the experiment in this variable.")
@argument("--baseline", metavar="LABEL", help="The variant the others are compared with.")
@argument("--input", metavar="FIELD", help="The field each row's input comes from (a dotted path too).")
@argument(
    "--reference", metavar="FIELD", help="The field each row's reference comes from (a dotted path too)."
)
@argument("--log", metavar="PATH", help="The log to write (an existing one is resumed).")
@argument("--name", metavar="NAME", help="The experiment's name (its default log's too).")
@argument(
    "--retries",
    metavar="N",
    help="Run a run failing with an error that may pass (rate limit, timeout, 5xx) again, up to N times.",
)
@argument(
    "--cache",
    nargs="?",
    const=True,
    metavar="FOLDER",
    help="Keep every model response on disk and reuse it (alone: under .deepnb/cache; or in FOLDER).",
)
@argument(
    "--score-timeout",
    dest="score_timeout",
    metavar="SECONDS",
    help="Seconds each scorer has per run (default: 300; none: no bound).",
)
@argument("--auto-approve", dest="auto_approve", action="store_true", help="Approve every gated call.")
@argument("--bg", action="store_true", help="Return at once (else the cell waits for the experiment).")
def eval_(line: str) -> None:
    """Run DATASET by each variant, score every run; as a cell, the body is the template."""


SUMMARIES = {
    "help": "Show this help.",
    "define": "Define (or redefine) a named agent.",
    "connect": "Connect to an agent on an Agent Protocol server: %deepagent connect URL --assistant ID.",
    "use": "Make an agent the current one.",
    "agents": "List the agents.",
    "threads": "List an agent's threads.",
    "new": "Start a new thread.",
    "todos": "Show a thread's todo list.",
    "tree": "Show the subagent tree of a thread's latest run.",
    "inspect": "Show an agent's anatomy: middleware, tools, interrupt rules, backend, model, profile.",
    "graph": "Draw an agent's graph: hooks, model, tools, subagents as nested clusters (an SVG).",
    "mcp": "List an agent's MCP servers and the tools each gives it.",
    "files": "List a thread's files, or show one: %deepagent files [PATH].",
    "repl": "Show the interpreter's globals for a thread.",
    "js": "Evaluate JavaScript against a copy of a thread's interpreter state.",
    "stop": "Stop the run on a thread.",
    "steer": "Give the running agent a message for its next model call: %deepagent steer TEXT.",
    "history": "Show a thread's steps (the numbers --at takes) and what each did; --all: every checkpoint.",
    "fork": "Make a new thread from a thread's step: %deepagent fork THREAD STEP [--update VAR].",
    "state": "Show a thread's state at a step (messages, todos, files, other keys).",
    "diff": "Show what changed between two steps: %deepagent diff THREAD A [B] (no B: what A did).",
    "approvals": "Show the approvals a thread waits for (also after a restart).",
    "resume": "Resume a thread: pending approvals, or a failed or stopped run.",
    "extension": "Load the extension(s) at PATH (a file or a folder).",
    "extensions": "List extension registrations, sources, failures; says if a reload is needed.",
    "trust": "Trust the project: its deepnb.toml code and extension folders may run (--revoke to stop).",
    "trace": "Send every run as OpenTelemetry spans: %deepagent trace on|off|status [--endpoint URL].",
    "reload": "Rebuild agents with the current extensions and deepnb.toml (threads kept).",
    "deploy": "Write deepnb.toml's agents as an Agent Server app (langgraph.json) into PATH.",
    "serve": "Serve deepnb.toml's agents with langgraph dev in the background (--stop ends it).",
    "export": "Write a thread as a standalone notebook (prompts, run views, files, a replay if recorded).",
    "map": "One run per input of VAR (a list); as %%deepagent map VAR, the cell body is the template.",
    "eval": "Run DATASET by each variant and score every run (an experiment); a cell's body is the template.",
}
SUBCOMMANDS: dict[str, Command] = {
    "help": help_,
    "define": define,
    "connect": connect,
    "use": use,
    "agents": agents,
    "threads": threads,
    "new": new,
    "todos": todos,
    "tree": tree,
    "inspect": inspect,
    "graph": graph,
    "mcp": mcp,
    "files": files,
    "repl": repl,
    "js": js,
    "stop": stop,
    "steer": steer,
    "history": history,
    "fork": fork,
    "state": state,
    "diff": diff,
    "approvals": approvals,
    "resume": resume,
    "extension": extension,
    "extensions": extensions,
    "trust": trust,
    "trace": trace,
    "reload": reload,
    "deploy": deploy,
    "serve": serve,
    "export": export,
    "map": map_,
    "eval": eval_,
}


def _options(func: Command) -> str:
    flags = [a.option_strings[-1] for a in func.parser._actions if a.option_strings and a.dest != "help"]
    return ", ".join(flags) or "none"


CONFLICTS: dict[str, tuple[tuple[str, str, str], ...]] = {
    "%%deepagent": (
        ("bg", "wait", "--bg returns at once, --wait keeps the cell busy until every approval is decided"),
        ("thread", "new", "-t runs on that thread, --new starts a new one"),
        ("model", "compare", "--compare names every model the task runs on"),
        ("thread", "compare", "--compare runs each model on a new thread"),
        (
            "compare",
            "record",
            "--record writes one run: record one of a comparison's runs with run.record(PATH)",
        ),
        (
            "bg",
            "record",
            "--record writes the run when it ends: record a background run with run.record(PATH)",
        ),
        ("at", "new", "--at forks a thread at one of its steps, --new starts an empty one"),
        ("compare", "at", "--compare runs each model on a new thread of its own"),
    ),
}
"""Options that contradict each other, per command: (dest, dest, why). (``--auto-approve`` with
``--interrupt-on`` is not one: the gated calls are approved and logged as *auto*.)"""

VARIABLES: dict[str, tuple[str, ...]] = {
    "%%deepagent": ("output",),
    "deepagent map": ("output",),
    "deepagent eval": ("output",),
}
"""Options whose value names a kernel variable deepnb assigns, per command."""


def _lexer(text: str | io.StringIO) -> shlex.shlex:
    lexer = shlex.shlex(text, posix=True)
    lexer.whitespace_split = True
    lexer.commenters = ""
    if os.name == "nt":  # Windows paths use backslashes: no escapes there
        lexer.escape = ""
    return lexer


def _unclosed(command: str, line: str) -> UsageError:
    return UsageError(
        f"{command}: a quote is not closed in {line.strip()!r}: close it, or escape it with a backslash."
    )


def split(line: str, command: str) -> list[str]:
    """``line`` split into words the way a shell splits them (quotes group and are removed; on
    POSIX a backslash escapes the next character). An unclosed quote raises ``UsageError``."""
    try:
        return list(_lexer(line))
    except ValueError:
        raise _unclosed(command, line) from None


def _flag(func: Command, dest: str) -> str:
    for action in func.parser._actions:
        if action.dest == dest:
            return action.option_strings[0] if action.option_strings else dest.upper()
    return dest


def _split_code(line: str, command: str) -> list[str]:
    """The words of a command in :data:`REST_AS_WRITTEN`: its leading options split like any
    line, then the rest of the line kept exactly as written (JavaScript's own quotes stay, and so
    does the apostrophe of "don't"); ``--`` ends the options."""
    words: list[str] = []
    rest = line.strip()
    while rest.startswith("-"):
        flag, *tail = rest.split(None, 1)
        rest = tail[0] if tail else ""
        if flag == "--":
            break
        words.append(flag)
        if flag in ("-a", "--agent", "-t", "--thread") and rest:
            stream = io.StringIO(rest)  # read by the lexer: where it stopped is where the code starts
            try:
                words.append(_lexer(stream).get_token() or "")
            except ValueError:
                raise _unclosed(command, line) from None
            rest = rest[stream.tell() :].strip()
    return [*words, "--", rest] if rest else words


REST_AS_WRITTEN: dict[Command, str] = {js: "code", steer: "message"}
"""Commands whose last argument is the rest of the line as typed (code, a message), by its dest."""


def _check(func: Command, args: Any) -> None:
    """Refuse empty values, contradicting options, and variable names deepnb must not assign."""
    command = func.argcmd_name
    for dest, value in vars(args).items():
        values = value if isinstance(value, list) else [value]  # an option given more than once
        if any(isinstance(v, str) and not v.strip() for v in values):
            raise UsageError(f"{command}: {_flag(func, dest)} needs a value, not an empty string.")
    for first, second, why in CONFLICTS.get(command, ()):
        if getattr(args, first) and getattr(args, second):
            raise UsageError(
                f"{command}: use either {_flag(func, first)} or {_flag(func, second)}, not both ({why})."
            )
    for dest in VARIABLES.get(command, ()):
        name = getattr(args, dest)
        if name is not None:
            check_variable_name(name, f"{command} {_flag(func, dest)}")


def _ipython_names() -> frozenset[str]:
    """Names IPython keeps in the kernel's namespace (``In``, ``Out``, ``get_ipython``, …)."""
    shell = get_ipython()
    return frozenset(getattr(shell, "user_ns_hidden", ()) or ())


def check_variable_name(name: str, option: str) -> None:
    """Refuse ``name`` as a variable for deepnb to assign unless it is a plain Python identifier:
    not a keyword, not a ``__dunder__`` name, not a name IPython itself keeps."""
    dunder = name.startswith("__") and name.endswith("__")
    if not name.isidentifier() or keyword.iskeyword(name) or dunder or name in _ipython_names():
        raise UsageError(
            f"{option} {name!r} is not a variable name deepnb will assign: use letters, digits and _ "
            "(not starting with a digit), not a Python keyword, a __dunder__ name, or a name IPython "
            "keeps (In, Out, get_ipython, ...)."
        )


def parse(func: Command, line: str) -> Any:
    """Parse ``line`` for ``func``'s declared arguments; errors raise ``UsageError`` naming the
    valid options."""
    command = func.argcmd_name
    words = _split_code(line, command) if func in REST_AS_WRITTEN else split(line, command)
    try:
        args = func.parser.parse_args(words)
    except UsageError as exc:
        raise UsageError(f"{command}: {exc}. Valid options: {_options(func)}.") from None
    _check(func, args)
    return args


def whole_number(text: str | None, flag: str, default: int, what: str) -> int:
    """``text`` as a whole number of at least 1 (``default`` without one), else one line."""
    if text is None:
        return default
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise DeepnbError(f"{flag} takes {what}, a whole number of at least 1, not {text!r}.")
    return value


def split_subcommand(line: str) -> tuple[str, str]:
    """``"threads -a x"`` → ``("threads", "-a x")``; unknown subcommands raise ``UsageError``."""
    words = split(line, "%deepagent")
    if not words:
        raise UsageError(f"%deepagent needs a subcommand: {', '.join(SUBCOMMANDS)}. Try %deepagent help.")
    name, *rest = line.split(None, 1)
    if name not in SUBCOMMANDS:
        raise UsageError(
            f"Unknown subcommand {name!r}: use one of {', '.join(SUBCOMMANDS)} "
            "(a task goes in a %%deepagent cell)."
        )
    return name, rest[0] if rest else ""


HELP_WIDTH = 96
"""Columns of ``%deepagent help``: lines wrap at word boundaries within it."""


def _entry(head: str, text: str, *, column: int) -> list[str]:
    """``head`` then ``text`` in a column from ``column``, each wrapped at word boundaries; a
    head too wide for its column puts the text on the lines below it."""
    wrap = partial(textwrap.wrap, width=HELP_WIDTH, break_long_words=False, break_on_hyphens=False)
    heads = wrap(head, initial_indent="  ", subsequent_indent="      ")
    if len(heads[-1]) < column:
        first = heads.pop()
        body = wrap(text, initial_indent=f"{first:<{column}}", subsequent_indent=" " * column)
    else:
        body = wrap(text, initial_indent=" " * column, subsequent_indent=" " * column)
    return heads + body


def _positional(action: argparse.Action) -> str:
    """A positional argument as the help writes it: its metavar (``[PATH]`` when optional)."""
    name = action.metavar if isinstance(action.metavar, str) else action.dest.upper()
    return f"[{name}]" if action.nargs == "?" else name


def usage() -> str:
    """The help text: the cell magic's options and each subcommand with its options, wrapped at
    word boundaries to :data:`HELP_WIDTH` columns."""
    lines = ["%%deepagent [options]  — the cell body is the task; {name} inserts a variable.", ""]
    for action in cell.parser._actions:
        if action.option_strings and action.dest != "help":
            flags = ", ".join(action.option_strings)
            meta = f" {action.metavar or action.dest.upper()}" if action.nargs != 0 else ""
            lines += _entry(flags + meta, str(action.help), column=31)
    lines += ["", "%deepagent SUBCOMMAND [options]:"]
    for name, func in SUBCOMMANDS.items():
        words = [_positional(a) for a in func.parser._actions if not a.option_strings]
        options = " ".join(
            f"[{a.option_strings[0]}]" for a in func.parser._actions if a.option_strings and a.dest != "help"
        )
        command = " ".join(["%deepagent", name, *words, options]).strip()
        lines += _entry(command, SUMMARIES[name], column=45)
    lines += _entry("%deepagent /NAME [ARGS]", "Run an extension's command (register_command).", column=45)
    return "\n".join(lines)
