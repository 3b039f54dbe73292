"""What each ``%deepagent`` subcommand and the ``%%deepagent`` cell do, given parsed arguments."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deepnb import extensions as ext
from deepnb.core.errors import DeepnbError
from deepnb.core.graphs import structured
from deepnb.core.text.safe_display import safe_display
from deepnb.core.text.secrets import redact
from deepnb.core.threads.checkpointers import make_checkpointer
from deepnb.engine.interpreter import Interpreter
from deepnb.engine.spec import AgentSpec, parse_interrupt_on
from deepnb.engine.tracing import switch as tracing
from deepnb.extensions.registry import REGISTRY
from deepnb.session import agents as agent_registry
from deepnb.session import building, graph_session
from deepnb.session.config import UntrustedConfig, find_config
from deepnb.session.protocol import History, Session
from deepnb.session.remote.connecting import connect as connect_to
from deepnb.views.listings import Table, TodoList, mcp_listing


@safe_display
@dataclass(frozen=True)
class Message:
    """A one-line result that shows as itself."""

    text: str

    def __repr__(self) -> str:
        return self.text


def interpreter_option(interpreter: bool, ptc: str | None) -> Any:
    """``--interpreter`` / ``--ptc read_file,glob`` as the ``interpreter`` agent option."""
    if ptc:
        names = [name.strip() for name in ptc.split(",") if name.strip()]
        if not names:
            raise DeepnbError("--ptc needs tool names, e.g. --ptc read_file,glob.")
        return {"ptc": names}
    return True if interpreter else None


def input_variable(name: str, body: str, namespace: dict[str, Any]) -> Any:
    """``--input VAR``: the dict (or prompt) in ``VAR``, sent as the graph's input; the cell
    body stays empty."""
    if body.strip():
        raise DeepnbError(f"--input {name} is the task: leave the cell body empty, or drop --input.")
    if name not in namespace:
        raise DeepnbError(f"No variable named {name!r}: --input takes a variable that holds a dict.")
    value = namespace[name]
    if not isinstance(value, dict | str):
        raise DeepnbError(
            f"{name} holds a {type(value).__name__}: --input takes a dict of the graph's input keys."
        )
    return value


def context_variable(name: str | None, namespace: dict[str, Any]) -> dict[str, Any] | None:
    """``--context VAR``: the runtime context in ``VAR`` (``None`` without the option)."""
    if name is None:
        return None
    if name not in namespace:
        raise DeepnbError(f"No variable named {name!r}: --context takes a variable that holds a dict.")
    value = namespace[name]
    if not isinstance(value, dict):
        raise DeepnbError(f"{name} holds a {type(value).__name__}: --context takes a dict of context keys.")
    return value


def schema_variable(name: str | None, namespace: dict[str, Any]) -> Any:
    """``--schema VAR``: the ``response_format`` in ``VAR`` (``None`` without the option)."""
    if name is None:
        return None
    if name not in namespace:
        raise DeepnbError(
            f"No variable named {name!r}: --schema takes a variable holding {structured.SCHEMA_KINDS}."
        )
    return structured.check_schema(namespace[name], variable=name)


def compare(
    models: str,
    agent: str | None,
    prompt: Any,
    options: dict[str, Any],
    *,
    auto_approve: bool,
    namespace: dict[str, Any],
    context: dict[str, Any] | None = None,
) -> Any:
    """``--compare A,B``: the task on each model at once (``deepnb.compare``)."""
    from deepnb.many.comparing import compare as start  # noqa: PLC0415  # lazy: only a compare cell needs it

    names = [name.strip() for name in models.split(",")]
    if not all(names):
        raise DeepnbError(
            f"--compare {models!r} has an empty model: write models between commas, e.g. --compare A,B."
        )
    chosen = {key: value for key, value in options.items() if value is not None}
    return start(
        prompt, names, agent=agent, auto_approve=auto_approve, namespace=namespace, context=context, **chosen
    )


def workbench_for(
    name: str | None, model: str | None, options: dict[str, Any], namespace: dict[str, Any]
) -> Session:
    """The workbench a cell runs on: defined on first use, rebuilt when ``-m`` or an option
    (``--interrupt-on``, ``--interpreter``, ``--schema``) changes it (its threads are kept). ``options`` holds
    the cell's agent options, ``None`` where the cell doesn't set one."""
    from deepnb.models import resolve_model  # noqa: PLC0415  # lazy: it imports langchain_core

    name = name or agent_registry.current_name()
    changes = {key: value for key, value in options.items() if value is not None}
    existing = _registered_or_config(name, skip_untrusted=model is not None)
    if existing is None:
        if model is None and not os.environ.get("DEEPNB_MODEL") and name != agent_registry.DEFAULT_AGENT:
            building.get(name)  # raises: no such agent, with how to define it
        chat = resolve_model(model, namespace)
        spec = AgentSpec(chat, model or os.environ["DEEPNB_MODEL"], changes)
        return building.install(name, spec, make_checkpointer("memory"), None)
    if model is None and not changes:
        return existing
    if why := existing.cannot_rebuild:
        raise DeepnbError(
            f"Agent {name!r} cannot take -m, --interrupt-on, --interpreter or --schema ({why}): "
            f"{existing.how_to_change}."
        )
    declared = existing.declared_spec
    assert declared is not None  # built from a spec, so declared with one
    spec = declared
    if model is not None and model != spec.model_label:
        spec = AgentSpec(resolve_model(model, namespace), model, spec.options, spec.todos)
    different = {k: v for k, v in changes.items() if spec.options.get(k) != v}
    if different:
        spec = spec.with_options(**different)
    return existing if spec is existing.declared_spec else building.rebuild(existing, spec)


def _registered_or_config(name: str, *, skip_untrusted: bool) -> graph_session.GraphSession | None:
    """The workbench ``name``: registered, or built now from ``deepnb.toml``. With
    ``skip_untrusted`` (the cell names its model), a definition that waits for trust is left
    out, said in one line, and the cell builds its agent from its own options."""

    try:
        return building.lookup(name)
    except UntrustedConfig as exc:
        if not skip_untrusted:
            raise
        print(f"deepnb: {exc} Running -m's model without it.", file=sys.stderr)
        return None


def connect(args: Any) -> Message:
    """Register the agent an Agent Protocol server serves (``deepnb.connect``); the API key is
    read from the environment variable ``--api-key-env`` names, never from the line."""
    api_key = None
    if args.api_key_env:
        api_key = os.environ.get(args.api_key_env)
        if not api_key:
            raise DeepnbError(
                f"The environment variable {args.api_key_env} is not set: set it to the server's API key "
                "(e.g. in the shell that starts Jupyter), or leave --api-key-env out for a server "
                "without keys."
            )
    workbench = connect_to(
        args.url, args.assistant or "", name=args.agent, api_key=api_key, thread=args.thread
    )
    thread = f"thread {args.thread}" if args.thread else "a new thread"
    return Message(
        f"Connected agent {workbench.name!r} to assistant {workbench.graph_id!r} at {workbench.url}. "
        f"Run it with %%deepagent -a {workbench.name} (on {thread}; -t THREAD picks another of its "
        f"threads, which %deepagent threads -a {workbench.name} lists)."
    )


def define(args: Any, namespace: dict[str, Any]) -> Message:
    options: dict[str, Any] = {}
    if args.interrupt_on:
        options["interrupt_on"] = parse_interrupt_on(args.interrupt_on)
    interpreter = interpreter_option(args.interpreter, args.ptc)
    if interpreter is not None:
        options["interpreter"] = interpreter
    if args.system_prompt:
        options["system_prompt"] = args.system_prompt
    model = args.model
    if model is not None and model.isidentifier() and model in namespace:
        model = namespace[model]
    if args.from_var:
        workbench = _define_from(args, model, options, namespace)
    else:
        workbench = building.agent(args.name, model, checkpointer=args.checkpointer or "memory", **options)
    hint = (
        ""
        if agent_registry.current_name() == args.name
        else (
            f" Run it with %%deepagent -a {args.name}, or make it the default with "
            f"%deepagent use {args.name}."
        )
    )
    return Message(f"Defined agent {args.name!r} (model {workbench.label}).{hint}")


def _define_from(args: Any, model: Any, options: dict[str, Any], namespace: dict[str, Any]) -> Any:
    if args.from_var not in namespace:
        raise DeepnbError(
            f"No variable {args.from_var!r}: assign a dict of agent options to it first, e.g. "
            f"{args.from_var} = {{'model': 'demo:quickstart', 'tools': [...]}}."
        )
    overrides = {"model": model, "checkpointer": args.checkpointer, **options}
    return building.define_from(
        args.name, namespace[args.from_var], variable=args.from_var, namespace=namespace, overrides=overrides
    )


def use(args: Any) -> Message:
    workbench: Session | None = building.use(args.name)
    if workbench is None:
        return Message(
            f"Using agent {args.name!r}: it is defined in deepnb.toml and built when a cell runs it."
        )
    return Message(
        f"Using agent {workbench.name!r} (model {workbench.label}), thread {workbench.current_thread}."
    )


def agents() -> Table:
    current = agent_registry.current_name()
    built = agent_registry.registered()
    rows = [
        ("*" if name == current else "", name, w.label, w.selected_thread or "-", w.origin or "", _sticky(w))
        for name, w in built.items()
    ]
    config = find_config()
    defined, where = (config.agents, config.shown) if config else ({}, "")
    for name, table in defined.items():
        if name not in built:
            model = table.get("model", "$DEEPNB_MODEL") if isinstance(table, dict) else "?"
            rows.append(("*" if name == current else "", name, str(model), "(not built)", where, ""))
    return Table(
        ("", "agent", "model", "thread", "defined in", "kept options"),
        tuple(sorted(rows, key=lambda row: row[1])),
        empty="No agents yet: run a %%deepagent cell with -m MODEL, or %deepagent define NAME -m MODEL.",
    )


def _sticky(workbench: Any) -> str:
    """The options a cell set that later cells keep (``--interrupt-on``, ``--interpreter``,
    ``--schema``) and the agent's own runtime context keys: what each later run gets."""
    spec = getattr(workbench, "declared_spec", None)
    options = spec.options if spec is not None else {}
    kept = []
    if options.get("interrupt_on"):
        kept.append(f"--interrupt-on {','.join(options['interrupt_on'])} (none clears it)")
    if options.get("interpreter"):
        kept.append("--interpreter")
    if options.get("response_format") is not None:
        kept.append(f"--schema {getattr(options['response_format'], '__name__', 'set')}")
    if getattr(workbench, "context", None):
        kept.append(f"context {', '.join(redact(str(k)) for k in workbench.context)}")
    return "; ".join(kept) or "—"


def _run_label(run: Any) -> str:
    """The status of a thread's run: the one holding it now, else this kernel's latest."""
    if run is None:
        return "—"
    return "waiting for approval" if run.status == "interrupted" else RUN_LABEL.get(run.status, run.status)


RUN_LABEL = {"cancelled": "stopped", "error": "failed"}
"""A finished run's status as the threads table says it."""


def threads(args: Any) -> Table:
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


def history(args: Any) -> History:
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


def fork(args: Any, namespace: dict[str, Any] | None = None) -> ForkedThread:
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
    update = update_variable(args.update, namespace or {})
    _known_thread(workbench, thread)
    forked = ForkedThread(workbench.fork(thread, step_or_checkpoint(at), update))
    forked.line = forked_line(forked, thread, at, waiting_at(workbench, thread, at), prompt=False)
    if update:
        forked.line += f" Its state was updated with {', '.join(update)} from {args.update}."
    return forked


def state(args: Any) -> Any:
    """A thread's state at a step (now, without one)."""
    workbench: Session = building.get(args.agent, build=False)
    thread, steps = thread_and_steps(
        workbench, args.thread, [args.thread_word, args.step_word], 1, command="state"
    )
    _known_thread(workbench, thread)
    return workbench.state(thread, step_or_checkpoint(steps[0]) if steps else None)


def diff(args: Any) -> Any:
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


def new(args: Any) -> Message:
    workbench: Session = building.get(args.agent, build=False)
    return Message(f"New thread {workbench.new_thread()} on agent {workbench.name!r}.")


def todos(args: Any) -> TodoList:
    workbench: Session = building.get(args.agent, build=False)
    thread = args.thread or workbench.current_thread
    run = workbench.active_run(thread) or workbench.latest_run(thread)
    return TodoList(
        workbench.todos(thread),
        f"Todos of agent {workbench.name!r}, thread {thread}",
        run_status=run.status if run is not None else None,
    )


def files(args: Any) -> Any:
    """A folder's listing or a file rendered; ``files = %deepagent files`` also gives the data."""
    # lazy: the file browser loads anywidget, which %load_ext deepnb does not need
    from deepnb.views.files.files_view import show_files  # noqa: PLC0415

    return show_files(building.get(args.agent, build=False).files(args.thread), args.path)


def repl(args: Any) -> Any:
    """The thread's interpreter globals (``run.interpreter``); displayed, a table."""
    workbench = building.get(args.agent, build=False)
    return Interpreter(workbench, args.thread or workbench.current_thread)


def js(args: Any) -> Any:
    """The value of some JavaScript evaluated against a copy of the thread's interpreter state."""
    workbench = building.get(args.agent, build=False)
    return Interpreter(workbench, args.thread or workbench.current_thread).eval(" ".join(args.code))


def tree(args: Any) -> Any:
    """The subagent tree of the thread's latest run (``run.tree``); displayed, a static view."""
    return building.get(args.agent, build=False).tree(args.thread)


def graph(args: Any) -> Any:
    """The agent's graph drawn (``workbench.draw_graph()``), its subgraphs' nodes inside them
    unless ``--no-xray``."""
    return building.get(args.agent, build=False).draw_graph(xray=not args.no_xray)


def inspect(args: Any) -> Any:
    """The agent's anatomy (``workbench.inspect()``); an agent ``deepnb.toml`` defines is not built
    for it (the message says how to build it)."""
    return building.get(args.agent, build=False).inspect()


@safe_display
@dataclass(frozen=True, repr=False)
class Stopped(Message):
    """``%deepagent stop``'s answer: one line, not a second copy of the run's view (the view
    already on the page shows where it stopped); ``run`` is the run it stopped."""

    run: Any = None


def stop(args: Any) -> Any:
    """Stop the run holding the thread; say so in one line."""
    workbench = building.get(args.agent, build=False)
    run = workbench.stop(args.thread)
    return Stopped(
        f"Stopped the run on thread {run.thread_id} of agent {workbench.name}; "
        "the thread keeps everything up to the last step.",
        run,
    )


def steer(args: Any) -> Any:
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


def approvals(args: Any) -> Any:
    """The run waiting for approval on a thread; displayed, it shows its approval cards."""
    return building.get(args.agent, build=False).pending_run(args.thread)


def resume(args: Any) -> Any:
    """Pending approvals come back as their run; a failed or stopped run continues."""
    return building.get(args.agent).resume(args.thread)


def extension(args: Any) -> Message:
    """Load the extension(s) at a path; say what each registered, or why it failed."""
    lines = []
    for source, error in ext.load(args.path):
        if error:
            lines.append(f"Extension {source.label} failed, nothing of it is registered: {error}")
        else:
            lines.append(f"Loaded extension {source.label}{_registered(source.key)}.")
            lines += _skipped(source.key)
    return Message("\n".join(lines + _reload_hint()) or f"No extensions in {args.path}.")


def _registered(key: str) -> str:
    kinds = [f"{r.kind} {r.name}" for r in REGISTRY.registrations if r.source.key == key]
    return f": {', '.join(kinds)}" if kinds else " (it registered nothing)"


def _skipped(key: str) -> list[str]:
    """One line for each name or route the extension lost to an earlier one (first wins)."""
    return [f"  {note[:1].upper()}{note[1:]}." for k, note in REGISTRY.ignored if k == key]


def _project_folders(root: Path) -> str:
    """The project's extension folders a trust covers, as they exist."""
    if (root / ".deepagents" / "extensions").is_dir():
        return ".deepnb/extensions/ and .deepagents/extensions/"
    return ".deepnb/extensions/"


def mcp(args: Any) -> Any:
    """The agent's MCP servers and their tools; an agent ``deepnb.toml`` defines is not built
    for it (the message says how to build it)."""
    workbench = building.get(args.agent, build=False)
    return mcp_listing(workbench.name, workbench.mcp())


def _reload_hint() -> list[str]:
    stale = ext.listing().reload_needed
    if not stale:
        return []
    return [f"Run %deepagent reload to give {', '.join(stale)} the new middleware and routes."]


def extensions(args: Any) -> Any:
    return ext.listing()


def extension_command(line: str) -> Message:
    """``%deepagent /name ARGS``: run an extension's command and show what it says."""
    name, _, rest = line.strip().partition(" ")
    said = ext.run_command(name, rest.strip())
    return Message(redact(said) if said is not None else f"{name} ran (it said nothing).")


def trust(args: Any) -> Message:
    if args.revoke:
        return _revoke_trust(args.path)

    root, results = ext.trust(args.path)
    lines = [f"Trusted {root}: its {_project_folders(root)} run from now on."]
    try:
        config = find_config(root)
    except DeepnbError:  # a broken file says so when an agent is built from it
        config = None
    if config is not None and config.agents:
        lines.append(
            f"Its {config.path.name} agents may import code and reach outside it: "
            "a cell with -a NAME builds one."
        )
    for source, error in results:
        lines.append(
            f"Extension {source.label} failed, nothing of it is registered: {error}"
            if error
            else f"Loaded extension {source.label}{_registered(source.key)}."
        )
        lines += [] if error else _skipped(source.key)
    return Message("\n".join(lines + _reload_hint()))


def _revoke_trust(path: str | None) -> Message:
    root, was_trusted, unloaded, errors = ext.revoke_trust(path)
    if not was_trusted:
        return Message(f"{root} was not trusted: nothing changed.")
    lines = [f"{root} is no longer trusted: its {_project_folders(root)} will not run."]
    if unloaded:
        lines.append(f"Unloaded {', '.join(unloaded)}; their tools leave the next model call.")
    lines += [f"deepnb: {error}" for error in errors]
    stale = ext.listing().reload_needed if unloaded else ()
    if stale:
        names = ", ".join(stale)
        lines.append(f"Run %deepagent reload to rebuild {names} without their middleware and routes.")
    return Message("\n".join(lines))


def trace(args: Any) -> Message:
    """``%deepagent trace on|off|status``: tracing turned on or off, and its status."""
    action = args.action or "status"
    if action not in ("on", "off", "status"):
        raise DeepnbError(f"%deepagent trace takes on, off or status, not {action!r}.")
    if action != "on" and (args.endpoint or args.project):
        raise DeepnbError("--endpoint and --project go with on: %deepagent trace on --endpoint URL.")
    if action == "on":
        return Message(repr(tracing.trace(args.endpoint, project=args.project, source="%deepagent trace on")))
    return Message(repr(tracing.turn_off() if action == "off" else tracing.status()))


def reload(args: Any) -> Message:
    rebuilt = building.reload(args.agent)
    if not rebuilt:
        return Message("No agents to rebuild: define one with %deepagent define NAME -m MODEL.")
    names = ", ".join(w.name for w in rebuilt)
    return Message(f"Rebuilt {names} with the current extensions (threads kept).")


def deploy(args: Any) -> Message:
    """Write the project's agents as an Agent Server app into ``args.path``."""
    from deepnb.ship.deploy import deploy as write  # noqa: PLC0415  # lazy: it imports deepagents' config

    return Message(repr(write(args.path, agents=args.agent, force=args.force)))


def serve(args: Any) -> Any:
    """Start ``langgraph dev`` on the project's agents (its server object), or stop it."""
    # lazy: serving imports the deployment code and subprocess handling no other command needs
    from deepnb.ship import serve as serving  # noqa: PLC0415

    if args.stop:
        if args.agent or args.port is not None:
            raise DeepnbError("--stop takes no other option: %deepagent serve --stop.")
        stopped = serving.stop()
        if stopped is None:
            return Message("No server of this kernel is running.")
        return Message(f"Stopped the server at {stopped.url}.")
    return serving.serve(args.agent, port=_port(args.port))


def _port(text: str | None) -> int | None:
    if text is None:
        return None
    if not text.isdigit():
        raise DeepnbError(f"--port {text!r} is not a port number: give one such as --port 2024.")
    return int(text)


def export(args: Any) -> Message:
    """Write a thread as a standalone notebook (``deepnb.export``); say where, in one line."""
    from deepnb.ship.exporting import export_thread  # noqa: PLC0415  # lazy: it loads nbformat

    session: Session = building.get(args.agent, build=False)
    return Message(repr(export_thread(session, args.path, thread=args.thread, force=args.force)))
