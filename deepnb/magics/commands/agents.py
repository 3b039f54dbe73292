"""``%deepagent`` subcommands that define agents, choose one and show what one is made of; and
the help."""

from __future__ import annotations

import os
from typing import Any

from deepnb.core.errors import DeepnbError
from deepnb.core.text.secrets import redact
from deepnb.engine.spec import parse_interrupt_on
from deepnb.magics.commands.cell import interpreter_option
from deepnb.magics.commands.common import Message
from deepnb.magics.help import usage
from deepnb.session import agents as agent_registry
from deepnb.session import building
from deepnb.session.config import find_config
from deepnb.session.protocol import Session
from deepnb.session.remote.connecting import connect as connect_to
from deepnb.views.listings import Table, mcp_listing


def help_(args: Any, namespace: dict[str, Any]) -> Message:
    """What ``%deepagent`` can do: the cell's options and every subcommand."""
    return Message(usage())


def connect(args: Any, namespace: dict[str, Any]) -> Message:
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


def use(args: Any, namespace: dict[str, Any]) -> Message:
    workbench: Session | None = building.use(args.name)
    if workbench is None:
        return Message(
            f"Using agent {args.name!r}: it is defined in deepnb.toml and built when a cell runs it."
        )
    return Message(
        f"Using agent {workbench.name!r} (model {workbench.label}), thread {workbench.current_thread}."
    )


def agents(args: Any, namespace: dict[str, Any]) -> Table:
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


def inspect(args: Any, namespace: dict[str, Any]) -> Any:
    """The agent's anatomy (``workbench.inspect()``); an agent ``deepnb.toml`` defines is not built
    for it (the message says how to build it)."""
    return building.get(args.agent, build=False).inspect()


def graph(args: Any, namespace: dict[str, Any]) -> Any:
    """The agent's graph drawn (``workbench.draw_graph()``), its subgraphs' nodes inside them
    unless ``--no-xray``."""
    return building.get(args.agent, build=False).draw_graph(xray=not args.no_xray)


def mcp(args: Any, namespace: dict[str, Any]) -> Any:
    """The agent's MCP servers and their tools; an agent ``deepnb.toml`` defines is not built
    for it (the message says how to build it)."""
    workbench = building.get(args.agent, build=False)
    return mcp_listing(workbench.name, workbench.mcp())


def reload(args: Any, namespace: dict[str, Any]) -> Message:
    rebuilt = building.reload(args.agent)
    if not rebuilt:
        return Message("No agents to rebuild: define one with %deepagent define NAME -m MODEL.")
    names = ", ".join(w.name for w in rebuilt)
    return Message(f"Rebuilt {names} with the current extensions (threads kept).")
