"""What each ``%deepagent`` subcommand and the ``%%deepagent`` cell do, given parsed arguments."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from deepnb.errors import DeepnbError
from deepnb.render import escape
from deepnb.safe_display import safe_display
from deepnb.schema import TODO_STATUS_MARK, shown_as


@safe_display
@dataclass(frozen=True)
class Table:
    """A small table that shows as text and as escaped HTML; ``rows`` holds the data."""

    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    empty: str = "Nothing yet."

    def __len__(self) -> int:
        return len(self.rows)

    def __repr__(self) -> str:
        if not self.rows:
            return self.empty
        cells = [self.columns, *[tuple(str(c) for c in row) for row in self.rows]]
        widths = [max(len(str(row[i])) for row in cells) for i in range(len(self.columns))]
        return "\n".join(
            "  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells
        )

    def _repr_html_(self) -> str:
        if not self.rows:
            return f"<p>{escape(self.empty)}</p>"
        head = "".join(f"<th>{escape(c)}</th>" for c in self.columns)
        body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in self.rows)
        return f'<table class="deepnb-table"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


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


def workbench_for(
    name: str | None, model: str | None, options: dict[str, Any], namespace: dict[str, Any]
) -> Any:
    """The workbench a cell runs on: defined on first use, rebuilt when ``-m`` or an option
    (``--interrupt-on``, ``--interpreter``) changes it (its threads are kept). ``options`` holds
    the cell's agent options, ``None`` where the cell doesn't set one."""
    from deepnb import workbench as wb
    from deepnb.checkpoint import make_checkpointer
    from deepnb.models import resolve_model
    from deepnb.spec import AgentSpec

    name = name or wb.current_name()
    changes = {key: value for key, value in options.items() if value is not None}
    existing = _registered_or_config(name, skip_untrusted=model is not None)
    if existing is None:
        if model is None and not os.environ.get("DEEPNB_MODEL") and name != wb.DEFAULT_AGENT:
            wb.get(name)  # raises: no such agent, with how to define it
        chat = resolve_model(model, namespace)
        spec = AgentSpec(chat, model or os.environ["DEEPNB_MODEL"], changes)
        return wb._install(name, spec, make_checkpointer("memory"), None)
    if model is None and not changes:
        return existing
    if existing.spec is None:
        raise DeepnbError(
            f"Agent {name!r} was attached as a compiled graph: change its model or options in "
            "Python and attach it again."
        )
    spec = existing.declared_spec
    if model is not None and model != spec.model_label:
        spec = AgentSpec(resolve_model(model, namespace), model, spec.options, spec.todos)
    different = {k: v for k, v in changes.items() if spec.options.get(k) != v}
    if different:
        spec = spec.with_options(**different)
    return existing if spec is existing.declared_spec else wb.rebuild(existing, spec)


def _registered_or_config(name: str, *, skip_untrusted: bool) -> Any:
    """The workbench ``name``: registered, or built now from ``deepnb.toml``. With
    ``skip_untrusted`` (the cell names its model), a definition that waits for trust is left
    out, said in one line, and the cell builds its agent from its own options."""
    import sys

    from deepnb import workbench as wb
    from deepnb.config import UntrustedConfig

    try:
        return wb.lookup(name)
    except UntrustedConfig as exc:
        if not skip_untrusted:
            raise
        print(f"deepnb: {exc} Running -m's model without it.", file=sys.stderr)
        return None


def define(args: Any, namespace: dict[str, Any]) -> Message:
    from deepnb import workbench as wb
    from deepnb.spec import parse_interrupt_on

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
        workbench = wb.agent(args.name, model, checkpointer=args.checkpointer or "memory", **options)
    hint = (
        ""
        if wb.current_name() == args.name
        else (
            f" Run it with %%deepagent -a {args.name}, or make it the default with "
            f"%deepagent use {args.name}."
        )
    )
    return Message(f"Defined agent {args.name!r} (model {workbench.label}).{hint}")


def _define_from(args: Any, model: Any, options: dict[str, Any], namespace: dict[str, Any]) -> Any:
    from deepnb.config import define_from

    if args.from_var not in namespace:
        raise DeepnbError(
            f"No variable {args.from_var!r}: assign a dict of agent options to it first, e.g. "
            f"{args.from_var} = {{'model': 'demo:quickstart', 'tools': [...]}}."
        )
    overrides = {"model": model, "checkpointer": args.checkpointer, **options}
    return define_from(
        args.name, namespace[args.from_var], variable=args.from_var, namespace=namespace, overrides=overrides
    )


def use(args: Any) -> Message:
    from deepnb import workbench as wb

    workbench = wb.use(args.name)
    if workbench is None:
        return Message(
            f"Using agent {args.name!r}: it is defined in deepnb.toml and built when a cell runs it."
        )
    return Message(
        f"Using agent {workbench.name!r} (model {workbench.label}), thread {workbench.current_thread}."
    )


def agents() -> Table:
    from deepnb import workbench as wb
    from deepnb.config import find_config

    current = wb.current_name()
    built = wb.registered()
    rows = [
        ("*" if name == current else "", name, w.label, w._current_thread or "-", w.origin or "")
        for name, w in built.items()
    ]
    config = find_config()
    defined, shown = (config.agents, config.shown) if config else ({}, "")
    for name, table in defined.items():
        if name not in built:
            model = table.get("model", "$DEEPNB_MODEL") if isinstance(table, dict) else "?"
            rows.append(("*" if name == current else "", name, str(model), "(not built)", shown))
    return Table(
        ("", "agent", "model", "thread", "defined in"),
        tuple(sorted(rows, key=lambda row: row[1])),
        empty="No agents yet: run a %%deepagent cell with -m MODEL, or %deepagent define NAME -m MODEL.",
    )


def _run_label(run: Any) -> str:
    if run is None:
        return ""
    return "waiting for approval" if run.status == "interrupted" else run.status


def threads(args: Any) -> Table:
    from deepnb import workbench as wb

    workbench = wb.get(args.agent, build=False)
    current = workbench._current_thread
    rows = tuple(
        (
            "*" if t.thread_id == current else "",
            t.thread_id,
            t.updated_at[:19].replace("T", " "),
            t.steps,
            _run_label(workbench.active_run(t.thread_id)),
        )
        for t in workbench.threads()
    )
    return Table(
        ("", "thread", "updated (UTC)", "steps", "run"),
        rows,
        empty=f"Agent {workbench.name!r} has no threads yet.",
    )


def new(args: Any) -> Message:
    from deepnb import workbench as wb

    workbench = wb.get(args.agent, build=False)
    return Message(f"New thread {workbench.new_thread()} on agent {workbench.name!r}.")


@safe_display
class TodoList:
    """A thread's todo list, shown as text or HTML; ``items`` holds the data."""

    def __init__(self, items: Sequence[dict[str, str]], title: str) -> None:
        self.items = list(items)
        self.title = title

    def __repr__(self) -> str:
        if not self.items:
            return f"{self.title}: no todos."
        return "\n".join(
            [f"{self.title}:"]
            + [f"  {shown_as(TODO_STATUS_MARK, t['status'], '○')} {t['content']}" for t in self.items]
        )

    def _repr_html_(self) -> str:
        from deepnb.state import todo_progress
        from deepnb.views.snapshot import todos_html

        body = todos_html(self.items, todo_progress(self.items)) or "<p>No todos.</p>"
        return f'<div class="deepnb-snapshot"><div>{escape(self.title)}</div>{body}</div>'


def todos(args: Any) -> TodoList:
    from deepnb import workbench as wb

    workbench = wb.get(args.agent, build=False)
    thread = args.thread or workbench.current_thread
    return TodoList(workbench.todos(thread), f"Todos of agent {workbench.name!r}, thread {thread}")


def files(args: Any) -> Any:
    """A folder's listing or a file rendered; ``files = %deepagent files`` also gives the data."""
    from deepnb import workbench as wb
    from deepnb.files.display import show

    return show(wb.get(args.agent, build=False).files(args.thread), args.path)


def repl(args: Any) -> Any:
    """The thread's interpreter globals (``run.interpreter``); displayed, a table."""
    from deepnb import workbench as wb
    from deepnb.interpreter import Interpreter

    workbench = wb.get(args.agent, build=False)
    return Interpreter(workbench, args.thread or workbench.current_thread)


def js(args: Any) -> Any:
    """The value of some JavaScript evaluated against a copy of the thread's interpreter state."""
    from deepnb import workbench as wb
    from deepnb.interpreter import Interpreter

    workbench = wb.get(args.agent, build=False)
    return Interpreter(workbench, args.thread or workbench.current_thread).eval(" ".join(args.code))


def tree(args: Any) -> Any:
    """The subagent tree of the thread's latest run (``run.tree``); displayed, a static view."""
    from deepnb import workbench as wb

    return wb.get(args.agent, build=False).tree(args.thread)


def stop(args: Any) -> Any:
    from deepnb import workbench as wb

    workbench = wb.get(args.agent, build=False)
    thread = args.thread or workbench.current_thread
    run = workbench.active_run(thread)
    if run is None:
        raise DeepnbError(f"Nothing is running on thread {thread!r} of agent {workbench.name!r}.")
    run.stop()
    return run


def approvals(args: Any) -> Any:
    """The run waiting for approval on a thread; displayed, it shows its approval cards."""
    from deepnb import workbench as wb

    return wb.get(args.agent, build=False).pending_run(args.thread)


def resume(args: Any) -> Any:
    """Pending approvals come back as their run; a failed or stopped run continues."""
    from deepnb import workbench as wb

    return wb.get(args.agent).resume(args.thread)


def extension(args: Any) -> Message:
    """Load the extension(s) at a path; say what each registered, or why it failed."""
    from deepnb import extensions

    lines = []
    for source, error in extensions.load(args.path):
        if error:
            lines.append(f"Extension {source.label} failed, nothing of it is registered: {error}")
        else:
            lines.append(f"Loaded extension {source.label}{_registered(source.key)}.")
    return Message("\n".join(lines + _reload_hint()) or f"No extensions in {args.path}.")


def _registered(key: str) -> str:
    from deepnb.extensions.registry import REGISTRY

    kinds = [f"{r.kind} {r.name}" for r in REGISTRY.registrations if r.source.key == key]
    return f": {', '.join(kinds)}" if kinds else " (it registered nothing)"


def _reload_hint() -> list[str]:
    from deepnb.extensions import listing

    stale = listing().reload_needed
    if not stale:
        return []
    return [f"Run %deepagent reload to give {', '.join(stale)} the new middleware and routes."]


def extensions(args: Any) -> Any:
    from deepnb import extensions as ext

    return ext.listing()


def trust(args: Any) -> Message:
    from deepnb import extensions

    if args.revoke:
        return _revoke_trust(args.path)
    from deepnb.config import find_config

    root, results = extensions.trust(args.path)
    lines = [f"Trusted {root}: its .deepnb/extensions/ run from now on."]
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
    return Message("\n".join(lines + _reload_hint()))


def _revoke_trust(path: str | None) -> Message:
    from deepnb import extensions

    root, was_trusted, unloaded, errors = extensions.revoke_trust(path)
    if not was_trusted:
        return Message(f"{root} was not trusted: nothing changed.")
    lines = [f"{root} is no longer trusted: its .deepnb/extensions/ will not run."]
    if unloaded:
        lines.append(f"Unloaded {', '.join(unloaded)}; their tools leave the next model call.")
    lines += [f"deepnb: {error}" for error in errors]
    stale = extensions.listing().reload_needed if unloaded else ()
    if stale:
        names = ", ".join(stale)
        lines.append(f"Run %deepagent reload to rebuild {names} without their middleware and routes.")
    return Message("\n".join(lines))


def reload(args: Any) -> Message:
    from deepnb import workbench as wb

    rebuilt = wb.reload(args.agent)
    if not rebuilt:
        return Message("No agents to rebuild: define one with %deepagent define NAME -m MODEL.")
    names = ", ".join(w.name for w in rebuilt)
    return Message(f"Rebuilt {names} with the current extensions (threads kept).")
