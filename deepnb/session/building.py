"""Building agents and registering them: from Python keyword arguments (``deepnb.agent``), a
compiled graph (``deepnb.attach``), the project's ``deepnb.toml`` (parsed by :mod:`deepnb.session.config`)
or a dict (``%deepagent define NAME --from VAR``); and finding an agent by name, built on first
use where the project's config defines it."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NoReturn

from deepnb.core.errors import DeepnbError
from deepnb.core.threads.checkpointers import CheckpointerSpec, make_checkpointer
from deepnb.core.threads.serde import allow, graph_types
from deepnb.core.trust import is_trusted
from deepnb.engine.files.setup import FileSetup
from deepnb.engine.spec import AgentSpec, model_label
from deepnb.extensions.store import give_store
from deepnb.session import agents
from deepnb.session.agents import DEFAULT_AGENT
from deepnb.session.config import Definition, Key, agent_names, describe_kind, find_config, parse_agent
from deepnb.session.graph_session import GraphSession
from deepnb.session.local import Workbench

# -- finding agents by name ----------------------------------------------------------------------


def get(name: str | None = None, *, build: bool = True) -> GraphSession:
    """The workbench registered as ``name`` (the current one by default). One the project's
    ``deepnb.toml`` defines is built on first use; with ``build=False`` (what only looks, such
    as ``%deepagent threads``) it is not, and an unbuilt one raises saying how to build it."""
    name = name or agents.current_name()
    found = lookup(name) if build else agents.find(name)
    if found is None:
        raise_unknown(name)
    return found


def raise_unknown(name: str) -> NoReturn:
    """Say that ``name`` is not built yet (``deepnb.toml`` defines it) or is no agent at all."""
    defined = agent_names()
    if name in defined:
        config = find_config()
        raise DeepnbError(
            f"Agent {name!r} is defined in {config.shown if config else 'deepnb.toml'} but not built yet: "
            f"run a %%deepagent cell with -a {name} (or %deepagent resume -a {name}) to build it."
        )
    known = ", ".join(sorted({*agents.registered(), *defined})) or "none yet"
    raise DeepnbError(
        f"No agent named {name!r} (defined: {known}). Define it with %deepagent define {name} "
        f"-m MODEL, add [agents.{name}] to deepnb.toml, or pass -m MODEL to a %%deepagent cell."
    )


def lookup(name: str) -> GraphSession | None:
    """The workbench registered as ``name``; else the one ``deepnb.toml`` defines, built now
    (if the project is trusted where the agent needs it); else ``None``."""
    found = agents.find(name)
    if found is None:
        found = load_agent(name)
    return found


def use(name: str) -> GraphSession | None:
    """Make ``name`` the current agent. One ``deepnb.toml`` defines is not built here (``None``
    then): the next cell that runs it builds it."""
    workbench = agents.find(name)
    if workbench is None and name not in agent_names():
        raise_unknown(name)
    agents.set_current(name)
    return workbench


# -- building ------------------------------------------------------------------------------------


def install(
    name: str, spec: AgentSpec, saver: Any, previous: GraphSession | None, *, origin: str | None = None
) -> Workbench:
    """Build ``spec`` with the registered extensions and register it as ``name``."""
    workbench = _built(name, spec, saver, origin=origin)
    if previous is not None and previous.checkpointer is saver:
        workbench.carry_over(previous)
    return agents.register(workbench)


def variant(name: str, spec: AgentSpec, saver: Any, *, origin: str | None = None) -> Workbench:
    """A workbench named ``name`` built from ``spec`` (with the registered extensions) on
    ``saver``, not registered: the agent registered as ``name``, if any, stays as it is
    (``deepnb.compare`` runs its models so)."""
    return _built(name, spec, saver, origin=origin)


def _built(name: str, spec: AgentSpec, saver: Any, *, origin: str | None) -> Workbench:
    from deepnb.extensions.hosting import apply  # noqa: PLC0415  # lazy: it imports langchain

    effective, applied = apply(spec)
    graph = effective.build(name=name, checkpointer=saver)
    allow(saver, graph_types(graph, effective.options.get("response_format")))
    workbench = Workbench(name, graph, saver, spec=effective, origin=origin)
    workbench.extensions = applied
    return workbench


def agent(
    name: str = DEFAULT_AGENT,
    model: Any = None,
    *,
    checkpointer: CheckpointerSpec = "memory",
    todos: bool = True,
    **options: Any,
) -> Workbench:
    """Build a deep agent and register it as ``name``.

    ``model`` is a chat model, ``provider:model``, ``scripted:PATH`` or ``demo:NAME`` (default:
    ``$DEEPNB_MODEL``); ``options`` are ``create_deep_agent``'s keyword arguments; ``checkpointer``
    is ``"memory"``, ``"sqlite:PATH"`` or a LangGraph checkpointer. ``mcp_servers`` (``{name:
    connection}`` in ``langchain-mcp-adapters``' shapes) gives the agent those servers' tools,
    listed when it is built. An agent already registered under ``name`` keeps its threads when it
    is rebuilt.
    """
    from deepnb.models import resolve_model  # noqa: PLC0415  # lazy: it imports langchain_core

    spec = AgentSpec(
        resolve_model(model),
        model_label(model) if model else "$DEEPNB_MODEL",
        options=options,
        todos=todos,
    )
    previous = agents.find(name)
    saver = (
        previous.checkpointer if previous and checkpointer == "memory" else make_checkpointer(checkpointer)
    )
    return install(name, spec, saver, previous)


def rebuild(workbench: GraphSession, spec: AgentSpec) -> Workbench:
    """Rebuild ``workbench`` from ``spec``, keeping its checkpointer and threads."""
    return install(workbench.name, spec, workbench.checkpointer, workbench)


def reload(name: str | None = None) -> list[Workbench]:
    """Rebuild one agent, or every agent built from a spec, with the extensions registered now
    (an agent from ``deepnb.toml`` is read from it again); threads are kept."""
    targets = [get(name)] if name else [w for w in agents.registered().values() if w.spec is not None]
    if name and (why := targets[0].cannot_rebuild):
        raise DeepnbError(f"Agent {name!r} cannot be reloaded ({why}): {targets[0].how_to_change}.")
    rebuilt = []
    for workbench in targets:
        if workbench.origin:
            reloaded = load_agent(workbench.name, previous=workbench)
            assert reloaded is not None  # with previous=, load_agent raises when the agent is gone
            rebuilt.append(reloaded)
        else:
            spec = workbench.declared_spec
            assert spec is not None
            rebuilt.append(install(workbench.name, spec, workbench.checkpointer, workbench))
    return rebuilt


def attach(
    graph: Any,
    name: str = DEFAULT_AGENT,
    *,
    checkpointer: CheckpointerSpec = None,
    backend: Any = None,
    context: Mapping[str, Any] | None = None,
) -> Workbench:
    """Register an agent you compiled yourself. Without a checkpointer of its own, it gets one
    (``"memory"`` by default) so it can keep threads; without a store, the kernel's in-memory one.
    Its files are read through the backend of its filesystem middleware (a subagent's if the main
    agent has none); ``backend`` names it where deepnb cannot find it in the graph (e.g. a custom
    tool writing to a folder). ``context``: the runtime context every run gets (a graph with a
    ``context_schema`` needs one unless the schema's defaults make it)."""
    if context is not None and not isinstance(context, Mapping):
        raise DeepnbError(f"context= is a dict of runtime context keys, not a {type(context).__name__}.")
    if not hasattr(graph, "astream") or not hasattr(graph, "aget_state"):
        raise DeepnbError(f"{type(graph).__name__} is not a compiled LangGraph agent.")
    saver = getattr(graph, "checkpointer", None)
    if checkpointer is not None or not saver:
        saver = make_checkpointer(checkpointer)
        graph = graph.copy(update={"checkpointer": saver})
        allow(saver, graph_types(graph))  # the graph's own state types: the user's code
    no_store = give_store(graph, name)  # a StoreBackend route needs one, as under langgraph dev
    if no_store:
        print(f"deepnb: {no_store}", file=sys.stderr)
    files = FileSetup.of_graph(graph, backend=backend) if backend is not None else None
    workbench = Workbench(name, graph, saver, label=type(graph).__name__, files=files)
    workbench.context = dict(context) if context else None
    return agents.register(workbench)


# -- from a config -------------------------------------------------------------------------------


def load_agent(name: str, *, previous: GraphSession | None = None) -> Workbench | None:
    """Build the agent ``name`` from the project's config and register it (``None`` if the
    config does not define it). With ``previous``, rebuild that one, keeping its threads."""
    config = find_config()
    if config is None or name not in config.agents:
        if previous is not None:
            raise DeepnbError(
                f"{previous.origin} no longer defines agent {name!r}: add it back, or define it in Python."
            )
        return None
    root = config.path.parent
    definition = parse_agent(
        config.agents[name],
        Key(config.shown, f"{config.prefix}.{name}"),
        base_dir=root,
        trusted=is_trusted(root),
    )
    return _install_definition(
        name,
        definition,
        origin=config.shown,
        previous=previous,
        key=Key(config.shown, f"{config.prefix}.{name}"),
    )


def define_from(
    name: str,
    value: Any,
    *,
    variable: str,
    namespace: Mapping[str, Any],
    overrides: Mapping[str, Any] | None = None,
) -> Workbench:
    """``%deepagent define NAME --from VAR``: build ``NAME`` from the dict in ``VAR`` (same keys
    as a ``deepnb.toml`` agent table; values may also be objects: tools, a chat model, a
    backend). ``overrides`` are the line's options, which win over the dict's."""
    if not isinstance(value, Mapping):
        raise DeepnbError(
            f"{variable} holds {describe_kind(value)}: "
            "--from needs a dict of agent options (model, tools, …)."
        )
    table = {**value, **{k: v for k, v in (overrides or {}).items() if v is not None}}
    definition = parse_agent(table, Key(variable), base_dir=Path.cwd(), namespace=namespace)
    return _install_definition(name, definition, origin=None, previous=agents.find(name), key=Key(variable))


def _install_definition(
    name: str, definition: Definition, *, origin: str | None, previous: GraphSession | None, key: Key
) -> Workbench:
    spec = AgentSpec(definition.model, definition.label, definition.options, definition.todos)
    keep = previous is not None and (definition.checkpointer == "memory" or origin is not None)
    try:
        saver = previous.checkpointer if keep and previous else make_checkpointer(definition.checkpointer)
    except DeepnbError as exc:
        raise (key / "checkpointer").error(str(exc)) from None
    return install(name, spec, saver, previous, origin=origin)
